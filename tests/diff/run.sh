#!/bin/bash
# tests/diff/run.sh - the differential suite: every script under bpftrace
# 0.17 and under sonde, whole outputs compared byte for byte after the
# normalisation in normalise.py (see tests/diff/README.md for the case
# layout and the directives a case may carry).
#
#   SONDE=build/sonde RESULTS=build/results.diff tests/diff/run.sh [PATTERN...]
#
# PATTERNs (shell globs matched against the start of a case name: '2',
# '*json*', 'printf', 'printf/05') pick cases; none runs them all.  Each case appends "PASS diff:NAME",
# "FAIL diff:NAME" or "SKIP diff:NAME: reason" to $RESULTS.  Outputs are
# kept under $DIFF_BUILD/out (default: next to $SONDE, in diff/out) for a
# look after a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
SONDE=${SONDE:-$top/build/sonde}
BPFTRACE=${BPFTRACE:-bpftrace}
RESULTS=${RESULTS:-/dev/null}
D=${DIFF_BUILD:-$(dirname "$SONDE")/diff}
mkdir -p "$D/bin" "$D/out"
D=$(cd "$D" && pwd)	# absolute: $W goes into PATH, and a relative entry is the cwd's
W=$D/bin			# workloads, as $W in the cases
OUTS=$D/out
PY=${PYTHON:-python3}
export W
# binaries in PATH: uprobe:work:work finds $W/work
export PATH=$W:$PATH

# bpftrace 0.17 cannot mount tracefs and fails on a host where it is not
# mounted (sonde mounts it itself); mount it for the oracle's sake
if [ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
		echo "diff: tracefs is not mounted and cannot be: bpftrace will fail"
fi

suite="diff"
npass=0 nfail=0 nskip=0
pass() { echo "PASS $suite:$1"; echo "PASS $suite:$1" >> "$RESULTS"; npass=$((npass + 1)); }
fail() { echo "FAIL $suite:$1"; echo "FAIL $suite:$1" >> "$RESULTS"; nfail=$((nfail + 1)); }
skip() { echo "SKIP $suite:$1: $2"; echo "SKIP $suite:$1: $2" >> "$RESULTS"; nskip=$((nskip + 1)); }

# selected NAME: no PATTERNS, or one matches NAME
selected() {
	[ ${#PATTERNS[@]} -eq 0 ] && return 0
	local name=$1 p
	for p in "${PATTERNS[@]}"; do
		# shellcheck disable=SC2053
		[[ $name == $p* ]] && return 0
	done
	return 1
}
PATTERNS=("$@")

cases=("$here"/cases/*.bt)
all_names() {
	local c
	for c in "${cases[@]}"; do basename "$c" .bt; done
	echo printf
}

# ---- prerequisites: a missing one is a SKIP line per case, never silence
why=""
if [ "$(id -u)" != 0 ]; then why="needs root to load BPF"
elif ! command -v "$BPFTRACE" >/dev/null; then why="bpftrace (the oracle) is not installed"
elif ! command -v "$PY" >/dev/null; then why="python3 is not installed"
elif [ ! -x "$SONDE" ]; then why="no sonde binary at $SONDE"
fi
if [ -n "$why" ]; then
	for n in $(all_names); do
		selected "$n" && skip "$n" "$why"
	done
	exit 0
fi

# ---- workloads: the tests/workloads/*.c programs the cases run, built once
for n in work ioctl_loop spin args usdt ticker libc_calls types sysargs parity argv usdt_gated dwarf_args named; do
	src=$top/tests/workloads/$n.c
	[ "$W/$n" -nt "$src" ] && continue
	gcc -O1 -g -pthread -o "$W/$n" "$src" || { echo "cannot build workload $n" >&2; }
done

# ---- one case
# directive VALUE-OF KEY FILE: the values of "// KEY: value" lines in the
# comment block a case opens with (one per line; "// KEY" alone gives "yes")
directives() {
	awk -v key="$1" '
		/^\/\// { line = substr($0, 3); sub(/^ +/, "", line)
			  k = line; sub(/:.*/, "", k)
			  if (k == key) { v = line; if (index(v, ":")) { sub(/^[^:]*: ?/, "", v) } else v = "yes"; print v }
			  next }
		/^[ \t]*$/ { next }
		{ exit }' "$2"
}

# run_tool TOOL FILE OUTBASE: runs one tool on one case, leaves
# OUTBASE.{out,err,file} and prints the exit status
run_tool() {
	local tool=$1 file=$2 ob=$3 rc bgpid=""
	local OUT=$ob.file PID=""
	rm -f "$OUT"
	if [ -n "$bg" ]; then
		( eval "exec $bg" ) </dev/null >/dev/null 2>&1 &
		bgpid=$!
		# shellcheck disable=SC2034  # used by the eval of args and params
		PID=$bgpid
		sleep 0.2
	fi
	local -a argv=() params=()
	eval "argv=($args)"
	eval "params=($pargs)"
	if [ -n "$noscript" ]; then
		timeout -k 5 "$tmo" "$tool" "${argv[@]}" </dev/null >"$ob.out" 2>"$ob.err"
	else
		timeout -k 5 "$tmo" "$tool" "${argv[@]}" "$file" ${params[@]+"${params[@]}"} \
			</dev/null >"$ob.out" 2>"$ob.err"
	fi
	rc=$?
	if [ -n "$bgpid" ]; then
		kill "$bgpid" 2>/dev/null
		wait "$bgpid" 2>/dev/null
	fi
	echo "$rc"
}

# normalised NAME TOOL RC OUTBASE [--validate]: the text the suite compares
normalised() {
	local rc=$3 ob=$4; shift 4
	local -a nopts=()
	[ -n "$json" ] && nopts+=(--json "$@")
	[ -n "$sortlines" ] && nopts+=(--sort-lines)
	local m
	while IFS= read -r m; do [ -n "$m" ] && nopts+=(--mask "$m"); done <<< "$masks"
	"$PY" "$here/normalise.py" ${nopts[@]+"${nopts[@]}"} < "$ob.out"
	local vrc=$?
	if [ -f "$ob.file" ]; then
		echo "--- -o file"
		"$PY" "$here/normalise.py" ${nopts[@]+"${nopts[@]}"} < "$ob.file" || vrc=3
	fi
	case $rc in
	0) ;;
	124|137) echo "[timed out]" ;;
	*) echo "[exit status non-zero]" ;;
	esac
	return $vrc
}

run_case() {
	local src=$1 name
	name=$(basename "$src" .bt)
	# the script as run: @W@ is the workload directory
	local ob=$OUTS/$name file=$OUTS/$name.bt
	sed "s|@W@|$W|g" "$src" > "$file"
	local reason
	reason=$(directives skip "$file")
	if [ -n "$reason" ]; then skip "$name" "$reason"; return; fi
	reason=$(directives needs "$file")
	if [ -n "$reason" ] && ! (eval "$reason") >/dev/null 2>&1; then
		skip "$name" "prerequisite failed: $reason"; return
	fi
	args=$(directives args "$file" | tr '\n' ' ')
	pargs=$(directives params "$file" | tr '\n' ' ')
	bg=$(directives bg "$file")
	masks=$(directives mask "$file")
	noscript=$(directives noscript "$file")
	sortlines=$(directives sort-lines "$file")
	tmo=$(directives timeout "$file"); tmo=${tmo:-20}
	json=""
	[[ " $args " == *" -f json "* || " $args " == *" -fjson "* ]] && json=yes
	local differs expect="${src%.bt}.expect-sonde"
	differs=$(directives differs "$file")
	if [ -f "$expect" ] && [ -z "$differs" ]; then
		fail "$name"; echo "    $expect exists but the case has no '// differs: reason' line"; return
	fi

	local b_rc s_rc vrc
	b_rc=$(run_tool "$BPFTRACE" "$file" "$ob.bpftrace")
	s_rc=$(run_tool "$SONDE" "$file" "$ob.sonde")
	normalised "$name" bpftrace "$b_rc" "$ob.bpftrace" > "$ob.bpftrace.norm" 2>/dev/null
	normalised "$name" sonde "$s_rc" "$ob.sonde" --validate > "$ob.sonde.norm" 2>"$ob.sonde.json-err"
	vrc=$?

	local want=$ob.bpftrace.norm
	if [ -f "$expect" ]; then
		want=$ob.expect-sonde
		sed "s|@W@|$W|g" "$expect" > "$want"
	fi
	if [ $vrc -ne 0 ]; then
		fail "$name"
		sed 's/^/    /' "$ob.sonde.json-err" | head -5
	elif cmp -s "$want" "$ob.sonde.norm"; then
		pass "$name"
		if [ -f "$expect" ] && cmp -s "$want" "$ob.bpftrace.norm"; then
			echo "    note: bpftrace now prints sonde's expected output; is the difference ($differs) gone?"
		fi
		return
	else
		fail "$name"
	fi
	echo "    --- ${want#"$top"/}  +++ sonde   (stderr: ${ob#"$top"/}.sonde.err)"
	diff "$want" "$ob.sonde.norm" | head -40 | sed 's/^/    /'
	[ -s "$ob.sonde.err" ] && grep -v '^Attached ' "$ob.sonde.err" | head -5 | sed 's/^/    sonde stderr: /'
}

# ---- the printf table: one script for all rows, rows compared one by one
# printf_rows TOOL BIN INDEX...: the rows' lines ("R<i>[...]") from TOOL,
# all in one BEGIN block; a row that the tool rejects takes the whole
# script down, so then the missing rows run one by one and fail alone
printf_rows() {
	local t=$1 bin=$2; shift 2
	local ob=$OUTS/printf.$t i
	row_stmt() {
		local comma=""
		[ -n "${fargs[$1]}" ] && comma=", "
		printf 'printf("R%d[%s]\\n"%s%s);' "$1" "${fmts[$1]}" "$comma" "${fargs[$1]}"
	}
	{ echo "BEGIN {"; for i in "$@"; do echo "	$(row_stmt "$i")"; done; echo "	exit();"; echo "}"; } > "$ob.bt"
	run_tool "$bin" "$ob.bt" "$ob" >/dev/null
	: > "$ob.rows"
	for i in "$@"; do
		if grep -qa "^R$i\[" "$ob.out"; then
			grep -a "^R$i\[" "$ob.out" >> "$ob.rows"
			continue
		fi
		echo "BEGIN { $(row_stmt "$i") exit(); }" > "$ob.row.bt"
		run_tool "$bin" "$ob.row.bt" "$ob.row" >/dev/null
		if grep -qa "^R$i\[" "$ob.row.out"; then
			grep -a "^R$i\[" "$ob.row.out" >> "$ob.rows"
		else
			echo "R${i}[<rejected: $(grep -v -e RLIMIT_MEMLOCK -e '^Attach' "$ob.row.err" | head -1)>]" >> "$ob.rows"
		fi
	done
}

# the printf table: every row under sonde; under bpftrace the rows without
# an expected difference (the others are 0.17 bugs, some of which make it
# refuse the script)
run_printf_table() {
	local -a fmts=() fargs=() wants=() whys=() all=() plain=()
	local line f a e r n=0 i
	while IFS= read -r line; do
		[[ -z $line || $line == \#* ]] && continue
		# TAB is IFS whitespace (empty columns would merge): split on \x1f
		line=${line//$'\t'/$'\x1f'}
		IFS=$'\x1f' read -r f a e r <<< "$line"
		fmts+=("$f"); fargs+=("$a"); wants+=("${e:-}"); whys+=("${r:-}")
		all+=("$n")
		[ -z "${r:-}" ] && plain+=("$n")
		n=$((n + 1))
	done < "$here/printf.table"
	tmo=20; args=""; pargs=""; bg=""; noscript=""
	printf_rows bpftrace "$BPFTRACE" "${plain[@]}"
	printf_rows sonde "$SONDE" "${all[@]}"
	for ((i = 0; i < n; i++)); do
		local rname b s want
		rname=$(printf 'printf/%02d' "$i")
		selected "$rname" || selected printf || continue
		b=$(grep -a "^R$i\[" "$OUTS/printf.bpftrace.rows" | sed "s/^R$i\[//; s/\]\$//")
		s=$(grep -a "^R$i\[" "$OUTS/printf.sonde.rows" | sed "s/^R$i\[//; s/\]\$//")
		want=$b
		[ -n "${whys[i]}" ] && want=${wants[i]} b="(not run: ${whys[i]})"
		if [ "$s" == "$want" ] && grep -qa "^R$i\[" "$OUTS/printf.sonde.rows"; then
			pass "$rname"
		else
			fail "$rname"
			echo "    printf(\"${fmts[i]}\"${fargs[i]:+, ${fargs[i]}})"
			echo "    want     [$want]"
			echo "    bpftrace [$b]"
			echo "    sonde    [$s]"
		fi
	done
}

# ---- the cases, DIFF_JOBS lanes at once (default 3; each case is mostly
# the tools' start and the seconds a probe runs): lane L runs every
# DIFF_JOBS-th case from the L-th, with a copy of the workloads of its own
# as $W and first in its PATH (a uprobe on one lane's binary never counts
# another lane's process); each case's output and result line are kept
# and printed in the cases' order once every lane has ended
start=$(date +%s)
jobs=${DIFF_JOBS:-3}
sel=()
for c in "${cases[@]}"; do
	selected "$(basename "$c" .bt)" && sel+=("$c")
done
for ((l = 0; l < jobs; l++)); do
	(if [ "$jobs" -gt 1 ]; then
		W=$D/bin-$l
		mkdir -p "$W" && cp -a "$D/bin/." "$W/"
		PATH=$W:${PATH#"$D/bin:"}	# (bpftrace refuses a name two PATH entries have)
	 fi
	 for ((i = l; i < ${#sel[@]}; i += jobs)); do
		n=$(basename "${sel[i]}" .bt)
		RESULTS=$OUTS/$n.result
		: > "$RESULTS"
		run_case "${sel[i]}" > "$OUTS/$n.log" 2>&1
	 done) &
done
wait
for c in "${sel[@]}"; do
	n=$(basename "$c" .bt)
	cat "$OUTS/$n.log"
	cat "$OUTS/$n.result" >> "$RESULTS"
	case $(cut -c1-4 "$OUTS/$n.result") in
	PASS) npass=$((npass + 1)) ;; FAIL) nfail=$((nfail + 1)) ;; SKIP) nskip=$((nskip + 1)) ;;
	esac
done
if selected printf || [[ " ${PATTERNS[*]:-} " == *" printf/"* || " ${PATTERNS[*]:-} " == *" p"[r*]* ]]; then
	run_printf_table
fi
echo "diff: $npass passed, $nfail failed, $nskip skipped in $(( $(date +%s) - start )) s"
exit 0
