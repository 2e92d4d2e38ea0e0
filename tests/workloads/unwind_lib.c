/* unwind_lib.c - the library tests/workloads/unwind.c opens with dlopen():
 * two frames between the program's main and its mark().  t_unwind.sh
 * builds it twice: with call-frame information and without frame pointers
 * (as distributions build), and without call-frame information but with
 * frame pointers (the walker's fallback). */
#define NOINLINE __attribute__((noinline))

NOINLINE int lib_inner(void (*cb)(void), int x)
{
	volatile int v = x;
	cb();
	return v + 1;
}

NOINLINE int lib_outer(void (*cb)(void), int x)
{
	return lib_inner(cb, x * 2) + 1;
}
