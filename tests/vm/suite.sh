#!/bin/bash
# suite.sh RESULTS - the kernel suite (make vm): every tests/vm/t_*.sh in
# one boot of each kernel of the matrix (tests/vm/bed.sh), result lines
# appended to RESULTS.  A kernel that cannot be fetched is a SKIP line with
# the reason; a guest that hangs is killed after VM_TIMEOUT seconds and is a
# FAIL line, as is one that dies without finishing its suite.
#   VM_KERNELS="6.12" tests/vm/suite.sh /tmp/r    one kernel only
#   VM_PAR=1                                      one guest at a time
. "$(dirname "$0")/bed.sh"
RESULTS=${1:?usage: suite.sh RESULTS}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_PAR=${VM_PAR:-2}

# the workloads, built here (where guest.sh looks for them, whatever
# VMDIR says): the guest's compiler would run under TCG
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
	gcc -O1 -g -shared -fPIC -fno-toplevel-reorder -DSONDE_PAD=65536 -o "$B/ct-v2/libsondetest.so" "$src")

# one kernel: fetch, boot, collect its lines into $VMDIR/out/KVER/lines
one() {
	local v=$1 o=$VMDIR/out/$1 why rc t0 t1 cpu tf=$(date +%s)
	mkdir -p "$VMDIR/out"
	why=$(vm_fetch "$v" 2>&1) || {
		rm -rf "$o"; mkdir -p "$o"
		echo "SKIP vm-$v:kernel: cannot fetch Debian's $v kernel: $(echo "$why" | tail -1)" > "$o/lines"
		return
	}
	t0=$(date +%s)
	# the guest's $B: the workloads built above, wherever VMDIR is
	printf 'E2E_BUILD=%q exec /bin/bash tests/vm/guest.sh\n' "$(cd "$VMDIR/work" && pwd -P)" \
		> "$VMDIR/job-$v.sh"
	vm_boot "$v" "$VMDIR/job-$v.sh" "$VM_TIMEOUT" "$((3 - VM_PAR))"
	rc=$?
	t1=$(date +%s)
	{
		grep -E '^(PASS|FAIL|SKIP) ' "$o/results" 2>/dev/null
		case $rc in
		124) echo "FAIL vm-$v:guest (killed after ${VM_TIMEOUT}s: hung; see $o/out)" ;;
		125) echo "FAIL vm-$v:guest (died before the suite ended; see $o/console.log)" ;;
		0) ;;
		*) echo "FAIL vm-$v:guest (the suite exited $rc; see $o/out)" ;;
		esac
	} > "$o/lines.tmp"
	mv "$o/lines.tmp" "$o/lines"
	# CPU: the guest's QEMU and everything else this subshell waited for
	# (times in this shell: in a $(...) it would count that subshell's children)
	times > "$o/times"
	cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 }' "$o/times")
	echo "vm $v ($(cat "$VMDIR/$v/release")): $((t0 - tf)) s to fetch, $((t1 - t0)) s in the guest, CPU $cpu s, accel $(vm_accel)"
	[ -n "${CHECK_TIMES:-}" ] && echo "vm/$v $((t1 - tf)) $cpu" >> "$CHECK_TIMES"
}

# the newest kernel's suite is the longest (the book's tools, bpftrace
# 0.17's runtime tests, the newest tools): it boots first, and the others
# share the second slot
n=0
for v in $(printf '%s\n' $VM_KERNELS | sort -t. -k1,1nr -k2,2nr); do
	if [ "$VM_PAR" -gt 1 ]; then
		(one "$v") &
		n=$((n + 1))
		[ "$n" -ge "$VM_PAR" ] && { wait -n; n=$((n - 1)); }
	else
		(one "$v")
	fi
done
wait
for v in $VM_KERNELS; do
	cat "$VMDIR/out/$v/lines" 2>/dev/null || echo "FAIL vm-$v:guest (no result lines)"
done | tee -a "$RESULTS"
exit 0
