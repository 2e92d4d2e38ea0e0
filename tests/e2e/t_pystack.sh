# t_pystack.sh - Python stacks (pystack, issue 33) of real interpreters:
# Debian's /usr/bin/python3.11 (the interpreter inside the binary) and each
# pyenv build of 3.9-3.13 present (libpython3.X.so; a version that is absent
# is a skip naming the path looked for).  tests/workloads/pystack.py calls
# os.getppid() from known chains (a -> b 3 times, c 5 times, a method, a
# generator, a lambda, a key function inside sorted()); `@[pystack] =
# count()` with -p prints exactly those stacks, counts, files and lines.
# Also: a thread started after attach shows its frames (printf("%s") of
# pystack, waited for), its calls all counted (frames + empty = the
# workload's own count); an interpreter sonde cannot read (3.8) warns once
# and gives empty stacks; a target that is not Python gives an empty stack
# and no warning; text, folded, JSON, flame graph and pprof carry the
# frames; ustack(python) has the native and the Python frames; a -c
# command's frames are named at its exit; processes that are gone leave
# py_procs once their stacks were printed; the interpreter of another mount
# namespace is the one read; stacks of 8 to 130 frames (pydeep.py), whole
# or cut at pystack's depth.

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
	wait_for "$PD/wl.out" '^ready' 300
}
# py_stop: sonde ($sp) prints while the workload lives, then the workload
# ends.  One SIGINT: sonde has caught it since before it attached; one
# still running after 120 s is killed and said so (the check then fails)
py_stop() {
	local i
	kill -INT "$sp" 2>/dev/null
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
	local first="$m (W:32)
    main (W:68)
    <module> (W:81)
]: 1" second="$l (W:70)
    main (W:71)
    <module> (W:81)
]: 1"
	if [[ "$m" > "$l" ]]; then local t=$first; first=$second; second=$t; fi
	sed "s|W:|$W:|g" <<EOF
Attached 1 probe


@[
    $first
@[
    $second
@[
    gen (W:37)
    main (W:69)
    <module> (W:81)
]: 2
@[
    b (W:17)
    a (W:22)
    main (W:66)
    <module> (W:81)
]: 3
@[
    key (W:42)
    main (W:72)
    <module> (W:81)
]: 4
@[
    c (W:27)
    main (W:67)
    <module> (W:81)
]: 5
EOF
}

# py_capture PYTHON OUT SONDE-ARGS...: sonde -p on the workload (PY_ARGS)
# from its go to its "done", its output in OUT (attached: its "Attached"
# line, or with -f json the attached_probes record)
py_capture() {
	local py=$1 out=$2
	shift 2
	py_start "$py"
	# the last run's file, still there until sonde's shell truncates it,
	# would be read as this run's: the SIGINT could then come before
	# main(), to a background job that ignores it, and be lost
	rm -f "$out"
	"$SONDE" -p "$wp" "$@" > "$out" 2>&1 &
	sp=$!
	# the text line, or -f json's record (on the same file here)
	wait_for "$out" '^Attached|"attached_probes"' 300 "$sp" || echo "    sonde did not attach"
	echo g >&7
	wait_for "$PD/wl.out" '^done' 300
	py_stop
}

GETPPID='tracepoint:syscalls:sys_enter_getppid { @[pystack] = count(); }'
one_version() {	# NAME PYTHON MINOR
	PY_ARGS=()
	py_capture "$2" "$PD/$1.out" -e "$GETPPID"
	expect_eq "pystack:$1:exact_stacks" "$(expected "$3")" "$(cat "$PD/$1.out")"
}

one_version debian311 /usr/bin/python3.11 11
# the interpreter stripped of its _PyRuntime symbol (a copy of Debian's
# python3.11 whose .dynsym names it _PyRuntimX): found by its .PyRuntime
# section, the same exact stacks
mkdir -p "$PD/nosym"
cp /usr/bin/python3.11 "$PD/nosym/python3.11"
python3 - "$PD/nosym/python3.11" <<'PYEOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
for i in range(shnum):
    name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", b, shoff + i * shentsize)
    if typ == 11:  # SHT_DYNSYM: its string table
        link, = struct.unpack_from("<I", b, shoff + i * shentsize + 40)
        _, _, _, _, soff, ssize = struct.unpack_from("<IIQQQQ", b, shoff + link * shentsize)
        k = b.find(b"\0_PyRuntime\0", soff, soff + ssize)
        assert k > 0, "no _PyRuntime in .dynstr"
        b[k + 10] = ord("X")
open(p, "wb").write(b)
PYEOF
if nm -D "$PD/nosym/python3.11" | grep -qw _PyRuntime; then
	fail pystack:stripped_pyruntime_section
	echo "    the copy still names _PyRuntime"
else
	one_version stripped_pyruntime_section "$PD/nosym/python3.11" 11
fi

root=$(pyenv root 2>/dev/null || echo /root/.pyenv)
for minor in 9 10 11 12 13; do
	py=$(ls -d "$root"/versions/3.$minor.*/bin/python3.$minor 2>/dev/null | tail -1)
	if [ -z "$py" ]; then
		skip "pystack:pyenv3$minor:exact_stacks" "no $root/versions/3.$minor.*/bin/python3.$minor"
		continue
	fi
	one_version "pyenv3$minor" "$py" "$minor"
done

# an interpreter sonde has no layout for (3.8): one warning naming the
# pid, the file and why; empty stacks, never wrong frames
py=$(ls -d "$root"/versions/3.8.*/bin/python3.8 2>/dev/null | tail -1)
if [ -z "$py" ]; then
	skip pystack:unreadable_version "no $root/versions/3.8.*/bin/python3.8"
else
	PY_ARGS=()
	py_capture "$py" "$PD/p38.out" -e "$GETPPID"
	lib=$(ls -d "$root"/versions/3.8.*/lib/libpython3.8.so.1.0 | tail -1)
	expect_eq pystack:unreadable_version "sonde: warning: pid $wp: cannot read its Python stacks: $lib is CPython 3.8: sonde reads 3.9 to 3.13; its pystack is empty
Attached 1 probe


@[]: 16" "$(cat "$PD/p38.out")"
fi

# a thread started after sonde attached: BPF asks for a rescan when it
# meets the thread, its frames follow; every call is counted once
out=$PD/late.out
rm -f "$PD/stop" "$out"
PY_ARGS=(late "$PD/stop")
py_start /usr/bin/python3.11
"$SONDE" -p "$wp" -e 'tracepoint:syscalls:sys_enter_getppid { @[pystack] = count(); printf("%s\n", pystack); }' > "$out" 2>&1 &
sp=$!
wait_for "$out" '^Attached' 300
echo g >&7
if wait_for "$out" "late_work \\($W:49\\)" 300; then pass pystack:late_thread_frames; else fail pystack:late_thread_frames; fi
touch "$PD/stop"
wait_for "$PD/wl.out" '^late [0-9]' 300
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

# the outputs: folded (root first, ";" between frames, a frame per
# function: "name (file)"), JSON, the flame
# graph's boxes (function and file), pprof (function, file and line)
PY_ARGS=()
py_capture /usr/bin/python3.11 "$PD/folded.out" -f folded -e "$GETPPID"
expect_eq pystack:folded "<module> ($W);main ($W);a ($W);b ($W) 3" \
	"$(grep ';b (' "$PD/folded.out")"
py_capture /usr/bin/python3.11 "$PD/json.out" -f json -e "$GETPPID"
got=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec.get("type") == "map":
        m = rec["data"]["@"]
        b = [v for k, v in m.items() if k.startswith("\n    b (") and "    a (" in k]
        print(sum(m.values()), b)
' "$PD/json.out" 2>&1)
expect_eq pystack:json "16 [3]" "$got"
py_capture /usr/bin/python3.11 "$PD/fg.err" -f flamegraph -o "$PD/py.svg" -e "$GETPPID"
expect_eq pystack:flamegraph "<title>b ($W) (3, 18.75%)</title>
<title>c ($W) (5, 31.25%)</title>" "$(grep -o "<title>[bc] ([^<]*</title>" "$PD/py.svg")"
py_capture /usr/bin/python3.11 "$PD/pprof.err" -f pprof -o "$PD/py.pb.gz" -e "$GETPPID"
if ! command -v go >/dev/null; then
	skip pystack:pprof "no go on PATH (golang-go) to run go tool pprof"
else
	expect_eq pystack:pprof "3 b $W:17
5 c $W:27
4 key $W:42" "$(HOME=$PD go tool pprof -top -lines "$PD/py.pb.gz" 2>/dev/null |
		awk '$6 == "b" || $6 == "c" || $6 == "key" { print $1, $6, $7 }' | sort -k2)"
fi

# deep stacks (tests/workloads/pydeep.py: 8 to 130 frames), across the
# sizes of the stack maps pystack keeps them in (8, 16, 32, 64 frames, then
# its own depth): every frame, and stacks cut at pystack's depth (127, 20)
# counted together.  deep_want DEPTH: the stacks, one a line
deep_want() {
	python3 - "$1" "$PD/pydeep.py" <<'PYEOF'
import collections, sys
depth, w = int(sys.argv[1]), sys.argv[2]
got = collections.Counter()
for total in (8, 9, 16, 17, 32, 33, 64, 65, 127, 130):
    fr = ["down (%s:12)" % w] + ["down (%s:14)" % w] * (total - 3) + ["main (%s:21)" % w, "<module> (%s:26)" % w]
    got["|".join(fr[:depth])] += 1
for k, n in sorted(got.items()):
    print(k, n)
PYEOF
}
# deep_got FILE: its stacks, one a line
deep_got() {
	awk '/^@\[$/ { k = ""; next } /^\]: / { print k, $2; next } /^ +/ { sub(/^ +/, ""); k = k (k == "" ? "" : "|") $0 }' "$1" | sort
}
cp "$top/tests/workloads/pydeep.py" "$PD/pydeep.py"
W0=$W
W=$PD/pydeep.py
PY_ARGS=()
py_capture /usr/bin/python3.11 "$PD/deep.out" -e "$GETPPID"
expect_eq pystack:deep_stacks "$(deep_want 127 | sort)" "$(deep_got "$PD/deep.out")"
for minor in 9 10 12 13; do	# 3.9, 3.10: frames on the heap; 3.12+: shim frames
	py=$(ls -d "$root"/versions/3.$minor.*/bin/python3.$minor 2>/dev/null | tail -1)
	if [ -z "$py" ]; then
		skip "pystack:pyenv3$minor:deep_stacks" "no $root/versions/3.$minor.*/bin/python3.$minor"
		continue
	fi
	py_capture "$py" "$PD/deep3$minor.out" -e "$GETPPID"
	expect_eq "pystack:pyenv3$minor:deep_stacks" "$(deep_want 127 | sort)" "$(deep_got "$PD/deep3$minor.out")"
done
py_capture /usr/bin/python3.11 "$PD/deep20.out" -e 'tracepoint:syscalls:sys_enter_getppid { @[pystack(20)] = count(); }'
expect_eq pystack:deep_stacks_20 "$(deep_want 20 | sort)" "$(deep_got "$PD/deep20.out")"
# ustack(python): the Python frames of each deep stack, in order
py_capture /usr/bin/python3.11 "$PD/deepmix.out" -e 'tracepoint:syscalls:sys_enter_getppid { @[ustack(python)] = count(); }'
expect_eq pystack:deep_ustack_python "$(deep_want 127 | sort)" \
	"$(grep -v '^    [^ ]*+[0-9]*$\|^    0x' "$PD/deepmix.out" | deep_got /dev/stdin)"
W=$W0

# ustack(python): the native frames, each frame of the interpreter's eval
# loop as the Python frames it ran; where the native walk stops (frame
# pointers: CPython is built without them) the Python frames follow
PY_ARGS=()
py_capture /usr/bin/python3.11 "$PD/mixed.out" -e 'tracepoint:syscalls:sys_enter_getppid { @[ustack(python)] = count(); }'
got=$(awk '/^@\[$/ { k = ""; next } /^\]: 3$/ { printf "%s", k } /^\]: / { next } { k = k $0 "\n" }' "$PD/mixed.out" |
	sed -n '1s/^ *\(getppid\)+[0-9]*$/\1/p; /(/p')
expect_eq pystack:ustack_python "getppid
    b ($W:17)
    a ($W:22)
    main ($W:66)
    <module> ($W:81)" "$got"
# the same beside another key and a pystack printf in one tracepoint: the
# probe, the CFI walker and the two walks' callbacks share 512 bytes of
# stack (refused for 528-560 bytes before)
py_capture /usr/bin/python3.11 "$PD/mixedkey.out" -e 'tracepoint:syscalls:sys_enter_getppid { @[comm, ustack(python)] = count(); @n[pystack(1)] = count(); }'
got=$(awk '/^@n\[/ { exit } /^@/ { k = ""; next } /^\]: 3$/ { printf "%s", k } /^\]: / { next } { k = k $0 "\n" }' "$PD/mixedkey.out" |
	sed -n '/(/p')
expect_eq pystack:ustack_python_beside_keys "    b ($W:17)
    a ($W:22)
    main ($W:66)
    <module> ($W:81)" "$got"

# a -c command that exits: the frames recorded since the scan are named at
# its exit (sonde holds it there), though no stack of them printed before;
# warm() runs until the pystack(1) printf shows the process was read
# then holds after its calls (its stdin open) until sonde has printed the
# last of them (the key() frames): the stacks' events come before their
# printf in the ring, so their code objects were read while they lived,
# and what follows the exit (the interpreter's finalisation frees them) is
# what is tested, not how far behind a busy machine's sonde may be
rm -f "$PD/stop" "$PD/exit.out" "$PD/in"
mkfifo "$PD/in"
"$SONDE" -c "/usr/bin/python3.11 $W warm $PD/stop" -e \
	'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[pystack] = count(); printf("%s\n", pystack(1)); }' \
	< "$PD/in" > "$PD/exit.out" 2>&1 &
sp=$!
exec 7> "$PD/in"
echo go >&7
if wait_for "$PD/exit.out" "warm \\($W:57\\)" 300; then touch "$PD/stop"; fi
touch "$PD/stop"
for _ in $(seq 1200); do
	[ "$(grep -c "key ($W:" "$PD/exit.out")" -ge 4 ] && break
	kill -0 "$sp" 2>/dev/null || break
	sleep 0.05
done
exec 7>&-
wait "$sp"
got=$(awk '/^@\[$/ { k = ""; keep = 1; next } /^\]: / { if (k !~ /warm/) print k "]: " $2; next }
	   /^@\[/ { next } { k = k $0 "\n" }' "$PD/exit.out")
want=$(expected 11 | awk '/^@\[$/ { k = ""; next } /^\]: / { print k "]: " $2; next } /^@|^Attached|^$/ { next } { k = k $0 "\n" }')
expect_eq pystack:exited_named "$want" "$got"

# Python processes that are gone are forgotten during the run (procstate):
# once the maps holding their stacks were printed and cleared, their pids
# leave py_procs (a later process of that pid is read anew), while their
# stacks printed named; ten short interpreters, py_procs read with bpftool
# py_procs_id PID: the id of sonde PID's py_procs map
py_procs_id() {
	local f id
	for f in /proc/$1/fdinfo/*; do
		id=$(awk '/^map_id:/ { print $2 }' "$f" 2>/dev/null)
		[ -n "$id" ] && [ "$(bpftool -j map show id "$id" | jq -r .name)" = py_procs ] && echo "$id" && return
	done
}
if command -v bpftool >/dev/null && command -v jq >/dev/null; then
	rm -f "$PD/forget.out"
	"$SONDE" -e 'tracepoint:syscalls:sys_enter_getppid /comm == "python3.11"/ { @[pystack] = count(); }
interval:ms:100 { print(@); clear(@); }' > "$PD/forget.out" 2>&1 &
	sp=$!
	wait_for "$PD/forget.out" '^Attached' 60
	ours=()
	for ((i = 0; i < 10; i++)); do
		/usr/bin/python3.11 -c 'import os, time
for i in range(40): os.getppid(); time.sleep(0.005)' &
		ours+=($!)
		wait $!
	done
	id=$(py_procs_id $sp)
	kept="no py_procs map:"
	for ((i = 0; i < 100 && ${#id}; i++)); do
		# the keys: little-endian u64 pids, one byte a hex string
		kept=$(bpftool -j map dump id "$id" | jq -r '.[].key | map(ltrimstr("0x")) | reverse | join("")' |
			while read -r k; do echo $((16#$k)); done | grep -cxF -f <(printf '%s\n' "${ours[@]}"))
		[ "$kept" = 0 ] && break
		sleep 0.1
	done
	kill -INT $sp; wait $sp
	named=$(grep -c '^    <module> (<string>:2)$' "$PD/forget.out")
	expect_eq pystack:gone_forgotten "kept 0 of 10, named yes" "kept $kept of 10, named $([ "$named" -gt 0 ] && echo yes)"
else
	skip pystack:gone_forgotten "bpftool and jq are needed to read py_procs"
fi

# scripts/py-profile.sonde: an on-CPU Python flame graph; a second of
# samples of a Python loop, taken again (at most 10 times) until one lands
# in hot() on a busy machine
cp "$top/tests/workloads/pyburn.py" "$PD/pyburn.py"
rm -f "$PD/burn.out"
/usr/bin/python3.11 "$PD/pyburn.py" > "$PD/burn.out" &
bp=$!
wait_for "$PD/burn.out" '^ready' 300
got=
for _ in $(seq 10); do
	"$SONDE" -f folded -p "$bp" "$top/scripts/py-profile.sonde" "$bp" 1 > "$PD/prof.out" 2>&1
	got=$(grep -o "^python3.11;<module> ($PD/pyburn.py);main ($PD/pyburn.py);hot ($PD/pyburn.py)" "$PD/prof.out")
	[ -n "$got" ] && break
done
kill_reap "$bp"
expect_eq pystack:py_profile_recipe "python3.11;<module> ($PD/pyburn.py);main ($PD/pyburn.py);hot ($PD/pyburn.py)" "$got"

# another mount namespace, another file at the same path: the host's file
# there is not Python, the namespace's is Debian's python3.11; the process's
# own file is read (with -v: "runs CPython 3.11 (PATH)")
if command -v unshare >/dev/null; then
	mkdir -p "$PD/ns"
	cp /bin/sleep "$PD/ns/python3.11"
	# run ARGS...: ns/python3.11 ARGS in a mount namespace of its own, where
	# that path is Debian's python3.11
	printf '%s\n' '#!/bin/sh' \
		"exec unshare -m --propagation private sh -c 'mount --bind /usr/bin/python3.11 \"\$0\" && exec \"\$0\" \"\$@\"' $PD/ns/python3.11 \"\$@\"" \
		> "$PD/ns/run"
	chmod +x "$PD/ns/run"
	PY_ARGS=()
	py_capture "$PD/ns/run" "$PD/ns.out" -v -e "$GETPPID"
	expect_eq pystack:namespace_file "sonde: pid $wp runs CPython 3.11 ($PD/ns/python3.11)
$(expected 11)" "$(grep -v '^sonde: event ring\|^sonde: attach\|^sonde: probe' "$PD/ns.out")"
else
	skip pystack:namespace_file "no unshare (util-linux)"
fi
)
