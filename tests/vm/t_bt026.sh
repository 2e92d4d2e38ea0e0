# t_bt026.sh - bpftrace v0.26.1's runtime tests of kernel functions
# (tests/e2e/bt026: every test whose program needs a kprobe/kretprobe or
# fentry/fexit probe, and the listings of them), which the build host skips
# (it has neither), run here by the same runner (check.py, with
# --kernel-functions only) and the same rules.  One result line per test,
# vm-6.12:bt026:FILE.NAME; a SKIP names its reason (a REQUIRES or
# REQUIRES_FEATURE the guest does not meet, or tests/e2e/bt026/skips.txt's
# line: what the guest lacks, a difference docs/differences.md names, work
# pending elsewhere).  The test programs are built on the host
# (tests/vm/suite.sh: the guest's compiler is emulated).  A test whose
# program ends itself with exit() has at least 15 s after attaching (as
# bt017/run.sh's BT_EXIT_TIMEOUT): it passes as soon as it ends, and the
# emulated guest beside another took more than the tests' 5 s for one
# system("bpftool link ...").  Only the 6.12
# guest: the other kernels run bpftrace 0.17's and sonde's own tests of
# kprobes and fentry (t_kprobe.sh, t_fentry.sh).

if [ "$VMK" = 6.12 ]; then
	bt_t0=$SECONDS
	# every line as it comes (the results, each failure's command and
	# output, and the tally with the share that passes of those run)
	BT026_KFUNC=only BT026_TIMES=1 BT026_EXIT_TIMEOUT=15 BT026_PREFIX="$suite:bt026:" BT026_WORK="$B/bt026" \
		bash tests/e2e/bt026/run.sh 2>&1 | tee "$B/bt026.out"
	grep -E '^(PASS|FAIL|SKIP) ' "$B/bt026.out" >> "$RESULTS"
	if ! grep -q '^# [0-9]* PASS' "$B/bt026.out"; then
		fail bt026:runner
		echo "    check.py ended without its tally (its output is above)"
	fi
	echo "bt026: $((SECONDS - bt_t0)) s"
fi
