# t_pyservice.sh - the Python service of issues 32 and 33, profiled as a
# user would: uvicorn + FastAPI + PyTorch from Debian's packages
# (tests/workloads/pyservice.py: a model built in code, two request paths,
# /predict = tokenize + featurize in pure Python then the forward pass,
# /tokens = tokenize alone), a client sending a known number of requests
# to each (tests/workloads/pyservice_client.py, two connections).  One
# sonde -p on the service:
#   - the getppid each handler makes once per request, printed with its
#     ustack(python): exactly N per path, the service's own frames named
#     with their file and line, every stack down to _start (CFI through
#     libpython and the asyncio extension);
#   - profile:hz:499 keyed by ustack(python), written as a flame graph,
#     opened in headless Chromium (tests/e2e/tools/browser.py towers): each
#     handler's tower standing on _start and the service's main, the
#     forward pass's libtorch frames inside classify's.
# Both count only after a warm-up (GET /go, a getpgid, opens the gate):
# the files the requests run in are read when a stack first meets them.
# A Debian package missing is a skip that names it (make deps).

(
if ! need_root pyservice; then exit 0; fi
PY=/usr/bin/python3.11
# each module found without importing it (torch's import is seconds of CPU)
missing=$("$PY" -c 'import importlib.util as u, sys
print("".join(" python3-" + m for m in sys.argv[1:] if u.find_spec(m) is None))' fastapi uvicorn torch 2>/dev/null)
[ -x "$PY" ] || missing=" python3.11 (/usr/bin/python3.11)"
if [ -n "$missing" ]; then
	skip pyservice "not installed:$missing (make deps)"
	exit 0
fi
SD=$B/pyservice
mkdir -p "$SD"
cp "$top/tests/workloads/pyservice.py" "$top/tests/workloads/pyservice_client.py" "$SD/"
W=$SD/pyservice.py
N=20
PIDS=()
trap '[ ${#PIDS[@]} -gt 0 ] && kill_reap "${PIDS[@]}"' EXIT

rm -f "$SD/svc.out"
"$PY" "$W" > "$SD/svc.out" 2>&1 &
svc=$!
PIDS+=($svc)
if ! wait_for "$SD/svc.out" '^ready [0-9]+$' 300; then
	fail pyservice:service_started; sed 's/^/    /' "$SD/svc.out" | head -20
	exit 0
fi
port=$(awk '/^ready/ { print $2 }' "$SD/svc.out")

# the service's GET /go (a getpgid) opens the gate (@go): the requests
# printed and drawn are the client's, after the warm-up, whose stacks are
# walked (into @warm) and dropped
rm -f "$SD/prof.out" "$SD/prof.err" "$SD/svc.svg" "$SD/warm.out" "$SD/warm.stop"
"$SONDE" -v -p "$svc" -f flamegraph -o "$SD/svc.svg" -e "
	tracepoint:syscalls:sys_enter_getpgid /pid == $svc/ { @go = 1; clear(@warm); }
	tracepoint:syscalls:sys_enter_getppid /pid == $svc && @go/ { printf(\"REQ %s\\n\", ustack(python)); }
	profile:hz:499 /pid == $svc/ { if (@go) { @cpu[ustack(python)] = count(); } else { @warm[ustack(python)] = count(); } }" \
	> "$SD/prof.out" 2> "$SD/prof.err" &
pp=$!
wait_for "$SD/prof.err" '^Attached' 120
# the warm-up: a process's files past the sweep's share of the walker's
# rows (Debian's torch maps 320 files) are read when a stack first meets
# them, and a stack that meets an unread file stops there (it takes a
# frame-pointer step); the requests go deeper as the files are read.  A
# client sends a request to each path five times a second until sonde's
# -v says it read the files the requests run in (the asyncio extension,
# libtorch_cpu and libtorch_python), then the gate opens
rows_read() { grep -q "unwind rows of [^ ]*$1[^ ]*: \.eh_frame" "$SD/prof.err"; }
warm() { rows_read _asyncio && rows_read libtorch_cpu && rows_read libtorch_python; }
"$PY" "$SD/pyservice_client.py" "$port" warm "$SD/warm.stop" > "$SD/warm.out" 2>&1 &
wc=$!
PIDS+=($wc)
for ((i = 0; i < 3000; i++)); do
	warm && break
	kill -0 "$wc" 2>/dev/null || break
	sleep 0.1
done
: > "$SD/warm.stop"
wait "$wc"
warm || echo "    the warm-up did not end ($(cat "$SD/warm.out")): $(grep -h 'unwind rows of .*\(_asyncio\|libtorch\)' "$SD/prof.err" | cut -c1-160)"
"$PY" "$SD/pyservice_client.py" "$port" go > /dev/null 2>&1
"$PY" "$SD/pyservice_client.py" "$port" "$N" 2 > "$SD/client.out" 2>&1
int_stop "$pp"
kill_reap "$svc"
expect_eq pyservice:client_answered "done predict=$N tokens=$N" "$(cat "$SD/client.out")"

# the lines of the service's own code: each handler's getppid, main's
# asyncio.run and the module's main()
line() { grep -n -F -- "$1" "$W" | head -1 | cut -d: -f1; }
l_cls=$(awk '/^async def classify/ { f = 1 } f && /os.getppid/ { print NR; exit }' "$W")
l_tok=$(awk '/^async def count_tokens/ { f = 1 } f && /os.getppid/ { print NR; exit }' "$W")
l_main=$(line 'asyncio.run(serve())')
l_mod=$(awk '/^main\(\)$/ { print NR }' "$W")
# per stack: the service's frames, the last frame, the count; summed
got=$(awk -v w="$W" '
	function done() { if (inreq) { c[own " last=" last]++; inreq = 0 } }
	/^REQ / { done(); inreq = 1; own = ""; last = ""; next }
	inreq && /^ +[^ ]/ { f = $0; sub(/^ +/, "", f); if (index(f, "(" w ":")) own = own (own == "" ? "" : ";") f
		  last = f; sub(/\+[0-9]+$/, "", last); next }
	{ done() }
	END { done(); for (k in c) print c[k], k }' "$SD/prof.out" | sort -k2)
expect_eq pyservice:request_paths_named "$N classify ($W:$l_cls);main ($W:$l_main);<module> ($W:$l_mod) last=_start
$N count_tokens ($W:$l_tok);main ($W:$l_main);<module> ($W:$l_mod) last=_start" "$got"

# the flame graph: written, the service's functions in it
if [ ! -s "$SD/svc.svg" ]; then
	fail pyservice:flamegraph_written; grep -v 'unwind rows' "$SD/prof.err" | head -20 | sed 's/^/    /'
	exit 0
fi
# (featurize, about 0.5 ms a request, gets 0 to 2 of the samples: a
# function drawn only if sampled is not asserted)
names=$(grep -o "<title>[a-z_]* ($W) (" "$SD/svc.svg" | sed 's/<title>\([a-z_]*\) .*/\1/' |
	grep -vx featurize | sort -u | tr '\n' ' ')
expect_eq pyservice:flamegraph_own_functions "classify count_tokens infer main tokenize " "$names"
if ! command -v chromium >/dev/null; then
	skip pyservice:flamegraph_towers_in_chromium "chromium is not installed (make deps)"
	exit 0
fi
res=$(timeout 120 python3 "$top/tests/e2e/tools/browser.py" towers "$SD/svc.svg" "$SD/svc.png" \
	"classify ($W)" "count_tokens ($W)" 2>&1)
printf '%s\n' "$res" > "$SD/towers.txt"
# each handler's tower stands on the process's start and the service's
# main (the frames below it root first: _start, __libc_start_main,
# __libc_start_call_main, Py_BytesMain: Debian's python3.11 main()
# tail-calls Py_BytesMain, so no native main frame; ..., <module>, main)
# and holds at least 95 % of the handler's samples.  Not all, as a
# sample whose native walk stops short (a frame's mapping not found, a
# file not read yet; the walker's counts are in prof.err) stands on
# <module> alone, a box of its own: 0 of 669 in a run of 100 requests a
# path.  Three causes are fixed and must stay so: a profile sample can
# look one mapping up, and libtorch_cpu's text spans 40 2 MiB regions
# (2 to 6 % of classify's samples short); files read in maps order left
# libc10 and libstdc++ to be met; a sample as a generator's eval call
# began or ended (sum(genexpr) in tokenize) put tokenize and its handler
# over gen_iternext (3 % of count_tokens')
got=$(printf '%s\n' "$res" | awk -v w="$W" '/^tower / { n = $0; sub(/^tower /, "", n); sub(/: [0-9]+ boxes,.*/, "", n)
	b = $0; sub(/.*below: /, "", b); split(b, f, ";")
	m = 0; for (i in f) if (f[i] == "main (" w ")") m = 1
	match($0, /widest [0-9]+ of [0-9]+/); split(substr($0, RSTART, RLENGTH), v, " ")
	print n ": " (v[2] >= 0.95 * v[4] && v[4] > 0 ? "95 % or more" : v[2] " of " v[4]) " in one tower, on " \
		f[2] ";" f[3] ";" f[4] ";" f[5] ", main " (m ? "under it" : "missing") }')
expect_eq pyservice:flamegraph_one_tower_per_path "classify ($W): 95 % or more in one tower, on _start;__libc_start_main;__libc_start_call_main;Py_BytesMain, main under it
count_tokens ($W): 95 % or more in one tower, on _start;__libc_start_main;__libc_start_call_main;Py_BytesMain, main under it" "$got"
# the forward pass inside classify's tower: infer, then libtorch's frames
above=$(printf '%s\n' "$res" | sed -n "s|^above classify ($W): ||p")
case ";$above;" in
*";infer ($W);"*";at::"*|*";at::"*";infer ($W);"*) pass pyservice:flamegraph_libtorch_in_tower ;;
*) fail pyservice:flamegraph_libtorch_in_tower; printf '%s\n' "$res" | cut -c1-400 | sed 's/^/    /' ;;
esac
)
