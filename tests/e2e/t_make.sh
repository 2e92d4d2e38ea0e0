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

# make check's table of times: tests/timed.sh appends "PART WALL CPU" and
# keeps the command's status; tests/summary.sh --times prints the table
# just before the totals, which stay the last line
rm -f "$mk_dir/times"
out=$("$top/tests/timed.sh" part "$mk_dir/times" sh -c 'exit 3'; echo "rc=$?")
expect_match make:timed_line_and_status "^rc=3 part [0-9]+ [0-9]+\$" "$(echo "$out" "$(cat "$mk_dir/times" 2>/dev/null)")"
printf 'build 60 100\ne2e/t_x.sh 7 2\n' > "$mk_dir/times"
echo "PASS x:y" > "$mk_dir/res"
out=$("$top/tests/summary.sh" --times "$mk_dir/times" "$mk_dir/res" | tail -4)
expect_eq make:summary_times_table "time per part (wall and CPU = user + system, seconds; parts beside one another overlap):
  build                                60 wall    100 CPU
  e2e/t_x.sh                            7 wall      2 CPU
1 passed, 0 failed, 0 skipped" "$out"

# tests/e2e/run.sh runs files side by side, but never two that share a tag
# of their shares file: stand-ins, where a ends only once c has run beside
# it (and after a window of 2 s in which b, had it started beside a despite
# their tag, would have said so), and b (a's tag) must find a ended; each
# has a build directory of its own; the results come in the files' order
if ! grep -q E2E_DIR "$top/tests/e2e/run.sh"; then
	fail make:e2e_side_by_side
	echo "    tests/e2e/run.sh runs no stand-ins (E2E_DIR)"
else
	sd=$mk_dir/sched
	rm -rf "$sd"; mkdir -p "$sd"
	printf 't_a.sh 3 slot\nt_b.sh 2 slot\nt_c.sh 1\n' > "$sd/shares"
	printf '%s\n' "if wait_for $sd/c.ran ran 120; then pass sched:a_beside_c; else fail sched:a_beside_c; fi" \
		"wait_for $sd/b.checked . 2; touch $sd/a.ended" > "$sd/t_a.sh"
	printf '%s\n' "if [ -e $sd/a.ended ]; then pass sched:b_after_a; else fail sched:b_after_a; fi" \
		"echo x > $sd/b.checked" > "$sd/t_b.sh"
	printf '%s\n' "echo ran > $sd/c.ran" \
		"if [ \"\$B\" = $sd/build/t_c ]; then pass sched:c_own_build; else fail sched:c_own_build; fi" > "$sd/t_c.sh"
	E2E_DIR=$sd E2E_BUILD=$sd/build E2E_JOBS=3 RESULTS=$sd/results CHECK_TIMES= \
		timeout 300 "$top/tests/e2e/run.sh" t_a.sh t_b.sh t_c.sh > "$sd/out" 2>&1
	expect_eq make:e2e_side_by_side "PASS e2e:sched:a_beside_c
PASS e2e:sched:b_after_a
PASS e2e:sched:c_own_build" "$(cat "$sd/results" 2>/dev/null)"
fi

# a file still running after E2E_FILE_TIMEOUT is killed with what it
# started, and one that gives no result line, or whose shell dies, is a
# FAIL line of its own: none is lost from the totals
hd=$mk_dir/hang
rm -rf "$hd"; mkdir -p "$hd"
printf 't_hang.sh 3\nt_kill.sh 2\nt_none.sh 1\n' > "$hd/shares"
printf '%s\n' 'pass hang:started' 'sleep 60' 'pass hang:not_reached' > "$hd/t_hang.sh"
printf '%s\n' 'pass kill:started' 'kill -KILL $$' > "$hd/t_kill.sh"
printf '%s\n' 'echo no result' > "$hd/t_none.sh"
E2E_DIR=$hd E2E_BUILD=$hd/build E2E_FILE_TIMEOUT=2 RESULTS=$hd/results CHECK_TIMES= \
	timeout 300 "$top/tests/e2e/run.sh" t_hang.sh t_kill.sh t_none.sh > "$hd/out" 2>&1
expect_eq make:e2e_file_guards "PASS e2e:hang:started
FAIL e2e:t_hang: still running after 2 s: killed (E2E_FILE_TIMEOUT)
PASS e2e:kill:started
FAIL e2e:t_kill: its shell ended with status 137
FAIL e2e:t_none: ended with no result line" "$(cat "$hd/results" 2>/dev/null)"
