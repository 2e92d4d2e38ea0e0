# t_recipes.sh - the shipped recipes (scripts/*.sonde, issue #5), sourced by
# run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq/expect_match).
#
# Every recipe must open with its header (what it measures, why it matters,
# how to read the output, parameters) and pass the kernel's verifier
# (--dry-run).  Then each runs against a workload these tests build, whose
# answer is known, and the check is on numbers, not only on shape:
#
#   runqlat         two busy threads pinned to CPU 0 (spin.c): waits of a
#                   millisecond and more, only the target's threads
#   malloc-per-pid  malloc_loop.c: exactly N calls for its pid, with -c; in a
#                   cgroup named like a docker container: the container id,
#                   and --container keeps only that container's processes
#   pagefaults      page_faults.c: 3 x 256 user faults, 256 of them major
#   ioctl-latency   ioctl_loop.c: exact counts with the request decoded
#                   (RW 'F' 42 48, NONE 'T' 1 0, R 0x1b 5 8); ioctl_dev.c on a
#                   /dev/nvidiactl made in a private mount namespace: marked
#                   "(GPU driver)"
#   biolatency      dd with O_DIRECT|O_DSYNC: at least 64 requests, on a disk
#                   named by disk()
#   cuda-calls      a stand-in libcudart.so built here (libcudart_stub.c) and
#                   cuda_app.c: exact calls per function, and the 2 ms
#                   cudaStreamSynchronize in the [2K, 4K) us histogram
#   syscount        ioctl_loop.c: exactly N ioctl, by name
#   offcpu          api_engine.c: its "api" thread sleeps 5 x 100 ms
#   threads         api_engine.c: its "engine" thread computes 300 ms
#   execsnoop       a program run by a shell: its exec, with the shell as
#                   its parent
#
# Recipes that print every second stop through -c CMD or their SECONDS
# parameter.  Counts printed every second are summed over the prints.
# Cleanup (background processes, the cgroup) runs from an EXIT trap in a
# subshell, so it happens on failure too and leaves run.sh's shell alone.

(
R=$top/scripts
W=$B/recipes
declare -a rc_pids=()
rc_cg=

rc_cleanup() {
	kill_reap "${rc_pids[@]}"
	cgroup_remove "$rc_cg"
	rm -f "$W/go" "$W/bio.dat" "$W/pf.dat"
}
trap rc_cleanup EXIT
mkdir -p "$W"

# sum_of REGEX TEXT: the sum of the last field of the lines matching REGEX
sum_of() {
	printf '%s\n' "$2" | grep -E -- "$1" | awk '{ s += $NF } END { print s + 0 }'
}
# in_range NAME LO HI VALUE
in_range() {
	if [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then pass "$1"; else
		fail "$1"; echo "    $4 is not within [$2, $3]"
	fi
}
# the count of a hist line "[lo, hi)   COUNT |@@@   |" is the field before " |"
count_awk='function count(l) { sub(/ \|.*/, "", l); n = split(l, f, " "); return f[n] + 0 }'
# the counts of the hist printed under header line HEADER (exact text)
hist_total() {
	printf '%s\n' "$2" | awk -v h="$1" "$count_awk"'
		$0 == h { on = 1; next } on && /^[[(]/ { s += count($0); next } on { exit } END { print s + 0 }'
}

# ---- every recipe: header, and the verifier accepts it -----------------------
recipes=$(cd "$R" && ls *.sonde | sed 's/\.sonde$//')
if [ -z "$recipes" ]; then fail recipes:present; exit 0; fi
for r in $recipes; do
	head=$(sed -n '1,/\*\//p' "$R/$r.sonde")
	missing=
	for section in "What it measures" "Why it matters" "How to read the output" "Parameters"; do
		grep -q "$section" <<< "$head" || missing="$missing '$section'"
	done
	case $head in "/*"*) ;; *) missing="$missing (no opening comment)";; esac
	if [ -z "$missing" ]; then pass "recipes:header:$r"; else
		fail "recipes:header:$r"; echo "    header lacks$missing"
	fi
done

need_root recipes:bpf || exit 0

for w in malloc_loop page_faults ioctl_dev ioctl_loop spin api_engine; do
	build_workload $w || { fail "recipes:build:$w"; exit 0; }
done
# the stand-in CUDA runtime, and a program linked against it
mkdir -p "$W/cuda"
if ! { [ "$W/cuda/libcudart.so" -nt "$top/tests/workloads/libcudart_stub.c" ] ||
       gcc -O1 -g -shared -fPIC -o "$W/cuda/libcudart.so" "$top/tests/workloads/libcudart_stub.c"; } ||
   ! { [ "$W/cuda_app" -nt "$top/tests/workloads/cuda_app.c" ] ||
       gcc -O1 -g -o "$W/cuda_app" "$top/tests/workloads/cuda_app.c" -L"$W/cuda" -lcudart \
	       -Wl,-rpath,"$W/cuda"; }; then
	fail recipes:build:cuda; exit 0
fi

# start_cuda_app: cuda_app waiting for $W/go, its pid in $app once it maps
# the stand-in library
start_cuda_app() {
	rm -f "$W/go"
	"$W/cuda_app" "$W/go" &
	app=$!
	rc_pids+=("$app")
	for _ in $(seq 100); do
		grep -q "$W/cuda/libcudart.so" "/proc/$app/maps" 2>/dev/null && return 0
		sleep 0.02
	done
	echo "    cuda_app did not map the stand-in libcudart.so"
	return 1
}

for r in $recipes; do
	if [ "$r" = cuda-calls ]; then
		# probe the stand-in: a machine without CUDA has no libcudart to
		# attach to otherwise (that case is checked below)
		start_cuda_app || { fail "recipes:dry_run:$r"; continue; }
		out=$("$SONDE" --dry-run -p "$app" "$R/$r.sonde" 2>&1); rc=$?
		kill "$app" 2>/dev/null; wait "$app" 2>/dev/null
	else
		out=$("$SONDE" --dry-run "$R/$r.sonde" 2>&1); rc=$?
	fi
	expect_match "recipes:dry_run:$r" "^sonde: dry run: [0-9]+ probes? loaded and attached rc=0$" "$out rc=$rc"
done
# found by name, as after make install (SONDE_SCRIPTS stands in for the
# install directory)
out=$(SONDE_SCRIPTS=$R "$SONDE" --dry-run runqlat 2>&1)
expect_match recipes:by_name "^sonde: dry run: 6 probes loaded and attached$" "$out"

# ---- runqlat -----------------------------------------------------------------
# spin runs until killed: sonde may take seconds to attach on a busy machine
"$B/spin" 2 3600000 &
spin=$!
rc_pids+=("$spin")
wait_threads "$spin" 3
out=$("$SONDE" -q "$R/runqlat.sonde" "$spin" 1 2 2>&1)
expect_match recipes:runqlat:per_comm_header '^@runq_usecs_by_comm\[spin\]: $' "$out"
others=$(printf '%s\n' "$out" | grep '^@' | grep -v '^@runq_usecs_by_comm\[spin\]: $')
expect_eq recipes:runqlat:pid_filter "" "$others"
# each thread waits for the other's time slice: about 3 ms, 300 times a
# second on an idle machine; threads that never sleep have no wakeups, so
# only the preempted ones' waits fill these buckets.  Beside other busy
# processes CPU 0 gives spin far fewer slices (11 in 1 s seen under a
# two-core load): a few in 2 s say the preemptions are measured.
waits_ms=$(printf '%s\n' "$out" | awk "$count_awk"'/^\[[0-9]+K, / { s += count($0) } END { print s + 0 }')
in_range recipes:runqlat:millisecond_waits 5 100000 "$waits_ms"
out=$("$SONDE" -q "$R/runqlat.sonde" 0 0 1 2>&1)
expect_match recipes:runqlat:one_histogram '^@runq_usecs: $' "$out"
kill "$spin" 2>/dev/null; wait "$spin" 2>/dev/null

# ---- malloc-per-pid ------------------------------------------------------------
out=$("$SONDE" -q -c "$B/malloc_loop 5000" "$R/malloc-per-pid.sonde" 2>&1)
expect_eq recipes:malloc:exact_count 5000 "$(sum_of '^@malloc_calls\[, [0-9]+, malloc_loop\]: ' "$out")"

CGROOT=$(cgroup2_root)
if [ -z "$CGROOT" ] || [ ! -w "$CGROOT/cgroup.procs" ]; then
	skip recipes:malloc:container "no writable cgroup v2 mount"
else
	id=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
	short=${id:0:12}
	mkdir -p "$CGROOT/system.slice"
	rc_cg=$CGROOT/system.slice/docker-$id.scope
	mkdir "$rc_cg"
	# a resident, so --container finds the container's libc to probe
	sh -c "echo \$\$ > $rc_cg/cgroup.procs && exec sleep infinity" &
	rc_pids+=("$!")
	for _ in $(seq 50); do [ -s "$rc_cg/cgroup.procs" ] && break; sleep 0.02; done
	join=$(sh_script rc_join "echo \$\$ > $rc_cg/cgroup.procs && exec $B/malloc_loop 3000")
	out=$("$SONDE" -q -c "$join" "$R/malloc-per-pid.sonde" 2>&1)
	expect_eq recipes:malloc:container_column 3000 \
		"$(sum_of "^@malloc_calls\[$short, [0-9]+, malloc_loop\]: " "$out")"
	out=$("$SONDE" -q --container "$short" -c "$join" "$R/malloc-per-pid.sonde" 2>&1)
	expect_eq recipes:malloc:container_filter_count 3000 \
		"$(sum_of "^@malloc_calls\[$short, [0-9]+, malloc_loop\]: " "$out")"
	expect_eq recipes:malloc:container_filter_only "" \
		"$(printf '%s\n' "$out" | grep '^@malloc_calls\[' | grep -v "^@malloc_calls\[$short, ")"
	# runqlat --container measures the container's threads, whoever woke
	# or preempted them: only spin's histogram, no host kworker's
	sh -c "echo \$\$ > $rc_cg/cgroup.procs && exec $B/spin 2 3600000" &
	cspin=$!
	rc_pids+=("$cspin")
	wait_threads "$cspin" 3
	out=$("$SONDE" -q --container "$short" "$R/runqlat.sonde" 0 1 1 2>&1)
	expect_match recipes:runqlat:container_measured '^@runq_usecs_by_comm\[spin\]: $' "$out"
	expect_eq recipes:runqlat:container_only "" \
		"$(printf '%s\n' "$out" | grep '^@runq_usecs_by_comm\[' | grep -v '^@runq_usecs_by_comm\[spin\]: $')"
	kill "$cspin" 2>/dev/null; wait "$cspin" 2>/dev/null
fi

# ---- pagefaults ------------------------------------------------------------------
out=$("$SONDE" -q -c "$B/page_faults $W/pf.dat 256" "$R/pagefaults.sonde" 2>&1)
# 3 x 256 from the passes, plus ~50 of process startup
in_range recipes:pagefaults:user_faults 768 1000 \
	"$(sum_of '^@page_faults\[, [0-9]+, page_faults\]: ' "$out")"
if [ "$(stat -f -c %T "$W")" = tmpfs ]; then
	skip recipes:pagefaults:major_faults "$W is on tmpfs: its pages cannot be evicted and re-read"
else
	in_range recipes:pagefaults:major_faults 256 266 \
		"$(sum_of '^@major_faults\[, [0-9]+, page_faults\]: ' "$out")"
fi

# ---- ioctl-latency ----------------------------------------------------------------
# _IOWR('F', 42, 48), _IO('T', 1) (TCGETS), _IOR(0x1b, 5, 8)
out=$("$SONDE" -q -c "$(sh_script rc_ioctls "$B/ioctl_loop 300 0xc030462a; $B/ioctl_loop 200 0x5401; $B/ioctl_loop 100 0x80081b05")" \
	"$R/ioctl-latency.sonde" 2>&1)
expect_eq recipes:ioctl:decoded_rw_F 300 \
	"$(sum_of "^@ioctls\[ioctl_loop, [0-9]+, [^]]*, RW, 'F', 42, 48\]: " "$out")"
expect_eq recipes:ioctl:decoded_none_T 200 \
	"$(sum_of "^@ioctls\[ioctl_loop, [0-9]+, [^]]*, NONE, 'T', 1, 0\]: " "$out")"
expect_eq recipes:ioctl:decoded_r_hex 100 \
	"$(sum_of "^@ioctls\[ioctl_loop, [0-9]+, [^]]*, R, 0x1b, 5, 8\]: " "$out")"
hdr=$(printf '%s\n' "$out" | grep -m1 "^@ioctl_usecs\[ioctl_loop, [0-9]*, .*, RW, 'F', 42, 48\]: $")
expect_eq recipes:ioctl:latency_hist 300 "$(hist_total "$hdr" "$out")"

if ! unshare --mount --propagation private true 2>/dev/null; then
	skip recipes:ioctl:gpu_label "cannot create a mount namespace (unshare --mount)"
else
	# /dev/nvidiactl as a driver's device file, in a private /dev; it keeps
	# its descriptor open until a per-second print has named it (while the
	# hold file exists), so the histograms that print after it exited are
	# named too
	rm -f "$B/rc_gpu.out" && : > "$B/rc_gpu.hold"
	gpu=$(sh_script rc_gpu "exec unshare --mount --propagation private sh -c 'mount -t tmpfs none /dev &&
		mknod -m 666 /dev/nvidiactl c 1 3 && exec $B/ioctl_dev /dev/nvidiactl 500 0xc030462a $B/rc_gpu.hold'")
	"$SONDE" -q -c "$gpu" "$R/ioctl-latency.sonde" > "$B/rc_gpu.out" 2>&1 &
	gp=$!
	wait_for "$B/rc_gpu.out" "^@ioctls\[ioctl_dev, [0-9]+, /dev/nvidiactl \(GPU driver\), RW, 'F', 42, 48\]: 500$" 120
	rm -f "$B/rc_gpu.hold"
	wait "$gp"
	out=$(cat "$B/rc_gpu.out")
	expect_eq recipes:ioctl:gpu_label 500 \
		"$(sum_of "^@ioctls\[ioctl_dev, [0-9]+, /dev/nvidiactl \(GPU driver\), RW, 'F', 42, 48\]: " "$out")"
	# the histograms print after the process exited: named from the
	# per-second print's reading
	hdr=$(printf '%s\n' "$out" | grep -m1 "^@ioctl_usecs\[ioctl_dev, [0-9]*, /dev/nvidiactl (GPU driver), RW, 'F', 42, 48\]: $")
	expect_eq recipes:ioctl:gpu_label_after_exit 500 "$(hist_total "$hdr" "$out")"
fi

# ---- biolatency ---------------------------------------------------------------------
src=$(findmnt -no SOURCE -T "$W" 2>/dev/null | head -1)
if [ "${src#/dev/}" = "$src" ] || [ ! -b "$src" ]; then
	skip recipes:biolatency "$W is not on a block device (${src:-unknown}): no disk requests to measure"
else
	out=$("$SONDE" -q -c "dd if=/dev/zero of=$W/bio.dat bs=4k count=64 oflag=direct,dsync status=none" \
		"$R/biolatency.sonde" 1 2>&1)
	# the request's disk is the whole disk under a partition
	disk=$(lsblk -no PKNAME "$src" 2>/dev/null | head -1)
	[ -n "$disk" ] || disk=$(basename "$(readlink -f "$src")")
	hdr="@bio_usecs_by_disk[$disk]: "
	n=$(hist_total "$hdr" "$out")
	if printf '%s\n' "$out" | grep -qxF "$hdr"; then
		in_range recipes:biolatency:per_disk 64 1000000 "$n"
	else
		# device-mapper and the like: the requests are on the disks below
		n=$(printf '%s\n' "$out" | awk "$count_awk"'/^@bio_usecs_by_disk\[[a-z]/ { on = 1; next }
			on && /^\[/ { s += count($0) } END { print s + 0 }')
		in_range recipes:biolatency:per_disk 64 1000000 "$n"
	fi
	out=$("$SONDE" -q -c "dd if=/dev/zero of=$W/bio.dat bs=4k count=16 oflag=direct,dsync status=none" \
		"$R/biolatency.sonde" 2>&1)
	in_range recipes:biolatency:one_histogram 16 1000000 "$(hist_total '@bio_usecs: ' "$out")"
	# -p: the process's own requests, stamped where it issues them and timed
	# at completion, which runs in interrupt context on any task
	# dd starts once sonde has attached; sonde ends with it
	rm -f "$W/bio.go" "$W/bio.err" && mkfifo "$W/bio.go"
	sh -c "read go < $W/bio.go; exec dd if=/dev/zero of=$W/bio2.dat bs=4k count=32 oflag=direct,dsync status=none" &
	dpid=$!
	"$SONDE" -p "$dpid" "$R/biolatency.sonde" 0 0 > "$W/bio.out" 2> "$W/bio.err" &
	bsp=$!
	wait_for "$W/bio.err" '^Attached' 120 || echo "    biolatency -p did not attach: $(cat "$W/bio.err")"
	echo go > "$W/bio.go"
	wait "$dpid" 2>/dev/null
	wait "$bsp"
	out=$(cat "$W/bio.out")
	in_range recipes:biolatency:pid_filter 32 128 "$(hist_total '@bio_usecs: ' "$out")"
fi

# ---- cuda-calls -----------------------------------------------------------------------
if start_cuda_app; then
	rm -f "$W/cuda.out" "$W/cuda.err"	# a previous run's "Attached" must not count
	"$SONDE" -p "$app" "$R/cuda-calls.sonde" 2 > "$W/cuda.out" 2> "$W/cuda.err" &
	tracer=$!
	rc_pids+=("$tracer")
	wait_for "$W/cuda.err" '^Attached' 60
	touch "$W/go"
	wait "$app"
	wait "$tracer"
	out=$(cat "$W/cuda.out")
	for fc in cudaMalloc:3 cudaMemcpy:5 cudaMemcpyAsync:7 cudaLaunchKernel:11 cudaStreamSynchronize:13; do
		f=${fc%:*}
		expect_eq "recipes:cuda:calls_$f" "${fc#*:}" \
			"$(sum_of "^@cuda_calls\[, $app, cuda_app, $f\]: " "$out")"
	done
	expect_eq recipes:cuda:sync_latency 13 \
		"$(printf '%s\n' "$out" | awk "$count_awk"'$0 == "@cuda_usecs[cudaStreamSynchronize]: " { on = 1; next }
			on && /^\[[0-9]+K, / { s += count($0); next } on { exit } END { print s + 0 }')"
else
	fail recipes:cuda:calls
fi
# where a process maps no libcudart, one sentence says so
sleep infinity &
idle=$!
rc_pids+=("$idle")
out=$("$SONDE" -p "$idle" "$R/cuda-calls.sonde" 1 2>&1); rc=$?
expect_match recipes:cuda:no_library_message \
	"^sonde: uprobe:libcudart:[A-Za-z*]+: pid $idle maps no library named 'libcudart'" "$out"
expect_eq recipes:cuda:no_library_status 1 "$rc"
kill "$idle" 2>/dev/null; wait "$idle" 2>/dev/null

# ---- syscount ------------------------------------------------------------------------
out=$("$SONDE" -q -c "$B/ioctl_loop 20000 0x5401" "$R/syscount.sonde" 2>&1)
expect_eq recipes:syscount:by_name 20000 "$(sum_of '^@syscalls\[ioctl_loop, [0-9]+, ioctl\]: ' "$out")"
in_range recipes:syscount:total 20000 100000000 "$(sum_of '^@syscalls_total\[ioctl\]: ' "$out")"

# ---- offcpu -------------------------------------------------------------------------
# The main thread has a name of its own: every thread of the machine is
# traced, and another test run's "api" must not add its naps.  No engine
# spin: the api thread then never waits for it in pthread_join, so its
# blocked time is the 5 naps alone, each at least 100 ms (a wait is charged
# at the wakeup, so a busy machine's run-queue delay does not count).
nap_name=api$$
nap_name=${nap_name:0:15}
# The recipe prints and clears every second (a slow start on a busy machine
# makes the run last past one): a print can lose the one update that lands
# in the kernel's window (docs/differences.md, "Nothing is lost between a
# print and its clear"), here one nap, 1 in 16 prints seen at a load of 19
out=$("$SONDE" -q -c "$B/api_engine 5 100 0 $nap_name" "$R/offcpu.sonde" 2>&1)
prints=$(printf '%s\n' "$out" | grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$')
in_range recipes:offcpu:api_sleeps $(( (5 - (prints < 5 ? prints : 5)) * 100000 )) 600000 \
	"$(sum_of "^@offcpu_us\\[$nap_name, [0-9]+, S\\]: " "$out")"
# (it naps until killed, however long sonde takes to attach)
"$B/api_engine" 100000 100 100 &
ae=$!
rc_pids+=("$ae")
wait_for "/proc/$ae/comm" "^api$"
out=$("$SONDE" -q "$R/offcpu.sonde" "$ae" 1 2>&1)
expect_match recipes:offcpu:pid_filter_measures "^@offcpu_us\[api, $ae, S\]: [0-9]+$" "$out"
expect_eq recipes:offcpu:pid_filter_only "" \
	"$(printf '%s\n' "$out" | grep '^@offcpu_us\[' | grep -v "^@offcpu_us\[[^,]*, $ae, [SD]\]: ")"
kill "$ae" 2>/dev/null; wait "$ae" 2>/dev/null
# -p: the blocking thread is tested in its own context; the wakeups (run by
# a timer interrupt on any task) are not filtered away
"$B/api_engine" 100000 100 100 &
ae=$!
rc_pids+=("$ae")
wait_for "/proc/$ae/comm" "^api$"
out=$("$SONDE" -q -p "$ae" "$R/offcpu.sonde" 0 1 2>&1)
expect_match recipes:offcpu:p_option_measures "^@offcpu_us\[api, $ae, S\]: [0-9]+$" "$out"
expect_eq recipes:offcpu:p_option_only "" \
	"$(printf '%s\n' "$out" | grep '^@offcpu_us\[' | grep -v "^@offcpu_us\[[^,]*, $ae, [SD]\]: ")"
kill "$ae" 2>/dev/null; wait "$ae" 2>/dev/null

# ---- threads --------------------------------------------------------------------------
out=$("$SONDE" -q -c "$B/api_engine 3 100 300" "$R/threads.sonde" 2>&1)
eng=$(printf '%s\n' "$out" | grep -E '^@thread_cpu_us\[[0-9]+, [0-9]+, engine\]: ' | head -1)
epid=$(printf '%s\n' "$eng" | sed -E 's/^@thread_cpu_us\[([0-9]+), ([0-9]+), .*/\1/')
etid=$(printf '%s\n' "$eng" | sed -E 's/^@thread_cpu_us\[([0-9]+), ([0-9]+), .*/\2/')
in_range recipes:threads:engine_cpu 285000 330000 "$(sum_of '^@thread_cpu_us\[[0-9]+, [0-9]+, engine\]: ' "$out")"
if [ -n "$epid" ] && [ "$epid" != "$etid" ]; then pass recipes:threads:engine_is_a_thread; else
	fail recipes:threads:engine_is_a_thread; echo "    engine line: '$eng'"
fi
expect_match recipes:threads:api_is_main "^@thread_cpu_us\[$epid, $epid, api\]: [0-9]+$" "$out"
in_range recipes:threads:process_total 285000 400000 "$(sum_of "^@process_cpu_us\[$epid\]: " "$out")"

# ---- execsnoop -------------------------------------------------------------------------
cp /bin/true "$W/xprobe1"
# every exec of the machine prints (the first /bin/sh of them was another
# test's on a busy machine): the shell says its pid itself, and xprobe1 is
# the one of this file's path
rm -f "$W/rc_exec.pid"
out=$("$SONDE" -q -c "/bin/sh $(sh_script rc_exec "echo \$\$ > $W/rc_exec.pid; $W/xprobe1; true")" "$R/execsnoop.sonde" 2>&1)
expect_match recipes:execsnoop:header '^TIME +PID +PPID +COMM +FILE$' "$out"
file=$W/xprobe1
file=${file:0:63}	# str() keeps 63 bytes
line=$(printf '%s\n' "$out" | awk -v f="$file" '$4 == "xprobe1" && $5 == f')
shpid=$(cat "$W/rc_exec.pid" 2>/dev/null)
expect_match recipes:execsnoop:exec_line "^[0-9:]{8} +[0-9]+ +$shpid +xprobe1 +$file\$" "$line"
)
