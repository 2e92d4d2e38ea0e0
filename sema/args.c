/*
 * args.c - a probe's arguments by name: a tracepoint's args.FIELD (the
 * record's fields, typed as the format file declares them), fentry/fexit's
 * args.NAME (the BTF signature) and a uprobe's args.NAME (DWARF, through
 * sema/dwarf.c).  sema/expr.c's check_field comes here for `args`.
 */
#include "sema/sema_int.h"

#include <string.h>

#include "common/suggest.h"
#include "host/host.h"
#include "parser/parser.h"

/*
 * The C type a tracepoint field is declared with ("int", "pid_t",
 * "unsigned long", "const char *", "struct __kernel_timespec *"): read as
 * that type, as bpftrace does, so `int dfd` in an 8-byte syscall slot is
 * the low 4 bytes, sign-extended.  Pointers of syscall tracepoints point
 * into the calling process: user memory.  The words follow the script's
 * own rules (parse_ctype_text).  False when the text does not read as a
 * type sonde knows (the caller falls back to size and sign).
 */
static bool tp_ctype(struct sema_ctx *s, const struct sema_attach *at, const char *text,
		     struct type *out)
{
	struct ast_ctype ct;
	if (!parse_ctype_text(s->a, text, &ct))
		return false;
	bool quiet = s->quiet;
	int errors = s->errors;
	s->quiet = true;	/* an unknown type falls back, silently */
	bool ok = sema_ctype(s, &ct, at->loc, out);
	s->quiet = quiet;
	s->errors = errors;
	if (ok && out->kind == TY_PTR && at->target && !strcmp(at->target, "syscalls"))
		out->is_user = true;
	return ok;
}

/* the type of a tracepoint's field as its format file declares it */
static struct type tp_field_type(struct sema_ctx *s, const struct sema_attach *at,
				 const struct tp_field *f)
{
	struct type ft;
	/* char x[N] is a string, unsigned char and u8 ones arrays of numbers */
	bool chars = strstr(f->ctype, "char") && !strstr(f->ctype, "signed") && !strchr(f->ctype, '*');
	if (f->is_data_loc || (f->array_len > 0 && chars))
		ft = ty_str(f->is_data_loc ? STR_MAX : (uint32_t)f->array_len);
	else if (f->array_len > 0) {
		ft = (struct type){.kind = TY_ARRAY, .count = (uint32_t)f->array_len,
				   .size = (uint32_t)f->size};
		ft.elem = arena_new_obj(s->a, struct type);
		if (!tp_ctype(s, at, f->ctype, ft.elem) || ft.elem->kind != TY_INT ||
		    ft.elem->size * (uint32_t)f->array_len != (uint32_t)f->size)
			*ft.elem = (struct type){.kind = TY_INT, .is_signed = f->is_signed,
						 .size = (uint32_t)f->size / (uint32_t)f->array_len};
	} else if (!tp_ctype(s, at, f->ctype, &ft) || ft.size > (uint32_t)f->size ||
		   (ft.kind != TY_INT && ft.kind != TY_PTR)) {
		ft = f->is_signed ? ty_int64 : ty_uint64;
		ft.size = f->size == 1 || f->size == 2 || f->size == 4 ? (uint32_t)f->size : 8;
	}
	return ft;
}

/* args alone in a tracepoint (print(args), $a = args): a struct of the
 * record's fields but the common ones, each in a slot of 8 bytes or more
 * (strings and arrays rounded up) that codegen fills field by field; the
 * attach points must have the same fields */
bool sema_tp_args(struct sema_ctx *s, struct ast_node *n)
{
	struct sema_probe *p = s->probe;
	const struct tp_format *fmt = p->nattach ? p->attach[0].fmt : NULL;
	for (int i = 0; i < p->nattach; i++)
		if (!(sema_provider(p->attach[i].type)->ctx & PC_TP_ARGS) || !p->attach[i].fmt)
			return false;
	if (!fmt)
		return false;
	p->uses_args = p->nattach > 1;
	int nf = 0;
	for (int k = 0; k < fmt->nfields; k++)
		nf += !fmt->fields[k].is_common;
	for (int i = 1; i < p->nattach; i++) {
		const struct tp_format *o = p->attach[i].fmt;
		bool same = true;
		for (int k = 0, m = 0; same && k < fmt->nfields; k++) {
			if (fmt->fields[k].is_common)
				continue;
			while (m < o->nfields && o->fields[m].is_common)
				m++;
			same = m < o->nfields && !strcmp(o->fields[m].decl, fmt->fields[k].decl);
			m++;
		}
		int onf = 0;
		for (int k = 0; k < o->nfields; k++)
			onf += !o->fields[k].is_common;
		if (!same || onf != nf) {
			sema_error(s, n->loc, "args differs between %s and %s: name its fields "
				   "(args.NAME) instead", p->attach[0].name, p->attach[i].name);
			sema_err_type(n);
			return true;
		}
	}
	struct type t = {.kind = TY_STRUCT, .newest_print = true};
	t.fields = arena_new_array(s->a, struct type_field, nf ? nf : 1);
	for (int k = 0; k < fmt->nfields; k++) {
		const struct tp_field *f = &fmt->fields[k];
		if (f->is_common)
			continue;
		struct type ft = tp_field_type(s, &p->attach[0], f);
		t.fields[t.nfields++] = (struct type_field){.name = f->name, .offset = t.size, .type = ft};
		t.size += ft.size > 8 ? (ft.size + 7) / 8 * 8 : 8;
	}
	if (!t.size)
		t.size = 8;
	sema_set(n, t);
	return true;
}

/* tracepoint args->field */
struct type *sema_check_args_field(struct sema_ctx *s, struct ast_node *e)
{
	struct sema_probe *p = s->probe;
	struct type t = {.kind = TY_ERROR};
	p->uses_args = p->nattach > 1;
	for (int i = 0; i < p->nattach; i++) {
		const struct sema_attach *at = &p->attach[i];
		if (!(sema_provider(at->type)->ctx & PC_TP_ARGS)) {
			sema_error(s, e->loc, "args->%s is only available in tracepoint probes (not %s)",
				   e->field.name, at->name);
			return sema_err_type(e);
		}
		const struct tp_field *f = tfs_field(at->fmt, e->field.name);
		if (!f) {
			/* the nearest fields, as a list when several are as near */
			struct suggest sg;
			char hint[512];
			suggest_init(&sg, e->field.name);
			for (int k = 0; at->fmt && k < at->fmt->nfields; k++)
				if (!at->fmt->fields[k].is_common)
					suggest_add(&sg, at->fmt->fields[k].name);
			sema_error(s, e->loc, "tracepoint %s has no field '%s'%s",
				   at->name + strlen("tracepoint:"), e->field.name,
				   suggest_text(&sg, 3, hint, sizeof(hint)));
			return sema_err_type(e);
		}
		struct type ft = tp_field_type(s, at, f);
		if (i == 0)
			t = ft;
		else if (t.kind != ft.kind)
			sema_error(s, e->loc, "field '%s' has different types in %s and %s",
				   e->field.name, p->attach[0].name, at->name);
		else if (t.kind == TY_STR && ft.size > t.size)
			t.size = ft.size;
	}
	return sema_set(e, t);
}

/* "a, b, c" or "none": the arguments kf names, for an error */
static const char *arg_names(struct sema_ctx *s, const struct sema_kfunc *kf)
{
	const char *list = kf->nargs ? "" : "none";
	for (int j = 0; j < kf->nargs; j++)
		list = arena_printf(s->a, "%s%s%s", list, j ? ", " : "", kf->names[j]);
	return list;
}

/* fentry/fexit args.NAME (or args->NAME): a parameter by its BTF name,
 * of the same kind in every attach point of the probe */
struct type *sema_check_kargs_field(struct sema_ctx *s, struct ast_node *e)
{
	struct sema_probe *p = s->probe;
	struct type t = {.kind = TY_ERROR};
	uint32_t first = 0;
	for (int i = 0; i < p->nattach; i++) {
		const struct sema_attach *at = &p->attach[i];
		const struct sema_kfunc *kf = at->kf;
		int k = 0;
		while (kf && k < kf->nargs && strcmp(kf->names[k], e->field.name))
			k++;
		if (!kf || k == kf->nargs) {
			struct suggest sg;
			char hint[512];
			suggest_init(&sg, e->field.name);
			for (int j = 0; kf && j < kf->nargs; j++)
				suggest_add(&sg, kf->names[j]);
			if (kf && kf->regs)	/* all of them: a function has few */
				sema_error(s, e->loc, "%s has no argument '%s' (its arguments: %s)", at->name,
					   e->field.name, arg_names(s, kf));
			else
				sema_error(s, e->loc, "%s has no argument '%s'%s", at->name, e->field.name,
					   suggest_text(&sg, 3, hint, sizeof(hint)));
			return sema_err_type(e);
		}
		if (kf->regs && kf->why_not[k]) {
			sema_error(s, e->loc, "%s: argument '%s' is %s", at->name, e->field.name,
				   kf->why_not[k]);
			return sema_err_type(e);
		}
		if (kf->regs && kf->offsets[k] >= SEMA_ARG_STACK && sema_in_user_probe(s)) {
			/* as arg6..arg9: the agent reads registers, not the stack */
			sema_error(s, e->loc, "%s: argument '%s' is passed on the stack, which user probes "
				   "do not read (--user-probes): drop --user-probes to read it in the kernel",
				   at->name, e->field.name);
			return sema_err_type(e);
		}
		if (kf->regs && kf->types[k].kind == TY_STRUCT && kf->types[k].size > SEMA_STRUCT_ARG_MAX) {
			sema_error(s, e->loc, "%s: argument '%s' is a struct of %u bytes passed by value, "
				   "more than the %u bytes sonde copies to the BPF stack", at->name,
				   e->field.name, kf->types[k].size, SEMA_STRUCT_ARG_MAX);
			return sema_err_type(e);
		}
		if (kf->types[k].size > 8 && !kf->regs) {
			sema_error(s, e->loc, "%s: argument '%s' is a struct passed by value, which sonde "
				   "cannot read", at->name, e->field.name);
			return sema_err_type(e);
		}
		if (i == 0) {
			t = sema_ptr_complete(s, &kf->types[k]);
			first = kf->offsets[k];
		} else if (t.kind != kf->types[k].kind) {
			sema_error(s, e->loc, "argument '%s' has different types in %s and %s",
				   e->field.name, p->attach[0].name, at->name);
		} else if (kf->offsets[k] != first) {
			/* a raw tracepoint wildcard: the name in another slot */
			sema_need_per_attach(s);
		}
	}
	return sema_set(e, t);
}

bool sema_uprobe_args(struct sema_ctx *s, const char *what, struct src_loc loc)
{
	struct sema_probe *p = s->probe;
	sema_need_per_attach(s);
	for (int i = 0; i < p->nattach; i++) {
		struct sema_attach *at = &p->attach[i];
		if (at->type != PT_UPROBE) {
			sema_error(s, loc, "%s: %s has no arguments by name (uprobes have, from "
				   "debug information; uretprobes read retval)", what, at->name);
			return false;
		}
		if (strpbrk(at->func, "*?[")) {
			/* a wildcard: one attach point per function it matches, after
			 * this pass; still one after the last pass matched none */
			if (!sema_need_func_sites(s))
				sema_error(s, loc, "%s in %s: no function matches the wildcard", what,
					   at->name);
			return false;
		}
		if (strchr(at->func, '+') || !strncmp(at->func, "0x", 2)) {
			/* past the first instruction the registers may hold anything */
			sema_error(s, loc, "%s in %s: arguments by name are read at a function's "
				   "entry, not at %s%s", what, at->name,
				   at->src_line ? "a source line" : "an offset or an address",
				   at->src_line ? " (read registers there with reg(), or probe the "
						  "function: uprobe:BIN:FUNCTION)" : "");
			return false;
		}
		if (!sema_dwarf_ufunc(s, at, loc))
			return false;
	}
	return true;
}

