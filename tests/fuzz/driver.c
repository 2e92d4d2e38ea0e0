/*
 * driver.c - a libFuzzer stand-in for builds without -fsanitize=fuzzer.
 *
 *   fuzz-smoke CORPUS_DIR N [SEED]
 *
 * Runs every file of CORPUS_DIR through LLVMFuzzerTestOneInput(), then N
 * mutants of them.  The mutations are deterministic (a fixed-seed
 * xorshift generator; SEED changes it): bit flips, random bytes, inserts
 * of tokens that stress the grammar ("{" "/" "\"" "@" "$" "->" "#if 0"
 * ...), deletions, duplications, truncations, and splices of two corpus
 * files; one to four of them stacked.  Prints one summary line and exits
 * 0.  A crash or a broken parser contract aborts, and the sanitizers
 * report it.  To get the input that did it, rerun with FUZZ_SAVE=FILE in
 * the environment: each input is written there before it runs.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_INPUT = 1 << 16 };

struct input {
	char *name;
	unsigned char *data;
	size_t size;
};

struct buf {
	unsigned char *p;
	size_t size;
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "fuzz: out of memory\n");
		exit(2);
	}
	return p;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct input *)a)->name,
		      ((const struct input *)b)->name);
}

/* Every regular file of `dir`, sorted by name so runs are reproducible. */
static struct input *load_corpus(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		exit(2);
	}
	struct input *v = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t plen = strlen(dir) + strlen(e->d_name) + 2;
		char *path = xmalloc(plen);
		snprintf(path, plen, "%s/%s", dir, e->d_name);
		struct stat st;
		FILE *f = NULL;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			f = fopen(path, "rb");
		if (!f) {
			free(path);
			continue;
		}
		size_t size = (size_t)st.st_size > FUZZ_MAX_INPUT ? FUZZ_MAX_INPUT
							     : (size_t)st.st_size;
		unsigned char *data = xmalloc(size);
		size = fread(data, 1, size, f);
		fclose(f);
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			struct input *nv = realloc(v, sizeof(*v) * (size_t)cap);
			if (!nv) {
				fprintf(stderr, "fuzz: out of memory\n");
				exit(2);
			}
			v = nv;
		}
		v[n].name = path;
		v[n].data = data;
		v[n].size = size;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), by_name);
	*count = n;
	return v;
}

/* Replace b[at, at+del) with ins[0, n). */
static void splice_in(struct buf *b, size_t at, size_t del,
		      const unsigned char *ins, size_t n)
{
	if (at > b->size)
		at = b->size;
	if (del > b->size - at)
		del = b->size - at;
	if (b->size - del + n > FUZZ_MAX_INPUT)
		return;
	unsigned char *p = xmalloc(b->size - del + n);
	if (at)
		memcpy(p, b->p, at);
	if (n)
		memcpy(p + at, ins, n);
	if (b->size - at - del)
		memcpy(p + at + n, b->p + at + del, b->size - at - del);
	free(b->p);
	b->p = p;
	b->size = b->size - del + n;
}

static const char *const interesting[] = {
	"{", "}", "(", ")", "[", "]", "/", "\"", "'", "@", "$", "->", "++",
	"--", "?", ":", ";", ",", ".", "*", "&", "!", "~", "=", "+=", "<<=",
	"\n", " ", "\t", "\\", "#", "$#", "$1", "$0", "@x[1, 2]", "@",
	"/*", "*/", "//", "\"\\x4", "\\777", "0x", "1e", "1_", "08",
	"18446744073709551616", "18446744073709551615", "'a'", "''",
	"if (1) { }", "else", "while (1) { }", "unroll(3) { }", "return",
	"break", "continue", "sizeof(", "(uint32)", "(struct a *)",
	"(unsigned long long)", "struct s { int a; char b[4]; };",
	"BEGIN", "END { }", "uprobe:/bin/x:f", "t:a:b", "\"a b\"",
	"#define X 1\n", "#define Y (X + X)\n", "X", "#if 0\n", "#ifdef X\n",
	"#else\n", "#endif\n", "#undef X\n", "#include <a.h>\n", "#!x\n",
	"count()", "hist(", "print(@m, 10)", "delete(@m[1])", "kstack",
	"args->", "$x.0", "(1, 2)", "/ {", "/pid/ {", "\r\n", "\x80", "\xff",
};

/* One mutation of `b`; `others` supplies splice partners. */
static void mutate(struct buf *b, const struct input *others, int nothers)
{
	switch (rng_below(8)) {
	case 0:	/* flip a bit */
		if (b->size)
			b->p[rng_below(b->size)] ^= (unsigned char)(1u << rng_below(8));
		break;
	case 1: {	/* a random byte, usually printable */
		unsigned char c = rng_below(4) ? (unsigned char)(32 + rng_below(95))
					       : (unsigned char)rng_below(256);
		if (c == 0)
			c = '\n';
		splice_in(b, rng_below(b->size + 1), rng_below(2), &c, 1);
		break;
	}
	case 2:
	case 3: {	/* an interesting token */
		const char *t = interesting[rng_below(sizeof(interesting) /
						      sizeof(interesting[0]))];
		splice_in(b, rng_below(b->size + 1), 0,
			  (const unsigned char *)t, strlen(t));
		break;
	}
	case 4:	/* delete a range */
		if (b->size) {
			size_t at = rng_below(b->size);
			splice_in(b, at, 1 + rng_below(8), NULL, 0);
		}
		break;
	case 5:	/* truncate */
		b->size = rng_below(b->size + 1);
		break;
	case 6: {	/* duplicate a range */
		if (!b->size)
			break;
		size_t at = rng_below(b->size);
		size_t n = 1 + rng_below(b->size - at < 32 ? b->size - at : 32);
		unsigned char *copy = xmalloc(n);
		memcpy(copy, b->p + at, n);
		splice_in(b, rng_below(b->size + 1), 0, copy, n);
		free(copy);
		break;
	}
	case 7: {	/* splice: our head, another file's tail */
		if (!nothers)
			break;
		const struct input *o = &others[rng_below((size_t)nothers)];
		size_t cut = rng_below(b->size + 1);
		size_t from = rng_below(o->size + 1);
		splice_in(b, cut, b->size - cut, o->data + from, o->size - from);
		break;
	}
	}
}

static void run(const char *save, const unsigned char *data, size_t size)
{
	if (save) {
		FILE *f = fopen(save, "wb");
		if (f) {
			fwrite(data, 1, size, f);
			fclose(f);
		}
	}
	LLVMFuzzerTestOneInput(data, size);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR N [SEED]\n", argv[0]);
		return 2;
	}
	long n = strtol(argv[2], NULL, 10);
	rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x5eed5eedULL;
	if (rng_state == 0)
		rng_state = 1;
	unsigned long long seed = rng_state;
	const char *save = getenv("FUZZ_SAVE");

	int ncorpus;
	struct input *corpus = load_corpus(argv[1], &ncorpus);
	size_t total = 0;
	for (int i = 0; i < ncorpus; i++) {
		run(save, corpus[i].data, corpus[i].size);
		total += corpus[i].size;
	}
	for (long i = 0; i < n; i++) {
		struct buf b = { 0 };
		if (ncorpus) {
			const struct input *base = &corpus[rng_below((size_t)ncorpus)];
			b.p = xmalloc(base->size);
			if (base->size)
				memcpy(b.p, base->data, base->size);
			b.size = base->size;
		}
		int k = 1 + (int)rng_below(4);
		for (int j = 0; j < k; j++)
			mutate(&b, corpus, ncorpus);
		run(save, b.p ? b.p : (const unsigned char *)"", b.size);
		total += b.size;
		free(b.p);
	}
	printf("fuzz: %d corpus files, %ld mutations (seed %#llx), %zu bytes, no crash\n",
	       ncorpus, n, seed, total);
	for (int i = 0; i < ncorpus; i++) {
		free(corpus[i].name);
		free(corpus[i].data);
	}
	free(corpus);
	return 0;
}
