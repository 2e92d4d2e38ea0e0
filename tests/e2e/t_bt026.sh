# t_bt026.sh - bpftrace v0.26.1's own runtime tests (every file of its
# tests/runtime; tests/e2e/bt026/README.md) under sonde, by this
# project's runner tests/e2e/bt026/check.py.  One result per test:
# e2e:bt026:FILE.NAME.  A SKIP names its reason: a kernel feature this host
# lacks (kprobes, fentry: those tests run in the kernel VM suite's 6.12
# guest, tests/vm/t_bt026.sh; REQUIRES_FEATURE), or tests/e2e/bt026/skips.txt's
# line for it (a difference named in docs/differences.md, "bpftrace's newest
# runtime tests", what this host lacks, or work pending elsewhere).  The
# output's last line is the tally and the share that passes of those run.
# About 5 to 6 minutes under the ASan build on 2 busy cores (each test's
# TIMEOUT is the file's own).

if need_root bt026:bpf; then
	BT026_PREFIX="$suite:bt026:" BT026_WORK="$B/bt026" bash "$top/tests/e2e/bt026/run.sh" \
		> "$B/bt026.out" 2>&1
	grep -E '^(PASS|FAIL|SKIP) ' "$B/bt026.out" >> "$RESULTS"
	# every line: the results, and each failure's command and output
	cat "$B/bt026.out"
fi
