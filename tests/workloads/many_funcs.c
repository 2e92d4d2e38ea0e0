/* many_funcs [ROUNDS]: 40 functions mf_0 ... mf_39; in each round function
 * mf_K is called K + 1 times, so under a uprobe on mf_* every function has
 * a count of its own (t_events.sh: multi-uprobe links count exactly). */
#include <stdlib.h>

#define F(k) __attribute__((noinline, used)) int mf_##k(int x) { return x + k; }
#define F10(d) F(d##0) F(d##1) F(d##2) F(d##3) F(d##4) F(d##5) F(d##6) F(d##7) F(d##8) F(d##9)
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F10(1) F10(2) F10(3)

#define T(k) mf_##k,
#define T10(d) T(d##0) T(d##1) T(d##2) T(d##3) T(d##4) T(d##5) T(d##6) T(d##7) T(d##8) T(d##9)
static int (*const fns[])(int) = { T(0) T(1) T(2) T(3) T(4) T(5) T(6) T(7) T(8) T(9) T10(1) T10(2) T10(3) };

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	volatile int sink = 0;
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < 40; k++)
			for (int i = 0; i <= k; i++)
				sink += fns[k](i);
	return sink == 42;
}
