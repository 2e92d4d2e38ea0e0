# t_unwind.sh - how ustack walks on each kernel of the matrix: auto is
# call-frame information where the kernel has bpf_loop and bpf_task_pt_regs
# (5.17, 5.15: the 6.1 and 6.12 guests), frame pointers on 5.10, where
# `unwind = cfi` is an error naming the feature.  Where CFI runs, the
# walker passes that kernel's verifier in a uprobe, a profile and a
# tracepoint program, and the backtrace() oracle of tests/e2e/t_unwind.sh
# holds (tests/workloads/unwind.c, built without frame pointers: -O1).

info=$("$SONDE" --info 2>&1 | grep 'ustack unwinding')
prog='uprobe:libc:getppid { @[ustack] = count(); } profile:hz:99 { @p[ustack] = count(); } tracepoint:syscalls:sys_enter_getppid { @t[ustack] = count(); }'
if [ "$VMK" = 5.10 ]; then
	expect_eq unwind:auto_is_fp "  ustack unwinding: frame pointers" "$info"
	out=$("$SONDE" --dry-run -e 'config = { unwind = cfi } uprobe:libc:getppid { @[ustack] = count(); }' 2>&1)
	expect_match unwind:cfi_needs_bpf_loop 'config unwind = cfi needs bpf_loop \(Linux 5\.17\)' "$out"
	expect_match unwind:fp_loads 'loaded and attached' "$("$SONDE" --dry-run -e "$prog" 2>&1)"
else
	expect_match unwind:auto_is_cfi '^  ustack unwinding: cfi' "$info"
	expect_match unwind:cfi_loads 'loaded and attached' "$("$SONDE" --dry-run -e "$prog" 2>&1)"
	U=/tmp/unwind_vm
	mkdir -p "$U"
	rm -f "$U"/*
	# mark() is called twice (again): on a kernel whose /proc/PID/maps names
	# an overlayfs file by the overlay's inode (6.8 on: 6.12 here, where the
	# guest's root is an overlay), the walker knows the files read before
	# attaching by another key; the first stack flags it, sonde learns the
	# kernel's name (its -v line), and the second stack is the oracle's
	"$B/unwind" "$U/go" again > "$U/bt" 2>&1 &
	wp=$!
	wait_for "$U/bt" '^ready' 60
	"$SONDE" -v -p "$wp" -e "uprobe:$B/unwind:mark { print(ustack(raw)); }" > "$U/out" 2> "$U/err" &
	sp=$!
	wait_for "$U/err" '^Attached' 120
	touch "$U/go"
	wait_for "$U/bt" '^end' 60
	# the first stack printed (sonde read its event): then the tick learnt
	# the kernel's key where it needed to, or nothing was to learn
	wait_for "$U/out" . 60
	first_bt=$(awk '/^frame 0x/ { print substr($2, 3) } /^end/ { exit }' "$U/bt")
	first=$(awk 'NF == 0 { if (n) exit; next } { if (n++) print $1 }' "$U/out")
	[ "$first" = "$first_bt" ] || wait_for "$U/err" 'to the kernel' 60
	touch "$U/go.1"
	wait "$wp"; wait "$sp"
	want=$(awk '/^frame 0x/ { s = s substr($2, 3) "\n" } /^end/ { last = s; s = "" } END { printf "%s", last }' "$U/bt")
	got=$(awk 'NF == 0 { if (n) last = s; s = ""; n = 0; next } { if (n++) s = s $1 "\n" } END { if (n) last = s; printf "%s", last }' "$U/out")
	if [ -n "$want" ]; then expect_eq unwind:backtrace_plain "$want" "$got"
	else fail unwind:backtrace_plain; fi
fi
