#!/bin/bash
# End-to-end tests: build/sonde (the ASan build in make check) with real BPF
# on this kernel, against workloads these tests compile themselves.
#
#   SONDE=... RESULTS=FILE tests/e2e/run.sh [t_NAME.sh ...]
#
# Each t_*.sh runs in a bash of its own (lib.sh sourced first), with a build
# directory of its own, $B = build/e2e/t_NAME: its workloads (so a uprobe on
# one file's copy never counts another file's process) and its files.  Up
# to E2E_JOBS files run at once (default 3: most of their time is spent
# waiting on the kernel, on timers and on workloads); tests/e2e/shares says
# which files must not run beside which (a tag two files share keeps them
# apart; "alone" runs a file with no other) and how long each takes, so the
# longest start first.  E2E_JOBS=1 runs them one after the other.
#
# A file's output is printed in one piece when it ends, with its wall and
# CPU time; its result lines go to RESULTS, all files' in name order once
# every file has ended.  CHECK_TIMES=FILE appends "e2e/t_NAME.sh WALL CPU"
# lines (seconds) to FILE, for make check's table.  E2E_DIR: the folder of
# the t_*.sh files and their shares file, where they run (default this
# one; tests/e2e/t_make.sh runs stand-ins).
#
# A file still running after E2E_FILE_TIMEOUT seconds (default 1800, as a
# kernel guest's VM_TIMEOUT: t_bt026.sh takes about 6 minutes on 2 busy
# cores) is killed with what it started (timeout(1): its process group),
# and a file whose shell dies, or that ends with no result line (a syntax
# error), is a FAIL line too: none is lost from the totals.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "${E2E_DIR:-$here}" || exit 2
RESULTS=${RESULTS:-/dev/null}
jobs=${E2E_JOBS:-3}
limit=${E2E_FILE_TIMEOUT:-1800}
base=${E2E_BUILD:-$top/build/e2e}
logs=$base/logs
mkdir -p "$logs"

files=("$@")
[ ${#files[@]} -gt 0 ] || files=(t_*.sh)

# tests/e2e/shares: "t_NAME.sh SECONDS TAG..." (a file not listed: 60 s, no tag)
declare -A cost tags
while read -r f s t; do
	[[ -z $f || $f == \#* ]] && continue
	cost[$f]=$s tags[$f]=" $t "
done < <(cat shares 2>/dev/null)

# longest first: the last to start are the short ones, which fill the gaps
mapfile -t pending < <(for f in "${files[@]}"; do echo "${cost[$f]:-60} $f"; done |
	sort -k1,1nr -k2,2 | awk '{ print $2 }')

declare -A pid_file busy	# running pid -> file; tag -> files running with it
nrun=0 alone=""

# can_start FILE: no running file shares a tag with it, and neither it nor
# a running file must run alone
can_start() {
	local t
	[ -n "$alone" ] && return 1
	[[ ${tags[$1]} == *" alone "* ]] && { [ "$nrun" -eq 0 ]; return; }
	for t in ${tags[$1]}; do
		[ "${busy[$t]:-0}" -gt 0 ] && return 1
	done
	return 0
}

start() {
	local f=$1 n=${1%.sh} t
	rm -f "$logs/$n.res" "$logs/$n.time"
	mkdir -p "$base/$n"
	# shellcheck disable=SC2016
	E2E_BUILD=$base/$n RESULTS=$logs/$n.res "$top/tests/timed.sh" "e2e/$f" "$logs/$n.time" \
		timeout -k 30 "$limit" bash -c '. "$2/lib.sh"; . "./$1"; exit 0' e2e "$f" "$here" \
		> "$logs/$n.log" 2>&1 < /dev/null &
	pid_file[$!]=$f
	nrun=$((nrun + 1))
	for t in ${tags[$f]}; do busy[$t]=$((${busy[$t]:-0} + 1)); done
	[[ ${tags[$f]} == *" alone "* ]] && alone=$f
}

# finish PID STATUS
finish() {
	local f=${pid_file[$1]} n t wall=0 cpu=0 why=""
	n=${f%.sh}
	unset "pid_file[$1]"
	nrun=$((nrun - 1))
	for t in ${tags[$f]}; do busy[$t]=$((${busy[$t]} - 1)); done
	[ "$alone" = "$f" ] && alone=""
	# (the file's shell ends with exit 0, or an exit 0 of the file's own)
	case $2 in
	0) grep -qs '^\(PASS\|FAIL\|SKIP\) ' "$logs/$n.res" || why="ended with no result line" ;;
	124) why="still running after $limit s: killed (E2E_FILE_TIMEOUT)" ;;
	*) why="its shell ended with status $2" ;;
	esac
	[ -n "$why" ] && echo "FAIL e2e:$n: $why" | tee -a "$logs/$n.res" >> "$logs/$n.log"
	read -r _ wall cpu < "$logs/$n.time"
	echo "== $f ($wall s, CPU $cpu s)"
	cat "$logs/$n.log"
	[ -n "${CHECK_TIMES:-}" ] && cat "$logs/$n.time" >> "$CHECK_TIMES"
}

while [ ${#pending[@]} -gt 0 ] || [ "$nrun" -gt 0 ]; do
	while [ "$nrun" -lt "$jobs" ]; do
		i=0 started=""
		for f in "${pending[@]}"; do
			if can_start "$f"; then
				start "$f"
				pending=("${pending[@]:0:i}" "${pending[@]:i+1}")
				started=yes
				break
			fi
			i=$((i + 1))
		done
		[ -n "$started" ] || break
	done
	[ "$nrun" -gt 0 ] || break
	wait -n -p done_pid
	finish "$done_pid" "$?"
done

for f in "${files[@]}"; do
	cat "$logs/${f%.sh}.res" 2>/dev/null
done >> "$RESULTS"
exit 0
