/*
 * kfuncs.c - the kernel functions kprobes and fentry can attach to.
 *
 * tracefs's available_filter_functions names every function ftrace can
 * hook ("vfs_read", "nf_hook_slow [nf_tables]" for a module's), which is
 * what bpftrace lists and expands wildcards against.  Loaded once, sorted
 * by name: -l prints in that order and lookups are a binary search.
 *
 * Two further lists say what must not be probed even though ftrace lists
 * it: bpftrace's own banned list (return probes on the spinlock
 * functions, which can lock the machine up: the probe's handler takes
 * locks of its own), and the kernel's kprobe blacklist
 * (/sys/kernel/debug/kprobes/blacklist, NOKPROBE_SYMBOL functions the
 * kernel refuses a kprobe on).  kfn_set_paths() points both files
 * elsewhere for tests, as tfs_set_root() does for tracefs.
 */
#include "host/host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"

static char funcs_path[4096], blacklist_path[4096];
static bool paths_set;

struct kfn_cache {
	char *buf;
	struct kfn *v;
	size_t n;
	int err;
	bool loaded, bl_loaded;
	char *bl_buf;
	const char **bl;	/* blacklisted names, sorted */
	size_t nbl;
};
static struct kfn_cache cache;

static void cache_free(void)
{
	free(cache.buf);
	free(cache.v);
	free(cache.bl_buf);
	free(cache.bl);
	memset(&cache, 0, sizeof(cache));
}

void kfn_set_paths(const char *funcs, const char *blacklist)
{
	cache_free();
	paths_set = funcs != NULL;
	snprintf(funcs_path, sizeof(funcs_path), "%s", funcs ? funcs : "");
	snprintf(blacklist_path, sizeof(blacklist_path), "%s", blacklist ? blacklist : "");
}

const char *kfn_funcs_path(void)
{
	if (!paths_set) {
		const char *root = tfs_root();
		snprintf(funcs_path, sizeof(funcs_path), "%s/available_filter_functions",
			 root ? root : "/sys/kernel/tracing");
	}
	return funcs_path;
}

static int by_name(const void *a, const void *b)
{
	const struct kfn *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* vmlinux's own (no module) first */
	return strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "0xffffffff81000000-0xffffffff81000010\tsym" lines: the names */
static void load_blacklist(void)
{
	if (cache.bl_loaded)
		return;
	cache.bl_loaded = true;
	const char *path = paths_set ? blacklist_path : "/sys/kernel/debug/kprobes/blacklist";
	size_t len;
	if (!*path || file_read_all(path, 64u << 10, &cache.bl_buf, &len))
		return;
	size_t cap = 0;
	for (char *save, *line = strtok_r(cache.bl_buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *name = strpbrk(line, " \t");
		if (!name)
			continue;
		name += strspn(name, " \t");
		name[strcspn(name, " \t")] = '\0';
		if (!*name)
			continue;
		if (cache.nbl == cap) {
			cap = cap ? cap * 2 : 256;
			const char **v = realloc(cache.bl, cap * sizeof(*v));
			if (!v)
				return;
			cache.bl = v;
		}
		cache.bl[cache.nbl++] = name;
	}
	qsort(cache.bl, cache.nbl, sizeof(*cache.bl), by_str);
}

/* functions that ftrace lists but that lock the machine up when traced
 * (the kernel's bpf selftests leave them out: prog_tests/kprobe_multi_test.c),
 * left out of the list as the newest bpftrace leaves them out: no wildcard
 * matches them (kprobe:rcu_*), and -l does not list them */
static bool kfn_bad(const char *name)
{
	static const char *const whole[] = {"arch_cpu_idle", "default_idle", "bpf_dispatcher_xdp_func"};
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		if (!strcmp(name, whole[i]))
			return true;
	return !strncmp(name, "rcu_", 4) || !strncmp(name, "__ftrace_invalid_address__", 26);
}

int kfn_load(const struct kfn **funcs, size_t *n)
{
	if (!cache.loaded) {
		cache.loaded = true;
		size_t len;
		cache.err = file_read_all(kfn_funcs_path(), 4u << 20, &cache.buf, &len);
		size_t cap = 0;
		for (char *save, *line = cache.err ? NULL : strtok_r(cache.buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			/* "name", "name [module]"; newer kernels may add more after a tab */
			char *sp = strpbrk(line, " \t");
			const char *module = NULL;
			if (sp) {
				*sp++ = '\0';
				char *lb = strchr(sp, '['), *rb = lb ? strchr(lb, ']') : NULL;
				if (lb && rb) {
					*rb = '\0';
					module = lb + 1;
				}
			}
			if (!*line || kfn_bad(line))
				continue;
			if (cache.n == cap) {
				cap = cap ? cap * 2 : 4096;
				struct kfn *v = realloc(cache.v, cap * sizeof(*v));
				if (!v) {
					cache.err = -ENOMEM;
					break;
				}
				cache.v = v;
			}
			cache.v[cache.n++] = (struct kfn){.name = line, .module = module};
		}
		if (cache.n)	/* none: cache.v is NULL, which qsort must not get */
			qsort(cache.v, cache.n, sizeof(*cache.v), by_name);
		/* a name listed twice (static functions of one name in
		 * several files) is one probe */
		size_t k = 0;
		for (size_t i = 0; i < cache.n; i++)
			if (!k || by_name(&cache.v[k - 1], &cache.v[i]))
				cache.v[k++] = cache.v[i];
		cache.n = k;
	}
	*funcs = cache.v;
	*n = cache.n;
	return cache.err;
}

const struct kfn *kfn_find(const char *module, const char *name)
{
	const struct kfn *v;
	size_t n;
	if (kfn_load(&v, &n))
		return NULL;
	size_t lo = 0, hi = n;
	while (lo < hi) {	/* the first entry of that name */
		size_t mid = (lo + hi) / 2;
		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !strcmp(v[lo].name, name); lo++)
		if (!module || (v[lo].module && !strcmp(v[lo].module, module)))
			return &v[lo];
	return NULL;
}

bool kfn_is_module(const char *module)
{
	const struct kfn *v;
	size_t n;
	if (kfn_load(&v, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i].module && !strcmp(v[i].module, module))
			return true;
	return false;
}

/* bpftrace's banned list: a kretprobe on these can lock the machine up */
static const char *const banned_return[] = {
	"_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore",
	"queued_spin_lock_slowpath",
};

const char *kfn_refusal(const char *name, bool ret, bool kprobe)
{
	for (size_t i = 0; ret && i < sizeof(banned_return) / sizeof(banned_return[0]); i++)
		if (!strcmp(name, banned_return[i]))
			return "can't be used as it might lock up your system";
	if (!kprobe)
		return NULL;
	load_blacklist();
	if (cache.nbl && bsearch(&name, cache.bl, cache.nbl, sizeof(*cache.bl), by_str))
		return "cannot be probed: the kernel refuses kprobes on it (it is in its kprobe "
		       "blacklist, /sys/kernel/debug/kprobes/blacklist)";
	return NULL;
}
