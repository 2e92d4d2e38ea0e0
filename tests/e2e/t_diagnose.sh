# t_diagnose.sh - `sonde diagnose` (issue #23), sourced by run.sh (lib.sh gives
# $SONDE, $B, pass/fail/skip, expect_eq/expect_match).
#
# Each scenario is a service with one known host-side cause, and the report
# must name it: the run queue (two loops pinned to the service's CPU), the
# CPU quota (a cgroup at 20 % of a CPU), major faults (a file read through
# a mapping after it was evicted), I/O (an fsync loop), the GPU boundary
# (NVIDIA requests on device files of a private mount namespace, and the
# real libcudart where CUDA is installed) and a healthy loop.  Figures are
# checked against the kernel's own accounting: schedstat's run_delay, the
# process's ru_majflt, the cgroup's cpu.stat; and every group's categories
# must add up to its thread time within 5 %.  The services run at nice -20
# in a session of their own ($DX/hi.sh under setsid, which puts the
# session's autogroup at nice -20 too: with autogroups a nice value only
# counts inside its session), so the verdicts hold on a machine busy with
# other work: a competitor at nice 0 gets about 1 % of a CPU beside them.
# A service that sleeps and wakes (faults, fsync) runs SCHED_FIFO instead
# ($RT): a woken CFS task may wait up to a tick for a busy CPU whatever its
# nice value, which on a loaded machine is the run queue's doing, not the
# disk's.  The throttled service's cgroup has the most CPU shares there are
# (so load beside it cannot keep it below its quota).  A -c command is
# traced from its exec and inherits sonde's nice value until it sets its
# own: where it must be at -20 from its first instruction, sonde runs at
# -20 too ($HI "$SONDE").  Competitors wait (asleep) until the service has
# started (dx_service spin -w/-m), then spin for a few seconds.

DX=$B/diagnose
mkdir -p "$DX"
CGROOT=${CGROOT:-$(cgroup2_root)}
# until CMD...: poll a condition while the process it waits on lives; a
# guard of 60 s stops a broken test from hanging make check
until_true() {
	local i
	for i in $(seq 1200); do "$@" && return 0; sleep 0.05; done
	echo "    (gave up waiting for: $*)"; return 1
}
gcc -O1 -g -o "$DX/dx_service" "$top/tests/workloads/dx_service.c" || { fail diagnose:build; return 0; }
printf '#!/bin/sh\necho -20 > /proc/self/autogroup 2>/dev/null\nexec nice -n -20 "$@"\n' > "$DX/hi.sh"
chmod +x "$DX/hi.sh"
HI="setsid $DX/hi.sh"
RT="chrt -f 10"

# dx_check NAME JSON PYTHON-ASSERTIONS: the report as `r`, its busiest group
# as `g` (the first); prints what failed
dx_check() {
	local name=$1 json=$2 code=$3 out
	out=$(python3 - "$json" "$code" <<'EOF' 2>&1
import json, sys
r = json.loads(open(sys.argv[1]).read())["data"]
g = r["groups"][0]
def acc(g):
	return sum(g["ns"].values())
for grp in r["groups"]:
	assert abs(acc(grp) - grp["wall_ns"]) <= 0.05 * grp["wall_ns"] + 1e6, \
		"%s: %d ns accounted of %d" % (grp["comm"], acc(grp), grp["wall_ns"])
spots = [v["spot"] for v in r["verdict"]]
exec(sys.argv[2])
EOF
)
	if [ $? -eq 0 ]; then pass "diagnose:$name"; else
		fail "diagnose:$name"; printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
		head -c 1500 "$json" | sed 's/^/    /'; echo
	fi
}

# ---- usage --------------------------------------------------------------------------
out=$("$SONDE" diagnose 2>&1); rc=$?
expect_match diagnose:needs_a_target 'name the service with one of -p PID' "$out rc=$rc"
out=$("$SONDE" diagnose -p 1 abc 2>&1)
expect_match diagnose:bad_seconds 'SECONDS is a whole number' "$out"

# ---- the run queue: two loops pinned to the service's CPU --------------------------------
# the loops wait until the service makes $DX/go as it starts, then spin for
# 8 s: the 3 s window and its end, however long sonde took to start (an
# ASan sonde on a loaded machine took over 30 s once: loops started before
# it had ended by then, or spun at -20 all that time)
rm -f "$DX/go"
$HI taskset -c 0 "$DX/dx_service" spin 8000 -w "$DX/go" & l1=$!
$HI taskset -c 0 "$DX/dx_service" spin 8000 -w "$DX/go" & l2=$!
until_true sh -c "grep -q dx_service /proc/$l1/comm && grep -q dx_service /proc/$l2/comm"
$HI "$SONDE" diagnose -f json -o "$DX/runq.json" -c "taskset -c 0 $DX/dx_service spin 20000 -m $DX/go" 3 \
	2> "$DX/runq.err"
kill_reap $l1 $l2
dx_check runq_verdict "$DX/runq.json" '
assert spots and spots[0] == "runqueue", spots
assert g["ns"]["runqueue"] > 0.5 * g["wall_ns"], g["ns"]'
dx_check runq_matches_schedstat "$DX/runq.json" '
k, m = g["kernel_run_delay_ns"], g["ns"]["runqueue"] + g["ns"]["throttled"]
assert abs(k - m) <= 0.10 * k, "sonde %d ns, schedstat run_delay %d ns" % (m, k)'
dx_check runq_who_ran_instead "$DX/runq.json" "
top = [o['pid'] for o in r['ran_instead'][:2]]
assert sorted(top) == sorted([$l1, $l2]), r['ran_instead'][:4]"

# ---- the CPU quota: a cgroup at 20 % of a CPU ------------------------------------------------
if [ -w /sys/fs/cgroup/cpu/cgroup.procs ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
	cg=/sys/fs/cgroup/cpu/sonde-dx-$$
	mkdir -p "$cg" && echo 100000 > "$cg/cpu.cfs_period_us" && echo 20000 > "$cg/cpu.cfs_quota_us" &&
		echo 262144 > "$cg/cpu.shares"
	stat_of() { sed -n "s/^$1 //p" "$cg/cpu.stat"; }
else
	cg=$(cgroup2_root)/sonde-dx-$$
	grep -qw cpu "$(cgroup2_root)/cgroup.subtree_control" 2>/dev/null || cg=
	[ -n "$cg" ] && mkdir -p "$cg" && echo "20000 100000" > "$cg/cpu.max" && echo 10000 > "$cg/cpu.weight"
	stat_of() { case $1 in throttled_time) echo $(( $(sed -n 's/^throttled_usec //p' "$cg/cpu.stat") * 1000 ));;
		    *) sed -n "s/^$1 //p" "$cg/cpu.stat";; esac; }
fi
if [ -z "$cg" ] || [ ! -d "$cg" ]; then
	skip diagnose:throttled "no cgroup with the cpu controller can be made here (v1 cpu or v2 cpu.max)"
else
	sh -c "echo \$\$ > $cg/cgroup.procs && exec $DX/dx_service spin 600000" & svc=$!
	until_true grep -qx "$svc" "$cg/cgroup.procs"
	before=$(stat_of throttled_time)
	"$SONDE" diagnose -f json -o "$DX/thr.json" -p $svc 3 2> "$DX/thr.err"
	after=$(stat_of throttled_time)
	kill_reap $svc
	cgroup_remove "$cg"
	dx_check throttled "$DX/thr.json" "
assert spots and spots[0] == 'throttled', spots
c = r['cgroups'][0]
assert c['nr_throttled'] >= 10 and c['nr_throttled'] <= c['nr_periods'], c
# the report's window lies inside the test's reading of cpu.stat
assert 0 < c['throttled_ns'] <= $after - $before, (c, $after - $before)
assert g['ns']['running'] <= 0.25 * g['wall_ns'], g['ns']"
fi

# ---- major faults: a file read through a mapping after eviction ------------------------------
"$SONDE" diagnose -f json -o "$DX/faults.json" -c "$RT $DX/dx_service faults $DX/faults.data 2" 60 \
	> "$DX/faults.out" 2> "$DX/faults.err"
maj=$(sed -n 's/^majflt //p' "$DX/faults.out")
dx_check major_faults "$DX/faults.json" "
assert spots and spots[0] == 'major_faults', spots
# the process's own getrusage(): the kernel's count for the whole life
assert $maj >= 16384 and abs(g['major_faults'] - $maj) <= 2, (g['major_faults'], $maj)"
# where (issue #34): the stack seen most while faulting is the reading loop's
dx_check major_faults_where "$DX/faults.json" '
v = [v for v in r["verdict"] if v["spot"] == "major_faults"][0]
assert v["stacks"] and v["stacks"][0]["frames"][0].startswith("faults+"), v["stacks"][:1]'

# ---- I/O: an fsync loop ------------------------------------------------------------------------
# (4000: about half a second blocked on I/O here.  The command runs as a
# CFS task until chrt has made it SCHED_FIFO, and on a busy machine one
# wait in the run queue then (30 ms seen) outweighed 400 fsyncs' 30 ms)
"$SONDE" diagnose -f json -o "$DX/io.json" -c "$RT $DX/dx_service fsync $DX/io.data 4000" 60 \
	2> "$DX/io.err"
dx_check io "$DX/io.json" '
assert spots and spots[0] == "io", spots
assert g["block_requests"] > 0 and sum(g["block_hist_us"].values()) == g["block_requests"], g
rw = {x["syscall"]: x["calls"] for x in g["rw_syscalls"]}
assert rw.get("fsync") == 4000 and rw.get("write") == 4000, rw'
dx_check io_where "$DX/io.json" '
v = [v for v in r["verdict"] if v["spot"] == "io"][0]
assert v["stacks"] and v["stacks"][0]["frames"][0].startswith("fsync+"), v["stacks"][:1]'
"$SONDE" diagnose -c "$RT $DX/dx_service fsync $DX/io.data 100" 60 > "$DX/io.txt" 2>&1
expect_match diagnose:io_text 'blocked on I/O: [0-9]+ % of the busiest threads' "$(cat "$DX/io.txt")"
expect_match diagnose:io_text_histogram 'block I/O latency of its requests, us:' "$(cat "$DX/io.txt")"

# ---- the GPU boundary: NVIDIA requests on device files of a private mount namespace ------------
# /dev/nvidiactl and /dev/nvidia-uvm are /dev/null's device (1, 3) there,
# so every request fails at once, but each is a real ioctl on a file of
# that name, which is how sonde tells the driver's calls apart
cat > "$DX/nv.sh" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /dev && mknod /dev/nvidiactl c 1 3 && mknod /dev/nvidia-uvm c 1 3 && exec $DX/dx_service nvioctl /dev/nvidiactl /dev/nvidia-uvm'
EOF
chmod +x "$DX/nv.sh"
"$SONDE" diagnose -f json -o "$DX/nv.json" -c "$DX/nv.sh" 2 2> "$DX/nv.err"
dx_check gpu_ioctl_names "$DX/nv.json" '
got = sorted((x["path"], x["request"], x["calls"]) for x in r["gpu_ioctls"])
want = sorted([("/dev/nvidiactl", "NV_ESC_REGISTER_FD", 2), ("/dev/nvidiactl", "NV_ESC_RM_ALLOC", 3),
	("/dev/nvidiactl", "NV_ESC_RM_CONTROL NV2080_CTRL 0x20800110", 5),
	("/dev/nvidia-uvm", "UVM_INITIALIZE", 1), ("/dev/nvidia-uvm", "UVM_MIGRATE", 4)])
assert got == want, got'

# ---- CUDA runtime calls through the real libcudart (no GPU: they fail, counted all the same) ---
cudart=/usr/local/cuda/lib64
if [ -e "$cudart/libcudart.so" ]; then
	gcc -O1 -o "$DX/cuda_app" "$top/tests/workloads/cuda_app.c" -L"$cudart" -lcudart -Wl,-rpath,"$cudart" &&
		cuda_kind="the real libcudart ($cudart)"
else
	mkdir -p "$DX/stub"
	gcc -O1 -shared -fPIC -o "$DX/stub/libcudart.so" "$top/tests/workloads/libcudart_stub.c" &&
	gcc -O1 -o "$DX/cuda_app" "$top/tests/workloads/cuda_app.c" -L"$DX/stub" -lcudart -Wl,-rpath,"$DX/stub" &&
		cuda_kind="the tests' stand-in (no CUDA toolkit at /usr/local/cuda)"
	skip diagnose:cuda_real_libcudart "no CUDA toolkit at $cudart: the stand-in libcudart is traced instead"
fi
rm -f "$DX/cuda.go"
"$DX/cuda_app" "$DX/cuda.go" & app=$!
until_true grep -q libcudart "/proc/$app/maps"
"$SONDE" diagnose -f json -o "$DX/cuda.json" -p $app 30 2> "$DX/cuda.err" & dxp=$!
until_true sh -c "grep -q 'sonde diagnose: tracing' $DX/cuda.err || ! kill -0 $dxp"
touch "$DX/cuda.go"
wait $dxp
wait $app 2>/dev/null
dx_check "cuda_calls (${cuda_kind%% (*})" "$DX/cuda.json" '
got = {c["func"]: c["calls"] for c in r["cuda"]}
assert got == {"cudaMalloc": 3, "cudaMemcpy": 5, "cudaMemcpyAsync": 7, "cudaLaunchKernel": 11,
	"cudaStreamSynchronize": 13}, got'

# ---- a container: every process of a simulated docker scope ------------------------------------
ID=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
SLICE=$CGROOT/system.slice dx_slice=
[ -n "$CGROOT" ] || SLICE=/nonexistent
[ -d "$SLICE" ] || { mkdir "$SLICE" && dx_slice=$SLICE; }
SCOPE=$SLICE/docker-$ID.scope
if mkdir "$SCOPE" 2>/dev/null; then
	sh -c "echo \$\$ > $SCOPE/cgroup.procs && exec $DX/dx_service spin 600000" & c1=$!
	sh -c "echo \$\$ > $SCOPE/cgroup.procs && exec sleep infinity" & c2=$!
	until_true sh -c "[ \$(wc -l < $SCOPE/cgroup.procs) -ge 2 ]"
	"$SONDE" diagnose -f json -o "$DX/ct.json" --container "${ID:0:12}" 2 2> "$DX/ct.err"
	kill_reap $c1 $c2
	cgroup_remove "$SCOPE"
	[ -n "$dx_slice" ] && rmdir "$dx_slice"
	dx_check container "$DX/ct.json" "
assert r['target'].startswith('container $ID (2 processes)'), r['target']
assert sorted(x['pid'] for x in r['groups']) == sorted([$c1, $c2]), r['groups']
assert g['pid'] == $c1 and g['busy'], g
assert [x for x in r['groups'] if x['pid'] == $c2][0]['ns']['sleep'] > 0.9 * 2e9, r['groups']"
else
	skip diagnose:container "cannot make a cgroup under $SLICE"
fi

# ---- threads by name: an API thread asleep, an engine thread busy --------------------------------
# (named by their comm after the exec: the -c child is "sonde" before it;
# the window is the command's life, 6 s of naps)
gcc -O1 -pthread -o "$DX/api_engine" "$top/tests/workloads/api_engine.c" &&
$HI "$SONDE" diagnose -f json -o "$DX/threads.json" -c "$DX/api_engine 60 100 1500 dxapi" 30 \
	2> "$DX/threads.err"
dx_check threads_by_name "$DX/threads.json" '
names = {x["comm"]: x for x in r["groups"]}
assert set(names) == {"dxapi", "engine"}, list(names)
assert names["engine"]["busy"] and not names["dxapi"]["busy"], r["groups"]
assert names["dxapi"]["ns"]["sleep"] > 0.5 * names["dxapi"]["wall_ns"], names["dxapi"]["ns"]
assert len(set(x["pid"] for x in r["groups"])) == 1, r["groups"]'

# ---- healthy: a loop alone on its CPU ------------------------------------------------------------
$HI "$SONDE" diagnose -c "taskset -c 1 $DX/dx_service spin 30000" 2 > "$DX/healthy.txt" 2>&1
expect_match diagnose:healthy 'no host-side bottleneck found' "$(cat "$DX/healthy.txt")"
