# t_kprobe.sh - kprobes and kretprobes on each kernel of the matrix, with
# exact counts from tests/workloads/kcalls.c (N nanosleep() calls, N
# read()s of 7 bytes, N opens of /dev/null), filtered to its pid.  The
# wildcard runs with a kprobe_multi link where the kernel has fprobe (6.12)
# and a link per function elsewhere, func named either way (a program per
# function where the kernel has no BPF cookies: 5.10).  Lean: every sonde
# command costs about 2 s under TCG.

build_workload kcalls

# ksym() names a variable's address as well as code
out=$("$SONDE" -q -c "$B/kcalls 5" -e 'kprobe:do_nanosleep /pid == cpid/ { @[ksym(kaddr("jiffies_64"))] = count(); }' 2>&1)
expect_match kprobe:count_exact '^@\[jiffies(_64)?\]: 5$' "$out"

# the book's one-liner, kretprobe:vfs_read { @ = hist(retval); }, keyed by
# the value: 5 reads returned 7 bytes
out=$("$SONDE" -q -c "$B/kcalls 5" -e 'kretprobe:vfs_read /pid == cpid && retval == 7/ { @[retval] = count(); @h = hist(retval); }' 2>&1)
expect_match kprobe:kretprobe_retval '^@\[7\]: 5$' "$out"
expect_match kprobe:kretprobe_hist '^\[4, 8\) +5 \|@+\|$' "$out"

# a wildcard, func and probe: 5 reads of 7 bytes by vfs_read (arg2 is the
# count), its neighbours vfs_readv/vfs_readlink never called here
out=$("$SONDE" -q -c "$B/kcalls 5" -e 'kprobe:vfs_read* /pid == cpid && arg2 == 7/ { @[func, probe] = count(); }' 2>&1)
expect_eq kprobe:wildcard_func $'\n\n@[vfs_read, kprobe:vfs_read]: 5' "$out"
out=$(SONDE_NO_KPROBE_MULTI=1 "$SONDE" -q -c "$B/kcalls 4" -e 'kprobe:vfs_read* /pid == cpid && arg2 == 7/ { @[func] = count(); }' 2>&1)
expect_eq kprobe:wildcard_link_each $'\n\n@[vfs_read]: 4' "$out"

# FUNCTION+OFFSET, reg(), a missing function beside a present one (a
# warning, the rest attaches)
out=$("$SONDE" -q -c "$B/kcalls 3" -e 'kprobe:vfs_read+0, kprobe:vfs_nosuch_sonde /pid == cpid && reg("dx") == 7/ { @ = count(); }' 2>&1)
expect_match kprobe:missing_warns "warning: kprobe:vfs_nosuch_sonde: no kernel function 'vfs_nosuch_sonde': not attached" "$out"
expect_match kprobe:offset_and_reg '^@: 3$' "$out"

# kstack names the caller; func and ksym() of the instruction pointer
out=$("$SONDE" -q -c "$B/kcalls 2" -e 'kprobe:do_nanosleep /pid == cpid/ { @[kstack(2)] = count(); printf("%s %s\n", func, ksym(reg("ip"))); }' 2>&1)
expect_match kprobe:kstack '^    hrtimer_nanosleep\+[0-9]+$' "$out"
expect_eq kprobe:func_ksym $'do_nanosleep do_nanosleep\ndo_nanosleep do_nanosleep' "$(printf '%s\n' "$out" | grep '^do_')"

# safety: bpftrace's banned kretprobes, named (refused) and under a
# wildcard (skipped with a warning; the rest attach)
out=$("$SONDE" -e 'kretprobe:_raw_spin_lock { }' 2>&1; echo "rc=$?")
expect_match kprobe:banned_named "error: kretprobe:_raw_spin_lock can't be used as it might lock up your system" "$out"
expect_match kprobe:banned_named_rc '^rc=1$' "$out"
out=$("$SONDE" --dry-run -e 'kretprobe:_raw_spin_lock* { }' 2>&1)
expect_match kprobe:banned_wildcard "warning: kretprobe:_raw_spin_lock\*: 2 matching functions skipped" "$out"

# -l from available_filter_functions, sorted by name
out=$("$SONDE" -l 'kprobe:vfs_*')
expect_match kprobe:list 'kprobe:vfs_read$' "$out"
expect_eq kprobe:list_sorted "$(printf '%s\n' "$out" | LC_ALL=C sort -u)" "$out"

# kprobe:MODULE:FUNCTION: the guest's root is an overlay (a module), and
# the workload's loader opens its libraries through it
if grep -q '^overlay ' /proc/modules; then
	out=$("$SONDE" -q -c "$B/kcalls 1" -e 'kprobe:overlay:ovl_open /pid == cpid/ { @[func, probe] = count(); }' 2>&1)
	expect_match kprobe:module_function '^@\[ovl_open, kprobe:overlay:ovl_open\]: [1-9][0-9]*$' "$out"
else
	skip kprobe:module_function "overlay is built into this kernel, not a module"
fi
