/*
 * btf.c - the running kernel's BTF.
 *
 * Kernel types (struct task_struct, the struct __kernel_timespec a
 * tracepoint argument points to, typedefs such as umode_t) come from
 * /sys/kernel/btf/vmlinux, read with libbpf's BTF API rather than a
 * parser of our own.  Loading it costs some milliseconds and megabytes,
 * so it happens on the first question only, and only scripts that name a
 * kernel type pay for it.  sema/btf.c turns BTF types into sonde's.
 */
#include "host/host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

static struct btf *kernel_btf;
static int kernel_btf_err;

/*
 * The file mapped rather than read, where the kernel allows it (recent
 * kernels): reading its 5 MB through sysfs costs about 50 ms here, a third
 * of the load; btf__new() copies the bytes, so the mapping goes at once.
 * NULL when the kernel refuses the mapping: libbpf reads the file then.
 */
static struct btf *load_mapped(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct btf *b = NULL;
	struct stat st;
	if (!fstat(fd, &st) && st.st_size > 0 && st.st_size < (1 << 30)) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			b = btf__new(p, (__u32)st.st_size);
			munmap(p, (size_t)st.st_size);
		}
	}
	close(fd);
	return b;
}

const struct btf *host_kernel_btf(void)
{
	if (!kernel_btf && !kernel_btf_err) {
		kernel_btf = load_mapped();
		if (!kernel_btf)
			kernel_btf = btf__load_vmlinux_btf();
		if (!kernel_btf)
			kernel_btf_err = errno ? errno : ENOENT;
	}
	if (!kernel_btf)
		errno = kernel_btf_err;
	return kernel_btf;
}

int host_raw_tp_nargs(const char *name)
{
	const struct btf *btf = host_kernel_btf();
	char tn[256];
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	int id = btf ? btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;	/* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) ? (int)btf_vlen(t) - 1 : -1;
}

/* ---- modules, and functions as -lv prints them ------------------------- */

struct mod_btf {
	struct mod_btf *next;
	char *name;
	struct btf *btf;
};
static struct mod_btf *mod_btfs;

const struct btf *host_module_btf(const char *module)
{
	const struct btf *base = host_kernel_btf();
	if (!module || !strcmp(module, "vmlinux") || !base)
		return base;
	for (struct mod_btf *m = mod_btfs; m; m = m->next)
		if (!strcmp(m->name, module))
			return m->btf;
	char path[512];
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	struct btf *b = btf__parse_split(path, (struct btf *)base);
	struct mod_btf *m = calloc(1, sizeof(*m));
	if (!m || !(m->name = strdup(module))) {
		free(m);
		btf__free(b);
		errno = ENOMEM;
		return NULL;
	}
	m->btf = libbpf_get_error(b) ? NULL : b;
	m->next = mod_btfs;
	mod_btfs = m;
	if (!m->btf)
		errno = ENOENT;
	return m->btf;
}

/* "struct file *", "const char *", "size_t": a type as C writes it
 * before a name (function pointers as "void *") */
static void type_text(const struct btf *b, uint32_t id, char *buf, size_t len)
{
	const struct btf_type *t = id ? btf__type_by_id(b, id) : NULL;
	if (!t) {
		snprintf(buf, len, "void");
		return;
	}
	const char *name = btf__name_by_offset(b, t->name_off);
	char inner[256];
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: {
		const struct btf_type *pt = t->type ? btf__type_by_id(b, t->type) : NULL;
		if (pt && btf_is_func_proto(pt)) {
			snprintf(buf, len, "void *");
			return;
		}
		type_text(b, t->type, inner, sizeof(inner));
		snprintf(buf, len, "%s%s*", inner, inner[strlen(inner) - 1] == '*' ? "" : " ");
		return;
	}
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		type_text(b, t->type, inner, sizeof(inner));
		snprintf(buf, len, "%s %s", btf_is_const(t) ? "const" : btf_is_volatile(t) ?
			 "volatile" : "restrict", inner);
		return;
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		type_text(b, t->type, buf, len);
		return;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD: {
		const char *kw = btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ? "union" :
				 btf_is_struct(t) || btf_is_fwd(t) ? "struct" : "enum";
		snprintf(buf, len, "%s %s", kw, name && *name ? name : "(anon)");
		return;
	}
	case BTF_KIND_ARRAY:
		type_text(b, btf_array(t)->type, inner, sizeof(inner));
		snprintf(buf, len, "%s[%u]", inner, btf_array(t)->nelems);
		return;
	default:
		snprintf(buf, len, "%s", name && *name ? name : "?");
		return;
	}
}

/*
 * A function's BTF id by name.  libbpf's btf__find_by_name_kind() reads
 * every type (about 150,000 in a kernel's BTF) per question, so a listing
 * or a wildcard that asks it for each of 50,000 functions took minutes
 * (`-lv 'fentry:*'`: 40 s of CPU).  The FUNC types of each BTF asked about
 * are sorted by name once; a module's split BTF indexes its own types and
 * asks its base first, as libbpf's search finds the lowest id.
 */
struct func_ent {
	const char *name;
	int32_t id;
};
static struct func_index {
	const struct btf *b;
	struct func_ent *v;
	size_t n;
} func_index[64];

static int by_ent(const void *a, const void *b)
{
	const struct func_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static const struct func_index *func_index_of(const struct btf *b)
{
	size_t slot;
	for (slot = 0; slot < sizeof(func_index) / sizeof(func_index[0]) && func_index[slot].b; slot++)
		if (func_index[slot].b == b)
			return &func_index[slot];
	if (slot == sizeof(func_index) / sizeof(func_index[0]))
		return NULL;
	const struct btf *base = btf__base_btf(b);
	uint32_t first = base ? btf__type_cnt(base) : 1, cnt = btf__type_cnt(b), n = 0;
	struct func_ent *v = malloc((cnt > first ? cnt - first : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (uint32_t id = first; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (btf_is_func(t))
			v[n++] = (struct func_ent){btf__name_by_offset(b, t->name_off), (int32_t)id};
	}
	qsort(v, n, sizeof(*v), by_ent);
	func_index[slot] = (struct func_index){b, v, n};
	return &func_index[slot];
}

int64_t host_btf_member_offset(const char *sname, const char *member)
{
	const struct btf *b = host_kernel_btf();
	int32_t id = b ? btf__find_by_name_kind(b, sname, BTF_KIND_STRUCT) : -ENOENT;
	const struct btf_type *t = id > 0 ? btf__type_by_id(b, (uint32_t)id) : NULL;
	if (!t)
		return -ENOENT;
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(b, m->name_off), member))
			return btf_member_bit_offset(t, i) / 8;
	return -ENOENT;
}

int32_t host_btf_func_id(const struct btf *b, const char *fn)
{
	if (!b || !fn)
		return -ENOENT;
	const struct btf *base = btf__base_btf(b);
	int32_t id = base ? host_btf_func_id(base, fn) : -ENOENT;
	if (id > 0)
		return id;
	const struct func_index *x = func_index_of(b);
	if (!x)
		return btf__find_by_name_kind(b, fn, BTF_KIND_FUNC);
	size_t lo = 0, hi = x->n;	/* the first entry not below fn */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(x->v[mid].name, fn) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && !strcmp(x->v[lo].name, fn) ? x->v[lo].id : -ENOENT;
}

/* the prototype of kernel function fn, or NULL */
static const struct btf_type *proto_of(const struct btf *b, const char *fn)
{
	int32_t id = host_btf_func_id(b, fn);
	if (id <= 0)
		return NULL;
	const struct btf_type *f = btf__type_by_id(b, (uint32_t)id);
	const struct btf_type *proto = f ? btf__type_by_id(b, f->type) : NULL;
	return proto && btf_is_func_proto(proto) ? proto : NULL;
}

/* the parameters of fn from the first-th on, and its result when
 * retval is asked for and it has one */
static int func_proto(const struct btf *b, const char *fn, int first, bool retval, FILE *out)
{
	const struct btf_type *proto = proto_of(b, fn);
	if (!proto)
		return -ENOENT;
	const struct btf_param *p = btf_params(proto);
	char text[512];
	for (int i = first; i < btf_vlen(proto); i++) {
		type_text(b, p[i].type, text, sizeof(text));
		fprintf(out, "    %s %s\n", text, btf__name_by_offset(b, p[i].name_off));
	}
	if (retval && proto->type) {
		type_text(b, proto->type, text, sizeof(text));
		fprintf(out, "    %s retval\n", text);
	}
	return 0;
}

int host_btf_percpu_var(const char *name)
{
	const struct btf *b = host_kernel_btf();
	int var = b ? btf__find_by_name_kind(b, name, BTF_KIND_VAR) : -1;
	int sec = b ? btf__find_by_name_kind(b, ".data..percpu", BTF_KIND_DATASEC) : -1;
	if (var <= 0 || sec <= 0)
		return -ENOENT;
	const struct btf_type *t = btf__type_by_id(b, (uint32_t)sec);
	const struct btf_var_secinfo *vs = btf_var_secinfos(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (vs[i].type == (uint32_t)var)
			return var;
	return -ENOENT;
}

int host_btf_func_proto(const struct btf *b, const char *fn, FILE *out)
{
	return func_proto(b, fn, 0, true, out);
}

/* -lv kprobe: a function's parameters as arg0, arg1 ... (what a kprobe
 * reads them as; a float is in no argN register and is left out), or for
 * a kretprobe its return type as retval ("void"), as the newest bpftrace
 * lists them */
int host_btf_kprobe_proto(const struct btf *b, const char *fn, bool ret, FILE *out)
{
	const struct btf_type *proto = proto_of(b, fn);
	if (!proto)
		return -ENOENT;
	char text[512];
	if (ret) {
		if (!proto->type) {
			fprintf(out, "    void\n");
			return 0;
		}
		type_text(b, proto->type, text, sizeof(text));
		fprintf(out, "    %s retval\n", text);
		return 0;
	}
	const struct btf_param *p = btf_params(proto);
	for (int i = 0, n = 0; i < btf_vlen(proto); i++) {
		const struct btf_type *pt = btf__type_by_id(b, p[i].type);
		if (!p[i].type || (pt && btf_is_float(pt)))
			continue;
		type_text(b, p[i].type, text, sizeof(text));
		fprintf(out, "    %s arg%d\n", text, n++);
	}
	return 0;
}

/* ---- raw tracepoints ------------------------------------------------------ */

/*
 * Every tracepoint has a function __traceiter_NAME(void *__data, PROTO)
 * (Linux 5.10 on) and, from 6.4, a __probestub_NAME of the same
 * parameters; BTF keeps their parameters' names, which the
 * btf_trace_NAME typedef the kernel checks programs against does not.
 * As bpftrace, the stub first, then the iterator.
 */
static const char *const rawtp_prefixes[] = {"__probestub_", "__traceiter_"};

const char *host_raw_tp_func(const struct btf *b, const char *name, char *buf, size_t len)
{
	for (size_t i = 0; b && i < sizeof(rawtp_prefixes) / sizeof(rawtp_prefixes[0]); i++) {
		snprintf(buf, len, "%s%s", rawtp_prefixes[i], name);
		if (host_btf_func_id(b, buf) > 0)
			return buf;
	}
	return NULL;
}

int host_btf_raw_tp_proto(const struct btf *b, const char *name, FILE *out)
{
	char fn[512];
	return host_raw_tp_func(b, name, fn, sizeof(fn)) ? func_proto(b, fn, 1, false, out) : -ENOENT;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the raw tracepoints of one BTF object matching glob, sorted, each once */
static int each_in(const char *module, const char *glob, host_raw_tp_cb cb, void *ctx)
{
	const struct btf *b = host_module_btf(module);
	if (!b)
		return 0;
	uint32_t first = strcmp(module, "vmlinux") ? btf__type_cnt(host_kernel_btf()) : 1;
	size_t n = 0, cap = 0;
	const char **names = NULL;
	int rc = 0;
	for (uint32_t id = first; id < btf__type_cnt(b); id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const char *fn = btf_is_func(t) ? btf__name_by_offset(b, t->name_off) : NULL;
		for (size_t k = 0; fn && k < sizeof(rawtp_prefixes) / sizeof(rawtp_prefixes[0]); k++) {
			size_t pl = strlen(rawtp_prefixes[k]);
			if (strncmp(fn, rawtp_prefixes[k], pl) || fnmatch(glob, fn + pl, 0))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				const char **nv = realloc(names, cap * sizeof(*nv));
				if (!nv) {
					free(names);
					return -ENOMEM;
				}
				names = nv;
			}
			names[n++] = fn + pl;
			break;
		}
	}
	if (n)
		qsort(names, n, sizeof(*names), by_str);
	for (size_t i = 0; i < n && !rc; i++)
		if (!i || strcmp(names[i - 1], names[i]))
			rc = cb(module, names[i], ctx);
	free(names);
	return rc;
}

int host_raw_tp_each(const char *module_glob, const char *glob, host_raw_tp_cb cb, void *ctx)
{
	if (!host_kernel_btf())
		return -errno;
	if (!module_glob || !fnmatch(module_glob, "vmlinux", 0)) {
		int rc = each_in("vmlinux", glob, cb, ctx);
		if (rc)
			return rc;
	}
	/* the modules with BTF, by name */
	struct dirent **ents;
	int ne = scandir("/sys/kernel/btf", &ents, NULL, alphasort), rc = 0;
	for (int i = 0; i < ne; i++) {
		const char *m = ents[i]->d_name;
		if (!rc && *m != '.' && strcmp(m, "vmlinux") && (!module_glob || !fnmatch(module_glob, m, 0)))
			rc = each_in(m, glob, cb, ctx);
		free(ents[i]);
	}
	if (ne >= 0)
		free(ents);
	return rc;
}

/* ---- -lv 'struct NAME' -------------------------------------------------- */

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

int host_btf_type_decl(const char *decl, FILE *out)
{
	static const struct { const char *word; int kind; } kinds[] = {
		{"struct ", BTF_KIND_STRUCT}, {"union ", BTF_KIND_UNION}, {"enum ", BTF_KIND_ENUM},
	};
	const struct btf *btf = host_kernel_btf();
	int kind = -1;
	const char *name = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !name; i++)
		if (!strncmp(decl, kinds[i].word, strlen(kinds[i].word))) {
			kind = kinds[i].kind;
			name = decl + strlen(kinds[i].word);
		}
	if (!btf || !name)
		return -ENOENT;
	while (*name == ' ')
		name++;
	int id = btf__find_by_name_kind(btf, name, kind);
	if (id < 0 && kind == BTF_KIND_ENUM)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM64);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	if (!t)
		return -ENOENT;
	struct btf_dump *d = btf_dump__new(btf, dump_printf, out, NULL);
	if (!d)
		return -ENOMEM;
	fprintf(out, "%.*s%s {\n", (int)(name - decl), decl, name);
	if (btf_is_enum(t) || btf_is_enum64(t)) {
		/* each enumerator with its value */
		for (int i = 0; i < btf_vlen(t); i++) {
			const char *n = btf__name_by_offset(btf, btf_is_enum(t) ? btf_enum(t)[i].name_off
							   : btf_enum64(t)[i].name_off);
			long long v = btf_is_enum(t) ? btf_enum(t)[i].val
				      : (long long)btf_enum64_value(&btf_enum64(t)[i]);
			fprintf(out, "\t%s = %lld,\n", n, v);
		}
	} else {
		const struct btf_member *m = btf_members(t);
		for (int i = 0; i < btf_vlen(t); i++, m++) {
			LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o,
				    .field_name = btf__name_by_offset(btf, m->name_off), .indent_level = 1);
			fputc('\t', out);
			btf_dump__emit_type_decl(d, m->type, &o);
			uint32_t bits = btf_member_bitfield_size(t, (uint32_t)i);
			if (bits)
				fprintf(out, ": %u", bits);
			fputs(";\n", out);
		}
	}
	fputs("};\n", out);
	btf_dump__free(d);
	return 0;
}
