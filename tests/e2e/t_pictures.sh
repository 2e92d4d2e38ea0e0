# t_pictures.sh - flame graphs, heatmaps, folded stacks and pprof profiles
# (-f folded|flamegraph|heatmap|pprof, --serve's /debug/pprof/profile),
# checked by tools nobody here wrote (sourced by run.sh).
#
# The workload (tests/workloads/callchain.c, frame pointers) has known call
# chains: leaf() is reached 3N times through run_a -> mid_x, N times through
# run_b -> mid_x, 2N times through run_b -> mid_y; a uprobe at leaf+4 (past
# its prologue) counts them exactly.  Its spin mode burns CPU 3:1 in spin_a
# and spin_b for a profile:hz:99 sampler, whose counts are only compared
# with each other (a loaded machine changes how many samples, not which
# function holds three quarters of the CPU time).
#
#   folded      exact lines for the uprobe counts, one frame per function
#               (a function called from two sites of its caller is one
#               line); every line in the folded format; with
#               folded_offsets, the lines equal what stackcollapse-bpftrace.pl's
#               rules (tools/folded.py) make of the text output of the same
#               map: sonde's own text for user stacks, and bpftrace 0.17's
#               for kernel stacks (0.17 cannot symbolize a PIE's frames)
#   flamegraph  every box's width is its count's share (tools/folded.py);
#               in headless Chromium (tools/browser.py): the frames are
#               there, a click zooms, Search highlights, no request leaves
#               the page; a PNG screenshot stays in $B/pictures
#   heatmap     interval-printed hist and lhist: the terminal still gets
#               the text; in Chromium, the bucket labels are the text's,
#               hovering shows time, bucket and count
#   pprof       `go tool pprof -top` (Debian's golang-go) lists the
#               functions with the exact cumulative counts; --serve's
#               /debug/pprof/profile?seconds=N profiles the next N seconds
#   recipes     cpu-flame -p on the spin workload (3:1, no other process);
#               runqlat EVERY 1 -f heatmap on two threads pinned to one CPU
#               (spin.c): one heatmap per thread name, a column a second,
#               the [2K, 4K) us row of the time slices they wait
#   errors      a picture format without -o, a bad seconds=

(
suite=e2e
PD=$B/pictures
mkdir -p "$PD"
build_workload callchain -fno-omit-frame-pointer -fno-optimize-sibling-calls -fcf-protection=none
build_workload syscall_loop
CC=$B/callchain
PIDS=()	# background processes, stopped on the way out (failures too)
trap '[ ${#PIDS[@]} -gt 0 ] && kill_reap "${PIDS[@]}"' EXIT
T=$top/tests/e2e/tools

# ---- folded: exact counts through the known chains ------------------------------
out=$("$SONDE" -q -f folded -c "$CC calls 10" -e "uprobe:$CC:leaf+4 { @[ustack, comm] = count(); @n = count(); }" 2>&1)
printf '%s\n' "$out" > "$PD/calls.folded"
# (the frames under main are libc's: how many the unwinder finds is not
# what this checks; that none has an offset is)
folded_shape() { sed -E 's/^callchain;(.*;)?main;/callchain;...;main;/'; }
expect_eq pictures:folded_exact "callchain;...;main;run_b;mid_x;leaf 10
callchain;...;main;run_b;mid_y;leaf 20
callchain;...;main;run_a;mid_x;leaf 30
no offsets" "$(printf '%s\n' "$out" | folded_shape)
$(printf '%s\n' "$out" | grep -q '+[0-9]' && echo offsets || echo no offsets)"
if python3 "$T/folded.py" format "$PD/calls.folded"; then pass pictures:folded_format; else fail pictures:folded_format; fi
# one function reached from two call sites of run_c (run_c+34 and run_c+65
# in the text) is one frame: one line, the two counts summed
out=$("$SONDE" -q -f folded -c "$CC sites 10" -e "uprobe:$CC:leaf+4 { @[ustack, comm] = count(); }" 2>&1)
expect_eq pictures:folded_one_frame_per_function "callchain;...;main;run_c;mid_x;leaf 30" \
	"$(printf '%s\n' "$out" | folded_shape)"
# offsets on request, in the config block or the environment: the lines
# as the text prints the frames, one per call site
out=$("$SONDE" -q -f folded -c "$CC sites 10" -e "config = { folded_offsets = 1 } uprobe:$CC:leaf+4 { @[ustack, comm] = count(); }" 2>&1)
expect_match pictures:folded_offsets_config '^callchain;[^ ]*;main\+[0-9]+;run_c\+[0-9]+;mid_x\+[0-9]+;leaf\+4 10
callchain;[^ ]*;main\+[0-9]+;run_c\+[0-9]+;mid_x\+[0-9]+;leaf\+4 20$' "$out"
out=$(SONDE_FOLDED_OFFSETS=1 "$SONDE" -q -f folded -c "$CC calls 10" -e "uprobe:$CC:leaf+4 { @[ustack, comm] = count(); }" 2>&1)
printf '%s\n' "$out" > "$PD/calls-offsets.folded"
expect_match pictures:folded_offsets '^callchain;.*;main\+[0-9]+;run_a\+[0-9]+;mid_x\+[0-9]+;leaf\+4 30$' "$out"

# the same map as text, collapsed by stackcollapse-bpftrace.pl's rules
"$SONDE" -q -c "$CC calls 10" -e "uprobe:$CC:leaf+4 { @[ustack, comm] = count(); }" > "$PD/calls.txt" 2>&1
expect_eq pictures:folded_is_collapsed_text "$(python3 "$T/folded.py" collapse "$PD/calls.txt" | sort)" \
	"$(sort "$PD/calls-offsets.folded")"

# kernel stacks against bpftrace 0.17's text of the same map
KS='tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[kstack, comm] = count(); }'
if command -v bpftrace >/dev/null; then
	timeout 60 bpftrace -e "$KS" -c "$B/syscall_loop 25" > "$PD/bpftrace-k.txt" 2>/dev/null
	# (syscall_loop prints its nanoseconds per call on the same stdout)
	SONDE_FOLDED_OFFSETS=1 "$SONDE" -q -f folded -e "$KS" -c "$B/syscall_loop 25" 2>/dev/null |
		grep -Ev '^[0-9.]+$' > "$PD/k.folded"
	# a tracepoint with one handler calls it directly; with more (another
	# tracer on sys_enter, or the perf events a previous run's release
	# still holds) through __traceiter_sys_enter, a frame either run may
	# or may not have: it says how busy the tracepoint was, not how the
	# stack was collapsed
	noiter() { sed -E 's/;__traceiter_[a-z_]+\+[0-9]+//'; }
	want=$(python3 "$T/folded.py" collapse "$PD/bpftrace-k.txt" | noiter | sort)
	expect_match pictures:folded_kernel_nonempty '^syscall_loop;.*entry_SYSCALL_64.*;do_syscall_64\+[0-9]+;.* 25$' "$want"
	expect_eq pictures:folded_matches_bpftrace_kernel "$want" "$(noiter < "$PD/k.folded" | sort)"
else
	skip pictures:folded_matches_bpftrace_kernel "bpftrace is not installed"
fi

# profile:hz sampling: names and structure, and the 3:1 split as a > b.
# 1000 rounds, about 120 samples (100 rounds gave 10 to 14: spin_b none in
# about 1 run in 30 at 3:1, and a <= b about as often)
"$SONDE" -q -f folded -e 'profile:hz:99 /pid == cpid/ { @[ustack] = count(); }' -c "$CC spin 1000" \
	> "$PD/spin.folded" 2>&1
a=$(grep -E ';main;spin_a;burn [0-9]+$' "$PD/spin.folded" | awk '{s += $NF} END {print s + 0}')
b=$(grep -E ';main;spin_b;burn [0-9]+$' "$PD/spin.folded" | awk '{s += $NF} END {print s + 0}')
if python3 "$T/folded.py" format "$PD/spin.folded" && [ "$b" -gt 0 ] && [ "$a" -gt "$b" ]; then
	pass pictures:profile_hz_folded
else
	fail pictures:profile_hz_folded; echo "    spin_a $a spin_b $b"; head -20 "$PD/spin.folded" | sed 's/^/    /'
fi

# ---- flame graph ---------------------------------------------------------------------
rm -f "$PD/calls.svg"
out=$("$SONDE" -q -f flamegraph -o "$PD/calls.svg" -c "$CC calls 10" \
	-e "uprobe:$CC:leaf+4 { @[ustack, comm] = count(); @n = count(); }" 2>&1)
expect_eq pictures:flamegraph_terminal_text "@n: 60" "$(printf '%s\n' "$out" | grep -v '^$')"
res=$(python3 "$T/folded.py" svg "$PD/calls.svg" 2>&1)
expect_match pictures:flamegraph_widths '^ok [0-9]+ boxes$' "$res"
# the counts themselves: run_a holds 30 of 60, mid_y 20
expect_match pictures:flamegraph_counts '<title>run_a \(30, 50\.00%\)</title><rect x="10\.0000" y="[0-9]+" width="590\.0000"' \
	"$(cat "$PD/calls.svg")"
if command -v chromium >/dev/null; then
	res=$(timeout 120 python3 "$T/browser.py" flamegraph "$PD/calls.svg" "$PD/flamegraph.png" \
		run_b mid_y leaf mid_x run_a main callchain 2>&1)
	expect_eq pictures:flamegraph_in_chromium "ok frame run_b
ok frame mid_y
ok frame leaf
ok frame mid_x
ok frame run_a
ok frame main
ok frame callchain
ok labels drawn
ok widths proportional to values
ok click zooms to full width
ok zoom hides the boxes outside
ok zoom keeps every callee
ok search highlights
ok search shows the share
ok no request leaves the page" "$res"
	if [ -s "$PD/flamegraph.png" ] && [ "$(head -c 4 "$PD/flamegraph.png" | od -An -c | tr -d ' ')" = "211PNG" ]; then
		pass pictures:flamegraph_screenshot
	else
		fail pictures:flamegraph_screenshot
	fi
else
	skip pictures:flamegraph_in_chromium "chromium is not installed (make deps)"
fi

# ---- heatmap ---------------------------------------------------------------------------
rm -f "$PD/paced.html"
HS="uprobe:$CC:leaf+4 { @v = hist(arg0); @l[comm] = lhist(arg0, 0, 10, 1); }
interval:ms:100 { print(@v); clear(@v); print(@l); }"
out=$("$SONDE" -q -f heatmap -o "$PD/paced.html" -c "$CC paced 40" -e "$HS" 2>&1)
# leaf's argument is 0, 1, 2 (run_a(1)): the text goes to the terminal as -f text prints it
expect_match pictures:heatmap_terminal_text '^\[2, 4\) +[0-9]+ \|@+ *\|$' "$out"
expect_match pictures:heatmap_terminal_lhist '^@l\[callchain\]: $' "$out"
if command -v chromium >/dev/null; then
	res=$(timeout 120 python3 "$T/browser.py" heatmap "$PD/paced.html" "$PD/heatmap.png" '[0]' '[1]' '[2, 4)' 2>&1)
	expect_eq pictures:heatmap_in_chromium "ok bucket labels
ok cells drawn
ok hover shows time, bucket, count
ok no request leaves the page" "$res"
else
	skip pictures:heatmap_in_chromium "chromium is not installed (make deps)"
fi
# one heatmap per key, labels as the lhist text prints them
expect_match pictures:heatmap_lhist_labels '<text class="bucket" x="[0-9]+" y="[0-9]+">\[2, 3\)</text>' "$(cat "$PD/paced.html")"

# ---- the recipes' pictures ----------------------------------------------------------------
# cpu-flame on one process: its 3:1 split, as folded lines.  Sampled until
# the workload has had 2 s of CPU (about 200 samples at 99 Hz), then
# Ctrl-C (SECONDS 0): 2 s of wall time gave it 17 samples on a busy
# machine, too few for the split (7 in spin_a, 10 in spin_b seen)
"$CC" spin 100000000 &
cpid=$!
PIDS+=($cpid)
rm -f "$PD/cpu-flame.folded" "$PD/cpu-flame.err"
"$SONDE" -f folded -p $cpid "$top/scripts/cpu-flame.sonde" $cpid 0 > "$PD/cpu-flame.folded" 2> "$PD/cpu-flame.err" &
fsp=$!
wait_for "$PD/cpu-flame.err" '^Attached' 120
wait_cpu_ticks $cpid 200
kill -INT $fsp; wait $fsp
kill_reap $cpid
a=$(grep -E '^callchain;.*;main;spin_a;burn [0-9]+$' "$PD/cpu-flame.folded" | awk '{s += $NF} END {print s + 0}')
b=$(grep -E '^callchain;.*;main;spin_b;burn [0-9]+$' "$PD/cpu-flame.folded" | awk '{s += $NF} END {print s + 0}')
others=$(grep -v '^callchain;' "$PD/cpu-flame.folded"; grep -v '^Attached' "$PD/cpu-flame.err")
if [ "$b" -gt 0 ] && [ "$a" -gt "$b" ] && [ -z "$others" ]; then pass pictures:recipe_cpu_flame; else
	fail pictures:recipe_cpu_flame; echo "    spin_a $a spin_b $b"; head -20 "$PD/cpu-flame.folded" | sed 's/^/    /'
fi
# runqlat EVERY 1 as a heatmap: two busy threads on one CPU wait ~3 ms for each other
build_workload spin
"$B/spin" 2 3600000 &
spid=$!
PIDS+=($spid)
wait_threads $spid 3
rm -f "$PD/runqlat.html"
out=$("$SONDE" -q -f heatmap -o "$PD/runqlat.html" "$top/scripts/runqlat.sonde" $spid 1 2 1 2>&1)
kill_reap $spid
html=$(cat "$PD/runqlat.html" 2>/dev/null)
cols=$(printf '%s\n' "$html" | grep -c '<rect class="cell" x="[0-9.]*" y="0" ')
if printf '%s\n' "$html" | grep -q '^<h2>@runq_usecs_by_comm\[spin\]</h2>$' && [ "$cols" -ge 2 ] &&
   printf '%s\n' "$html" | grep -q '>\[2K, 4K)</text>' &&
   printf '%s\n' "$out" | grep -q '^@runq_usecs_by_comm\[spin\]: $'; then
	pass pictures:recipe_runqlat_heatmap
else
	fail pictures:recipe_runqlat_heatmap; echo "    $cols columns"; printf '%s\n' "$out" | head -20 | sed 's/^/    /'
fi

# ---- pprof -------------------------------------------------------------------------------
if command -v go >/dev/null; then
	export GOCACHE=$PD/gocache HOME=${HOME:-/root}
	rm -f "$PD/calls.pb.gz"
	"$SONDE" -q -f pprof -o "$PD/calls.pb.gz" -c "$CC calls 10" \
		-e "uprobe:$CC:leaf+4 { @calls[ustack, comm] = count(); }" >/dev/null 2>&1
	top=$(go tool pprof -top "$PD/calls.pb.gz" 2>&1)
	got=$(printf '%s\n' "$top" | awk '$NF ~ /^(leaf|mid_x|mid_y|run_a|run_b|main)$/ {print $NF, $1, $4}' | sort)
	expect_eq pictures:pprof_top "leaf 60 60
main 0 60
mid_x 0 40
mid_y 0 20
run_a 0 30
run_b 0 30" "$got"
	expect_match pictures:pprof_sample_type '^Type: calls$' "$top"
	tags=$(go tool pprof -tags "$PD/calls.pb.gz" 2>&1)
	expect_match pictures:pprof_labels 'comm: Total 60' "$tags"

	# --serve: the next N seconds, as a Go service's endpoint
	rm -f "$PD/serve.err"	# not the last run's port
	"$SONDE" -q --serve 0 -e 'profile:hz:99 /comm == "callchain"/ { @cpu[ustack] = count(); }' \
		2> "$PD/serve.err" &
	SPID=$!
	PIDS+=($SPID)
	port=""
	for i in $(seq 600); do
		port=$(sed -n 's/^sonde: serving metrics at http:\/\/127.0.0.1:\([0-9]*\)\/metrics$/\1/p' "$PD/serve.err")
		[ -n "$port" ] && break
		sleep 0.1
	done
	rm -f "$PD/served.pb.gz"
	# the workload runs through the whole 2 seconds
	"$CC" spin 100000000 &
	cpid=$!
	PIDS+=($cpid)
	curl -s -o "$PD/served.pb.gz" "http://127.0.0.1:$port/debug/pprof/profile?seconds=2"
	kill_reap $cpid
	top=$(go tool pprof -top "$PD/served.pb.gz" 2>&1)
	expect_match pictures:pprof_served_spin '[0-9]+ +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9.]+% +burn$' "$top"
	expect_match pictures:pprof_served_spin_a ' spin_a$' "$top"
	expect_match pictures:pprof_served_duration '^Duration: 2' "$top"
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/debug/pprof/profile?seconds=0")
	expect_eq pictures:pprof_served_bad_seconds 400 "$code"
	kill_reap $SPID
else
	skip pictures:pprof_top "golang-go is not installed (make deps)"
fi

# ---- errors -----------------------------------------------------------------------------
out=$("$SONDE" -f flamegraph -e 'profile:hz:99 { @[kstack] = count(); }' 2>&1; echo "rc=$?")
expect_eq pictures:picture_needs_o "sonde: -f flamegraph writes a picture: give its file with -o FILE (FILE.svg)
rc=1" "$out"
)
