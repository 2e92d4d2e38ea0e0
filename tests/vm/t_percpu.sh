# t_percpu.sh - percpu_kaddr() on each kernel of the matrix (Debian's
# kernels list data symbols in kallsyms, which the verifier resolves a
# per-CPU variable's BTF id through; the build host's kernel does not).
# runqueues' rq->cpu is each CPU's own number, this_cpu_off its per-CPU
# offset, so the values read back are known exactly.

if [ "$VMK" = 5.10 ]; then
	# Debian's 5.10 BTF was made by a pahole that wrote no variables
	out=$("$SONDE" -q -e 'begin { print(percpu_kaddr("cpu_number")); }' 2>&1 | head -1)
	expect_eq percpu:no_btf_variables "stdin:1:28: error: percpu_kaddr(): the kernel's BTF has no per-CPU variable named 'cpu_number'" "$out"
else
	# the guest's last CPU (0 when it has one: two guests at a time get a
	# CPU each)
	lc=$(($(nproc) - 1))
	# each CPU's runqueue knows its CPU's number: on this CPU, on 0 and on
	# the last (a given CPU's pointer may be 0: the verifier wants the test
	# first)
	out=$("$SONDE" -q -e 'begin { $a = (struct rq *)percpu_kaddr("runqueues"); $b = (struct rq *)percpu_kaddr("runqueues", 0); $c = (struct rq *)percpu_kaddr("runqueues", '$lc'); if ($b != 0) { if ($c != 0) { printf("%d %d %d\n", $a->cpu == cpu, $b->cpu, $c->cpu); } } }' 2>&1)
	expect_eq percpu:this_cpu_and_each "1 0 $lc" "$out"
	# the address is the variable's per-CPU copy: its symbol plus the offset
	# the CPU's this_cpu_off holds
	out=$("$SONDE" -q -e 'begin { $p = percpu_kaddr("this_cpu_off", '$lc'); printf("%d\n", (uint64)$p == *$p + (uint64)kaddr("this_cpu_off")); }' 2>&1)
	expect_eq percpu:address "1" "$out"
	# 0 for a CPU that is not possible, tested before reading through it
	out=$("$SONDE" -q -e 'begin { $rq = (struct rq *)percpu_kaddr("runqueues", '$lc'); if ($rq != 0) { printf("rq %d\n", $rq->cpu); } printf("none %d\n", percpu_kaddr("runqueues", 100000) == 0); }' 2>&1)
	expect_eq percpu:struct_and_null "rq $lc"$'\nnone 1' "$out"
fi
