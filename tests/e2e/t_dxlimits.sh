# t_dxlimits.sh - `sonde diagnose` and the limits a service runs under
# (issue #34): a service whose threads wait for a CPU held by its own other
# threads competes with itself, and the verdict says so (not "move the
# others away"); major faults under a memory cgroup's limit come with the
# cgroup's limit and reclaim counters.  Sourced by run.sh (lib.sh gives
# $SONDE, $B, pass/fail/skip, expect_eq/expect_match).
#
# The CPU-bound services run at nice -20 in a session of their own (as in
# t_diagnose.sh: with autogroups a nice value only counts inside its
# session), so a machine busy with other work takes about 1 % of their CPU;
# the faulting one runs SCHED_FIFO (a woken CFS task may wait up to a tick
# for a busy CPU, which would be the run queue's doing, not the disk's).
# A -c command is traced from its exec, and inherits sonde's nice value
# until it sets its own: sonde runs at -20 too ($HI), so that the command
# is at -20 from its first instruction (a command that execs setsid and sh
# at nice 0 first waited 2.5 s for a CPU behind another test's -20 loop).
# Every spinner has a deadline of its own: the competitors wait (asleep)
# until the service has started, then spin for a few seconds.
DXL=$B/dxlimits
mkdir -p "$DXL"
need_root dxlimits:bpf || return 0
gcc -O1 -g -pthread -o "$DXL/dx_limits" "$top/tests/workloads/dx_limits.c" || { fail dxlimits:build; return 0; }
printf '#!/bin/sh\necho -20 > /proc/self/autogroup 2>/dev/null\nexec nice -n -20 "$@"\n' > "$DXL/hi.sh"
chmod +x "$DXL/hi.sh"
HI="setsid $DXL/hi.sh"
CGROOT=${CGROOT:-$(cgroup2_root)}

until_true() {
	local i
	for i in $(seq 1200); do "$@" && return 0; sleep 0.05; done
	echo "    (gave up waiting for: $*)"; return 1
}

# dxl_check NAME JSON PYTHON: the report as r, its busiest group as g,
# the verdict's spots in order as spots
dxl_check() {
	local out
	out=$(python3 - "$2" "$3" <<'PY' 2>&1
import json, sys
r = json.loads(open(sys.argv[1]).read())["data"]
g = r["groups"][0]
spots = [v["spot"] for v in r["verdict"]]
exec(sys.argv[2])
PY
)
	if [ $? -eq 0 ]; then pass "dxlimits:$1"; else
		fail "dxlimits:$1"; printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
		head -c 2500 "$2" | sed 's/^/    /'; echo
	fi
}

# ---- four busy threads on one CPU: the service competes with itself ------------------------
$HI "$SONDE" diagnose -f json -o "$DXL/self.json" -c "taskset -c 1 $DXL/dx_limits spinners 4 20000" 3 \
	2> "$DXL/self.err"
dxl_check competes_with_itself "$DXL/self.json" '
assert spots and spots[0] == "runqueue", spots
v = r["verdict"][0]
assert "competes with itself, CPU-bound on the 1 CPU it may run on" in v["evidence"], v["evidence"]
assert "more runnable threads than CPUs" in v["advice"] and "ran instead elsewhere" not in v["advice"], v
assert r["cpus"] == 1, r["cpus"]
assert r["ran_instead"][0]["self"] and r["ran_instead"][0]["pid"] == g["pid"], r["ran_instead"][:3]
self_ns = sum(o["ns"] for o in r["ran_instead"] if o["self"])
assert self_ns > 0.5 * sum(o["ns"] for o in r["ran_instead"]), r["ran_instead"][:5]'
# the threads it started inside the window count in the kernel's cross-check too
dxl_check competes_matches_schedstat "$DXL/self.json" '
k, m = g["kernel_run_delay_ns"], g["ns"]["runqueue"] + g["ns"]["throttled"]
assert abs(k - m) <= 0.10 * k, "sonde %d ns, schedstat run_delay %d ns" % (m, k)'

# ---- contrast: one busy thread beside two other loops on its CPU: others ran instead ----------
# the loops wait (asleep, at -20 on the service's CPU) until the service
# makes $DXL/go as it starts, then spin for 8 s: the 3 s window and its
# end, however long sonde took to start
rm -f "$DXL/go"
$HI taskset -c 1 "$DXL/dx_limits" spinners 1 8000 -w "$DXL/go" & l1=$!
$HI taskset -c 1 "$DXL/dx_limits" spinners 1 8000 -w "$DXL/go" & l2=$!
until_true sh -c "grep -q dx_limits /proc/$l1/comm && grep -q dx_limits /proc/$l2/comm"
$HI "$SONDE" diagnose -f json -o "$DXL/others.json" -c "taskset -c 1 $DXL/dx_limits spinners 1 20000 -m $DXL/go" 3 \
	2> "$DXL/others.err"
kill_reap $l1 $l2
dxl_check others_ran_instead "$DXL/others.json" "
assert spots and spots[0] == 'runqueue', spots
v = r['verdict'][0]
assert 'competes with itself' not in v['evidence'] and 'ran instead elsewhere' in v['advice'], v
assert sorted(o['pid'] for o in r['ran_instead'][:2]) == sorted([$l1, $l2]), r['ran_instead'][:4]
assert not any(o['self'] for o in r['ran_instead'][:2]), r['ran_instead'][:4]"

# ---- major faults under a memory cgroup's limit ---------------------------------------------
# a cgroup of 16 MB: v2 beside the root's children where the v2 hierarchy
# offers the memory controller, else a v1 child of this shell's own memory
# cgroup; a 64 MB file read at random through a mapping inside it
memcg= v2mem=
if [ -n "$CGROOT" ] && grep -qw memory "$CGROOT/cgroup.subtree_control" 2>/dev/null; then
	memcg=$CGROOT/sonde-dxl-$$ v2mem=1
	mkdir "$memcg" && echo $((16 << 20)) > "$memcg/memory.max" || memcg=
elif own=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup) && [ -w "/sys/fs/cgroup/memory$own" ]; then
	memcg=/sys/fs/cgroup/memory${own%/}/sonde-dxl-$$
	mkdir "$memcg" && echo $((16 << 20)) > "$memcg/memory.limit_in_bytes" || memcg=
fi
if [ -z "$memcg" ]; then
	skip dxlimits:memory_limit "no memory cgroup can be made here (v2 memory controller or v1 memory hierarchy)"
else
	rm -f "$DXL/mem.go"
	sh -c "echo \$\$ > $memcg/cgroup.procs && exec chrt -f 10 $DXL/dx_limits mapread $DXL/mem.data 64 20000 $DXL/mem.go" \
		> "$DXL/mem.app" & app=$!
	# the file is written and dropped from the page cache before it waits
	until_true sh -c "grep -qx '$app' $memcg/cgroup.procs && [ -e $DXL/mem.data ] &&
		[ \$(stat -c %s $DXL/mem.data) -eq $((64 << 20)) ] && grep -q '^State:.S' /proc/$app/status"
	"$SONDE" diagnose -f json -o "$DXL/mem.json" -p $app 60 2> "$DXL/mem.err" & dxp=$!
	until_true sh -c "grep -q 'sonde diagnose: tracing' $DXL/mem.err || ! kill -0 $dxp"
	touch "$DXL/mem.go"
	wait $app
	wait $dxp
	maj=$(sed -n 's/^majflt //p' "$DXL/mem.app")
	dxl_check memory_limit "$DXL/mem.json" "
assert spots and spots[0] == 'major_faults', spots
m = [c for c in r['memory_cgroups'] if c['path'] == '$memcg']
assert m, r['memory_cgroups']
m = m[0]
assert m['limit_bytes'] == 16 << 20 and m['pids'] == [$app], m
reclaim = ['memory.events max', 'memory.stat pgsteal'] if '$v2mem' else ['memory.failcnt']
assert all(m['counters'].get(k, 0) > 0 for k in reclaim), m['counters']
v = r['verdict'][0]
assert 'its memory cgroup $memcg is limited to 16.0 MB' in v['evidence'], v['evidence']
assert 'raise the memory cgroup' in v['advice'], v['advice']
# the process's own getrusage(), against the kernel's count per thread
assert $maj > 4096 and abs(g['major_faults'] - $maj) <= 2, (g['major_faults'], $maj)"
	cgroup_remove "$memcg"
fi
