#!/bin/bash
# Run one cmocka test binary and append one result line per test case to
# the results file:  PASS unit:<binary>:<case>  /  FAIL ...  /  SKIP ... reason
# cmocka's own output (with its "[  PASSED  ]" totals) is shown as it runs.
bin=$1 results=$2
name=$(basename "$bin")
out=$("$bin" 2>&1); rc=$?
printf '%s\n' "$out"
# (cmocka names a failed test twice, in place and in its closing list)
printf '%s\n' "$out" | sed -n \
	-e "s/^\[       OK \] \([^ ]*\)$/PASS unit:$name:\1/p" \
	-e "s/^\[  FAILED  \] \([^ ]*\)$/FAIL unit:$name:\1/p" \
	-e "s/^\[  SKIPPED \] \([^ ]*\)$/SKIP unit:$name:\1/p" \
	-e "s/^\[  ERROR   \] \([^ ]*\)$/FAIL unit:$name:\1/p" | sort -u >> "$results"
# a crash before cmocka's summary still counts as a failure
if [ $rc -ne 0 ] && ! grep -q "^FAIL unit:$name:" "$results"; then
	echo "FAIL unit:$name (exit status $rc)" >> "$results"
fi
exit 0
