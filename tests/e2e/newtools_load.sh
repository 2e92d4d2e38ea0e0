# newtools_load.sh - one check of issue #21's tools test, shared by
# tests/e2e/t_newtools.sh (this machine) and tests/vm/t_newtools.sh (the
# 6.12 guest): newtools_load NAME MIN runs `sonde --dry-run` on
# tests/e2e/tools/newest/NAME.bt, unchanged, and passes "newtools:NAME"
# when it exits 0 after loading and attaching at least MIN probes (the
# number it attaches where the test was written: a machine with more of
# the libraries or functions a tool's missing_probes = ignore lets go has
# more).  Sourced after tests/e2e/lib.sh ($SONDE, $top, pass/fail).

newtools_load() {
	local t=$1 n=$2 out got
	out=$("$SONDE" --dry-run "$top/tests/e2e/tools/newest/$t.bt" 2>&1; echo "rc=$?")
	got=$(printf '%s\n' "$out" | sed -n 's/^sonde: dry run: \([0-9]*\) probes loaded and attached$/\1/p')
	if [ -n "$got" ] && [ "$got" -ge "$n" ] && [ "${out##*rc=}" = 0 ]; then
		pass "newtools:$t"
	else
		fail "newtools:$t"
		printf '%s\n' "$out" | head -8 | sed 's/^/    /'
	fi
}
