# t_dxcuda.sh - CUDA as inference servers use it, in `sonde diagnose` and
# the cuda-calls recipe (issue #34): graph launches, kernel launches,
# copies and synchronisations through the runtime (libcudart) and the
# driver API beneath it (libcuda), each call counted once.  Sourced by
# run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq/expect_match).
#
# tests/workloads/cuda_graphs.c makes a known number of calls of each
# function, to the runtime and to the driver directly, with the runtime
# and the driver each given as a file:
#   - the real libcudart of the CUDA toolkit with NVIDIA's stub libcuda of
#     the same toolkit (no GPU here: every call fails, but goes through the
#     library, so the probes fire);
#   - the tests' stand-in libcudart (libcudart_stub.c), which calls the
#     driver's entry point beneath each of its calls as the real runtime
#     does on a machine with a GPU: the driver probes fire inside runtime
#     calls, and the counts must still be exact (no double counting);
#   - the real libcudart with no driver loaded: the driver probes have
#     nothing to attach to, the runtime's are counted alone.
DXC=$B/dxcuda
mkdir -p "$DXC/stand-in"
need_root dxcuda:bpf || return 0
R=$top/scripts
CUDART=${CUDART:-/usr/local/cuda/lib64/libcudart.so}
CUDASTUB=${CUDASTUB:-/usr/local/cuda/lib64/stubs/libcuda.so}
gcc -O1 -g -o "$DXC/cuda_graphs" "$top/tests/workloads/cuda_graphs.c" &&
	gcc -O1 -g -shared -fPIC -o "$DXC/stand-in/libcudart.so" "$top/tests/workloads/libcudart_stub.c" ||
	{ fail dxcuda:build; return 0; }

# until_true CMD...: poll a condition, 60 s at most
until_true() {
	local i
	for i in $(seq 1200); do "$@" && return 0; sleep 0.05; done
	echo "    (gave up waiting for: $*)"; return 1
}

# what cuda_graphs calls (its header), by function
RUNTIME_CALLS='"cudaGraphLaunch": 3, "cudaLaunchKernel": 5, "cudaLaunchKernelExC": 2, "cudaMemcpyAsync": 7,
	"cudaStreamSynchronize": 11, "cudaEventSynchronize": 4'
DRIVER_CALLS='"cuGraphLaunch": 2, "cuLaunchKernel": 6, "cuLaunchKernelEx": 1, "cuMemcpyHtoDAsync_v2": 3,
	"cuStreamSynchronize": 8, "cuCtxSynchronize": 9'

# app_start NAME RUNTIME DRIVER: cuda_graphs waiting for $DXC/NAME.go, its
# pid in $app once it maps the runtime
app_start() {
	rm -f "$DXC/$1.go"
	"$DXC/cuda_graphs" "$2" "$3" "$DXC/$1.go" > "$DXC/$1.app" 2>&1 &
	app=$!
	until_true grep -q libcudart "/proc/$app/maps"
}

# diagnose_run NAME RUNTIME DRIVER: diagnose -f json of cuda_graphs into
# $DXC/NAME.json; the window ends when the program does
diagnose_run() {
	app_start "$@" || return 1
	"$SONDE" diagnose -f json -o "$DXC/$1.json" -p $app 60 2> "$DXC/$1.err" & dxp=$!
	until_true sh -c "grep -q 'sonde diagnose: tracing' $DXC/$1.err || ! kill -0 $dxp"
	touch "$DXC/$1.go"
	wait $app
	wait $dxp
}

# recipe_run NAME RUNTIME DRIVER: the cuda-calls recipe, -p, its output in
# $DXC/NAME.out and .err
recipe_run() {
	app_start "$@" || return 1
	rm -f "$DXC/$1.err"
	"$SONDE" -p $app "$R/cuda-calls.sonde" 60 > "$DXC/$1.out" 2> "$DXC/$1.err" & tracer=$!
	until_true sh -c "grep -q '^Attached' $DXC/$1.err || ! kill -0 $tracer"
	touch "$DXC/$1.go"
	wait $app
	int_stop $tracer
}

# json_check NAME JSON PYTHON: the report's data as r
json_check() {
	local out
	out=$(python3 - "$2" "$3" <<'PY' 2>&1
import json, sys
r = json.loads(open(sys.argv[1]).read())["data"]
got = {c["func"]: c["calls"] for c in r["cuda"]}
kinds = {k: v["calls"] for k, v in r["cuda_kinds"].items()}
exec(sys.argv[2])
PY
)
	if [ $? -eq 0 ]; then pass "dxcuda:$1"; else
		fail "dxcuda:$1"; printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
		head -c 1500 "$2" | sed 's/^/    /'; echo
	fi
}

# recipe_counts OUT: "func=calls ..." summed over the seconds, sorted
recipe_counts() {
	sed -n "s/^@cuda_calls\[, $app, cuda_graphs, \([A-Za-z_0-9]*\)\]: \([0-9]*\)$/\1 \2/p" "$1" |
		awk '{ n[$1] += $2 } END { for (f in n) print f "=" n[f] }' | sort | tr '\n' ' '
}
want_all=$(printf '%s\n' cudaGraphLaunch=3 cudaLaunchKernel=5 cudaLaunchKernelExC=2 cudaMemcpyAsync=7 \
	cudaStreamSynchronize=11 cudaEventSynchronize=4 cuGraphLaunch=2 cuLaunchKernel=6 cuLaunchKernelEx=1 \
	cuMemcpyHtoDAsync_v2=3 cuStreamSynchronize=8 cuCtxSynchronize=9 | sort | tr '\n' ' ')

if [ ! -e "$CUDART" ]; then
	skip dxcuda:real_runtime "no CUDA toolkit's libcudart at $CUDART"
elif [ ! -e "$CUDASTUB" ]; then
	skip dxcuda:real_runtime "no stub libcuda at $CUDASTUB (the CUDA toolkit's lib64/stubs)"
else
	# ---- the real runtime, and the driver called directly ------------------------------
	diagnose_run real "$CUDART" "$CUDASTUB"
	json_check diagnose_real_runtime "$DXC/real.json" "
want = {$RUNTIME_CALLS, $DRIVER_CALLS}
assert got == want, got
assert kinds == {'launch': 14, 'graph_launch': 5, 'sync': 32, 'copy': 10, 'memory': 0}, kinds
assert '/libcudart.so' in r['cuda_runtime'], r['cuda_runtime']
assert r['cuda_driver'].endswith('/libcuda.so'), r['cuda_driver']
api = {c['func']: c['api'] for c in r['cuda']}
assert all(api[f] == ('driver' if not f.startswith('cuda') else 'runtime') for f in api), api"
	recipe_run real_recipe "$CUDART" "$CUDASTUB"
	expect_eq dxcuda:recipe_real_runtime "$want_all" "$(recipe_counts "$DXC/real_recipe.out")"

	# ---- the driver beneath the runtime: counted once ---------------------------------
	diagnose_run nested "$DXC/stand-in/libcudart.so" "$CUDASTUB"
	# the stand-in called the driver beneath each of its 32 calls
	expect_eq dxcuda:driver_called_beneath "under_runtime 32" "$(cat "$DXC/nested.app")"
	json_check diagnose_once_per_call "$DXC/nested.json" "
assert got == {$RUNTIME_CALLS, $DRIVER_CALLS}, got
assert kinds['graph_launch'] == 5 and kinds['launch'] == 14 and kinds['sync'] == 32, kinds
# the stand-in's cudaStreamSynchronize waits 2 ms: its time is the runtime call's
ns = {c['func']: c['ns'] for c in r['cuda']}
assert ns['cudaStreamSynchronize'] >= 11 * 2000000, ns"
	recipe_run nested_recipe "$DXC/stand-in/libcudart.so" "$CUDASTUB"
	expect_eq dxcuda:recipe_once_per_call "$want_all" "$(recipe_counts "$DXC/nested_recipe.out")"
fi

# ---- no driver loaded: the runtime's calls alone, the driver's probes said once ----------
if [ -e "$CUDART" ]; then
	diagnose_run nodrv "$CUDART" -
	json_check diagnose_without_driver "$DXC/nodrv.json" "
assert got == {$RUNTIME_CALLS}, got
assert r['cuda_driver'] is None, r['cuda_driver']"
	recipe_run nodrv_recipe "$CUDART" -
	want_rt=$(printf '%s\n' cudaGraphLaunch=3 cudaLaunchKernel=5 cudaLaunchKernelExC=2 cudaMemcpyAsync=7 \
		cudaStreamSynchronize=11 cudaEventSynchronize=4 | sort | tr '\n' ' ')
	expect_eq dxcuda:recipe_without_driver "$want_rt" "$(recipe_counts "$DXC/nodrv_recipe.out")"
	expect_eq dxcuda:recipe_driver_missing_said_once 1 "$(grep -c "uprobe:libcuda:.*maps no library named 'libcuda'" "$DXC/nodrv_recipe.err")"
fi

# ---- the text report: launches, graph launches and synchronisations apart ---------------
if [ -e "$CUDART" ] && [ -e "$CUDASTUB" ]; then
	app_start text "$DXC/stand-in/libcudart.so" "$CUDASTUB"
	"$SONDE" diagnose -p $app 60 > "$DXC/text.txt" 2> "$DXC/text.err" & dxp=$!
	until_true sh -c "grep -q 'sonde diagnose: tracing' $DXC/text.err || ! kill -0 $dxp"
	touch "$DXC/text.go"
	wait $app
	wait $dxp
	txt=$(cat "$DXC/text.txt")
	expect_match dxcuda:text_graph_launches '^    CUDA graph launches +5 calls' "$txt"
	expect_match dxcuda:text_launches '^    kernel launches +14 calls' "$txt"
	expect_match dxcuda:text_syncs '^    synchronisations +32 calls' "$txt"
	expect_match dxcuda:text_driver_named '^    cuGraphLaunch \(driver\) +2 calls' "$txt"
fi
