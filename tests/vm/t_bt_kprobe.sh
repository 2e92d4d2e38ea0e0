# t_bt_kprobe.sh - cases of bpftrace's own tests/runtime/probe on kernel
# functions (kprobe, kretprobe, kfunc), and the book's vfs_read
# one-liners, run the way a user would, against tests/workloads/kcalls.c
# rather than bpftrace's testprogs (a 1 ns nanosleep: hrtimer_nanosleep's
# arg0 is 1).  Each case names the bpftrace test it stands for.

build_workload kcalls

# kprobe_order / kretprobe_order: two probes on one function run in
# source order
# source order (sonde attaches these newest-first types in reverse):
# entry probes print on one line, return probes on the next
out=$("$SONDE" -q -c "$B/kcalls 1" -e 'kprobe:hrtimer_nanosleep /pid == cpid && arg0 == 1/ { printf("first"); } kprobe:hrtimer_nanosleep /pid == cpid && arg0 == 1/ { printf(" second\n"); } kretprobe:hrtimer_nanosleep /pid == cpid/ { printf("rfirst"); } kretprobe:hrtimer_nanosleep /pid == cpid/ { printf(" rsecond\n"); }' 2>&1)
expect_eq bt:kprobe_kretprobe_order $'first second\nrfirst rsecond' "$(printf '%s\n' "$out" | grep second)"
out=$("$SONDE" -q -c "$B/kcalls 1" -e 'fentry:hrtimer_nanosleep /pid == cpid/ { printf("first"); } fentry:hrtimer_nanosleep /pid == cpid/ { printf(" second\n"); } fexit:hrtimer_nanosleep /pid == cpid/ { printf("xfirst"); } fexit:hrtimer_nanosleep /pid == cpid/ { printf(" xsecond\n"); }' 2>&1)
expect_eq bt:fentry_fexit_order $'first second\nxfirst xsecond' "$(printf '%s\n' "$out" | grep second)"

# kprobe_module_wildcard, kretprobe_wildcard, kprobe_short_name,
# kretprobe_short_name, kprobe_multi_mixed_attachpoint: one script
out=$("$SONDE" -q -c "$B/kcalls 2" -e 'kprobe:vmlinu*:vfs_read, kprobe:nonsense_sonde* /pid == cpid && arg2 == 7/ { @k = count(); } kr:vmlinux:vfs_rea* /pid == cpid && retval == 7/ { @r = count(); } k:do_nanosleep /pid == cpid/ { @n = count(); }' 2>&1)
expect_eq bt:kprobe_forms $'\n\n@k: 2\n@n: 2\n@r: 2' "$(printf '%s\n' "$out" | grep -v 'nonsense_sonde\|^ *\^\|^kprobe:')"
expect_match bt:kprobe_multi_mixed_attachpoint "warning: kprobe:nonsense_sonde\*: no kernel function matches: not attached" "$out"

# fentry_multiple_attach_point_multiple_functions (bpftrace issue 2447):
# a probe on two functions and two more on each of them, all counted down
out=$("$SONDE" -q -c "$B/kcalls 2" -e 'BEGIN { @a = 2; @b = 1; @c = 1 } fentry:vfs_read, fentry:vfs_open /pid == cpid && @a != 0/ { @a -= 1 } fentry:vfs_read /pid == cpid && @b == 1/ { @b = 0 } fentry:vfs_open /pid == cpid && @c == 1/ { @c = 0 }' 2>&1)
expect_eq bt:fentry_multiple_attach_points $'\n\n@a: 0\n@b: 0\n@c: 0' "$out"

# fentry_module_wildcard, fentry func builtin, fentry args (both forms)
out=$("$SONDE" -q -c "$B/kcalls 1" -e 'fentry:vmlinu*:vfs_read /pid == cpid && args.count == 7/ { printf("func: %s %d %d\n", func, args.count, args->count); }' 2>&1)
expect_eq bt:fentry_func_args 'func: vfs_read 7 7' "$(printf '%s\n' "$out" | grep func:)"

# the book's one-liners (BPF Performance Tools, ch. 8): reads by process
# name and the size of what vfs_read returned, for the workload's own
out=$("$SONDE" -q -c "$B/kcalls 6" -e 'kprobe:vfs_read /pid == cpid && arg2 == 7/ { @[comm] = count(); } kretprobe:vfs_read /pid == cpid && retval == 7/ { @bytes = hist(retval); }' 2>&1)
expect_match book:vfs_read_by_comm '^@\[kcalls\]: 6$' "$out"
expect_match book:vfs_read_hist '^\[4, 8\) +6 \|@+\|$' "$out"

# bpftrace 0.17's own runtime tests of kernel functions (tests/vm/bt017,
# 67 on x86_64), with its harness's rules, in the 6.12 guest where the
# oracle was taken: every test bpftrace passes there (bt017/oracle-6.12)
# passes under sonde, or docs/differences.md names it with the reason
# (section "bpftrace 0.17's runtime tests").  The oracle is 6.12's, so the
# other kernels do not run them.
if [ "$VMK" = 6.12 ]; then
	bt_t0=$(date +%s)
	# one result line per test, in the oracle's order (call.ksym is four
	# tests of one name, one per ARCH)
	mapfile -t bt_sonde < <(BT_WORK=$B TRACER=sonde tests/vm/bt017/run.sh 2>"$B/bt017.err" |
		grep -E '^(PASS|FAIL|SKIP) ')
	mapfile -t bt_oracle < tests/vm/bt017/oracle-6.12
	bt_t1=$(date +%s)
	bt_diff=$(sed -n "/^### bpftrace 0.17's runtime tests/,/^##/p" docs/differences.md)
	bt_n=0 bt_pass=0 bt_ok=0
	for i in "${!bt_oracle[@]}"; do
		line=${bt_oracle[$i]} got=${bt_sonde[$i]:-}
		st=${line%% *} rest=${line#* }
		id=${rest%% (*} name=bt017:${rest%% (*}
		name=${name// /_}
		g=${got#* }
		[ -n "$got" ] && [ "${g%% (*}" != "$id" ] && got="(out of step: $got)"
		bt_n=$((bt_n + 1))
		[ "${got%% *}" = PASS ] && bt_pass=$((bt_pass + 1))
		if [ "$st" != PASS ]; then
			if [ "${got%% *}" = PASS ]; then pass "$name"
			else skip "$name" "bpftrace 0.17 does not pass it either here: $line; sonde: ${got:-no result}"; fi
			continue
		fi
		bt_ok=$((bt_ok + 1))
		why=$(grep -F -- "\`$id\`" <<< "$bt_diff" | head -1)
		if [ "${got%% *}" = PASS ]; then pass "$name"
		elif [ -n "$why" ]; then skip "$name" "sonde: ${got:-no result}; docs/differences.md: ${why#- }"
		else
			fail "$name"
			echo "    sonde: ${got:-no result}"
			awk -v h="== $id:" 'index($0, h) == 1 { p = 1; print; next } /^== / { p = 0 } p' "$B/bt017.err" | head -20
		fi
	done
	echo "bt017: sonde passes $bt_pass of $bt_n, bpftrace 0.17 $bt_ok ($((bt_t1 - bt_t0)) s under sonde)"
fi
