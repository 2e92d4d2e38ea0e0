/*
 * dwinline.c - a call made inside an inlined function, for ustack's
 * show_debug_info (t_stacks.sh): main -> outer -> [inlined] mid_inl ->
 * leaf.  Built with -g; each line a test names carries a marker.
 */
#include <unistd.h>

__attribute__((noinline)) int leaf(int x)
{
	return (int)getppid() + x;	/* L_leaf */
}

static inline __attribute__((always_inline)) int mid_inl(int x)
{
	return leaf(x) + 1;	/* L_mid */
}

__attribute__((noinline)) int outer(int x)
{
	return mid_inl(x) * 2;	/* L_outer */
}

int main(int argc, char **argv)
{
	(void)argv;
	return outer(argc) == 0 ? 1 : 0;	/* L_main */
}
