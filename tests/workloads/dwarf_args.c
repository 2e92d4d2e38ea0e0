/* dwarf_args N: calls functions whose parameters only DWARF describes (the
 * tests build it with -g), N times each, for uprobe arguments by name
 * (args.x, args->p->y) and `-lv uprobe:BIN:func`.  Iteration i (0-based):
 *
 *   scalars(a, b, c, d, e)    a = -1 - i, b = 200 + i (unsigned char),
 *                             c = -300 (short), d = 2^40 + i (long long),
 *                             e = 4000000000 (unsigned int)
 *   visit(n, label, depth)    n -> {id = i, name "node", pos {x = 10 + i,
 *                             y = -20}, vals {1, 2, 3}, kind = GREEN,
 *                             next -> {id = 100, name "next", pos {1, 2},
 *                             vals {7, 8, 9}, kind = BLUE, next = NULL}},
 *                             label "even" or "odd" (i % 2), depth = 3
 *   eight(a0, ..., a7)        ak = i + 10 * k (a6, a7 on the stack)
 *   paint(c, on)              c = i % 3 (RED, GREEN, BLUE), on = i % 2
 *   mixed(f, n, opaque)       f = 1.5 (in an SSE register), n = i (in the
 *                             first integer register), opaque = &visit's node
 *   pair_sum(p, k)            p = {a = i, b = 2 * i} by value (two
 *                             registers), k = 7
 *   big_sum(k, b)             k = 5, b = {v = {i, i + 1, i + 2}} by value
 *                             (24 bytes: on the stack)
 *   typed(id, w, vp, cb, s)   id = 0xabc (a typedef), w.i = 65 (a union),
 *                             vp -> 9 (volatile), cb = square, s = "const"
 *   flagged(f)                f -> {ready = 1, mode = 5, level = -3
 *                             (bitfields), as_int = 0x41424344 (an anonymous
 *                             union's), grid = {{1, 2, 3}, {4, 5, 6}}}
 * then exits 0.  Every function is noipa, so the calls stay calls.
 */
#include <stdbool.h>
#include <stdlib.h>

enum color { RED, GREEN, BLUE };

struct point {
	int x, y;
};

struct node {
	long id;
	char name[8];
	struct point pos;
	int vals[3];
	enum color kind;
	struct node *next;
};

struct pair {
	long a, b;
};

struct big {
	long v[3];
};

typedef unsigned int u32_t;

struct flags {
	unsigned int ready : 1;
	unsigned int mode : 3;
	int level : 4;
	union {
		int as_int;
		char bytes[4];
	};
	int grid[2][3];
};

union word {
	int i;
	char c[4];
};

#define NOIPA __attribute__((noipa))

NOIPA int scalars(int a, unsigned char b, short c, long long d, unsigned int e)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + (int)d + (int)e;
}

NOIPA long visit(struct node *n, const char *label, int depth)
{
	__asm__ volatile("" ::: "memory");
	return n->id + depth + label[0];
}

NOIPA long eight(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7)
{
	__asm__ volatile("" ::: "memory");
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

NOIPA enum color paint(enum color c, bool on)
{
	__asm__ volatile("" ::: "memory");
	return on ? c : RED;
}

NOIPA int mixed(double f, int n, const void *opaque)
{
	__asm__ volatile("" ::: "memory");
	return (int)f + n + (opaque != NULL);
}

NOIPA long pair_sum(struct pair p, int k)
{
	__asm__ volatile("" ::: "memory");
	return p.a + p.b + k;
}

NOIPA long big_sum(int k, struct big b)
{
	__asm__ volatile("" ::: "memory");
	return b.v[0] + b.v[1] + b.v[2] + k;
}

NOIPA int square(int x)
{
	return x * x;
}

NOIPA int typed(u32_t id, union word w, volatile int *vp, int (*cb)(int), char *const s)
{
	__asm__ volatile("" ::: "memory");
	return (int)id + w.i + *vp + cb(2) + s[0];
}

NOIPA int flagged(const struct flags *f)
{
	__asm__ volatile("" ::: "memory");
	return f->mode + f->grid[1][2];
}

static char cs[] = "const";

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, sum = 0;
	for (long i = 0; i < n; i++) {
		sum += scalars((int)(-1 - i), (unsigned char)(200 + i), -300, (1LL << 40) + i,
			       4000000000u);
		struct node next = {100, "next", {1, 2}, {7, 8, 9}, BLUE, NULL};
		struct node node = {i, "node", {(int)(10 + i), -20}, {1, 2, 3}, GREEN, &next};
		/* the literals' page is touched before the probes read them
		 * (a probe cannot fault a page in) */
		const char *label = i % 2 ? "odd" : "even";
		sum += *(const volatile char *)label + cs[0];
		sum += visit(&node, label, 3);
		sum += eight(i, i + 10, i + 20, i + 30, i + 40, i + 50, i + 60, i + 70);
		sum += paint((enum color)(i % 3), i % 2);
		sum += mixed(1.5, (int)i, &node);
		sum += pair_sum((struct pair){i, 2 * i}, 7);
		sum += big_sum(5, (struct big){{i, i + 1, i + 2}});
		volatile int nine = 9;
		sum += typed(0xabc, (union word){.i = 65}, &nine, square, cs);
		struct flags fl = {.ready = 1, .mode = 5, .level = -3, .as_int = 0x41424344,
				   .grid = {{1, 2, 3}, {4, 5, 6}}};
		sum += flagged(&fl);
	}
	return sum == 0 ? 1 : 0;
}
