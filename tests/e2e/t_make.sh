# t_make.sh - the Makefile's test targets: `make unit` fails when a unit
# test fails (each binary still runs, and every result line is kept for
# make check's summary), and passes when none does.  Two stand-in test
# binaries print cmocka's lines; nothing is compiled and no BPF is loaded.

mk_dir=$B/make-unit
mkdir -p "$mk_dir"
printf '#!/bin/sh\necho "[       OK ] test_good"\n' > "$mk_dir/test_good"
printf '#!/bin/sh\necho "[       OK ] test_one"\necho "[  FAILED  ] test_two"\nexit 1\n' > "$mk_dir/test_bad"
chmod +x "$mk_dir/test_good" "$mk_dir/test_bad"
# unit_run BINS...: make unit over BINS, "rc=N" and the results file
unit_run() {
	local rc
	make -s --no-print-directory -C "$top" unit UNIT_BINS="$*" RESULTS="$mk_dir/results" \
		>/dev/null 2>&1
	rc=$?
	echo "rc=$rc"
	cat "$mk_dir/results.unit"
}
out=$(unit_run "$mk_dir/test_bad" "$mk_dir/test_good")
expect_eq make:unit_fails_on_a_failure "rc=2
FAIL unit:test_bad:test_two
PASS unit:test_bad:test_one
PASS unit:test_good:test_good" "$out"
out=$(unit_run "$mk_dir/test_good")
expect_eq make:unit_passes "rc=0
PASS unit:test_good:test_good" "$out"
