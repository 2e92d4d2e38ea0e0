# t_events.sh - the event path at production rates (issue #10): printf
# output buffered yet complete and in order, lost events counted exactly
# and reported while running and in JSON, the ring buffer's size from
# --rb-pages and BPFTRACE_PERF_RB_PAGES.

# -- ring buffer size: the flag, bpftrace's variable, and bad values --------
ncpu=$(getconf _NPROCESSORS_CONF)
ring_kib() {	# pages per CPU -> KiB, rounded up to a power of two
	local want=$(( $1 * 4 * ncpu )) k=4
	while [ $k -lt $want ]; do k=$((k * 2)); done
	echo $k
}
out=$("$SONDE" --rb-pages 3 -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq events:rb_pages_not_pow2 $'sonde: --rb-pages takes a number of pages that is a power of 2 (1 to 262144), not \'3\'\nrc=1' "$out"
out=$(BPFTRACE_PERF_RB_PAGES=lots "$SONDE" -e 'BEGIN { exit(); }' 2>&1; echo "rc=$?")
expect_eq events:rb_pages_env_bad $'sonde: BPFTRACE_PERF_RB_PAGES takes a number of pages that is a power of 2 (1 to 262144), not \'lots\'\nrc=1' "$out"

if need_root events:bpf; then

out=$("$SONDE" -v --dry-run --rb-pages 1 -e 'BEGIN { printf("x\n"); }' 2>&1 | grep 'event ring')
expect_eq events:rb_pages_flag "sonde: event ring buffer: $(ring_kib 1) KiB (1 page per CPU, $ncpu CPUs)" "$out"
out=$(BPFTRACE_PERF_RB_PAGES=64 "$SONDE" -v --dry-run -e 'BEGIN { printf("x\n"); }' 2>&1 | grep 'event ring')
expect_eq events:rb_pages_env "sonde: event ring buffer: $(ring_kib 64) KiB (64 pages per CPU, $ncpu CPUs)" "$out"
out=$(BPFTRACE_PERF_RB_PAGES=64 "$SONDE" -v --dry-run --rb-pages 2 -e 'BEGIN { printf("x\n"); }' 2>&1 | grep 'event ring')
expect_eq events:rb_pages_flag_over_env "sonde: event ring buffer: $(ring_kib 2) KiB (2 pages per CPU, $ncpu CPUs)" "$out"
out=$("$SONDE" -v --dry-run -e 'BEGIN { printf("x\n"); }' 2>&1 | grep 'event ring')
expect_eq events:rb_default "sonde: event ring buffer: 16384 KiB" "$out"

# -- a flood of 20000 printf lines into a file: all of them, in order -------
build_workload syscall_loop
"$SONDE" -q -o "$B/flood.out" -c "$B/syscall_loop 20000" \
	-e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("%d %d\n", pid, nsecs); }' > /dev/null 2> "$B/flood.err"
lines=$(grep -cE '^[0-9]+ [0-9]+$' "$B/flood.out")
expect_eq events:flood_complete 20000 "$lines"
order=$(grep -E '^[0-9]+ [0-9]+$' "$B/flood.out" | awk 'NR == 1 {p = $1} $1 != p {print "pid changed at " NR; exit}
	NR > 1 && $2 <= t {print "out of order at " NR; exit} {t = $2}')
expect_eq events:flood_in_order "" "$order"
expect_eq events:flood_nothing_lost "" "$(grep Lost "$B/flood.err")"

# -- lost events: counted exactly, reported while running (text and JSON).
#    sonde is stopped (SIGSTOP) while a gated workload makes N calls into a
#    one-page-per-CPU ring, so most events find the ring full; then it runs
#    on, must say "Lost" before it is asked to stop, and lines + lost = N.
lost_run() {	# FORMAT: sets got_lines, got_lost, lost_early
	local fmt=$1 n=5000 fifo=$B/gate.fifo
	rm -f "$fifo"; mkfifo "$fifo"
	bash -c "read _ < '$fifo'; exec '$B/syscall_loop' $n" > /dev/null &
	local wl=$!
	rm -f "$B/lost.out" "$B/lost.err"	# the wait below must not find the last run's line
	"$SONDE" -f "$fmt" --rb-pages 1 -e "tracepoint:syscalls:sys_enter_getppid /pid == $wl/ { printf(\"%d\\n\", nsecs); }" \
		> "$B/lost.out" 2> "$B/lost.err" &
	local sp=$!
	for _ in $(seq 1200); do grep -q 'ttached' "$B/lost.out" "$B/lost.err" && break; sleep 0.05; done
	kill -STOP $sp
	echo go > "$fifo"
	wait $wl
	kill -CONT $sp
	lost_early=no
	for _ in $(seq 200); do grep -q -i 'lost' "$B/lost.out" "$B/lost.err" && { lost_early=yes; break; }; sleep 0.05; done
	kill -INT $sp; wait $sp
	rm -f "$fifo"
}
lost_run text
got_lines=$(grep -cE '^[0-9]+$' "$B/lost.out")
got_lost=$(sed -nE 's/^Lost ([0-9]+) events$/\1/p' "$B/lost.err" | awk '{s += $1} END {print s + 0}')
expect_eq events:lost_reported_while_running yes "$lost_early"
expect_eq events:lost_plus_delivered_exact 5000 "$((got_lines + got_lost))"
if [ "$got_lost" -gt 0 ]; then pass events:lost_counted; else fail events:lost_counted; cat "$B/lost.err" | head -5; fi

lost_run json
got_lines=$(grep -cE '^\{"type": "printf", "data": "[0-9]+\\n"\}$' "$B/lost.out")
got_lost=$(sed -nE 's/^\{"type": "lost_events", "data": \{"events": ([0-9]+)\}\}$/\1/p' "$B/lost.out" | awk '{s += $1} END {print s + 0}')
expect_eq events:lost_json_while_running yes "$lost_early"
expect_eq events:lost_json_exact 5000 "$((got_lines + got_lost))"
if [ "$got_lost" -gt 0 ]; then pass events:lost_json_counted; else fail events:lost_json_counted; head -5 "$B/lost.out"; fi

fi

# -- multi-uprobe links: 40 functions, each called (K + 1) x 3 times, count
#    exactly through one link per probe and file, and through the classic
#    per-site links (SONDE_NO_UPROBE_MULTI=1) alike ----------------------------
if need_root events:uprobe_multi; then
	build_workload many_funcs
	mf_prog="uprobe:$B/many_funcs:mf_* { @[func] = count(); } uretprobe:$B/many_funcs:mf_3* { @r = count(); }"
	want=$'\n\n'$(for k in $(seq 0 39); do echo "@[mf_$k]: $(( (k + 1) * 3 ))"; done | sort -t' ' -k2 -n -s)$'\n@r: 1077'
	out=$("$SONDE" -q -c "$B/many_funcs 3" -e "$mf_prog" 2>&1)
	expect_eq events:uprobe_multi_exact "$want" "$out"
	out=$(SONDE_NO_UPROBE_MULTI=1 "$SONDE" -q -c "$B/many_funcs 3" -e "$mf_prog" 2>&1)
	expect_eq events:uprobe_classic_exact "$want" "$out"
	out=$("$SONDE" -v --dry-run -e "$mf_prog" 2>&1 | grep -c 'multi-uprobe link')
	expect_eq events:uprobe_multi_one_link_per_probe_and_file 2 "$out"
	out=$(SONDE_NO_UPROBE_MULTI=1 "$SONDE" -v --dry-run -e "$mf_prog" 2>&1 | grep -c 'multi-uprobe link')
	expect_eq events:uprobe_classic_no_multi_link 0 "$out"
fi

# -- aggregations without keys are per-CPU arrays: the same output as the
#    hashes they replace (a sum of zeros prints, zero() keeps an entry,
#    clear() removes it), exact counts from a workload, and no insert path
#    in the generated code (no map_update_elem call) -----------------------
if need_root events:keyless_arrays; then
	out=$("$SONDE" -q -e 'BEGIN { @c = count(); @s = sum(0); @s2 = sum(5); @a = avg(0); @a2 = avg(3); @st = stats(0);
		@mn = min(0); @mx = max(0); @h = hist(0); @l = lhist(0, 0, 10, 2); @z1 = sum(4); @z2 = avg(4); @z3 = min(4);
		@z4 = hist(4); @z5 = stats(4); @z6 = lhist(4, 0, 10, 2); zero(@z1); zero(@z2); zero(@z3); zero(@z4);
		zero(@z5); zero(@z6); exit(); }' 2>&1)
	expect_eq events:keyless_prints_as_hash "$(cat "$top/tests/e2e/golden/events_keyless.out")" "$out"
	out=$("$SONDE" -q -c "$B/syscall_loop 2000" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ {
		@c = count(); @s = sum(2); @a = avg(3); @mn = min(7); @mx = max(9); @st = stats(4); @h = hist(8);
		@l = lhist(5, 0, 10, 5); }' 2>&1 | grep -vE '^[0-9.]*$')
	expect_eq events:keyless_exact_counts '@a: 3
@c: 2000
@h: 
[8, 16)             2000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
@l: 
[5, 10)             2000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
@mn: 7
@mx: 9
@s: 4000
@st: count 2000, average 4, total 8000' "$out"
	out=$("$SONDE" --emit ir -e 'tracepoint:syscalls:sys_enter_getppid { @c = count(); @h = hist(pid); }' 2>&1 |
		grep -c 'inttoptr (i64 2 to ptr)')
	expect_eq events:keyless_no_insert_path 0 "$out"
fi

# -- --overhead: the footer's shape, and the one-line warning for a probe
#    that takes more than 5 % of a CPU (a uprobe on functions a loop does
#    nothing but call) but not for a cheap one ------------------------------
if need_root events:overhead; then
	build_workload many_funcs
	"$SONDE" -q --overhead -c "$B/many_funcs 100" -e "uprobe:$B/many_funcs:mf_* { @ = count(); }
		tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @g = count(); }" > "$B/ov.out" 2> "$B/ov.err"
	expect_match events:overhead_header '^sonde: overhead over [0-9]+\.[0-9] s:$' "$(cat "$B/ov.err")"
	expect_match events:overhead_columns '^  probe +hits +hits/s +BPF ns/hit +trap ns +CPU %$' "$(cat "$B/ov.err")"
	expect_match events:overhead_uprobe_row "^  uprobe:$B/many_funcs:mf_\\* +82000 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\\.[0-9]{2}\$" "$(cat "$B/ov.err")"
	expect_match events:overhead_tracepoint_row '^  tracepoint:syscalls:sys_enter_getppid +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2}$' "$(cat "$B/ov.err")"
	expect_match events:overhead_warning "^sonde: warning: uprobe:$B/many_funcs:mf_\\* takes about [0-9.]+ % of a CPU \\([0-9]+ hits/s x [0-9]+ ns, mostly the uprobe trap\\): use a tracepoint or USDT probe if one covers it, or sample with profile:hz:99\$" "$(cat "$B/ov.err")"
	expect_eq events:overhead_maps_still_printed '@: 82000' "$(grep '^@:' "$B/ov.out")"
	out=$("$SONDE" -q --overhead -c "$B/syscall_loop 2000" -e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @g = count(); }' 2>&1 >/dev/null | grep -c 'warning')
	expect_eq events:overhead_no_warning_when_cheap 0 "$out"
fi
