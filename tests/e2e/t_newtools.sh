# t_newtools.sh - issue #21's tools check: bpftrace's tools as its newest
# releases ship them (tests/e2e/tools/newest/, unchanged; SOURCES names the
# commit of each) load under `sonde --dry-run`: parsed, typed, compiled,
# accepted by the kernel's verifier and attached, then detached.  Each
# expects at least the number of probes it attaches here (a machine with
# libreadline or libpthread.so has more: missing_probes = ignore skips
# those that are not there).
#
# Sourced by run.sh (lib.sh gives $SONDE, pass/fail/skip, expect_eq).

if need_root newtools:dry_run; then
	N=$top/tests/e2e/tools/newest
	for tp in bashreadline:3 hrtimersnoop:4 killsnoop:3 setuids:7 statsnoop:10 syscount:3 threadsnoop:2 \
		writeback:4; do
		t=${tp%%:*} n=${tp#*:}
		out=$("$SONDE" --dry-run "$N/$t.bt" 2>&1; echo "rc=$?")
		got=$(printf '%s\n' "$out" | sed -n 's/^sonde: dry run: \([0-9]*\) probes loaded and attached$/\1/p')
		if [ -n "$got" ] && [ "$got" -ge "$n" ] && [ "${out##*rc=}" = 0 ]; then
			pass "newtools:$t"
		else
			fail "newtools:$t"
			printf '%s\n' "$out" | head -8 | sed 's/^/    /'
		fi
	done
fi
