# t_agent.sh - --user-probes: the same script counts the same in the
# traced processes (libsonde-agent.so) as through kernel uprobes.
# (sourced by run.sh; lib.sh gives $SONDE, $B, pass/fail/skip)
#
# Two processes, each preloading the agent (inert until a sonde connects)
# and running tests/workloads/agent_calls.c against libsondetest.so:
#
#   H  on the host, build 1 of the library, its mallocs in 4 threads
#   C  a simulated container as in t_containers.sh: its own mount namespace
#      with build 2 (functions 64 KiB further in) bind-mounted over build
#      1's path, a docker-like cgroup scope, and the run directory
#      bind-mounted at another path (SONDE_RUN_DIR), as `docker run -v`
#      would; sonde takes it with --container.
#
# Each makes N malloc/free pairs and N sonde_alloc calls (one malloc each,
# a bad pointer as tag for odd calls) and NAPS sonde_nap(20 ms) calls, after
# the tracer attached.  Round 1 traces them with kernel uprobes, round 2
# (fresh processes) with --user-probes: never both at once on one process
# (a kernel uprobe written over an agent's hook would break it; see
# docs/user-probes.md).  Per pid, both rounds must print exactly
# @m = 2N, @a = N, @t[] = N/2 (the bad pointer reads as ""), @t[ok] = N/2,
# and the latency histograms' median buckets may differ by one at most.
# The bad reads leave the target running (it exits 0) and sonde warns.
#
# Also: sonde -c with --user-probes (the child waits in the agent until it
# is hooked: exact from its first call), a function too short for the jump
# refused with a clear message, and features user mode does not have as a
# located compile-time error.

(
ag_name=agent
AG=$B/agent
AGENT=$top/build/libsonde-agent.so
LIB1=$AG/v1/libsondetest.so
LIB2=$AG/v2/libsondetest.so
CALLS=$AG/agent_calls
RUN=$AG/run		# the host's run directory
CTRUN=$AG/ctrun		# where the container sees it
N=2000 NAPS=5
declare -a ag_pids=()
ag_scope=

ag_cleanup() {
	kill_reap "${ag_pids[@]}"
	cgroup_remove "$ag_scope" >/dev/null
	rm -f "$AG"/fifo.* "$RUN"/agent-* 2>/dev/null
}
trap ag_cleanup EXIT

need_root "$ag_name" || exit 0
if [ ! -r "$AGENT" ]; then fail "${ag_name}_built"; echo "    $AGENT is missing (make all)"; exit 0; fi
CGROOT=$(cgroup2_root)
if [ -z "$CGROOT" ] || [ ! -w "$CGROOT/cgroup.procs" ]; then
	skip "$ag_name" "no writable cgroup v2 mount"; exit 0
fi
if ! unshare --mount --propagation private true 2>/dev/null; then
	skip "$ag_name" "cannot create a mount namespace (unshare --mount)"; exit 0
fi

mkdir -p "$AG/v1" "$AG/v2" "$RUN" "$CTRUN"
src=$top/tests/workloads
# built as t_containers.sh builds it
if ! { [ "$LIB1" -nt "$src/libsondetest.c" ] ||
       gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -o "$LIB1" "$src/libsondetest.c"; } ||
   ! { [ "$LIB2" -nt "$src/libsondetest.c" ] ||
       gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -DSONDE_PAD=65536 -o "$LIB2" "$src/libsondetest.c"; } ||
   ! { [ "$CALLS" -nt "$src/agent_calls.c" ] || gcc -O1 -g -o "$CALLS" "$src/agent_calls.c" -ldl; } ||
   ! { [ "$AG/malloc_loop" -nt "$src/malloc_loop.c" ] || gcc -O1 -g -o "$AG/malloc_loop" "$src/malloc_loop.c"; }; then
	fail "${ag_name}_build"; exit 0
fi
ID=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
SHORT=${ID:0:12}
[ -d "$CGROOT/system.slice" ] || mkdir "$CGROOT/system.slice"
ag_scope=$CGROOT/system.slice/docker-$ID.scope
mkdir "$ag_scope" || { fail "${ag_name}_cgroup"; exit 0; }

nf=0
# ag_start VAR host|host1|container: a workload waiting on a fifo (host1:
# its mallocs in one thread, host: in 4); VAR gets its
# pid, VAR_fifo its fifo
ag_start() {
	local var=$1 kind=$2 fifo=$AG/fifo.$((++nf)) out=$AG/w.$nf p
	rm -f "$fifo" "$out"; mkfifo "$fifo"
	if [ "$kind" = container ]; then
		unshare --mount --propagation private sh -c "echo \$\$ > $ag_scope/cgroup.procs &&
			mount --bind $LIB2 $LIB1 && mount --bind $RUN $CTRUN &&
			SONDE_RUN_DIR=$CTRUN LD_PRELOAD=$AGENT exec $CALLS $LIB1 $N $fifo $NAPS" > "$out" 2>&1 &
	else
		# 4 threads: each writes its own shard, and the sum must be exact
		local threads=4; [ "$kind" = host1 ] && threads=1
		SONDE_RUN_DIR=$RUN LD_PRELOAD=$AGENT "$CALLS" "$LIB1" "$N" "$fifo" "$NAPS" $threads > "$out" 2>&1 &
	fi
	p=$!; ag_pids+=("$p")
	wait_for "$out" "^ready $p\$" 60 || { echo "    workload did not start: $(cat "$out")"; return 1; }
	printf -v "$var" '%s' "$p"
	printf -v "${var}_fifo" '%s' "$fifo"
	printf -v "${var}_out" '%s' "$out"
}

# ag_trace TAG ARGS...: sonde in the background; waits for "Attached"
ag_trace() {
	local tag=$1; shift
	rm -f "$AG/$tag.out" "$AG/$tag.err"
	SONDE_RUN_DIR=$RUN "$SONDE" "$@" > "$AG/$tag.out" 2> "$AG/$tag.err" &
	printf -v "${tag}_pid" '%s' "$!"
	ag_pids+=("$!")
	local pv=${tag}_pid
	for _ in $(seq 1200); do
		grep -q '^Attached' "$AG/$tag.err" 2>/dev/null && return 0
		kill -0 "${!pv}" 2>/dev/null || break
		sleep 0.05
	done
	echo "    $tag did not attach:"; sed 's/^/    /' "$AG/$tag.err" | head -20
	return 1
}

ag_stop() {
	local pv=${1}_pid rc
	kill -INT "${!pv}" 2>/dev/null
	wait "${!pv}"; rc=$?
	printf -v "${1}_rc" '%s' "$rc"
}

# what a round printed, pids replaced by roles, histogram lines apart
ag_norm() {
	grep -v '^$' "$AG/$1.out" | grep -v '^\[\|^@lat' | sed "s/\[$2\]/[PID]/" | LC_ALL=C sort
}
# the label of the median sample's bucket of the histogram in TAG's output
ag_median_bucket() {
	awk '/^\[/ { s = $0; sub(/ *[0-9]+ \|.*/, "", s); n = $0; sub(/^[^)\]]*[)\]] */, "", n)
		lab[++k] = s; cnt[k] = n + 0; tot += n }
		END { for (i = 1; i <= k; i++) { c += cnt[i]; if (2 * c >= tot) { print lab[i]; exit } } }' "$AG/$1.out"
}
# a bucket label's position in log2 order
ag_bucket_index() {
	local i=0 l
	for l in "[0]" "[1]" "[2, 4)" "[4, 8)" "[8, 16)" "[16, 32)" "[32, 64)" "[64, 128)" "[128, 256)" \
		 "[256, 512)" "[512, 1K)" "[1K, 2K)" "[2K, 4K)" "[4K, 8K)" "[8K, 16K)" "[16K, 32K)" "[32K, 64K)" \
		 "[64K, 128K)" "[128K, 256K)" "[256K, 512K)" "[512K, 1M)" "[1M, 2M)" "[2M, 4M)" "[4M, 8M)" \
		 "[8M, 16M)" "[16M, 32M)" "[32M, 64M)" "[64M, 128M)" "[128M, 256M)" "[256M, 512M)" "[512M, 1G)"; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo 1000
}

PROG="uprobe:libc:malloc { @m[pid] = count(); }
uprobe:$LIB1:sonde_alloc { @a[pid] = count(); @t[str(arg1)] = count(); }
uprobe:$LIB1:sonde_nap { @s[tid] = nsecs; }
uretprobe:$LIB1:sonde_nap /@s[tid]/ { @lat = hist(nsecs - @s[tid]); delete(@s[tid]); }"
WANT=$(LC_ALL=C sort <<EOF
@a[PID]: $N
@m[PID]: $((2 * N))
@t[]: $((N / 2))
@t[ok]: $((N / 2))
EOF
)

# user mode first: a kernel uprobe's breakpoints outlive its tracer briefly
for round in user kernel; do
	mode=; [ $round = user ] && mode=--user-probes
	ag_start H host && ag_start C container || { fail "${ag_name}_${round}_start"; exit 0; }
	ag_trace ${round}_h $mode -p "$H" -e "$PROG" && ag_trace ${round}_c $mode --container "$SHORT" -e "$PROG" ||
		{ fail "${ag_name}_${round}_attach"; exit 0; }
	for f in "$H_fifo" "$C_fifo"; do timeout 5 sh -c "echo > $f"; done
	wait "$H"; h_rc=$?
	wait "$C"; c_rc=$?
	ag_stop ${round}_h; ag_stop ${round}_c
	for w in h c; do
		pid=$H; [ $w = c ] && pid=$C
		rcv=${round}_${w}_rc
		if [ "${!rcv}" != 0 ] || grep -q 'Sanitizer\|runtime error' "$AG/${round}_$w.err"; then
			fail "${ag_name}_${round}_${w}_exact"; sed 's/^/    /' "$AG/${round}_$w.err" | head -20
		else
			expect_eq "${ag_name}_${round}_${w}_exact" "$WANT" "$(ag_norm ${round}_$w "$pid")"
		fi
	done
	[ $round = user ] && user_H=$H
	# the targets ran to their end through every bad read
	[ "$h_rc" = 0 ] && [ "$c_rc" = 0 ] && pass "${ag_name}_${round}_targets_exit_0" ||
		{ fail "${ag_name}_${round}_targets_exit_0"; echo "    host $h_rc, container $c_rc"; }
done

# the kernel's histogram and the agent's: median buckets at most one apart
# (20 ms naps: a loaded machine's scheduling delays stay within a bucket)
for w in h c; do
	kt=$(ag_median_bucket kernel_$w) ut=$(ag_median_bucket user_$w)
	d=$(( $(ag_bucket_index "$kt") - $(ag_bucket_index "$ut") ))
	if [ -n "$kt" ] && [ "${d#-}" -le 1 ]; then pass "${ag_name}_${w}_latency_hist"
	else fail "${ag_name}_${w}_latency_hist"; echo "    kernel's median bucket '$kt', user's '$ut'"; fi
done
expect_match "${ag_name}_bad_read_warned" "pid $user_H: $((N / 2)) probe reads of bad addresses returned an error" \
	"$(cat "$AG/user_h.err")"

# -c: the child waits in its agent until hooked, so its first call counts;
# reading the count folds the agent's shards (map_lookup_percpu_elem)
out=$(SONDE_RUN_DIR=$RUN "$SONDE" --user-probes -c "$AG/malloc_loop 1000" \
	-e 'uprobe:libc:malloc /pid == cpid/ { @ = count(); if (@ == 500) { printf("half\n"); } }' 2> "$AG/c.err")
rc=$?
[ $rc = 0 ] && ! grep -q 'Sanitizer\|runtime error' "$AG/c.err" && expect_eq "${ag_name}_dash_c_exact" $'half\n@: 1000' \
	"$(grep -v '^$' <<< "$out")" || { fail "${ag_name}_dash_c_exact"; sed 's/^/    /' "$AG/c.err" | head; }

# the malloc-per-pid recipe unchanged: its interval (in the kernel) prints
# and clears the agents' map every second.  A clear may lose the one
# increment a thread has in flight (as a CPU may in kernel mode), so the
# per-second counts add up to the calls made, less at most one per clear.
ag_start R host1 || { fail "${ag_name}_recipe_start"; exit 0; }
ag_trace recipe --user-probes -p "$R" "$top/scripts/malloc-per-pid.sonde" 2 &&
	timeout 5 sh -c "echo > $R_fifo"
wait "$R"
for _ in $(seq 100); do kill -0 "$recipe_pid" 2>/dev/null || break; sleep 0.1; done
ag_stop recipe
sum=$(awk -F': ' -v k=", $R, agent_calls]" 'index($1, k) { s += $2 } END { print s + 0 }' "$AG/recipe.out")
clears=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$AG/recipe.out")
if [ "$recipe_rc" = 0 ] && [ "$sum" -le $((2 * N)) ] && [ "$sum" -ge $((2 * N - clears)) ]; then
	pass "${ag_name}_malloc_per_pid_recipe"
else
	fail "${ag_name}_malloc_per_pid_recipe"; echo "    rc $recipe_rc, $sum calls counted of $((2 * N)), $clears clears"
	sed 's/^/    /' "$AG/recipe.err" | head
fi

# the same printers: JSON
out=$(SONDE_RUN_DIR=$RUN "$SONDE" -f json --user-probes -c "$AG/malloc_loop 500" \
	-e 'uprobe:libc:malloc /pid == cpid/ { @[comm] = count(); }' 2> "$AG/j.err")
expect_eq "${ag_name}_json" '{"type": "map", "data": {"@": {"malloc_loop": 500}}}' \
	"$(grep '"type": "map"' <<< "$out")"

# too short for the jump: refused, clearly, and nothing installed
ag_start T host || { fail "${ag_name}_refuse_start"; exit 0; }
out=$(SONDE_RUN_DIR=$RUN "$SONDE" --user-probes -p "$T" -e "uprobe:$LIB1:sonde_tiny { @ = count(); }" 2>&1)
rc=$?
expect_match "${ag_name}_refuses_short_function" \
	"pid $T: refusing to hook sonde_tiny: the function is 4 bytes, too short for a 5-byte jump" "$out"
[ $rc != 0 ] && pass "${ag_name}_refusal_fails" || fail "${ag_name}_refusal_fails"
kill "$T" 2>/dev/null

# what the agent does not have: a located compile-time error naming kernel mode
out=$("$SONDE" --user-probes -e 'uprobe:libc:malloc { @[kstack] = count(); }' 2>&1)
rc=$?
expect_match "${ag_name}_located_error" \
	"^stdin:1:24: error: kstack is not available in user probes .*drop --user-probes to run it in the kernel" "$out"
[ $rc = 1 ] && pass "${ag_name}_located_error_status" || fail "${ag_name}_located_error_status"
)
