# t_reliab.sh - no hang and no silent limit (issue 14): clear() and zero()
# on maps that probes keep writing, maps that fill up, and sonde's own
# activity feeding its probes.

if need_root reliab:bpf; then

# run a one-liner with a generous deadline: "timeout" is a hang, not a slow run
rl_run() { timeout -s KILL 20 "$SONDE" "$@"; }

# -- clear() and zero() take a snapshot of the keys: sonde's own bpf() calls
#    create keys again while it deletes them, and must not keep it busy ----
out=$(rl_run -q -e 'tracepoint:syscalls:sys_enter_bpf { @[pid] = count(); } interval:ms:100 { clear(@); exit(); }' 2>&1)
rc=$?
if [ $rc = 0 ]; then pass reliab:clear_while_written; else
	fail reliab:clear_while_written; echo "    exit status $rc"; printf '%s\n' "$out" | tail -5; fi
out=$(rl_run -q -e 'tracepoint:syscalls:sys_enter_bpf { @[pid] = count(); } interval:ms:100 { zero(@); exit(); }' 2>&1)
rc=$?
if [ $rc = 0 ]; then pass reliab:zero_while_written; else
	fail reliab:zero_while_written; echo "    exit status $rc"; printf '%s\n' "$out" | tail -5; fi
# bpftrace's "syscalls per second" one-liner: a keyless map that every
# system call on the machine writes
out=$(rl_run -q -e 'tracepoint:raw_syscalls:sys_enter { @ = count(); } interval:ms:100 { print(@); clear(@); } interval:ms:350 { exit(); }' 2>&1)
expect_match reliab:print_clear_per_interval '^@: [0-9]+
@: [0-9]+' "$(printf '%s\n' "$out" | grep '^@: ' | head -2)"
# clear() and zero() of what is there: the same bytes as bpftrace 0.17
# (they run when their event arrives, after the whole BEGIN: @a[3] goes too)
out=$(rl_run -q -e 'BEGIN { @a[1] = 5; @a[2] = 6; @c = count(); @x = 7; clear(@a); zero(@c); clear(@x); @a[3] = 1; exit(); }' 2>&1)
expect_eq reliab:clear_zero_exact $'\n\n\n@c: 0' "$out"

# -- a full map: the warning names the map and counts the lost updates
#    (300 distinct keys into 100) -------------------------------------------
build_workload syscall_loop
rl_full='tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @seen[nsecs] = count(); }'
out=$(rl_run -q --map-keys-max 100 -c "$B/syscall_loop 300" -e "$rl_full" 2>"$B/rl.err")
expect_eq reliab:map_full_keeps_max 100 "$(printf '%s\n' "$out" | grep -c '^@seen\[')"
expect_eq reliab:map_full_warns "sonde: warning: map '@seen' was full (100 keys): 200 updates were lost; raise the limit with --map-keys-max N or BPFTRACE_MAP_KEYS_MAX" "$(cat "$B/rl.err")"
out=$(BPFTRACE_MAP_KEYS_MAX=150 rl_run -q -c "$B/syscall_loop 300" -e "$rl_full" 2>/dev/null)
expect_eq reliab:map_keys_max_env 150 "$(printf '%s\n' "$out" | grep -c '^@seen\[')"
out=$(BPFTRACE_MAP_KEYS_MAX=50 rl_run -q --map-keys-max 400 -c "$B/syscall_loop 300" -e "$rl_full" 2>&1)
expect_eq reliab:map_keys_max_flag_wins 300 "$(printf '%s\n' "$out" | grep -c '^@seen\[')"
out=$("$SONDE" --map-keys-max 0 -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq reliab:map_keys_max_bad $'sonde: --map-keys-max: \'0\' is not a number from 1 to 16777216\nrc=1' "$out"

# -- sonde's own activity: a probe on its own write() calls feeds itself
#    (each printf is a write, each write a printf) but still stops at
#    exit(); --exclude-self keeps sonde's pid out of every probe.  exec
#    keeps the shell's pid, so $$ is sonde's pid as its $1 ----------------
rl_self='tracepoint:syscalls:sys_enter_write /pid == $1/ { @writes = count(); printf("w\n"); } interval:ms:300 { exit(); }'
out=$(timeout -s KILL 20 sh -c 'exec "$0" -e "$1" $$' "$SONDE" "$rl_self" 2>&1)
expect_match reliab:self_feeding_stops '^@writes: [1-9][0-9]*$' "$out"
out=$(timeout -s KILL 20 sh -c 'exec "$0" --exclude-self -e "$1" $$' "$SONDE" "$rl_self" 2>&1)
expect_eq reliab:exclude_self $'Attached 2 probes\n\n\n@writes: 0' "$out"

# -- a SIGINT while the script compiles (before anything is attached) is
#    not lost: the handlers are in once the options are read, and the run
#    stops as soon as it is attached, with END.  120 probes keep the
#    compile long enough to see the handler in place before "Attached" --
rl_tps=(sys_enter_getppid sys_exit_getppid sys_enter_getpgrp sys_exit_getpgrp)
rl_big=$(for ((i = 0; i < 120; i++)); do echo "tracepoint:syscalls:${rl_tps[i % 4]} { @m$i = count(); }"; done)
rl_big="BEGIN { printf(\"begin\\n\"); } $rl_big END { printf(\"end\\n\"); }"
# rl_start NAME: sonde on $rl_big, output in $B/rl-NAME.{out,err}, until
# its SIGINT handler is in (SigCgt bit 1); rl_caught=yes when that was
# before "Attached".  rl_end: wait for it, rc its status
rl_start() {
	BPFTRACE_MAX_PROBES=200 "$SONDE" -e "$rl_big" >"$B/rl-$1.out" 2>"$B/rl-$1.err" &
	rl_pid=$!
	(sleep 60; kill -KILL $rl_pid 2>/dev/null) &	# a hang fails, never blocks
	rl_dog=$!
	rl_caught=no
	for ((i = 0; i < 3000; i++)); do
		cgt=$(awk '/^SigCgt:/ { print $2 }' /proc/$rl_pid/status 2>/dev/null)
		if [ -n "$cgt" ] && (( (0x$cgt >> 1) & 1 )); then
			grep -q '^Attached' "$B/rl-$1.err" || rl_caught=yes
			break
		fi
		sleep 0.01
	done
}
rl_end() {
	wait $rl_pid
	rc=$?
	kill $rl_dog 2>/dev/null
	wait $rl_dog 2>/dev/null
}
rl_start early
kill -INT $rl_pid 2>/dev/null
rl_end
expect_eq reliab:sigint_while_compiling "caught before attach=yes rc=0 begin end" \
	"caught before attach=$rl_caught rc=$rc $(grep -E '^(begin|end)$' "$B/rl-early.out" | tr '\n' ' ' | sed 's/ $//')"

# -- a second SIGINT while it still compiles ends sonde at once (130), as a
#    user who presses Ctrl-C twice means: nothing is attached to undo ------
rl_start twice
kill -INT $rl_pid 2>/dev/null
# two SIGINTs pending at once would be one: the second is sent once the
# first has been delivered (no longer pending, ShdPnd bit 1)
for ((i = 0; i < 3000; i++)); do
	pnd=$(awk '/^ShdPnd:/ { print $2 }' /proc/$rl_pid/status 2>/dev/null)
	[ -n "$pnd" ] && (( (0x$pnd >> 1) & 1 )) || break
	sleep 0.01
done
kill -INT $rl_pid 2>/dev/null
rl_end
expect_eq reliab:second_sigint_while_compiling \
	"caught before attach=yes rc=130 sonde: interrupted before tracing began out=" \
	"caught before attach=$rl_caught rc=$rc $(grep -v '^$' "$B/rl-twice.err") out=$(cat "$B/rl-twice.out")"

fi
