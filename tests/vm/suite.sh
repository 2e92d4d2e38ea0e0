#!/bin/bash
# suite.sh RESULTS - the kernel suite (make vm): every tests/vm/t_*.sh in
# one boot of each kernel of the matrix (tests/vm/bed.sh), result lines
# appended to RESULTS.  A kernel that cannot be fetched is a SKIP line with
# the reason; a guest that hangs is killed after VM_TIMEOUT seconds and is a
# FAIL line, as is one that dies without finishing its suite.
#   VM_KERNELS="6.12" tests/vm/suite.sh /tmp/r    one kernel only
#   VM_PAR=1                                      one guest at a time
#   VM_SPLIT="KVER:t_a.sh,t_b.sh KVER:t_c.sh ..."  more boots of KVER, the
#                       Nth entry of KVER the files of its boot N+1 (KVER-N+1),
#                       its first boot the files no entry names (default: 6.12's
#                       book and newest tools, and bpftrace 0.17's and 0.26's
#                       runtime tests of kernel functions, one vCPU): the
#                       guests are CPU-bound under TCG, and the newest kernel's
#                       suite is the longest, four times another kernel's
#   VM_NICE=N                                     (default 0; $VMDIR/nice
#                       when there is one) the guests' nice value: make check
#                       has them at 10 while the host suites run beside them,
#                       whose timing-sensitive tests keep their CPU, then at 0
#   tests/vm/suite.sh --fetch                     only fetch the kernels (make
#                       check starts it at once, beside the build)
#   tests/vm/suite.sh --renice N                  the running guests' nice value
#                       (every thread of their QEMU), and $VMDIR/nice
. "$(dirname "$0")/bed.sh"
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_PAR=${VM_PAR:-2}
VM_SPLIT=${VM_SPLIT-6.12:t_book.sh,t_newtools.sh 6.12:t_bt_kprobe.sh,t_bt026.sh}

# fetch KVER: the kernel fetched once however many boots and processes want
# it (its reason on failure)
fetch() {
	mkdir -p "$VMDIR"
	flock "$VMDIR/fetch-$1.lock" bash -c '. "$1/tests/vm/bed.sh"; vm_fetch "$2"' fetch "$vm_top" "$1"
}
if [ "${1:-}" = --renice ]; then
	mkdir -p "$VMDIR" && echo "$2" > "$VMDIR/nice"
	for p in $(pgrep -f -- "-kernel $VMDIR/"); do
		for t in /proc/"$p"/task/*; do renice -n "$2" -p "${t##*/}" >/dev/null 2>&1; done
	done
	exit 0
fi
if [ "${1:-}" = --fetch ]; then
	st=0
	for v in $VM_KERNELS; do fetch "$v" || st=1; done
	exit $st
fi
RESULTS=${1:?usage: suite.sh RESULTS}

# the workloads, built here (where guest.sh looks for them, whatever
# VMDIR says): the guest's compiler would run under TCG; and bpftrace
# v0.26.1's test programs that t_bt026.sh's tests trace
(E2E_BUILD=$vm_top/build/vm/work RESULTS=/dev/null
 . "$vm_top/tests/e2e/lib.sh"
 for w in "$vm_top"/tests/workloads/*.c; do
	w=$(basename "$w" .c)
	build_workload "$w" >/dev/null 2>&1 || true
 done
 build_workload sondetest_call -ldl
 # t_base.sh's simulated container: two builds of one library, the second
 # with sonde_target 64 KiB further (as tests/e2e/t_containers.sh)
 src=$vm_top/tests/workloads/libsondetest.c
 mkdir -p "$B/ct-v1" "$B/ct-v2"
 [ "$B/ct-v1/libsondetest.so" -nt "$src" ] ||
	gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -o "$B/ct-v1/libsondetest.so" "$src"
 [ "$B/ct-v2/libsondetest.so" -nt "$src" ] ||
	gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -DSONDE_PAD=65536 -o "$B/ct-v2/libsondetest.so" "$src"
 BT026_BUILD_ONLY=1 BT026_WORK=$B/bt026 bash "$vm_top/tests/e2e/bt026/run.sh" >/dev/null 2>&1 || true)

# split KVER: its VM_SPLIT entries, one a line, files apart by spaces
split() {
	printf '%s\n' $VM_SPLIT | sed -n "s/^$1://p" | tr ',' ' '
}

# one JOB (KVER, or KVER-N for boot N of a VM_SPLIT kernel): fetch the
# kernel, boot it, collect its lines into $VMDIR/out/JOB/lines
one() {
	local job=$1 v=${1%-*} o=$VMDIR/out/$1 why rc t0 t1 cpu tf files smp
	tf=$(date +%s)
	mkdir -p "$VMDIR/out"
	why=$(fetch "$v" 2>&1) || {
		rm -rf "$o"; mkdir -p "$o"
		[ "$job" = "$v" ] &&
			echo "SKIP vm-$v:kernel: cannot fetch Debian's $v kernel: $(echo "$why" | tail -1)" > "$o/lines"
		: >> "$o/lines"
		return
	}
	t0=$(date +%s)
	# the files this boot runs (guest.sh: VM_ONLY, or all but VM_SKIP)
	files=""
	if [ "$job" != "$v" ]; then
		files=$(printf 'VM_ONLY=%q ' "$(split "$v" | sed -n "$((${job##*-} - 1))p")")
	elif [ -n "$(split "$v")" ]; then
		files=$(printf 'VM_SKIP=%q ' "$(split "$v" | tr '\n' ' ')")
	fi
	# the guest's $B: the workloads built above, wherever VMDIR is
	printf '%sE2E_BUILD=%q exec /bin/bash tests/vm/guest.sh\n' "$files" "$(cd "$VMDIR/work" && pwd -P)" \
		> "$VMDIR/job-$job.sh"
	# vCPUs: one a guest when two run at once, but the first split boot
	# (6.12's book, whose dry runs run in two lanes) has two: at nice 10
	# the second takes only CPU time nothing else wants
	smp=$((3 - VM_PAR))
	[ "$job" = "$v-2" ] && smp=2
	VM_NICE=$(cat "$VMDIR/nice" 2>/dev/null || echo "${VM_NICE:-0}") \
		VM_OUT=$o vm_boot "$v" "$VMDIR/job-$job.sh" "$VM_TIMEOUT" "$smp"
	rc=$?
	t1=$(date +%s)
	{
		grep -E '^(PASS|FAIL|SKIP) ' "$o/results" 2>/dev/null
		case $rc in
		124) echo "FAIL vm-$v:guest (boot $job killed after ${VM_TIMEOUT}s: hung; see $o/out)" ;;
		125) echo "FAIL vm-$v:guest (boot $job died before the suite ended; see $o/console.log)" ;;
		0) ;;
		*) echo "FAIL vm-$v:guest (boot $job: the suite exited $rc; see $o/out)" ;;
		esac
	} > "$o/lines.tmp"
	mv "$o/lines.tmp" "$o/lines"
	# CPU: the guest's QEMU and everything else this subshell waited for
	# (times in this shell: in a $(...) it would count that subshell's children)
	times > "$o/times"
	cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 }' "$o/times")
	echo "vm $job ($(cat "$VMDIR/$v/release")${files:+, $files}): $((t0 - tf)) s to fetch, $((t1 - t0)) s in the guest, CPU $cpu s, accel $(vm_accel)"
	[ -n "${CHECK_TIMES:-}" ] && echo "vm/$job $((t1 - tf)) $cpu" >> "$CHECK_TIMES"
}

# the jobs, longest first: the newest kernel's suite is the longest (the
# book's tools, bpftrace 0.17's runtime tests, the newest tools), split in
# boots of their own (VM_SPLIT) that go first; the others fill the slots as
# they free
jobs=()
for v in $(printf '%s\n' $VM_KERNELS | sort -t. -k1,1nr -k2,2nr); do
	i=1
	while IFS= read -r _; do i=$((i + 1)); jobs+=("$v-$i"); done < <(split "$v")
	jobs+=("$v")
done
n=0
for job in "${jobs[@]}"; do
	if [ "$VM_PAR" -gt 1 ]; then
		(one "$job") &
		n=$((n + 1))
		[ "$n" -ge "$VM_PAR" ] && { wait -n; n=$((n - 1)); }
	else
		(one "$job")
	fi
done
wait
for v in $VM_KERNELS; do
	for job in "${jobs[@]}"; do
		[ "${job%-*}" = "$v" ] || continue
		cat "$VMDIR/out/$job/lines" 2>/dev/null || echo "FAIL vm-$v:guest (boot $job: no result lines)"
	done
done | tee -a "$RESULTS"
exit 0
