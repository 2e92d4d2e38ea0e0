# t_base.sh - on each kernel of the matrix, the probe types this machine's
# own e2e suite covers, with exact counts from workloads of known behaviour;
# the recipes' --dry-run; container-aware uprobes (the simulated container
# of tests/e2e/t_containers.sh: a mount namespace with another build of the
# library bind-mounted over the same path); --user-probes; --serve scraped
# once; and the fallbacks sonde takes where a kernel lacks a feature
# (tests/vm/README.md, docs/architecture.md), each checked on the kernel
# that lacks it, as host/features.c finds it there.
#
# Every command runs under timeout(1) so one stuck tracer is a FAIL here,
# not the guest's timeout.
T="timeout 300"
feat() { "$SONDE" --info 2>/dev/null | grep -q "^  $1: yes"; }
# reap PID... within 30 s, or kill them (then they count as hung)
reap() {
	local p i
	for p in "$@"; do
		for ((i = 0; i < 300; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$p" 2>/dev/null && { echo "    pid $p hung: killed"; kill -KILL "$p"; }
		wait "$p" 2>/dev/null
	done
}

# -- tracepoint, rawtracepoint ------------------------------------------------
build_workload ioctl_loop
out=$($T "$SONDE" -q -c "$B/ioctl_loop 1000 0x5401" \
	-e 'tracepoint:syscalls:sys_enter_ioctl /pid == cpid/ { @[args->cmd] = count(); }' 2>&1)
expect_eq tracepoint_count_exact $'\n\n@[21505]: 1000' "$out"
build_workload work
W=$B/work
out=$($T "$SONDE" -q -c "$W 1" -e 'rawtracepoint:sys_enter /pid == cpid && arg1 == 231/ { @exit_group = count(); }' 2>&1)
expect_eq rawtracepoint_exact $'\n\n@exit_group: 1' "$out"

# -- uprobe / uretprobe: exact counts and values from work(i % 1000, i % 7) ---
out=$($T "$SONDE" -q -c "$W 2000" -e "uprobe:$W:work { @calls = count(); @a = sum(arg0); }
uretprobe:$W:work { @ret = sum(retval); }" 2>&1)
# sum of i%1000 over 2000 calls = 2 * 499500; of i%7: 285 full weeks (21
# each) and 5 more (0+1+2+3+4)
expect_eq uprobe_uretprobe_exact $'\n\n@a: 999000\n@calls: 2000\n@ret: 1004995' "$out"
out=$($T "$SONDE" -q -c "$W 50" -e "uprobe:$W:work,uprobe:$W:other,uretprobe:$W:other { @[func] = count(); }" 2>&1)
expect_eq uprobe_func_two_sites $'\n\n@[other]: 2\n@[work]: 50' "$out"
out=$($T "$SONDE" -q -c "$W 5" -e "uprobe:$W:work /arg0 == 3/ { @[ustack(1)] = count(); }" 2>&1)
expect_match ustack_names '^ +work\+0$' "$out"
out=$($T "$SONDE" -q -c 'sleep 0.1' -e 'uprobe:libc:nanosleep,uprobe:libc:clock_nanosleep /pid == cpid/ { @[func] = count(); }' 2>&1)
expect_match uprobe_libc_func '^@\[(clock_)?nanosleep\]: 1$' "$out"

# -- usdt ---------------------------------------------------------------------
if build_workload sdt_probes 2>/dev/null; then
	S=$B/sdt_probes
	out=$($T "$SONDE" -q -c "$(sh_script vm_sdt10 "exec $S 10 >/dev/null")" -e "usdt:$S:sondet:step /arg0 == 4/ { printf(\"step %d %d %s\n\", arg0, arg1, str(arg4)); }
usdt:$S:twice { @twice = count(); } usdt:$S:gated { @gated = count(); }" 2>&1)
	expect_eq usdt_exact $'step 4 12 item4\n\n\n@gated: 10\n@twice: 20' "$out"
else
	skip usdt_exact "sdt_probes does not build (systemtap-sdt-dev)"
fi

# -- interval, profile, software ----------------------------------------------
out=$($T "$SONDE" -q -e 'interval:ms:100 { @n++; if (@n == 3) { exit(); } }' 2>&1)
expect_eq interval_exit $'\n\n@n: 3' "$out"
out=$($T "$SONDE" -q -c "$W 3000000" -e 'profile:hz:997 /pid == cpid/ { @p = count(); }' 2>&1)
expect_match profile_fires '^@p: [1-9][0-9]*$' "$out"
build_workload page_faults
out=$($T "$SONDE" -q -c "$B/page_faults /tmp/vm-base-pf 64" -e 'software:page-faults:1 /pid == cpid/ { @f = count(); }' 2>&1)
expect_match software_fires '^@f: [1-9][0-9]*$' "$out"

# -- the recipes: each passes the verifier of this kernel ---------------------
# (without BPF cookies cuda-calls' wildcard uprobes that read func become
# one attach point per function: 108 programs to verify, half a minute on
# 5.10 under emulation on an idle machine, two minutes on a busy one)
nok=0 nall=0 bad=
for r in "$top"/scripts/*.sonde; do
	n=$(basename "$r" .sonde)
	nall=$((nall + 1))
	if o=$(timeout 300 "$SONDE" --dry-run "$r" 2>&1); then nok=$((nok + 1)); else
		bad="$bad $n"; printf '%s\n' "$o" | tail -3 | sed 's/^/    /'; fi
done
expect_eq recipes_dry_run "$nall of $nall" "$nok of $nall${bad:+ (failed:$bad)}"

# -- --user-probes: the agent counts the same calls ---------------------------
# (reading the count needs bpf_map_lookup_percpu_elem: the kernel verifies
# the program the agent runs)
build_workload malloc_loop
mkdir -p /tmp/vm-base-run
if feat percpu_lookup; then
	prog='uprobe:libc:malloc /pid == cpid/ { @ = count(); if (@ == 500) { printf("half\n"); } }' want=$'half\n@: 1000'
else
	prog='uprobe:libc:malloc /pid == cpid/ { @ = count(); }' want='@: 1000'
fi
# (the agent and capstone read once first: the -c child's agent must come
# up within sonde's 30 s, and a first read over 9p under TCG is slow)
cat "$top/build/libsonde-agent.so" /usr/lib/x86_64-linux-gnu/libcapstone.so* > /dev/null 2>&1
out=$(SONDE_RUN_DIR=/tmp/vm-base-run $T "$SONDE" -q --user-probes -c "$B/malloc_loop 1000" -e "$prog" 2>&1)
expect_eq user_probes_count_exact "$want" "$(grep -v '^$' <<< "$out")"

# -- --serve: one scrape of a counter the workload set ------------------------
sv_out=/tmp/vm-base-serve
$T "$SONDE" -q --serve 127.0.0.1:0 -e 'tracepoint:syscalls:sys_enter_ioctl /comm == "ioctl_loop"/ { @ioctls = count(); }' \
	> "$sv_out.out" 2> "$sv_out.err" &
spid=$!
if wait_for "$sv_out.err" '^sonde: serving metrics at ' 60; then
	url=$(sed -n 's/^sonde: serving metrics at //p' "$sv_out.err")
	"$B/ioctl_loop" 300 0x5401
	expect_match serve_scrape '^sonde_ioctls_total 300$' "$(curl -s "$url")"
else
	fail serve_scrape; sed 's/^/    /' "$sv_out.err" | head
fi
kill -INT "$spid" 2>/dev/null; reap "$spid"

# -- container-aware uprobes: the simulated container -------------------------
# (the two builds of the library are made on the host: tests/vm/suite.sh)
# (on 5.10 --container takes the bpf_current_task_under_cgroup fallback)
(
CT=/tmp/vm-base-ct
LIB1=$B/ct-v1/libsondetest.so LIB2=$B/ct-v2/libsondetest.so CALL=$B/sondetest_call
mkdir -p "$CT"
[ -f "$LIB1" ] && [ -f "$LIB2" ] && build_workload sondetest_call -ldl || { fail container_build; exit 0; }
CGROOT=$(cgroup2_root)
ID=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
SCOPE=$CGROOT/system.slice/docker-$ID.scope
mkdir -p "$SCOPE" || { fail container_cgroup; exit 0; }
mkfifo "$CT/f1" "$CT/f2"
unshare --mount --propagation private sh -c "echo \$\$ > $SCOPE/cgroup.procs && mount --bind $LIB2 $LIB1 && exec $CALL $LIB1 300 $CT/f1" > "$CT/c.out" 2>&1 &
C=$!
sh -c "exec $CALL $LIB1 500 $CT/f2" > "$CT/h.out" 2>&1 &
H=$!
wait_for "$CT/c.out" "^ready $C\$" 20 && wait_for "$CT/h.out" "^ready $H\$" 20 ||
	{ echo "    callers not ready:"; cat "$CT/c.out" "$CT/h.out" | sed 's/^/    /'; }
$T "$SONDE" --container "${ID:0:12}" -e "uprobe:$LIB1:sonde_target { @ = count(); }" > "$CT/ct.out" 2>&1 &
S1=$!
$T "$SONDE" -p "$C" -e "uprobe:$LIB1:sonde_target { @[comm] = count(); }" > "$CT/all.out" 2>&1 &
S2=$!
wait_for "$CT/ct.out" '^Attached' 40 && wait_for "$CT/all.out" '^Attached' 40 ||
	{ echo "    tracers not attached:"; cat "$CT/ct.out" "$CT/all.out" | sed 's/^/    /' | head -20; }
for f in "$CT/f1" "$CT/f2"; do timeout 5 sh -c "echo > $f"; done
reap "$C" "$H"
kill -INT "$S1" "$S2"; reap "$S1" "$S2"
expect_eq container_filter_exact '@: 300' "$(grep '^@' "$CT/ct.out")"
# (a comm key: 6.1 does not zero the rest of bpf_get_current_comm's buffer)
expect_eq container_pid_exact '@[sondetest_call]: 300' "$(grep '^@' "$CT/all.out")"
rmdir "$SCOPE" 2>/dev/null
)

# -- fallbacks on the kernels that lack the feature ----------------------------
if feat percpu_lookup; then
	out=$($T "$SONDE" -q -c "$B/ioctl_loop 10 0x5401" -e 'tracepoint:syscalls:sys_enter_ioctl /pid == cpid/ { @n = count(); if (@n == 5) { printf("five\n"); } }' 2>&1)
	expect_eq agg_read_in_expr $'five\n\n\n@n: 10' "$out"
else
	out=$($T "$SONDE" -q -c true -e 'tracepoint:syscalls:sys_enter_ioctl { @n = count(); if (@n > 1) { exit(); } }' 2>&1; echo "rc=$?")
	expect_match no_percpu_lookup_located_error "^stdin:1:57: error: reading the aggregation '@n' in an expression needs bpf_map_lookup_percpu_elem \\(Linux 5.19\\)" "$out"
	expect_match no_percpu_lookup_exit_1 '^rc=1$' "$out"
fi
# an increment used as a value: an atomic fetch-and-add from 5.12, a load
# and a store before (5.10 refuses BPF_FETCH); the same counts either way
out=$($T "$SONDE" -q -c "$B/ioctl_loop 100 0x5401" -e 'tracepoint:syscalls:sys_enter_ioctl /pid == cpid/ { if (@n++ >= 60) { @over = count(); } }' 2>&1)
expect_eq increment_as_value_exact $'\n\n@n: 100\n@over: 40' "$out"
if feat atomic_fetch; then
	pass atomic_fetch_present
else
	out=$($T "$SONDE" --emit asm -e 'BEGIN { if (@n++ > 1) { exit(); } }' 2>&1)
	if printf '%s' "$out" | grep -q atomic_fetch_add; then fail no_atomic_fetch_load_store; else pass no_atomic_fetch_load_store; fi
fi
if feat cookie; then
	pass cookies_present
else
	# uprobe_func_two_sites above ran without cookies; a wildcard becomes
	# one attach point per function
	out=$($T "$SONDE" -q -c "$W 50" -e "uprobe:$W:w* { @[func] = count(); } uretprobe:$W:*ther { @r[func] = count(); }" 2>&1)
	expect_eq no_cookie_wildcard_func_exact $'\n\n@[work]: 50\n@r[other]: 1' "$out"
	out=$($T "$SONDE" -q -c true -e "uprobe:$W:zz* { @[func] = count(); }" 2>&1; echo "rc=$?")
	# a wildcard that matches nothing is said as with cookies (and a
	# library that is not there is not attached, cuda-calls' libcuda)
	expect_match no_cookie_wildcard_nothing_as_with_cookies "symbol 'zz\\*' not found in" "$out"
	expect_match no_cookie_wildcard_nothing_exit_1 '^rc=1$' "$out"
fi
if feat ancestor_cgroup; then
	pass ancestor_cgroup_present
else
	out=$($T "$SONDE" --emit asm --container / -e 'tracepoint:syscalls:sys_enter_ioctl { @ = count(); }' 2>&1)
	expect_match no_ancestor_cgroup_task_under_cgroup 'call 37$' "$out"
fi
if feat uprobe_multi; then
	out=$($T "$SONDE" -v --dry-run -e "uprobe:$W:work,uprobe:$W:other { @ = count(); }" 2>&1)
	expect_match uprobe_multi_link 'share one multi-uprobe link' "$out"
else
	out=$($T "$SONDE" -v --dry-run -e "uprobe:$W:work,uprobe:$W:other { @ = count(); }" 2>&1)
	if printf '%s' "$out" | grep -q 'multi-uprobe link'; then fail no_uprobe_multi_per_site; else pass no_uprobe_multi_per_site; fi
fi
out=$("$SONDE" --info 2>&1)
expect_match info_override_return_real '^  override_return: no$' "$out"
