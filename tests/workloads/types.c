/* types N: passes C values of known contents to small functions N times,
 * for the language's type tests (structs by value, nested structs, arrays
 * and multi-dimensional arrays, arrays of pointers, bitfields, pointer
 * arithmetic over int8..int64 and struct arrays, pointers to pointers, a
 * linked list).  Iteration i (0-based) changes only `id` and `in.m`, so
 * every other value a test prints is the same each time:
 *
 *   struct outer { id = i; in = {.m = 2 + i, .n = 3}; arr = {10, 20, 30, 40};
 *                  grid = {{1, 2, 3}, {4, 5, 6}}; names = {"alpha", "beta"};
 *                  flag = 1, mode = 5, level = 9 (bitfields); sarr = {-1, -2, -3};
 *                  tag = "outer"; next -> a second outer with id 100 }
 *   ints(a8, a16, a32, a64): each array is {-1, 2, -3, 4}
 *   pairs(p): struct inner[3] = {{1, 2}, {3, 4}, {5, 6}}
 *   ptrs(pp): struct inner ** -> {&{7, 8}, &{9, 10}}
 *   list(head): nodes 1 -> 2 -> 3 -> NULL
 */
#include <stdint.h>
#include <stdlib.h>

struct inner {
	int m;
	int n;
};

struct outer {
	long id;
	struct inner in;
	int arr[4];
	int grid[2][3];
	const char *names[2];
	unsigned int flag : 1, mode : 3, level : 4;
	short sarr[3];
	char tag[6];
	struct outer *next;
};

struct node {
	int val;
	struct node *next;
};

#define NOINLINE __attribute__((noipa))

NOINLINE long take_outer(struct outer *o)
{
	__asm__ volatile("" ::: "memory");
	return o->id;
}

NOINLINE long ints(int8_t *a8, int16_t *a16, int32_t *a32, int64_t *a64)
{
	__asm__ volatile("" ::: "memory");
	return a8[0] + a16[0] + a32[0] + a64[0];
}

NOINLINE long pairs(struct inner *p)
{
	__asm__ volatile("" ::: "memory");
	return p[0].m;
}

NOINLINE long ptrs(struct inner **pp)
{
	__asm__ volatile("" ::: "memory");
	return pp[0]->m;
}

NOINLINE long list(struct node *head)
{
	__asm__ volatile("" ::: "memory");
	return head->val;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, s = 0;
	struct outer second = {.id = 100, .in = {7, 8}, .tag = "next"};
	int8_t a8[4] = {-1, 2, -3, 4};
	int16_t a16[4] = {-1, 2, -3, 4};
	int32_t a32[4] = {-1, 2, -3, 4};
	int64_t a64[4] = {-1, 2, -3, 4};
	struct inner pr[3] = {{1, 2}, {3, 4}, {5, 6}};
	struct inner x = {7, 8}, y = {9, 10};
	struct inner *pp[2] = {&x, &y};
	struct node n3 = {3, NULL}, n2 = {2, &n3}, n1 = {1, &n2};
	for (long i = 0; i < n; i++) {
		struct outer o = {
			.id = i, .in = {2 + (int)i, 3}, .arr = {10, 20, 30, 40},
			.grid = {{1, 2, 3}, {4, 5, 6}}, .names = {"alpha", "beta"},
			.flag = 1, .mode = 5, .level = 9, .sarr = {-1, -2, -3},
			.tag = "outer", .next = &second,
		};
		s += take_outer(&o);
		s += ints(a8, a16, a32, a64);
		s += pairs(pr);
		s += ptrs(pp);
		s += list(&n1);
	}
	return s == 0;
}
