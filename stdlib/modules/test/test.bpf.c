/*
 * test.bpf.c - sonde's stdlib module "stdlib/test": a function that checks
 * that C imported into a script is compiled, linked and called
 * (`import "stdlib/test"; BEGIN { print(__always_true()); }` prints 1), as
 * bpftrace's module of that name does.
 */
int __always_true(void)
{
	return 1;
}
