# t_pystack.sh - Python stacks (pystack, issue 33) of real interpreters:
# Debian's /usr/bin/python3.11 (the interpreter inside the binary) and each
# pyenv build of 3.9-3.13 present (libpython3.X.so; a version that is absent
# is a skip naming the path looked for).  tests/workloads/pystack.py calls
# os.getppid() from known chains (a -> b 3 times, c 5 times, a method, a
# generator, a lambda, a key function inside sorted()); `@[pystack] =
# count()` with -p prints exactly those stacks, counts, files and lines.
# Also: a thread started after attach shows its frames (printf("%s") of
# pystack, waited for), its calls all counted (frames + empty = the
# workload's own count); a target that is not Python gives an empty stack
# and no warning; the folded output carries the frames.

(
if ! need_root pystack; then exit 0; fi
PD=$B/pystack_run
mkdir -p "$PD"
cp "$top/tests/workloads/pystack.py" "$PD/pystack.py"
W=$PD/pystack.py

# py_start PYTHON ARGS...: the workload ready, waiting for its go on fd 7; pid in $wp
py_start() {
	rm -f "$PD/go" "$PD/wl.out" && mkfifo "$PD/go"
	"$@" "$W" "${PY_ARGS[@]}" < "$PD/go" > "$PD/wl.out" 2>&1 &
	wp=$!
	exec 7> "$PD/go"
	wait_for "$PD/wl.out" '^ready' 60
}
# py_stop: sonde ($sp) prints while the workload lives, then the workload
# ends; a sonde still there after 120 s is killed (the check then fails)
py_stop() {
	local i
	kill -INT "$sp"
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$sp" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$sp" 2>/dev/null && echo "    sonde did not end on SIGINT: killed"
	wait "$sp"
	exec 7>&-
	wait "$wp"
}

# expected: 3.11+ name frames by their qualified names
expected() {
	local m=K.method l='main.<locals>.<lambda>'
	if [ "$1" -lt 11 ]; then m=method; l='<lambda>'; fi
	local first="$m (W:30)
    main (W:58)
    <module> (W:71)
]: 1" second="$l (W:60)
    main (W:61)
    <module> (W:71)
]: 1"
	if [[ "$m" > "$l" ]]; then local t=$first; first=$second; second=$t; fi
	sed "s|W:|$W:|g" <<EOF
Attached 1 probe


@[
    $first
@[
    $second
@[
    gen (W:35)
    main (W:59)
    <module> (W:71)
]: 2
@[
    b (W:15)
    a (W:20)
    main (W:56)
    <module> (W:71)
]: 3
@[
    key (W:40)
    main (W:62)
    <module> (W:71)
]: 4
@[
    c (W:25)
    main (W:57)
    <module> (W:71)
]: 5
EOF
}

one_version() {	# NAME PYTHON MINOR
	local name=$1 py=$2 minor=$3 out=$PD/$1.out
	PY_ARGS=()
	py_start "$py"
	"$SONDE" -p "$wp" -e 'tracepoint:syscalls:sys_enter_getppid { @[pystack] = count(); }' > "$out" 2>&1 &
	sp=$!
	wait_for "$out" '^Attached' 60
	echo g >&7
	wait_for "$PD/wl.out" '^done' 60
	py_stop
	expect_eq "pystack:$name:exact_stacks" "$(expected "$minor")" "$(cat "$out")"
}

one_version debian311 /usr/bin/python3.11 11
root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
for minor in 9 10 11 12 13; do
	py=$(ls -d "$root"/versions/3.$minor.*/bin/python3.$minor 2>/dev/null | tail -1)
	if [ -z "$py" ]; then
		skip "pystack:pyenv3$minor:exact_stacks" "no $root/versions/3.$minor.*/bin/python3.$minor"
		continue
	fi
	one_version "pyenv3$minor" "$py" "$minor"
done

# a thread started after sonde attached: BPF asks for a rescan when it
# meets the thread, its frames follow; every call is counted once
out=$PD/late.out
rm -f "$PD/stop"
PY_ARGS=(late "$PD/stop")
py_start /usr/bin/python3.11
"$SONDE" -p "$wp" -e 'tracepoint:syscalls:sys_enter_getppid { @[pystack] = count(); printf("%s\n", pystack); }' > "$out" 2>&1 &
sp=$!
wait_for "$out" '^Attached' 60
echo g >&7
if wait_for "$out" "late_work \\($W:47\\)" 120; then pass pystack:late_thread_frames; else fail pystack:late_thread_frames; fi
touch "$PD/stop"
wait_for "$PD/wl.out" '^late [0-9]' 60
py_stop
calls=$(awk '/^late/ { print $2 }' "$PD/wl.out")
got=$(awk -v w="$W" '
	/^@\[$/ { k = ""; next }
	/^@\[\]: / { empty = $2; next }
	/^\]: / { if (k ~ /late_work/) late += $2; next }
	{ k = k $0 }
	END { print late + empty }' "$out")
expect_eq pystack:late_thread_all_counted "$calls" "$got"

# a process that is not Python: an empty stack, no warning
mkdir -p "$PD/np"
build_workload pid_calls
cp "$B/pid_calls" "$PD/np/pid_calls"
pid_calls_start "$PD/np"
pid_calls_go "$PD/np.out" -e "uprobe:$PD/np/pid_calls:pid_hit_one { @[pystack] = count(); }"
expect_eq pystack:not_python "Attached 1 probe


@[]: 5" "$(cat "$PD/np.out")"

# folded: root first, ";" between frames
PY_ARGS=()
py_start /usr/bin/python3.11
"$SONDE" -f folded -p "$wp" -e 'tracepoint:syscalls:sys_enter_getppid { @[pystack] = count(); }' > "$PD/folded.out" 2>&1 &
sp=$!
wait_for "$PD/folded.out" '^Attached' 60
echo g >&7
wait_for "$PD/wl.out" '^done' 60
py_stop
expect_eq pystack:folded "<module> ($W:71);main ($W:56);a ($W:20);b ($W:15) 3" \
	"$(grep ';b (' "$PD/folded.out")"
)
