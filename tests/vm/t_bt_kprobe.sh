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
