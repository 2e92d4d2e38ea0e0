/*
 * hotcode.so - which functions of an executable run, in the order they
 * first run (the build's symbol ordering file: Makefile, "hot code first").
 *
 *   HOTCODE_SYMS=nm.txt HOTCODE_OUT=hits.txt LD_PRELOAD=hotcode.so PROGRAM ...
 *
 * nm.txt is `nm --defined-only PROGRAM`.  Before PROGRAM's own constructors
 * run, an int3 is written over the first byte of each of its functions;
 * the first time one runs, the SIGTRAP handler puts the byte back, appends
 * the names defined at that address to HOTCODE_OUT, one a line, and resumes
 * the function.  So each function costs one trap, however often it runs.
 * A build tool: nothing of it is linked into sonde.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

struct fn {
	unsigned long addr;
	const char *names;	/* "a\nb\n": every name at addr */
	size_t len;
	unsigned char orig;	/* the byte the int3 replaced */
	unsigned char armed;
};

static struct fn *fns;
static size_t nfns;
static int outfd = -1;

static void die(const char *what)
{
	fprintf(stderr, "hotcode: %s: %s\n", what, strerror(errno));
	_exit(97);
}

static struct fn *find(unsigned long addr)
{
	size_t lo = 0, hi = nfns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fns[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nfns && fns[lo].addr == addr ? &fns[lo] : NULL;
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned long pc = (unsigned long)uc->uc_mcontext.gregs[REG_RIP] - 1;
	struct fn *f = find(pc);
	if (!f) {	/* not ours: the program's own int3 */
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
		return;
	}
	*(volatile unsigned char *)pc = f->orig;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	if (f->armed) {
		f->armed = 0;
		if (write(outfd, f->names, f->len) != (ssize_t)f->len)
			_exit(96);
	}
}

static int by_addr(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the function symbols of nm's output (text, weak), sorted, one entry per
 * address with all its names */
static void read_symbols(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die(path);
	size_t cap = 0;
	char line[8192], type, name[8000];
	unsigned long addr;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %7999s", &addr, &type, name) != 3 ||
		    !strchr("tTwW", type))
			continue;
		if (nfns == cap) {
			cap = cap ? 2 * cap : 65536;
			fns = realloc(fns, cap * sizeof(*fns));
			if (!fns)
				die("realloc");
		}
		size_t n = strlen(name);
		char *s = malloc(n + 2);
		if (!s)
			die("malloc");
		memcpy(s, name, n);
		s[n] = '\n';
		s[n + 1] = '\0';
		fns[nfns++] = (struct fn){.addr = addr, .names = s, .len = n + 1};
	}
	fclose(f);
	qsort(fns, nfns, sizeof(*fns), by_addr);
	size_t j = 0;
	for (size_t i = 0; i < nfns; i++) {
		if (j && fns[j - 1].addr == fns[i].addr) {	/* an alias */
			struct fn *p = &fns[j - 1];
			char *s = malloc(p->len + fns[i].len + 1);
			if (!s)
				die("malloc");
			memcpy(s, p->names, p->len);
			memcpy(s + p->len, fns[i].names, fns[i].len + 1);
			free((char *)p->names);
			free((char *)fns[i].names);
			p->names = s;
			p->len += fns[i].len;
			continue;
		}
		fns[j++] = fns[i];
	}
	nfns = j;
}

/* an int3 on every function of the executable's text mappings */
static void arm(void)
{
	char exe[4096], line[8192];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		die("/proc/self/exe");
	exe[n] = '\0';
	FILE *m = fopen("/proc/self/maps", "r");
	if (!m)
		die("/proc/self/maps");
	size_t armed = 0;
	while (fgets(line, sizeof(line), m)) {
		unsigned long lo, hi;
		char perm[8];
		line[strcspn(line, "\n")] = '\0';
		size_t len = strlen(line), elen = strlen(exe);
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[2] != 'x' ||
		    len < elen || strcmp(line + len - elen, exe))
			continue;
		if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
			die("mprotect");
		for (size_t i = 0; i < nfns; i++)
			if (fns[i].addr >= lo && fns[i].addr < hi) {
				fns[i].orig = *(unsigned char *)fns[i].addr;
				*(unsigned char *)fns[i].addr = 0xcc;
				fns[i].armed = 1;
				armed++;
			}
	}
	fclose(m);
	if (!armed) {
		fprintf(stderr, "hotcode: no function of %s in %s is mapped\n", exe,
			getenv("HOTCODE_SYMS"));
		_exit(95);
	}
}

__attribute__((constructor)) static void hotcode_init(void)
{
	const char *syms = getenv("HOTCODE_SYMS"), *out = getenv("HOTCODE_OUT");
	if (!syms || !out)
		return;
	unsetenv("LD_PRELOAD");	/* not in the program's children */
	read_symbols(syms);
	outfd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (outfd < 0)
		die(out);
	struct sigaction sa = {.sa_sigaction = on_trap, .sa_flags = SA_SIGINFO | SA_NODEFER};
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL))
		die("sigaction");
	arm();
}
