/* args N: calls ten(i, i+1, ..., i+9), greet(name, i) and shape(&pt) N
 * times, then neg(-5) once.  For uprobe argument tests: arg0..arg9 (six in
 * registers, four on the stack), str(), buf(), negative retval, returned
 * strings, struct fields read through a pointer. */
#include <stdlib.h>
#include <string.h>

__attribute__((noipa)) long ten(long a0, long a1, long a2, long a3, long a4,
				   long a5, long a6, long a7, long a8, long a9)
{
	__asm__ volatile("" ::: "memory");
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
}

__attribute__((noipa)) const char *greet(const char *who, long n)
{
	__asm__ volatile("" ::: "memory");
	return n % 2 ? "odd" : "even";
}

__attribute__((noipa)) long neg(long a)
{
	__asm__ volatile("" ::: "memory");
	return a * 3;
}

struct point {
	int x, y;
	char name[8];
	long z;
	struct point *next;
};

__attribute__((noipa)) long shape(struct point *p)
{
	__asm__ volatile("" ::: "memory");
	return p->x + p->y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, s = 0;
	static char names[3][16] = { "hello", "tracing world", "" };
	for (long i = 0; i < n; i++) {
		s += ten(i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i + 8, i + 9);
		s += strlen(greet(names[i % 3], i));
		struct point last = { -1, -2, "last", -3, NULL };
		struct point pt = { (int)i, (int)(-i), "pt", i * 1000000000L, &last };
		s += shape(&pt);
	}
	s += neg(-5);
	return s == 0;
}
