# t_diagnose_gil.sh - `sonde diagnose` on Python services: the GIL as a blind
# spot (issue #34), sourced by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip).
#
# tests/workloads/gil_threads.py runs four threads named "AnyIO worker
# thread": in a pure-Python loop (spin), in time.sleep (sleep), or in
# hashlib on 16 MiB buffers or torch.mm, which release the GIL (hash,
# torch).  Spinning, each thread must wait for the GIL at least half of
# its time, the verdict must rank the GIL first, and the stack seen most
# in the holder must be spin() at a line of its loop; the holder seen most
# must be one of the four threads.  Sleeping, hashing or multiplying, the
# GIL is no verdict.  Always, the report names the threads by their
# threading names: one group of the four "AnyIO worker thread"s, and
# "MainThread".  Debian's python3.11 runs the four modes; each pyenv
# CPython 3.9-3.13 runs the spinning one (a missing one is a skip naming
# the path looked for).  The spinning workloads and the service run at
# nice -20 in a session of their own, as t_diagnose.sh's services do, so
# the verdicts hold on a machine busy with other work; the contrasts, whose
# four threads run in parallel, at the nice value they are given (at -20
# they would starve everything else on the machine, sonde included).
# The workloads' threads (and the service's client) wait, asleep, until
# sonde says it traces (dx_traced), and work for the window and 2 s more:
# not while sonde compiles, nor while it ends (a loaded CI ran this file
# 469 s, 486 s of CPU; beside two busy loops it took 611 s, 604 s).

DG=$B/diagnose_gil
mkdir -p "$DG"
need_root diagnose_gil || return 0
WL=$top/tests/workloads/gil_threads.py
printf '#!/bin/sh\necho -20 > /proc/self/autogroup 2>/dev/null\nexec nice -n -20 "$@"\n' > "$DG/hi.sh"
chmod +x "$DG/hi.sh"
loop_line=$(grep -n '    for i in range(n):' "$WL" | cut -d: -f1)
body_line=$(grep -n '        x += i \* i' "$WL" | cut -d: -f1)

# dx_traced BASE ARGS...: sonde ARGS, its standard error in BASE.err;
# BASE.go is made as soon as sonde says it traces, by a reader of that
# standard error at -20 in a session of its own (a millisecond, where the
# test's shell, polling at nice 0, may take seconds on a loaded machine)
dx_traced() {
	local base=$1 rd
	shift
	rm -f "$base.go" "$base.err" "$base.fifo"
	mkfifo "$base.fifo"
	setsid "$DG/hi.sh" sh -c 'while IFS= read -r l; do printf "%s\n" "$l" >> "$1"
		case $l in "sonde diagnose: tracing "*) : > "$2";; esac; done' sh "$base.err" "$base.go" \
		< "$base.fifo" & rd=$!
	"$SONDE" "$@" 2> "$base.fifo"
	wait $rd
	rm -f "$base.fifo"
}

# gil_run NAME PYTHON MODE SECONDS: the workload under `sonde diagnose -p`
# for SECONDS, its report in $DG/NAME.json; every wait ends within 60 s.
# Spinning, it runs at nice -20 (hi.sh)
gil_run() {
	local name=$1 py=$2 mode=$3 secs=$4 job pid i hi=
	[ "$mode" = spin ] && hi=$DG/hi.sh
	rm -f "$DG/$name.ready" "$DG/$name.stop" "$DG/$name.go" "$DG/$name.json"
	setsid $hi "$py" "$WL" "$mode" "$DG/$name.ready" "$DG/$name.stop" "$DG/$name.go" \
		$((secs + 2)) & job=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$DG/$name.ready" ] && break
		kill -0 "$job" 2>/dev/null || break
		sleep 0.1
	done
	pid=$(cat "$DG/$name.ready" 2>/dev/null)
	[ -n "$pid" ] && dx_traced "$DG/$name" diagnose -f json -o "$DG/$name.json" -p "$pid" "$secs"
	touch "$DG/$name.stop"
	for ((i = 0; i < 600; i++)); do
		kill -0 "$job" 2>/dev/null || break
		sleep 0.1
	done
	kill_reap "$job"
}

# gil_check NAME JSON PYTHON-ASSERTIONS: the report as `r`, the verdict's
# spots as `spots`, the four threads as `workers`; prints what failed
gil_check() {
	local name=$1 json=$2 code=$3 out
	out=$(python3 - "$json" "$code" "$loop_line" "$body_line" <<'EOF' 2>&1
import json, re, sys
r = json.loads(open(sys.argv[1]).read())["data"]
loop_line, body_line = sys.argv[3], sys.argv[4]
spots = [v["spot"] for v in r["verdict"]]
workers = [t for t in r["threads"] if t["tid"] != t["pid"]]
assert len(workers) == 4, "%d threads besides the main one" % len(workers)
names = sorted((g["comm"], g["threads"]) for g in r["groups"])
assert names == [("AnyIO worker thread", 4), ("MainThread", 1)], names
exec(sys.argv[2])
EOF
)
	if [ $? -eq 0 ]; then pass "diagnose_gil:$name"; else
		fail "diagnose_gil:$name"; printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
		head -c 1500 "$json" 2>/dev/null | sed 's/^/    /'; echo
		tail -3 "$DG/$name.err" 2>/dev/null | sed 's/^/    /'
	fi
}

SPIN='
for t in workers:
	assert t["ns"]["gil"] >= 0.5 * t["wall_ns"], "tid %d waited for the GIL %d of %d ns" % (
		t["tid"], t["ns"]["gil"], t["wall_ns"])
assert spots and spots[0] == "gil", spots
v = r["verdict"][0]
top = v["stacks"][0]["frames"][0]
assert re.fullmatch(r"spin \(.*/gil_threads\.py:(%s|%s)\)" % (loop_line, body_line), top), top
assert "spin (" in v["evidence"] and "gil_threads.py:" in v["evidence"], v["evidence"]
assert r["gil_holders"][0]["tid"] in [t["tid"] for t in workers], r["gil_holders"]
held = sum(t["gil_held_ns"] for t in workers)
assert held > 0, "no sample of a thread holding the GIL"'
NOGIL='
assert "gil" not in spots, spots'

# ---- Debian's python3.11: the GIL, and two contrasts ------------------------------------
if [ -x /usr/bin/python3.11 ]; then
	gil_run deb311_spin /usr/bin/python3.11 spin 3
	gil_check deb311_spin "$DG/deb311_spin.json" "$SPIN"
	gil_run deb311_sleep /usr/bin/python3.11 sleep 2
	gil_check deb311_sleep "$DG/deb311_sleep.json" "$NOGIL"
	gil_run deb311_hash /usr/bin/python3.11 hash 2
	gil_check deb311_hash "$DG/deb311_hash.json" "$NOGIL"
	if /usr/bin/python3.11 -c 'import torch' 2>/dev/null; then
		gil_run deb311_torch /usr/bin/python3.11 torch 2
		gil_check deb311_torch "$DG/deb311_torch.json" "$NOGIL"
	else
		skip diagnose_gil:deb311_torch "no python3-torch for /usr/bin/python3.11"
	fi
else
	skip diagnose_gil:deb311 "no /usr/bin/python3.11 (Debian's python3.11)"
fi

# ---- served: the process named by its own name, the thread by Python's ---------------
# `diagnose --serve` labels process= with the process's comm (python3.11,
# /proc/PID/comm of its leader) and thread= with the threading name: the
# main thread's series is {process="python3.11", thread="MainThread"}
if [ -x /usr/bin/python3.11 ]; then
	rm -f "$DG/srv.ready" "$DG/srv.stop" "$DG/srv.err" "$DG/srv.prom"
	setsid /usr/bin/python3.11 "$WL" sleep "$DG/srv.ready" "$DG/srv.stop" & job=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$DG/srv.ready" ] && break
		kill -0 "$job" 2>/dev/null || break
		sleep 0.1
	done
	pid=$(cat "$DG/srv.ready" 2>/dev/null)
	comm=$(cat "/proc/$pid/comm" 2>/dev/null)
	srv=
	if [ -n "$pid" ]; then
		"$SONDE" diagnose --serve 127.0.0.1:0 -p "$pid" > /dev/null 2> "$DG/srv.err" & srv=$!
		if wait_for "$DG/srv.err" '^sonde: serving metrics at ' 60; then
			url=$(sed -n 's/^sonde: serving metrics at //p' "$DG/srv.err")
			# until the threads have their Python names (bounded)
			for ((i = 0; i < 600; i++)); do
				curl -s -o "$DG/srv.prom" "$url"
				grep -q 'thread="AnyIO worker thread"' "$DG/srv.prom" && break
				kill -0 "$srv" 2>/dev/null || break
				sleep 0.1
			done
		fi
		int_stop "$srv"
	fi
	touch "$DG/srv.stop"
	for ((i = 0; i < 600; i++)); do
		kill -0 "$job" 2>/dev/null || break
		sleep 0.1
	done
	kill_reap "$job"
	main=$(grep "^sonde_diagnose_seconds_total{.*,tid=\"$pid\",state=\"running\"}" "$DG/srv.prom" 2>/dev/null |
		grep -o 'process="[^"]*",pid="[^"]*",thread="[^"]*"')
	want="process=\"$comm\",pid=\"$pid\",thread=\"MainThread\""
	procs=$(grep -o 'process="[^"]*"' "$DG/srv.prom" 2>/dev/null | sort -u)
	if [ -n "$comm" ] && [ "$main" = "$want" ] && [ "$procs" = "process=\"$comm\"" ]; then
		pass diagnose_gil:served_names
	else
		fail diagnose_gil:served_names
		echo "    main thread's labels: '$main', wanted '$want'; process labels: $procs"
		head -5 "$DG/srv.err" | sed 's/^/    /'
	fi
else
	skip diagnose_gil:served_names "no /usr/bin/python3.11 (Debian's python3.11)"
fi

# ---- pyenv's CPython 3.9-3.13 ------------------------------------------------------------
for minor in 9 10 11 12 13; do
	py=$(ls -d "${PYENV_ROOT:-/root/.pyenv}"/versions/3.$minor.*/bin/python3.$minor 2>/dev/null | tail -1)
	if [ -z "$py" ]; then
		skip diagnose_gil:pyenv_3$minor "no ${PYENV_ROOT:-/root/.pyenv}/versions/3.$minor.*/bin/python3.$minor"
		continue
	fi
	gil_run "pyenv_3${minor}_spin" "$py" spin 2
	gil_check "pyenv_3${minor}_spin" "$DG/pyenv_3${minor}_spin.json" "$SPIN"
done

# ---- the seeds' service: uvicorn + FastAPI + PyTorch, 2 then 5 concurrent requests -------
# The handler preprocesses in pure Python (holding the GIL), then runs a
# forward pass in torch: the request threads, anyio's "AnyIO worker
# thread"s, serialize on the GIL while they preprocess, and the report must
# say so by their names, with preprocess() at a line of its loop as the
# holder's stack.
SVC=$top/tests/workloads/gil_service.py
pre_loop=$(grep -n '    for i in range(n):' "$SVC" | cut -d: -f1)
pre_body=$(grep -n '        toks.append' "$SVC" | cut -d: -f1)
if ! /usr/bin/python3.11 -c 'import fastapi, uvicorn, torch' 2>/dev/null; then
	skip diagnose_gil:service "Debian's python3-fastapi, python3-uvicorn and python3-torch are not all installed for /usr/bin/python3.11"
else
	rm -f "$DG/svc.sock" "$DG/svc.ready"
	setsid "$DG/hi.sh" /usr/bin/python3.11 "$SVC" "$DG/svc.sock" "$DG/svc.ready" > "$DG/svc.log" 2>&1 & svc=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$DG/svc.ready" ] && break
		kill -0 "$svc" 2>/dev/null || break
		sleep 0.1
	done
	pid=$(cat "$DG/svc.ready" 2>/dev/null)
	for n in 2 5; do
		rm -f "$DG/cl$n.stop" "$DG/cl$n.warm" "$DG/svc$n.go" "$DG/svc$n.json"
		if [ -n "$pid" ]; then
			# the client at nice -20 too: one starved of CPU leaves the
			# server's threads idle between requests
			setsid "$DG/hi.sh" /usr/bin/python3.11 "$top/tests/workloads/gil_client.py" "$DG/svc.sock" \
				$n "$DG/cl$n.stop" "$DG/cl$n.warm" "$DG/svc$n.go" 5 > "$DG/cl$n.out" 2>&1 & cl=$!
			# the server's request threads are running (diagnose follows
			# the threads that start once it traces, not those that start
			# while it compiles)
			for ((i = 0; i < 600; i++)); do
				[ -e "$DG/cl$n.warm" ] && break
				kill -0 "$cl" 2>/dev/null || break
				sleep 0.1
			done
			dx_traced "$DG/svc$n" diagnose -f json -o "$DG/svc$n.json" -p "$pid" 3
			touch "$DG/cl$n.stop"
			for ((i = 0; i < 600; i++)); do
				kill -0 "$cl" 2>/dev/null || break
				sleep 0.1
			done
			kill_reap "$cl"
		fi
		out=$(python3 - "$DG/svc$n.json" "$n" "$pre_loop" "$pre_body" <<'PY' 2>&1
import json, re, sys
r = json.loads(open(sys.argv[1]).read())["data"]
n, loop_line, body_line = int(sys.argv[2]), sys.argv[3], sys.argv[4]
names = {g["comm"]: g["threads"] for g in r["groups"]}
assert names.get("AnyIO worker thread", 0) >= 1 and "MainThread" in names, names
held = {h["thread"] for h in r["gil_holders"]}
assert held <= {"AnyIO worker thread", "MainThread"}, held
spots = [v["spot"] for v in r["verdict"]]
assert spots and spots[0] == "gil", spots
v = r["verdict"][0]
top = v["stacks"][0]["frames"][0]
assert re.fullmatch(r"preprocess \(.*/gil_service\.py:(%s|%s)\)" % (loop_line, body_line), top), top
assert "preprocess (" in v["evidence"], v["evidence"]
assert r["gil_holders"][0]["thread"] == "AnyIO worker thread", r["gil_holders"][:1]
PY
)
		if [ $? -eq 0 ]; then pass "diagnose_gil:service_$n"; else
			fail "diagnose_gil:service_$n"; printf '%s\n' "$out" | tail -4 | sed 's/^/    /'
			tail -3 "$DG/svc$n.err" "$DG/svc.log" 2>/dev/null | sed 's/^/    /'
		fi
	done
	kill_reap "$svc"
fi
