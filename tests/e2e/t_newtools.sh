# t_newtools.sh - issue #21's tools check: bpftrace's tools as its newest
# releases ship them (tests/e2e/tools/newest/, unchanged; SOURCES names the
# commit of each) load under `sonde --dry-run`: parsed, typed, compiled,
# accepted by the kernel's verifier and attached, then detached.  Here:
# every tool that needs no kprobe or fentry (this kernel has neither); the
# others load in the 6.12 guest (tests/vm/t_newtools.sh).  Each expects at
# least the number of probes it attaches here (newtools_load.sh).
#
# Sourced by run.sh (lib.sh gives $SONDE, pass/fail/skip, expect_eq).

if need_root newtools:dry_run; then
	. "$top/tests/e2e/newtools_load.sh"
	for tp in bashreadline:3 biolatency:5 biosnoop:4 biostacks:4 bitesize:3 cpuwalk:2 \
		execsnoop:3 gethostlatency:7 hrtimersnoop:4 killsnoop:3 naptime:2 pidpersec:4 \
		runqlat:5 runqlen:2 setuids:7 ssllatency:12 sslsnoop:11 statsnoop:10 syncsnoop:7 \
		syscount:3 tcpdrop:3 threadsnoop:2 writeback:4; do
		newtools_load "${tp%%:*}" "${tp#*:}"
	done

	# opensnoop.bt writes its loops as the newest grammar does, without
	# parentheses (for $j : a..b { }); until sonde parses that form it is
	# a SKIP that says so, then it must load as the others
	if "$SONDE" --dry-run -e 'BEGIN { for $j : 0..2 { } }' >/dev/null 2>&1; then
		newtools_load opensnoop 8
	else
		skip newtools:opensnoop "needs for-loops without parentheses (for \$j : a..b { }), which sonde does not parse yet (issue #21 item 4, helper lang); with them it loads (8 probes, checked by hand with the parentheses added)"
	fi

	# loads.bt reads the variable avenrun through kaddr(): /proc/kallsyms
	# lists variables only in a kernel built with CONFIG_KALLSYMS_ALL.
	# Without it (this machine's kernel) the error says so, at the call
	if grep -q ' avenrun$' /proc/kallsyms; then
		newtools_load loads 2
	else
		out=$("$SONDE" --dry-run "$top/tests/e2e/tools/newest/loads.bt" 2>&1)
		expect_match newtools:loads_no_kallsyms_all \
			"loads.bt:42:20: error: kaddr\(\): no kernel symbol named 'avenrun': this kernel's /proc/kallsyms lists only [0-9]+ data symbols \(it was built without CONFIG_KALLSYMS_ALL\)" "$out"
		skip newtools:loads "this kernel's /proc/kallsyms lists no variables (CONFIG_KALLSYMS_ALL is off), so kaddr(\"avenrun\") has nothing to find; loaded in the 6.12 guest (tests/vm/t_newtools.sh)"
	fi
fi
