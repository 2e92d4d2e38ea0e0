#!/bin/bash
# guest.sh - the kernel suite inside one guest (the job tests/vm/suite.sh
# boots each kernel with).  Every tests/vm/t_*.sh is sourced in turn with
# the helpers of tests/e2e/lib.sh (pass/fail/skip, expect_eq,
# expect_match, build_workload, wait_for, kill_reap ...), with
#   $SONDE    the release build (build/sonde; the ASan build is too slow
#             under TCG)
#   $KVER     the guest kernel's release (uname -r)
#   $VMK      the kernel of the matrix (5.10, 6.1, 6.12)
#   $B        where the workloads are: built on the host before the boot
#             ($VMDIR/work, passed as E2E_BUILD; build/vm/work when run
#             without it); build_workload finds them up to date
# and each result is a line "PASS|FAIL|SKIP vm-$VMK:NAME" in
# /vm-out/results, which the host reads after the guest has powered off.
cd "$(dirname "$0")/../.." || exit 1
VMK=$(cat /vm-out/kver)
KVER=$(uname -r)
export SONDE=$PWD/build/sonde KVER VMK
export E2E_BUILD=${E2E_BUILD:-$PWD/build/vm/work}
RESULTS=/vm-out/results
suite=vm-$VMK
. tests/e2e/lib.sh
# VM_ONLY: the files of this boot (suite.sh's VM_SPLIT), or all but VM_SKIP
for t in tests/vm/t_*.sh; do
	[ -n "${VM_ONLY:-}" ] && [[ " $VM_ONLY " != *" ${t##*/} "* ]] && continue
	[[ " ${VM_SKIP:-} " == *" ${t##*/} "* ]] && continue
	echo "== $t on $KVER"
	guest_t0=$SECONDS guest_f=$t	# (a file may set t)
	. "./$t"
	echo "== $guest_f: $((SECONDS - guest_t0)) s"
done
exit 0
