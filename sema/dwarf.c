/*
 * dwarf.c - a uprobe's arguments by name: `args.n->id`, `args->label`.
 *
 * A user-space function's parameters are known from the binary's DWARF
 * (host/dwarf.c), read when a probe body first names one.  They come out
 * as a struct sema_kfunc, the shape fentry's BTF signatures have
 * (sema/btf.c), so codegen reads args.NAME of both through one path; for
 * a uprobe (`regs`) each parameter's place is a register of struct
 * pt_regs or a slot on the stack, as the SysV x86-64 ABI assigns them at
 * the function's first instruction:
 *
 *   - integers, pointers, enums and bools take the next of rdi, rsi, rdx,
 *     rcx, r8, r9; a 16-byte integer takes two;
 *   - a struct or union of up to 16 bytes whose eightbytes hold no
 *     floating-point member takes one or two of them as well;
 *   - float and double go to SSE registers (xmm0..), which a uprobe's
 *     pt_regs does not hold: such a parameter cannot be read, but it takes
 *     no integer register, so the ones after it are still right;
 *   - what does not fit (a register class exhausted, a struct over 16
 *     bytes, long double) is on the stack, 8-byte slots above the return
 *     address, in order;
 *   - a function returning a struct over 16 bytes gets the buffer's
 *     address in rdi first.
 *
 * A struct the script names in such a probe (`(struct node *)arg0`) is
 * the binary's when the script does not define it, before the kernel's.
 * Structs from DWARF are converted one level at a time, as kernel structs
 * from BTF are: a struct reached through a pointer or a member keeps its
 * name, size and DWARF type until an expression reads a field of it.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"

/* struct pt_regs offsets of rdi, rsi, rdx, rcx, r8, r9 (x86-64) */
static const uint32_t int_regs[] = {112, 104, 96, 88, 72, 64};
#define N_INT_REGS 6

/* a DWARF struct already given its fields, by its DWARF type */
struct dwarf_done {
	struct dwarf_done *next;
	const struct hdw_type *h;
	struct type *type;
};

static struct type convert(struct sema_ctx *s, const struct hdw_type *h)
{
	switch (h->kind) {
	case HDW_VOID:
		return (struct type){.kind = TY_INT, .size = 1};
	case HDW_INT:
	case HDW_FLOAT:
		return (struct type){.kind = TY_INT, .size = h->size > 8 || !h->size ? 8 : (uint32_t)h->size,
				     .is_signed = h->is_signed,
				     .is_char = h->size == 1 && h->name && !strcmp(h->name, "char")};
	case HDW_ENUM: {
		struct type_enum *ev = arena_new_obj(s->a, struct type_enum);
		ev->names = h->enum_names;
		ev->values = h->enum_values;
		ev->n = h->nenum;
		return (struct type){.kind = TY_INT, .size = h->size > 8 || !h->size ? 8 : (uint32_t)h->size,
				     .is_signed = h->is_signed, .enumv = ev};
	}
	case HDW_PTR: {
		struct type p = {.kind = TY_PTR, .size = 8};
		if (h->elem->kind != HDW_FUNC) {
			p.elem = arena_new_obj(s->a, struct type);
			*p.elem = convert(s, h->elem);
		}
		return p;
	}
	case HDW_ARRAY: {
		struct type a = {.kind = TY_ARRAY, .count = (uint32_t)h->count};
		a.elem = arena_new_obj(s->a, struct type);
		*a.elem = convert(s, h->elem);
		a.size = a.elem->size * a.count;
		return a;
	}
	case HDW_STRUCT:
	case HDW_UNION:
		return (struct type){.kind = TY_STRUCT, .size = (uint32_t)h->size, .sname = h->name,
				     .dwarf = h->declared_only ? NULL : h};
	case HDW_FUNC:
	case HDW_OTHER:
		break;
	}
	return (struct type){.kind = TY_INT, .size = 8};
}

/* h's members at byte offset base, anonymous structs and unions flattened */
static void add_members(struct sema_ctx *s, const struct hdw_type *h, uint32_t base,
			struct type *st)
{
	for (int i = 0; i < h->nmembers; i++) {
		const struct hdw_member *m = &h->members[i];
		if (!m->name) {
			if (m->type->kind == HDW_STRUCT || m->type->kind == HDW_UNION)
				add_members(s, m->type, base + (uint32_t)m->offset, st);
			continue;
		}
		st->fields = arena_grow(s->a, st->fields, (size_t)st->nfields, sizeof(*st->fields));
		struct type_field *f = &st->fields[st->nfields++];
		*f = (struct type_field){.name = m->name, .offset = base + (uint32_t)m->offset,
					 .bit_off = m->bit_off, .bit_size = m->bit_size,
					 .type = convert(s, m->type)};
	}
}

const struct type *sema_dwarf_complete(struct sema_ctx *s, const struct type *st)
{
	for (struct dwarf_done *d = s->dwarf_done; d; d = d->next)
		if (d->h == st->dwarf)
			return d->type;
	struct type *full = arena_new_obj(s->a, struct type);
	*full = *st;
	full->fields = NULL;
	full->nfields = 0;
	add_members(s, st->dwarf, 0, full);
	struct dwarf_done *d = arena_new_obj(s->a, struct dwarf_done);
	*d = (struct dwarf_done){.next = s->dwarf_done, .h = st->dwarf, .type = full};
	s->dwarf_done = d;
	return full;
}

/* Does the eightbyte [lo, lo + 8) of h (at byte off) hold a float? */
static bool has_float(const struct hdw_type *h, uint64_t off, uint64_t lo, int depth)
{
	if (depth > 16 || off >= lo + 8 || off + (h->size ? h->size : 1) <= lo)
		return false;
	switch (h->kind) {
	case HDW_FLOAT:
		return true;
	case HDW_ARRAY:
		for (uint64_t i = 0; h->elem->size && i < h->count; i++)
			if (has_float(h->elem, off + i * h->elem->size, lo, depth + 1))
				return true;
		return false;
	case HDW_STRUCT:
	case HDW_UNION:
		for (int i = 0; i < h->nmembers; i++)
			if (has_float(h->members[i].type, off + h->members[i].offset, lo, depth + 1))
				return true;
		return false;
	case HDW_VOID: case HDW_INT: case HDW_PTR: case HDW_ENUM: case HDW_FUNC: case HDW_OTHER:
		break;
	}
	return false;
}

static uint32_t stack_slot(uint32_t *stack, uint64_t size)
{
	uint32_t at = *stack;
	*stack += (uint32_t)((size + 7) / 8 * 8);
	return SEMA_ARG_STACK + at;
}

/* Where parameter h goes; *why set when it cannot be read */
static void place(const struct hdw_type *h, int *nreg, uint32_t *stack, uint32_t *off,
		  uint32_t *off_hi, const char **why)
{
	*off_hi = 0;
	*why = NULL;
	switch (h->kind) {
	case HDW_FLOAT:
		if (h->size > 8)	/* long double: memory */
			*off = stack_slot(stack, 16);
		else
			*why = "a floating-point argument, passed in an SSE register, which a uprobe "
			       "cannot read";
		return;
	case HDW_INT:
	case HDW_ENUM:
	case HDW_PTR:
	case HDW_STRUCT:
	case HDW_UNION: {
		bool aggregate = h->kind == HDW_STRUCT || h->kind == HDW_UNION;
		uint64_t size = h->size ? h->size : 8;
		int need = size > 8 ? 2 : 1;
		if (aggregate && h->declared_only) {
			*why = "a struct passed by value whose definition the debug info lacks";
			return;
		}
		if (size > 16) {
			*off = stack_slot(stack, size);
			return;
		}
		if (aggregate && (has_float(h, 0, 0, 0) || (size > 8 && has_float(h, 0, 8, 0)))) {
			*why = "a struct passed by value with floating-point members, which travel in "
			       "SSE registers a uprobe cannot read";
			return;
		}
		if (*nreg + need > N_INT_REGS) {
			*off = stack_slot(stack, size);
			return;
		}
		*off = int_regs[(*nreg)++];
		if (need == 2)
			*off_hi = int_regs[(*nreg)++];
		return;
	}
	case HDW_ARRAY:
	case HDW_VOID:
	case HDW_FUNC:
	case HDW_OTHER:
		break;
	}
	*why = "of a type sonde cannot place in the calling convention";
}

/* the file a uprobe attach point probes: a path or program in PATH, else
 * (a library short name) the first file the runtime would resolve */
static const char *probe_file(struct sema_ctx *s, const struct sema_attach *at)
{
	const char *file = sema_target_file(s, at->target);
	if (file)
		return file;
	struct rs_query q = {.target = at->target, .func = at->func, .pid = s->opts->target_pid};
	struct rs_sites *sites = NULL;
	char err[512];
	if (rs_resolve(&q, &sites, err, sizeof(err)) || !sites->nfiles) {
		if (sites)
			rs_sites_free(sites);
		return NULL;
	}
	const struct rs_file *f = sites->files[0];
	file = f->host || !f->npids ? arena_strdup(s->a, f->path)
				    : arena_printf(s->a, "/proc/%d/root%s", f->pids[0], f->path);
	rs_sites_free(sites);
	return file;
}

static bool all_digits(const char *t)
{
	if (!*t)
		return false;
	for (; *t; t++)
		if (*t < '0' || *t > '9')
			return false;
	return true;
}

bool sema_uprobe_srcline(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			 enum probe_type type, const char **parts, int n)
{
	/* the last '@': a directory of the binary's path may hold one */
	const char *at_sign = n >= 3 ? strrchr(parts[1], '@') : NULL;
	if (!at_sign || n > 4 || !all_digits(parts[2]) || (n == 4 && !all_digits(parts[3])) ||
	    !access(parts[1], F_OK))
		return false;
	const char *what = n == 4 ? arena_printf(s->a, "%s:%s:%s", parts[1], parts[2], parts[3])
				  : arena_printf(s->a, "%s:%s", parts[1], parts[2]);
	const char *name = arena_printf(s->a, "%s:%s", sema_probe_type_name(type), what);
	const char *target = arena_strndup(s->a, parts[1], (size_t)(at_sign - parts[1]));
	const char *src = at_sign + 1;
	if (type != PT_UPROBE) {
		sema_error(s, raw->loc, "%s: a source line is a place inside a function, which a %s "
			   "cannot probe (it fires at the return): use uprobe:%s", name,
			   sema_probe_type_name(type), what);
		return true;
	}
	if (!*target || !*src) {
		sema_error(s, raw->loc, "%s: expected uprobe:TARGET@FILE:LINE[:COLUMN], the binary "
			   "before the '@' and its source file after", name);
		return true;
	}
	if (strpbrk(target, "*?[") || !strcmp(target, "*")) {
		sema_error(s, raw->loc, "%s: a source line is in one binary: name it without "
			   "wildcards", name);
		return true;
	}
	unsigned long line = strtoul(parts[2], NULL, 10), col = n == 4 ? strtoul(parts[3], NULL, 10) : 0;
	if (!line || line > UINT32_MAX || col > UINT32_MAX) {
		sema_error(s, raw->loc, "%s: lines and columns count from 1", name);
		return true;
	}
	struct sema_attach probe_at = {.type = type, .target = target, .func = "*"};
	const char *file = probe_file(s, &probe_at);
	if (!file) {
		sema_error(s, raw->loc, "%s: cannot find the binary '%s' to read its line table", name,
			   target);
		return true;
	}
	uint64_t vaddr;
	char err[1024];
	if (hdw_line_addr(file, src, (unsigned)line, (unsigned)col, &vaddr, err, sizeof(err))) {
		sema_error(s, raw->loc, "%s: %s", name, err);
		return true;
	}
	struct sema_attach *at = sema_push_attach(s, p);
	at->type = type;
	at->target = target;
	at->func = arena_printf(s->a, "0x%llx", (unsigned long long)vaddr);
	at->name = name;
	at->src_line = true;
	at->loc = raw->loc;
	return true;
}

bool sema_dwarf_named(struct sema_ctx *s, bool is_union, const char *name, struct type *out)
{
	const struct sema_attach *at = s->probe && s->probe->nattach ? &s->probe->attach[0] : NULL;
	if (!at || (at->type != PT_UPROBE && at->type != PT_URETPROBE && at->type != PT_USDT))
		return false;
	const char *file = probe_file(s, at);
	struct hdw_file *f;
	char err[512];
	const struct hdw_type *h;
	if (!file || hdw_open(file, &f, err, sizeof(err)) || !(h = hdw_struct_named(f, is_union, name)))
		return false;
	*out = convert(s, h);
	return true;
}

const struct sema_kfunc *sema_dwarf_ufunc(struct sema_ctx *s, struct sema_attach *at,
					  struct src_loc loc)
{
	if (at->kf)
		return at->kf;
	const char *file = probe_file(s, at);
	if (!file) {
		sema_error(s, loc, "%s: cannot find the file '%s' to read its arguments' debug "
			   "information", at->name, at->target);
		return NULL;
	}
	struct hdw_file *f;
	char err[512];
	if (hdw_open(file, &f, err, sizeof(err))) {
		sema_error(s, loc, "%s: arguments by name need debug information: %s", at->name, err);
		return NULL;
	}
	const struct hdw_func *fn = hdw_func(f, at->func);
	const char *split = fn ? NULL : hdw_split_missing(f);
	if (split) {
		sema_error(s, loc, "%s: %s", at->name, split);
		return NULL;
	}
	if (!fn) {
		sema_error(s, loc, "%s: the debug information of %s does not describe function '%s' "
			   "(compiled without -g, or not a C function): read its arguments as arg0..arg5",
			   at->name, file, at->func);
		return NULL;
	}
	struct sema_kfunc *kf = arena_new_obj(s->a, struct sema_kfunc);
	int n = fn->nparams;
	*kf = (struct sema_kfunc){.nargs = n, .regs = true, .ret = {.kind = TY_NONE}};
	kf->names = arena_new_array(s->a, const char *, n ? n : 1);
	kf->types = arena_new_array(s->a, struct type, n ? n : 1);
	kf->offsets = arena_new_array(s->a, uint32_t, n ? n : 1);
	kf->offsets_hi = arena_new_array(s->a, uint32_t, n ? n : 1);
	kf->why_not = arena_new_array(s->a, const char *, n ? n : 1);
	int nreg = 0;
	uint32_t stack = 8;	/* above the return address */
	/* a struct returned in memory: its address comes first, in rdi */
	const struct hdw_type *r = fn->ret;
	if ((r->kind == HDW_STRUCT || r->kind == HDW_UNION) && r->size > 16)
		nreg = 1;
	for (int i = 0; i < n; i++) {
		const struct hdw_param *p = &fn->params[i];
		kf->names[i] = p->name ? p->name : "";
		kf->types[i] = convert(s, p->type);
		kf->types[i].is_user = true;	/* what it points to is the process's */
		place(p->type, &nreg, &stack, &kf->offsets[i], &kf->offsets_hi[i], &kf->why_not[i]);
	}
	at->kf = kf;
	return kf;
}
