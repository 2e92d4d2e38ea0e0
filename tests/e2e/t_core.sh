# t_core.sh - the spine (issue #2): located errors, exact counts from real
# tracepoints, the run-queue one-liner, map printing, CLI basics.

# -- bad input: exit status 1 and the whole located message (golden) --------
for bt in "$top"/tests/e2e/errors/*.bt; do
	name=$(basename "$bt" .bt)
	# a script that compiles after all would run until stopped: the
	# timeout turns that into a failure instead of a hang
	got=$(cd "$top/tests/e2e/errors" && timeout 60 "$SONDE" "$name.bt" 2>&1 >/dev/null; echo "rc=$?")
	expect_eq "error:$name" "$(cat "${bt%.bt}.err")" "$got"
done

# -- kprobes where the kernel has none: a located error; where it has them
#    (the kernel VM suite, tests/vm/t_kprobe.sh, counts them) they compile
if [ -e /sys/bus/event_source/devices/kprobe ]; then
	got=$(timeout 60 "$SONDE" --emit ir -e 'kprobe:do_nanosleep { @ = count(); }' >/dev/null 2>&1; echo "rc=$?")
	expect_eq error:kprobe_unavailable "rc=0" "$got"
else
	got=$(timeout 60 "$SONDE" -e 'kprobe:do_nanosleep { @ = count(); }' 2>&1 >/dev/null; echo "rc=$?")
	expect_eq error:kprobe_unavailable "stdin:1:1: error: this kernel has no kprobes (no kprobe event source): use a tracepoint instead (sonde -l 'tracepoint:*')
kprobe:do_nanosleep { @ = count(); }
^~~~~~~~~~~~~~~~~~~
rc=1" "$got"
fi

if need_root core:bpf; then

# -- exact counts: every ioctl of the child, keyed by command ----------------
build_workload ioctl_loop
out=$("$SONDE" -q -c "$B/ioctl_loop 1000 0x5401" \
	-e 'tracepoint:syscalls:sys_enter_ioctl /pid == cpid/ { @[args->cmd] = count(); }' 2>&1)
expect_eq core:ioctl_count_exact $'\n\n@[21505]: 1000' "$out"

out=$("$SONDE" -q -c "$B/ioctl_loop 300 0xc0184601" \
	-e 't:syscalls:sys_enter_ioctl /pid == cpid/ { @c[args->fd > 2, args->cmd] = count(); @s = sum(args->cmd & 0xff); }' 2>&1)
expect_eq core:ioctl_two_keys_and_sum $'\n\n@c[1, 3222816257]: 300\n@s: 300' "$out"

# -- the run-queue one-liner from the README: two busy threads on one CPU ----
build_workload spin
out=$("$SONDE" -q -c "$B/spin 2 400" -e 'tracepoint:sched:sched_wakeup { @qt[args->pid] = nsecs; }
tracepoint:sched:sched_switch /@qt[args->next_pid]/ { @runq_us = hist((nsecs - @qt[args->next_pid]) / 1000); delete(@qt[args->next_pid]); }' 2>&1)
expect_match core:runqlat_hist_header '^@runq_us: $' "$out"
expect_match core:runqlat_hist_buckets '^\[[0-9]+(K|M)?, [0-9]+(K|M)?\) +[0-9]+ \|@*' "$out"

# -- -c with a child that lives for well under 10 ms: sonde sees its whole
#    life and returns when it exits (a hang is what fails: timeout's 124;
#    no wall-clock bound, which a busy machine would break) ----------------
out=$(timeout 120 "$SONDE" -q -c true -e 'tracepoint:syscalls:sys_enter_exit_group /pid == cpid/ { @exits = count(); }' 2>&1)
rc=$?
expect_eq core:short_child_traced $'\n\n@exits: 1' "$out"
if [ "$rc" -ne 124 ]; then pass core:short_child_returns; else fail core:short_child_returns; echo "    still running after 120 s"; fi
out=$("$SONDE" -q -c false -e 'BEGIN { }' 2>&1 >/dev/null)
expect_eq core:child_status_reported 'sonde: command exited with status 1' "$out"
# a -c command that outlives the run and ignores SIGTERM, or is stopped,
# does not hold sonde's exit (SIGKILL follows); only a hang fails
for kind in ignores_term:"trap '' TERM; while :; do sleep 1; done" stopped:'kill -STOP $$; sleep 300'; do
	cmd=$(sh_script "child_${kind%%:*}" "${kind#*:}")
	timeout -k 10 120 "$SONDE" -q -c "$cmd" -e 'interval:ms:200 { exit(); }' >/dev/null 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then pass "core:child_${kind%%:*}_ends"; else
		fail "core:child_${kind%%:*}_ends"; echo "    rc $rc (124 or 137: still running after 120 s)"; fi
done
# a -c command killed while sonde still holds it before exec: the run goes
# on to END and says how the command ended (the go byte to the dead child
# was a SIGPIPE: rc 141, no END).  sonde is stopped while its held child
# (still sonde's executable) is killed, so that the kill comes first
timeout -k 10 120 "$SONDE" -q -c 'sleep 300' -e 'tracepoint:syscalls:sys_enter_get* { @[probe] = count(); }
END { printf("end\n"); }' > "$B/held.out" 2>&1 &
tp=$!
self=$(readlink -f "$SONDE")
held=no sp= c=
for ((i = 0; i < 3000; i++)); do
	[ -n "$sp" ] || read -r sp _ < "/proc/$tp/task/$tp/children"
	[ -n "$sp" ] && read -r c _ < "/proc/$sp/task/$sp/children"
	[ -n "$c" ] || ! kill -0 $tp 2>/dev/null && break
	sleep 0.01
done 2>/dev/null
if [ -n "$c" ]; then
	kill -STOP $sp
	[ "$(readlink /proc/$c/exe)" = "$self" ] && held=yes
	kill -KILL $c
	kill -CONT $sp
fi
wait $tp
rc=$?
if [ $held = yes ]; then
	expect_eq core:held_child_killed "rc=0 end sonde: command killed by signal 9" \
		"rc=$rc $(grep -E '^(end|sonde: command.*)$' "$B/held.out" | tr '\n' ' ' | sed 's/ $//')"
else
	skip core:held_child_killed "the command ran before sonde was stopped"
fi

# -- tracefs not mounted: sonde mounts it (here in a private mount namespace
#    where it was unmounted first) --------------------------------------------
if command -v unshare >/dev/null; then
	out=$(unshare -m --propagation private sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null;
		[ -e /sys/kernel/tracing/events ] && echo still-mounted;
		'$SONDE' -q -e 'tracepoint:sched:sched_switch { @switches = count(); } interval:ms:200 { exit(); }'" 2>&1)
	expect_match core:mounts_tracefs '^@switches: [1-9][0-9]*$' "$out"
	if printf '%s' "$out" | grep -q still-mounted; then fail core:mounts_tracefs_setup; fi
else
	skip core:mounts_tracefs "unshare (util-linux) is missing"
fi

# -- Ctrl-C ends tracing and prints the maps (the README's workflow) --------
rm -f "$B/sigint.out" "$B/wait.out"	# wait_for must not find the last run's lines
"$SONDE" -e 'tracepoint:sched:sched_switch { @switches = count(); }' > "$B/sigint.out" 2>&1 &
spid=$!
wait_for "$B/sigint.out" '^Attached' ; sleep 0.5; kill -INT $spid; wait $spid; rc=$?
expect_match core:sigint_prints_maps '^@switches: [1-9][0-9]*$' "$(cat "$B/sigint.out")"
expect_eq core:sigint_exit_status 0 "$rc"

# -- BEGIN and END without exit(): wait for Ctrl-C, then END (as bpftrace)
"$SONDE" -q -e 'BEGIN { printf("hi\n"); } END { printf("bye\n"); }' > "$B/wait.out" 2>&1 &
spid=$!
wait_for "$B/wait.out" '^hi$'; sleep 0.3
if kill -0 $spid 2>/dev/null; then pass core:begin_end_waits; else fail core:begin_end_waits; fi
kill -INT $spid; wait $spid
expect_eq core:begin_end_after_sigint $'hi\nbye' "$(cat "$B/wait.out")"

# -- map printing: every kind, exact bytes (checked against bpftrace 0.17) ---
out=$("$SONDE" -q -e 'BEGIN { @a = count(); @a = count(); @h = hist(5); @h = hist(100); @h = hist(0); @h = hist(-3);
 @l = lhist(5, 0, 100, 10); @l = lhist(95, 0, 100, 10); @s = stats(10); @s = stats(20); @v = avg(7); @v = avg(8);
 @mn = min(-5); @mn = min(3); @mx = max(9); @x[1, "abc"] = 3; @x[2, "d"] = 1; @neg -= 1; exit(); }' 2>&1)
expected=$(cat <<'OUT'


@a: 2
@h: 
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1]                    0 |                                                    |
[2, 4)                 0 |                                                    |
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 16)                0 |                                                    |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l: 
[0, 10)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[10, 20)               0 |                                                    |
[20, 30)               0 |                                                    |
[30, 40)               0 |                                                    |
[40, 50)               0 |                                                    |
[50, 60)               0 |                                                    |
[60, 70)               0 |                                                    |
[70, 80)               0 |                                                    |
[80, 90)               0 |                                                    |
[90, 100)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@mn: -5
@mx: 9
@neg: -1
@s: count 2, average 15, total 30

@v: 7

@x[2, d]: 1
@x[1, abc]: 3
OUT
)
expect_eq core:map_kinds_exact "$expected" "$out"

# -- hist values of 2^32 and above get their own buckets (0.17 clamps them) --
out=$("$SONDE" -q -e 'BEGIN { @h = hist(5000000000); @h = hist(1 << 40); exit(); }' 2>&1)
expect_match core:hist_64bit_buckets '^\[4G, 8G\) +1 \|' "$out"
expect_match core:hist_64bit_T '^\[1T, 2T\) +1 \|' "$out"

# -- printf: full 64-bit values and %% (both wrong in bpftrace 0.17) --------
out=$("$SONDE" -q -e 'BEGIN { printf("%d %u %x 100%%\n", -5000000000, 5000000000, 0x1122334455); exit(); }' 2>&1)
expect_eq core:printf_64bit '-5000000000 5000000000 1122334455 100%' "$out"

# -- interval probes fire, exit() stops, END runs before the maps print -----
out=$("$SONDE" -q -e 'interval:ms:150 { @n++; if (@n == 3) { exit(); } } END { printf("end %d\n", @n); }' 2>&1)
expect_eq core:interval_exit_end $'end 3\n\n\n@n: 3' "$out"

# -- after exit(), no probe runs its actions: the 1000th getppid's return
#    (single-threaded workload: its entry came first) is not counted, where
#    bpftrace 0.17 counts returns until it has detached ----------------------
build_workload syscall_loop
out=$("$SONDE" -q -c "$B/syscall_loop 200000" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n++; if (@n == 1000) { exit(); } }
tracepoint:syscalls:sys_exit_getppid /pid == cpid/ { @x++; }' 2>&1 | grep '^@')
expect_eq core:exit_stops_probes $'@n: 1000\n@x: 999' "$out"

# -- -f json: one valid object a line -----------------------------------------
out=$("$SONDE" -f json -e 'BEGIN { printf("a\"b\n"); @c[comm] = count(); @h = hist(3); exit(); }' 2>&1)
if printf '%s\n' "$out" | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin if l.strip()]' 2>/dev/null; then
	pass core:json_valid; else fail core:json_valid; printf '%s\n' "$out" | sed 's/^/    /'; fi
expect_match core:json_attached '^\{"type": "attached_probes", "data": \{"probes": 1\}\}$' "$out"

# -- CLI: --dry-run passes the verifier without running; --emit; -l ----------
out=$("$SONDE" --dry-run -e 'tracepoint:sched:sched_switch { @[args->prev_comm] = count(); } BEGIN { printf("no\n"); }' 2>&1; echo "rc=$?")
expect_match core:dry_run_ok 'dry run: 2 probes loaded and attached' "$out"
expect_match core:dry_run_no_begin_output 'rc=0' "$out"
if printf '%s' "$out" | grep -q '^no$'; then fail core:dry_run_skips_begin; else pass core:dry_run_skips_begin; fi
out=$("$SONDE" --emit ir -e 'BEGIN { @x = count(); }' 2>&1)
expect_match core:emit_ir 'section "raw_tp/sonde_run"' "$out"
out=$("$SONDE" --emit asm -e 'tracepoint:syscalls:sys_enter_ioctl { @[args->cmd] = count(); }' 2>&1)
expect_match core:emit_asm 'call 1$' "$out"
out=$("$SONDE" -l 'tracepoint:sched:sched_switch' 2>&1)
expect_eq core:list_tracepoint 'tracepoint:sched:sched_switch' "$out"
out=$("$SONDE" -l 'kprobe:vfs_read*' 2>&1; echo "rc=$?")
if [ -e /sys/bus/event_source/devices/kprobe ]; then
	expect_match core:list_kprobes '^kprobe:vfs_read' "$out"
else
	expect_match core:list_kprobes_absent "^sonde: this kernel has no kprobes .*rc=1$" "$(printf '%s' "$out" | tr '\n' ' ')"
fi
out=$("$SONDE" -lv 'tracepoint:syscalls:sys_enter_ioctl' 2>&1)
expect_match core:list_verbose_fields '^    unsigned int cmd$' "$out"
out=$("$SONDE" -q -e 'BEGIN { exit(); }' 2>&1 >/dev/null; "$SONDE" -e 'BEGIN { exit(); }' 2>&1 >/dev/null)
expect_eq core:attached_line 'Attached 1 probe' "$out"

fi
