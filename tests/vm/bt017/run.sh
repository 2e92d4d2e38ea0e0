#!/bin/bash
# tests/vm/bt017/run.sh [NAME-REGEX] - bpftrace 0.17's runtime tests of kernel
# functions (tests/vm/bt017/runtime/*, see README.md) under one tracer, with
# the semantics of bpftrace 0.17's harness (tests/runtime/engine/runner.py):
#   TRACER=sonde|bpftrace  (default sonde); SONDE=build/sonde, BPFTRACE=bpftrace
#   BT_WORK=DIR            where the workload bt_syscall is built (default
#                          build/vm/work; built there when out of date)
#   BT_ATTACH_TIMEOUT=S    seconds to wait for the probes to attach (default
#                          60: a TCG guest; bpftrace's harness waits 5)
#   BT_EXIT_TIMEOUT=S      the least TIMEOUT of a test whose program ends
#                          itself with exit() (default 15): it passes as soon
#                          as it has, the TIMEOUT only bounds a failure, and
#                          a TCG guest on a busy machine is several times
#                          slower than the hardware the tests were written on
# One line per test on stdout: "PASS|FAIL|SKIP SUITE.NAME" (a SKIP or FAIL
# says why in parentheses); a failing test's command and output go to
# stderr.  Run as root, in a kernel with kprobes (the 6.12 guest:
#   VMDIR=/work/vmcache tests/vm/run --kernel 6.12 'TRACER=bpftrace tests/vm/bt017/run.sh').
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
TRACER=${TRACER:-sonde}
case $TRACER in
sonde) bin=${SONDE:-$top/build/sonde} ;;
bpftrace) bin=${BPFTRACE:-$(command -v bpftrace)} ;;
*) echo "run.sh: TRACER is sonde or bpftrace, not '$TRACER'" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "run.sh: no $TRACER at '$bin'" >&2; exit 2; }
work=${BT_WORK:-$top/build/vm/work}
attach_timeout=${BT_ATTACH_TIMEOUT:-60}
exit_timeout=${BT_EXIT_TIMEOUT:-15}
filter=${1:-}
mkdir -p "$work"
[ "$work/bt_syscall" -nt "$top/tests/workloads/bt_syscall.c" ] ||
	gcc -O1 -o "$work/bt_syscall" "$top/tests/workloads/bt_syscall.c" || exit 2

# the tests' working directory, as bpftrace's tests/: ./testprogs/syscall
# and runtime/scripts/*.bt
cwd=$(mktemp -d "${TMPDIR:-/tmp}/bt017.XXXXXX")
trap 'rm -rf "$cwd"' EXIT
mkdir -p "$cwd/testprogs" "$cwd/runtime"
ln -s "$work/bt_syscall" "$cwd/testprogs/syscall"
ln -s "$here/scripts" "$cwd/runtime/scripts"

# REQUIRES_FEATURE: what the tracer's --info says, as runner.py reads
# bpftrace's; sonde's --info names the same kernel features its own way
info=$("$bin" --info 2>&1)
has_feature() {
	local f=$1 want
	if [ "$TRACER" = bpftrace ]; then
		case $f in
		btf) want='btf: yes' ;; kfunc) want='kfunc: yes' ;;
		dpath) want='dpath: yes' ;; kprobe_multi) want='kprobe_multi: yes' ;;
		skboutput) want='skboutput: yes' ;; loop) want='Loop support: yes' ;;
		*) return 1 ;;
		esac
	else
		case $f in
		btf) want='btf: yes' ;; kfunc) want='fentry: yes' ;;
		dpath) want='d_path: yes' ;; kprobe_multi) want='kprobe_multi: yes' ;;
		loop) want='loop: yes' ;;
		*) return 1 ;;	# skboutput: sonde has no skboutput()
		esac
	fi
	grep -qF -- "$want" <<< "$info"
}

# version_lt A B: kernel release A older than B (MIN_KERNEL)
version_lt() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]; }

# the regex of EXPECT, as Python's re.search: Perl syntax over the whole
# output; multi-line (^ and $ at every line) except after a timeout
matches() {	# matches REGEX FILE [m]
	local re=$1
	[ "${3:-}" = m ] && re="(?m)$re"
	LC_ALL=C grep -aPzq -- "$re" "$2"
}

# kill_group PID SIG: the process group PID leads (setsid below)
kill_group() { kill -"$2" -- "-$1" 2>/dev/null; }

# wait_exit PID SECONDS: 0 when PID ended within SECONDS (of the clock:
# under emulation a poll of 0.1 s takes much longer than 0.1 s)
wait_exit() {
	local pid=$1 end=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
	return 0
}

# run_test: one parsed test (the variables t_*) to one result line
run_test() {
	local id="$t_suite.$t_name" out=$cwd/out reason="" f req cmd pid apid="" rc=0 timed=0 end ok=0
	local tmo=${t_timeout:-5}
	[[ $t_prog$t_run == *"exit("* ]] && [ "$tmo" -lt "$exit_timeout" ] && tmo=$exit_timeout
	[ -n "$filter" ] && ! [[ $id =~ $filter ]] && return
	if [ -n "$t_arch" ] && ! [[ "|$t_arch|" == *"|$(uname -m)|"* ]]; then
		echo "SKIP $id (ARCH $t_arch)"; return
	fi
	if [ -n "$t_kmin" ] && version_lt "$(uname -r)" "$t_kmin"; then
		echo "SKIP $id (min kernel $t_kmin)"; return
	fi
	for req in "${t_requires[@]}"; do
		sh -c "$req" >/dev/null 2>&1 || { echo "SKIP $id (unmet condition: '$req')"; return; }
	done
	for f in $t_features; do
		has_feature "$f" || { echo "SKIP $id (missed feature: '$f')"; return; }
	done
	# bpftrace's banner "Attaching N probes..." is sonde's "Attached N
	# probes" (docs/differences.md, "Output framing"): five tests expect it
	local re="Attaching ([0-9]+) probe(s?)(\\.\\.\\.)?"
	if [ "$TRACER" = sonde ] && [[ $t_expect =~ $re ]]; then
		t_expect=${t_expect/"${BASH_REMATCH[0]}"/Attached ${BASH_REMATCH[1]} probe${BASH_REMATCH[2]}}
	fi
	if [ -n "$t_run" ]; then cmd=${t_run//\{\{BPFTRACE\}\}/$bin}
	else cmd="$bin -e '$t_prog'"; fi
	# the harness's environment: nothing but these (sh sets its own PATH)
	( cd "$cwd" && exec setsid env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		test="$t_name" __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 \
		__BPFTRACE_NOTIFY_AOT_PORTABILITY_DISABLED=1 BPFTRACE_VERIFY_LLVM_IR=1 \
		$t_env sh -c "$cmd" ) > "$out" 2>&1 < /dev/null &
	pid=$!
	# attached: bpftrace's notice (__BPFTRACE_NOTIFY_PROBES_ATTACHED) or
	# sonde's "Attached N probes", printed once the probes are attached
	end=$((SECONDS + attach_timeout))
	while kill -0 "$pid" 2>/dev/null; do
		if grep -aqE '^(__BPFTRACE_NOTIFY_PROBES_ATTACHED|Attached [0-9]+ probes?)$' "$out"; then
			ok=1; break
		fi
		[ "$SECONDS" -ge "$end" ] && break
		sleep 0.1
	done
	if [ "$ok" = 1 ]; then
		if [ -n "$t_after" ]; then
			( cd "$cwd" && exec setsid sh -c "$t_after" ) >/dev/null 2>&1 < /dev/null &
			apid=$!
		fi
		wait_exit "$pid" "$tmo" || timed=1
	elif kill -0 "$pid" 2>/dev/null; then
		timed=2
	fi
	if [ "$timed" != 0 ]; then
		kill_group "$pid" TERM
		wait_exit "$pid" 10 || kill_group "$pid" KILL
	fi
	wait "$pid"; rc=$?
	if [ -n "$apid" ]; then
		kill -0 "$apid" 2>/dev/null && kill_group "$apid" KILL
		wait "$apid" 2>/dev/null
	fi
	if [ "$timed" = 1 ]; then
		matches "$t_expect" "$out" || reason="timeout after $tmo s"
	elif [ "$timed" = 2 ]; then
		matches "$t_expect" "$out" || reason="not attached nor ended in $attach_timeout s"
	elif [ "$rc" != 0 ] && [ -z "$t_will_fail" ]; then
		reason="unclean exit code $rc"
	elif ! matches "$t_expect" "$out" m; then
		reason="expected /$t_expect/"
	fi
	if [ -z "$reason" ]; then
		echo "PASS $id"
	else
		echo "FAIL $id ($reason)"
		{ echo "== $id: $reason"; echo "   command: $cmd"; sed 's/^/   | /' "$out" | head -30; } >&2
	fi
}

# the test files, read as bpftrace 0.17's parser reads them: a test is a
# block of lines up to an empty line, each "FIELD words..." (words joined
# by one space), '#' lines skipped, the last EXPECT/RUN/... wins
reset_test() {
	t_name="" t_run="" t_prog="" t_expect="" t_timeout="" t_after="" t_arch=""
	t_kmin="" t_features="" t_will_fail="" t_env="" t_requires=()
}
flush_test() {
	[ -n "$t_name" ] && run_test
	reset_test
}
files=("$here"/runtime/*)
set -f
for file in "${files[@]}"; do
	t_suite=$(basename "$file")
	reset_test
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line == '#'* ]] && continue
		if [[ -z ${line// /} ]]; then flush_test; continue; fi
		# shellcheck disable=SC2086
		set -- $line
		key=$1; shift; val="$*"
		case $key in
		NAME) t_name=$val ;; RUN) t_run=$val ;; PROG) t_prog=$val ;;
		EXPECT) t_expect=$val ;; TIMEOUT) t_timeout=$val ;; AFTER) t_after=$val ;;
		ARCH) t_arch=${val// /} ;; MIN_KERNEL) t_kmin=$val ;;
		REQUIRES) t_requires+=("$val") ;;
		REQUIRES_FEATURE) t_features="$t_features $val" ;;
		ENV) t_env="$t_env $val" ;;
		WILL_FAIL) t_will_fail=1 ;;
		*) echo "run.sh: $t_suite: field $key is not one this runner knows" >&2; exit 2 ;;
		esac
	done < "$file"
	flush_test
done
