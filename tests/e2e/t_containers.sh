# t_containers.sh - container-aware uprobes, proven without a container engine
# (sourced by run.sh; lib.sh gives $SONDE, $B, pass/fail/skip).
#
# A "container" here is what an engine makes of one, minus the engine:
#
#   - its own mount namespace (unshare --mount --propagation private) in
#     which build 2 of libsondetest.so is bind-mounted over build 1's path,
#     so the same absolute path names a different file with sonde_target at
#     a different offset (0x110fa instead of 0x10f9: 64 KiB of padding), as
#     two distributions' libcs place malloc differently;
#   - a cgroup v2 directory named like docker's,
#     <v2 root>/system.slice/docker-<64 hex>.scope, with one of its processes
#     in a child cgroup (as `docker exec` or a pod's nested cgroups do).
#
# Processes (tests/workloads/sondetest_call.c) dlopen the library by path,
# print "ready PID", then wait on a fifo so that every tracer is attached
# before the first call; each makes a known number of calls:
#
#   C1  container, in the scope           build 2 via build 1's path   300
#   C2  container, in scope/sub           build 2 via build 1's path   200
#   H1  host                              build 1                      500
#   H2  host, same file as the container  build 2 by its own path      400
#
# Expected (and checked exactly):
#   -p C1, short name or absolute path:            300
#   --container <12-char prefix>, no -p:           500 (C1 + C2; H2 fires the
#                                                  same uprobe and the BPF
#                                                  cgroup filter drops it);
#                                                  cgroup_path(cgroup) 300
#                                                  and 200 for scope, sub
#   short name, no -p, @[container]:               "" 900 (H1 + H2), id 500
#   absolute path, no -p (host's file only):       500 (H1), and a warning
#                                                  naming C1 and C2
#
# bpftrace 0.17 with the absolute path and no -p probes the host's build 1
# at 0x10f9 and counts 0 calls for C1 and C2 (measured on this machine,
# kernel 6.18: container 0 of 500, host 500 of 500): it opens the path in
# its own mount namespace, and a uprobe lives on that inode, which the
# container's processes never execute.  No warning; the calls are silently
# lost.  (Its count for H1 is right; H2 maps another path.)  The test
# prints its numbers beside sonde's and fails if bpftrace ever counts
# container calls here, since then this test no longer shows what it says.
#
# The --container filter (bpf_get_current_ancestor_cgroup_id at the scope's
# level) is also loaded into every program type sonde makes.
#
# Also: a mapping whose file was replaced while the process runs
# ("(deleted)"), a zombie -p target and processes exiting during
# resolution, and --follow attaching a container started after sonde.
#
# Cleanup (processes, cgroups; the bind mounts live and die with their
# private mount namespaces) runs from an EXIT trap in a subshell, so it
# happens on failure too and leaves run.sh's shell untouched.

(
ct_name=containers
CT=$B/containers
LIB1=$CT/v1/libsondetest.so	# build 1; the path every process opens
LIB2=$CT/v2/libsondetest.so	# build 2; bind-mounted over LIB1 in containers
CALL=$CT/sondetest_call
declare -a ct_pids=() ct_cgs=()
ct_made_slice=

ct_cleanup() {
	kill_reap "${ct_pids[@]}"
	# children first: the list is in creation order
	for ((i = ${#ct_cgs[@]} - 1; i >= 0; i--)); do
		cgroup_remove "${ct_cgs[i]}"
	done
	[ -n "$ct_made_slice" ] && rmdir "$ct_made_slice" 2>/dev/null
	rm -f "$CT"/fifo.* 2>/dev/null
}
trap ct_cleanup EXIT

# ---- prerequisites --------------------------------------------------------
need_root "$ct_name" || exit 0
CGROOT=$(cgroup2_root)
if [ -z "$CGROOT" ] || [ ! -w "$CGROOT/cgroup.procs" ]; then
	skip "$ct_name" "no writable cgroup v2 mount"; exit 0
fi
for tool in unshare gcc nm mkfifo; do
	command -v $tool >/dev/null || { skip "$ct_name" "$tool is not installed"; exit 0; }
done
if ! unshare --mount --propagation private true 2>/dev/null; then
	skip "$ct_name" "cannot create a mount namespace (unshare --mount)"; exit 0
fi

# ---- the two builds and the caller ------------------------------------------
mkdir -p "$CT/v1" "$CT/v2" "$CT/del"
src=$top/tests/workloads
# -fno-toplevel-reorder keeps the padding function before sonde_target
if ! { [ "$LIB1" -nt "$src/libsondetest.c" ] ||
       gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -o "$LIB1" "$src/libsondetest.c"; } ||
   ! { [ "$LIB2" -nt "$src/libsondetest.c" ] ||
       gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -DSONDE_PAD=65536 -o "$LIB2" "$src/libsondetest.c"; } ||
   ! { [ "$CALL" -nt "$src/sondetest_call.c" ] ||
       gcc -O1 -g -o "$CALL" "$src/sondetest_call.c" -ldl; }; then
	fail "${ct_name}_build"; exit 0
fi
off_of() { printf '%x' "$((0x$(nm -D "$1" | awk '$3 == "sonde_target" { print $1 }')))"; }
OFF1=$(off_of "$LIB1") OFF2=$(off_of "$LIB2")
INO2=$(stat -c %i "$LIB2")
if [ "$OFF1" = "$OFF2" ]; then
	fail "${ct_name}_builds_differ"; echo "    both builds put sonde_target at 0x$OFF1"; exit 0
fi

ID=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
SHORT=${ID:0:12}
SLICE=$CGROOT/system.slice
if [ ! -d "$SLICE" ]; then mkdir "$SLICE" && ct_made_slice=$SLICE; fi
SCOPE=$SLICE/docker-$ID.scope
mkdir "$SCOPE" && ct_cgs+=("$SCOPE") && mkdir "$SCOPE/sub" && ct_cgs+=("$SCOPE/sub") || {
	fail "${ct_name}_cgroup"; exit 0; }

# ---- helpers -----------------------------------------------------------------
nfifo=0
# ct_start VAR CGROUP|"" LIB N [container]: start a caller waiting on a fifo;
# VAR gets its pid, VAR_fifo its fifo.  With "container", it runs in a new
# mount namespace with build 2 bind-mounted over LIB1.  The process joins
# its cgroup itself, before exec, so it is in place before any tracer looks.
ct_start() {
	local var=$1 cg=$2 lib=$3 n=$4 kind=$5 fifo=$CT/fifo.$((++nfifo)) out=$CT/out.$nfifo
	local join=":"
	rm -f "$fifo" "$out"; mkfifo "$fifo"
	[ -n "$cg" ] && join="echo \$\$ > $cg/cgroup.procs"
	if [ "$kind" = container ]; then
		unshare --mount --propagation private sh -c \
			"$join && mount --bind $LIB2 $LIB1 && exec $CALL $lib $n $fifo" > "$out" 2>&1 &
	else
		sh -c "$join && exec $CALL $lib $n $fifo" > "$out" 2>&1 &
	fi
	local p=$!
	ct_pids+=("$p")
	for _ in $(seq 100); do
		grep -q "^ready $p\$" "$out" 2>/dev/null && break
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q "^ready $p\$" "$out" 2>/dev/null; then
		echo "    caller did not start: $(cat "$out" 2>&1)"
		return 1
	fi
	printf -v "$var" '%s' "$p"
	printf -v "${var}_fifo" '%s' "$fifo"
}

# ct_release FIFO...: let the callers make their calls
ct_release() {
	local f
	for f in "$@"; do timeout 5 sh -c "echo > $f" || echo "    (no reader on $f)"; done
}

# ct_wait PID...: wait for callers to finish (they are our children)
ct_wait() {
	local p
	for p in "$@"; do
		for _ in $(seq 200); do
			[ -e /proc/$p ] && [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" != Z ] || break
			sleep 0.05
		done
		wait "$p" 2>/dev/null
	done
}

# ct_launch TAG CMD...: start a tracer in the background (out in
# $CT/TAG.out, $CT/TAG.err); TAG_pid gets its pid.  ct_sonde TAG ARGS runs
# sonde so.  ct_ready TAG waits for "Attached" (sonde) or "go" (bpftrace).
ct_launch() {
	local tag=$1; shift
	# the child truncates these only once it runs: no stale "Attached"
	rm -f "$CT/$tag.out" "$CT/$tag.err"
	"$@" > "$CT/$tag.out" 2> "$CT/$tag.err" &
	printf -v "${tag}_pid" '%s' "$!"
	ct_pids+=("$!")
}
ct_sonde() { local tag=$1; shift; ct_launch "$tag" "$SONDE" "$@"; }
ct_deadline=0
ct_batch() { ct_deadline=$((SECONDS + 60)); }
ct_ready() {
	local tag=$1 pv=${1}_pid
	# one deadline for a batch of tracers started together (ct_batch)
	[ $ct_deadline != 0 ] || ct_deadline=$((SECONDS + 60))
	while [ $SECONDS -lt $ct_deadline ]; do
		grep -q '^Attached\|"attached_probes"\|^go$' "$CT/$tag.err" "$CT/$tag.out" 2>/dev/null &&
			return 0
		kill -0 "${!pv}" 2>/dev/null || break
		sleep 0.05
	done
	echo "    $tag did not attach:"; sed 's/^/    /' "$CT/$tag.err" | head -20
	return 1
}
# ct_stop TAG [again]: SIGINT, wait (10 s at most, then SIGKILL and a
# failed status); TAG_rc gets the exit status.  "again" repeats the SIGINT
# every second: bpftrace 0.17 sometimes misses one (seen here: it sat in
# epoll_wait for minutes after printing nothing; a second SIGINT ended it),
# which is bpftrace's race, not something this test measures.
ct_stop() {
	local pv=${1}_pid pid rc i
	pid=${!pv}
	kill -INT "$pid" 2>/dev/null
	for i in $(seq 100); do
		[ -e /proc/$pid ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != Z ] || break
		[ "$2" = again ] && [ $((i % 10)) = 0 ] && kill -INT "$pid" 2>/dev/null
		sleep 0.1
	done
	if [ -e /proc/$pid ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != Z ]; then
		echo "    $1 did not stop on SIGINT within 10 s"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"; rc=$?
	printf -v "${1}_rc" '%s' "$rc"
}
# the sanitizers print these; any of them fails the check that ran sonde
ct_clean() { ! grep -q 'Sanitizer\|runtime error:' "$CT/$1.err"; }

# ct_expect NAME TAG EXPECTED: sonde exited 0, no sanitizer report, and its
# map output (sorted lines, blank lines dropped) is EXPECTED
ct_expect() {
	local name=$1 tag=$2 want=$3 rcv=${2}_rc
	local got
	got=$(grep -v '^$' "$CT/$tag.out" | LC_ALL=C sort)
	if [ "${!rcv}" != 0 ] || ! ct_clean "$tag"; then
		fail "$name"; echo "    exit status ${!rcv}"; sed 's/^/    /' "$CT/$tag.err" | head -30
		return
	fi
	expect_eq "$name" "$want" "$got"
}

# ---- round 1: the four processes, every way of naming the target ---------
ct_start C1 "$SCOPE" "$LIB1" 300 container &&
ct_start C2 "$SCOPE/sub" "$LIB1" 200 container &&
ct_start H1 "" "$LIB1" 500 &&
ct_start H2 "" "$LIB2" 400 || { fail "${ct_name}_start"; exit 0; }

PROG='uprobe:libsondetest:sonde_target { @ = count(); }'
PROGA="uprobe:$LIB1:sonde_target { @ = count(); }"
ct_sonde pidname -p "$C1" -e "$PROG"
ct_sonde pidpath -p "$C1" -e "$PROGA"
ct_sonde cont --container "$SHORT" -e 'uprobe:libsondetest:sonde_target { @c[container] = count(); @p[pid] = count(); @g[cgroup_path(cgroup)] = count(); }'
ct_sonde all -v -e 'uprobe:libsondetest:sonde_target { @[container] = count(); }'
ct_sonde json -f json -e 'uprobe:libsondetest:sonde_target { @[container, pid, comm] = count(); }'
ct_sonde path -v -e "$PROGA"
have_bpftrace=
if command -v bpftrace >/dev/null; then
	have_bpftrace=1
	# bpftrace runs BEGIN after attaching every probe: "go" means ready
	ct_launch bt bpftrace -e "BEGIN { printf(\"go\\n\"); } uprobe:$LIB1:sonde_target { @[pid] = count(); }"
fi
ready=1; ct_batch
for t in pidname pidpath cont all json path ${have_bpftrace:+bt}; do ct_ready $t || ready=; done

# the --container filter, bpf_get_current_ancestor_cgroup_id(level), must
# load in every program type sonde makes (kprobes: not on this kernel)
bad=
for p in 'tracepoint:syscalls:sys_enter_getpid' 'rawtracepoint:sys_enter' 'interval:ms:100' \
	 'profile:hz:99' 'software:cpu-clock:100000' 'uprobe:libsondetest:sonde_target' \
	 'uretprobe:libsondetest:sonde_target'; do
	"$SONDE" --dry-run -q --container "$SHORT" -e "$p { @ = count(); }" > "$CT/types.out" 2>&1 ||
		{ bad=1; echo "    $p:"; sed 's/^/      /' "$CT/types.out" | head -8; }
done
[ -z "$bad" ] && pass "${ct_name}_filter_all_prog_types" || fail "${ct_name}_filter_all_prog_types"
# ... and it is the ancestor helper (id 123) at the scope's depth (2)
expect_match "${ct_name}_filter_is_ancestor" "call i64 inttoptr \(i64 123 to ptr\)\(i64 2\)" \
	"$("$SONDE" --emit ir --container "$SHORT" -e 'tracepoint:syscalls:sys_enter_getpid { @ = count(); }' 2>&1)"
ct_release "$C1_fifo" "$C2_fifo" "$H1_fifo" "$H2_fifo"
ct_wait "$C1" "$C2" "$H1" "$H2"
for t in pidname pidpath cont all json path; do ct_stop $t; done
[ -n "$have_bpftrace" ] && ct_stop bt again
[ -n "$ready" ] || echo "    (a tracer was not ready; the counts below say which)"

# (a) -p with the library short name: the container's own build
ct_expect "${ct_name}_pid_libname" pidname "@: 300"
# (b) -p with the absolute path: resolved inside C1's mount namespace
ct_expect "${ct_name}_pid_abspath" pidpath "@: 300"
# (c) --container: its two processes (one in a child cgroup), not H2;
# cgroup_path() tells the two cgroups apart, container folds them
rel=${SCOPE#$CGROOT}
ct_expect "${ct_name}_container_filter" cont "$(LC_ALL=C sort <<EOF
@c[$SHORT]: 500
@g[$rel/sub]: 200
@g[$rel]: 300
@p[$C1]: 300
@p[$C2]: 200
EOF
)"
# (d) short name, no -p: every file mapped under that name, by container
ct_expect "${ct_name}_all_by_container" all "$(LC_ALL=C sort <<EOF
@[]: 900
@[$SHORT]: 500
EOF
)"
# (d, JSON) tuple keys with an empty container id
if command -v jq >/dev/null; then
	got=$(jq -r 'select(.type == "map") | .data["@"] | to_entries[] | "\(.key)=\(.value)"' \
		"$CT/json.out" 2>&1 | LC_ALL=C sort)
	want=$(LC_ALL=C sort <<EOF
$SHORT,$C1,sondetest_call=300
$SHORT,$C2,sondetest_call=200
,$H1,sondetest_call=500
,$H2,sondetest_call=400
EOF
)
	if [ "$json_rc" = 0 ] && ct_clean json; then expect_eq "${ct_name}_json_keys" "$want" "$got"
	else fail "${ct_name}_json_keys"; sed 's/^/    /' "$CT/json.err" | head; fi
else
	skip "${ct_name}_json_keys" "jq is not installed"
fi
# -v names each file (its inode and offset) and the processes it serves
v=$(cat "$CT/all.err")
expect_match "${ct_name}_v_container_file" \
	"attached sonde_target\+0x$OFF2 in $LIB1 \([0-9]+:[0-9]+ inode $INO2\) for pids ($C1|$C2|$H2), ($C1|$C2|$H2), ($C1|$C2|$H2)\$" "$v"
expect_match "${ct_name}_v_host_file" \
	"attached sonde_target\+0x$OFF1 in $LIB1 \([0-9]+:[0-9]+ inode $(stat -c %i "$LIB1")\) for pid $H1\$" "$v"
expect_match "${ct_name}_v_names_root" "-> $LIB1 .*in /proc/($C1|$C2)/root\) offset 0x$OFF2" "$v"
# absolute path, no -p: the host's file, and a warning about the others
ct_expect "${ct_name}_abspath_host_only" path "@: 500"
expect_match "${ct_name}_abspath_warns" \
	"warning: 2 processes in other mount namespaces \(($C1|$C2) \(sondetest_call\), ($C1|$C2) \(sondetest_call\)\) map a different file at $LIB1" \
	"$(cat "$CT/path.err")"

# bpftrace 0.17, same scenario, absolute path, no -p
if [ -n "$have_bpftrace" ]; then
	bt_of() { local c; c=$(sed -n "s/^@\[$1\]: //p" "$CT/bt.out"); echo "${c:-0}"; }
	bt_c=$(( $(bt_of "$C1") + $(bt_of "$C2") )) bt_h=$(bt_of "$H1")
	s_c=$(awk -F': ' -v k="@c[$SHORT]" '$1 == k { print $2 }' "$CT/cont.out")
	s_h=$(awk -F': ' '$1 == "@" { print $2 }' "$CT/path.out")
	echo "    calls made:   container (C1+C2) 500, host build 1 (H1) 500"
	echo "    sonde:        container ${s_c:-0} (--container $SHORT), host ${s_h:-0} ($LIB1, no -p)"
	echo "    bpftrace 0.17: container ${bt_c} ($LIB1, no -p),  host ${bt_h:-0}"
	# bpftrace is the baseline: right for the host, blind to the container
	if [ "$bt_c" = 0 ] && [ "${bt_h:-0}" = 500 ]; then pass "${ct_name}_bpftrace_misses_container"
	else fail "${ct_name}_bpftrace_misses_container"; sed 's/^/    /' "$CT/bt.out" "$CT/bt.err" | head -20; fi
else
	skip "${ct_name}_bpftrace_misses_container" "bpftrace is not installed"
fi

# ---- round 2: a library replaced while the process runs -------------------
# dpkg and rpm replace files by rename: the running process keeps the old
# inode, which /proc/PID/maps shows as "PATH (deleted)".
cp "$LIB1" "$CT/del/libsondetest.so"
ct_start D1 "" "$CT/del/libsondetest.so" 100 || { fail "${ct_name}_deleted_start"; exit 0; }
cp "$LIB2" "$CT/del/.new" && mv "$CT/del/.new" "$CT/del/libsondetest.so"
if ! grep -q "$CT/del/libsondetest.so (deleted)" /proc/$D1/maps; then
	fail "${ct_name}_deleted_setup"; grep libsondetest /proc/$D1/maps | sed 's/^/    /'
fi
ct_sonde delname -v -p "$D1" -e "$PROG"
ct_sonde delpath -p "$D1" -e "uprobe:$CT/del/libsondetest.so:sonde_target { @ = count(); }"
# no -p: the short name finds the deleted file through D1's mappings
ct_sonde delall -e "$PROG"
ready=1; ct_batch
for t in delname delpath delall; do ct_ready $t || ready=; done
ct_release "$D1_fifo"; ct_wait "$D1"
for t in delname delpath delall; do ct_stop $t; done
ct_expect "${ct_name}_deleted_libname" delname "@: 100"
ct_expect "${ct_name}_deleted_abspath" delpath "@: 100"
ct_expect "${ct_name}_deleted_no_pid" delall "@: 100"
expect_match "${ct_name}_deleted_v" "attached sonde_target\+0x$OFF1 in $CT/del/libsondetest.so \(deleted\)" \
	"$(cat "$CT/delname.err")"

# ---- round 3: targets that exit -------------------------------------------
# a zombie: /proc/PID exists, its maps are empty (its parent,
# tests/workloads/zombie, keeps it unreaped).  One clear sentence and
# status 1, nothing attached.
if zombie_start "$CT" "$CALL" "$LIB1" 0; then
	for how in libname abspath; do
		if [ $how = libname ]; then p=$PROG; else p=$PROGA; fi
		"$SONDE" -p "$zp" -e "$p" > "$CT/zombie.out" 2> "$CT/zombie.err"; zrc=$?
		if [ "$zrc" = 1 ] && ct_clean zombie && [ "$(grep -c '^sonde: ' "$CT/zombie.err")" = 1 ] &&
		   grep -q "pid $zp has exited (a zombie" "$CT/zombie.err"; then pass "${ct_name}_zombie_$how"
		else fail "${ct_name}_zombie_$how"; echo "    status $zrc"; sed 's/^/    /' "$CT/zombie.err" | head; fi
	done
else
	fail "${ct_name}_zombie_libname"; fail "${ct_name}_zombie_abspath"
fi
zombie_end

# processes that map the library and exit while sonde scans /proc: the
# resolution must neither fail nor crash, and count the one that stays
ct_start E1 "" "$LIB1" 250 || { fail "${ct_name}_exiting_start"; exit 0; }
( end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do "$CALL" "$LIB1" 0 > /dev/null; done ) &
churn=$!; ct_pids+=("$churn")
sleep 0.3
ct_sonde exiting -v -e "$PROG"
ct_batch; ct_ready exiting
ct_release "$E1_fifo"; ct_wait "$E1"
ct_stop exiting
kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null
ct_expect "${ct_name}_exiting_processes" exiting "@: 250"

# ---- round 4: --follow picks up a container started after sonde ------------
ct_start F1 "" "$LIB1" 150 || { fail "${ct_name}_follow_start"; exit 0; }
ct_sonde follow -v --follow -e 'uprobe:libsondetest:sonde_target { @[container] = count(); }'
ct_batch
if ct_ready follow; then
	ct_start F2 "$SCOPE" "$LIB1" 350 container || { fail "${ct_name}_follow_start"; exit 0; }
	# (released once sonde has attached to it: 6 s were the bound, which
	# a busy machine can outrun, and its 350 calls would then go uncounted)
	wait_for "$CT/follow.err" "in new file .* for pid $F2\$" 60
fi
ct_release "$F1_fifo" "$F2_fifo"; ct_wait "$F1" "$F2"
ct_stop follow
ct_expect "${ct_name}_follow_counts" follow "$(LC_ALL=C sort <<EOF
@[]: 150
@[$SHORT]: 350
EOF
)"
expect_match "${ct_name}_follow_v" \
	"attached sonde_target\+0x$OFF2 in new file $LIB1 \([0-9]+:[0-9]+ inode $INO2\) for pid $F2\$" \
	"$(cat "$CT/follow.err")"
)
