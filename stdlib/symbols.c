/*
 * symbols.c - addresses and names: usym, ksym, uaddr, kaddr, reg, cgroupid.
 *
 * usym(addr) stores {addr, pid} (16 bytes): a user address names a symbol
 * only in its process, which runtime/symbols.c reads through the
 * per-process symbol cache (PIE, libraries, containers).  ksym(addr) is
 * the address alone, looked up in /proc/kallsyms when printed.
 *
 * kaddr("sym"), cgroupid("/path") and the symbol part of uaddr("sym") are
 * resolved here, at compile time.  uaddr is right for position-independent
 * files too (bpftrace 0.17 returns the link-time value there): in a probe
 * on a PIE or a library the load base is only known when the probe runs,
 * so the BPF side computes bpf_get_func_ip() - (probed function's link
 * address) + (symbol's link address).
 *
 * reg("name") reads struct pt_regs of the context (x86-64 names: ip, sp,
 * bp, ax, bx, cx, dx, si, di, r8..r15, flags, orig_ax, cs, ss).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/explain.h"
#include "host/host.h"
#include "stdlib/stdlib_int.h"

#define CGROUP2_SUPER_MAGIC 0x63677270

bool stdlib_probe_types(struct sema_ctx *s, struct ast_node *n, const char *what,
			unsigned ctx)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++) {
		if ((sema_provider(p->attach[i].type)->ctx & ctx) == ctx)
			continue;
		sema_error(s, n->loc, "%s is not available in %s probes [%s]", what,
			   sema_probe_type_name(p->attach[i].type), explain_get(EX_HELPER)->code);
		n->type.kind = TY_ERROR;
		return false;
	}
	return true;
}

/*
 * A helper that takes a BTF pointer: fentry/fexit; with raw_tp, also raw
 * tracepoints the kernel's BTF describes (bpf_get_socket_cookie's struct
 * sock *), which the probe then loads as tp_btf programs (the verifier
 * types their arguments; one program per attach point, as tp_btf names
 * its tracepoint when it loads).  bpf_d_path is not one of those: the
 * kernel allows it only in fentry/fexit of the functions it lists.
 */
bool stdlib_btf_probe(struct sema_ctx *s, struct ast_node *n, const char *what, const char *helper,
		      bool raw_tp)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++) {
		if (raw_tp && p->attach[i].type == PT_RAWTRACEPOINT && p->attach[i].kf) {
			sema_need_btf_ctx(s);
			continue;
		}
		if (sema_provider(p->attach[i].type)->ctx & PC_KARGS)
			continue;
		sema_error(s, n->loc, "%s needs %s, which the kernel allows only in fentry/fexit probes"
			   "%s, not in %s probes [%s]", what, helper,
			   raw_tp ? " and raw tracepoints with BTF" : "", sema_probe_type_name(p->attach[i].type),
			   explain_get(EX_HELPER)->code);
		n->type.kind = TY_ERROR;
		return false;
	}
	return true;
}

/* the single argument is an integer (address) */
static bool addr_arg(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return false;
	}
	if (t->kind != TY_INT && t->kind != TY_PTR) {
		sema_error(s, a->loc, "%s() needs an address, not %s", n->call.name,
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return false;
	}
	return true;
}

/* the single argument is a string literal; str($1) and $1 are one too
 * (kaddr(str($1)), as bpftrace 0.17 takes it) */
static const char *literal_arg(struct sema_ctx *s, struct ast_node *n, const char *what)
{
	struct ast_node *a = n->call.args;
	if (a->kind == N_CALL && !strcmp(a->call.name, "str") && a->call.nargs == 1 &&
	    (a->call.args->kind == N_POSITIONAL || a->call.args->kind == N_STR)) {
		n->call.args = a->call.args;	/* the text itself */
		a = n->call.args;
	}
	if (a->kind == N_POSITIONAL)
		sema_positional_text(s, a);
	if (a->kind != N_STR) {
		sema_error(s, a->loc, "%s() needs a string literal: %s", n->call.name, what);
		n->type.kind = TY_ERROR;
		return NULL;
	}
	sema_expr(s, a);
	return a->s.value;
}

/* ---- usym, ksym ------------------------------------------------------------ */

static void check_usym(struct sema_ctx *s, struct ast_node *n)
{
	if (addr_arg(s, n))
		n->type = (struct type){.kind = TY_USYM, .size = 16};
}

static LLVMValueRef lower_usym(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef addr = cg_expr(cg, n->call.args);
	/* the process as sonde's /proc names it (stacks.c's stack_pid) */
	LLVMValueRef pid = stdlib_own_ns_id(cg, true);
	LLVMValueRef buf = cg_alloca_nozero(cg, 16, "usym");
	cg_store_i64(cg, addr, buf);
	cg_store_i64(cg, pid, cg_gep(cg, buf, 8));
	stdlib_note_pid(cg, pid);
	return buf;
}

static void check_ksym(struct sema_ctx *s, struct ast_node *n)
{
	if (addr_arg(s, n))
		n->type = (struct type){.kind = TY_KSYM, .size = 8};
}

static LLVMValueRef lower_addr(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args);
}

/* ---- kaddr ------------------------------------------------------------------ */

/* fewer data symbols than this: kallsyms lists no variables (a kernel
 * with CONFIG_KALLSYMS_ALL has tens of thousands, one without a few dozen
 * section markers such as __start_rodata) */
enum { KALLSYMS_FEW_DATA = 1024 };

static struct ksyms *compile_ksyms(void)
{
	/* read once per compile; kept for the life of the process */
	static struct ksyms *ks;
	if (!ks)
		ks = ksyms_load();
	return ks;
}

static void check_kaddr(struct sema_ctx *s, struct ast_node *n)
{
	const char *name = literal_arg(s, n, "kaddr(\"symbol\")");
	if (!name)
		return;
	struct ksyms *ks = compile_ksyms();
	uint64_t addr;
	if (!ks) {
		sema_error(s, n->loc, "kaddr(): cannot read kernel symbols from /proc/kallsyms: %s",
			   errno == EPERM ? "kptr_restrict hides them (run as root)" : strerror(errno));
		n->type.kind = TY_ERROR;
		return;
	}
	if (ksyms_find(ks, name, &addr)) {
		/* loads.bt's kaddr("avenrun") on such a kernel: say why */
		size_t nd = ksyms_data_count(ks);
		if (nd < KALLSYMS_FEW_DATA)
			sema_error(s, n->call.args->loc, "kaddr(): no kernel symbol named '%s': this "
				   "kernel's /proc/kallsyms lists only %zu data symbols (it was built "
				   "without CONFIG_KALLSYMS_ALL), so kaddr() finds functions, not "
				   "variables", name, nd);
		else
			sema_error(s, n->call.args->loc, "kaddr(): no kernel symbol named '%s'", name);
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_uint64;
	n->note.value = addr;
}

/* the constant check_kaddr/check_cgroupid found */
static LLVMValueRef lower_const(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_const(cg, n->note.value);
}

/* ---- uaddr ------------------------------------------------------------------ */

struct uaddr_info {
	uint64_t sym;		/* the symbol's link-time address */
	uint64_t site;		/* the probed address's link-time address; 0: absolute */
};

static void check_uaddr(struct sema_ctx *s, struct ast_node *n)
{
	const char *name = literal_arg(s, n, "uaddr(\"symbol\")");
	if (!name || !stdlib_probe_types(s, n, "uaddr()", PC_USER))
		return;
	const struct sema_probe *p = sema_cur_probe(s);
	struct uaddr_info info = {0}, *ui = &info;
	const char *file = NULL;
	struct rs_elf_symbol sym;
	for (int i = 0; i < p->nattach; i++) {
		const struct sema_attach *at = &p->attach[i];
		const char *f = sema_target_file(s, at->target);
		if (!f) {
			sema_error(s, n->loc, "uaddr(): cannot find the file of '%s' (write its path)",
				   at->target);
			n->type.kind = TY_ERROR;
			return;
		}
		if (file && strcmp(file, f)) {
			sema_error(s, n->loc, "uaddr() needs all probes of the block in one file, not %s and %s",
				   file, f);
			n->type.kind = TY_ERROR;
			return;
		}
		file = f;
	}
	int err = rs_elf_find_symbol(file, name, &sym);
	if (err || !sym.found) {
		sema_error(s, n->call.args->loc, "uaddr(): %s%s%s", err ? "cannot read " : "no symbol '",
			   err ? file : name, err ? "" : arena_printf(sema_arena(s), "' in %s", file));
		n->type.kind = TY_ERROR;
		return;
	}
	ui->sym = sym.value;
	if (sym.pie) {
		/* the load base is known in the probe: every attach point must be
		 * one known address of the file */
		for (int i = 0; i < p->nattach; i++) {
			const struct sema_attach *at = &p->attach[i];
			uint64_t site;
			if (at->type == PT_USDT && at->usdt) {
				site = at->usdt->pc;
			} else {
				struct rs_elf_symbol fn;
				if (strpbrk(at->func, "*?[") || rs_elf_find_symbol(file, at->func, &fn) || !fn.found) {
					sema_error(s, n->loc, "uaddr() in %s: %s is position-independent, so the probe must name one function of it",
						   at->name, file);
					n->type.kind = TY_ERROR;
					return;
				}
				site = fn.value;
			}
			if (i && site != ui->site) {
				sema_error(s, n->loc, "uaddr() in a block probing several addresses of the position-independent %s is not supported",
					   file);
				n->type.kind = TY_ERROR;
				return;
			}
			ui->site = site;
		}
	}
	struct type *el = arena_new_obj(sema_arena(s), struct type);
	uint32_t sz = sym.size == 1 || sym.size == 2 || sym.size == 4 ? (uint32_t)sym.size : 8;
	*el = (struct type){.kind = TY_INT, .size = sz, .is_signed = true};
	n->type = (struct type){.kind = TY_PTR, .size = 8, .elem = el, .is_user = true};
	n->note.value = ui->sym;
	n->note.site = ui->site;
}

static LLVMValueRef lower_uaddr(struct cg_ctx *cg, struct ast_node *n)
{
	const struct ast_note *ui = &n->note;
	if (!ui->site)
		return cg_const(cg, ui->value);
	LLVMValueRef args[] = {cg_ctx_arg(cg)};
	LLVMValueRef ip = cg_helper_call(cg, BPF_FUNC_get_func_ip, args, 1);
	return LLVMBuildAdd(cg_builder(cg), ip, cg_const(cg, ui->value - ui->site), "uaddr");
}

/* ---- reg -------------------------------------------------------------------- */

static void check_reg(struct sema_ctx *s, struct ast_node *n)
{
	const char *name = literal_arg(s, n, "reg(\"ip\")");
	if (!name || !stdlib_probe_types(s, n, "reg()", PC_REGS))
		return;
	int off = usdt_ptregs_offset(name);
	if (off < 0) {
		sema_error(s, n->call.args->loc,
			   "reg(): unknown register '%s' (x86-64: ip sp bp ax bx cx dx si di r8..r15 flags orig_ax cs ss)",
			   name);
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_uint64;
	n->note.value = (uint64_t)off;
}

static LLVMValueRef lower_reg(struct cg_ctx *cg, struct ast_node *n)
{
	/* perf_event programs get bpf_perf_event_data, whose first member is
	 * the registers, so one offset serves every allowed probe type */
	return cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), (uint32_t)n->note.value));
}

/* ---- cgroupid ----------------------------------------------------------------- */

static void check_cgroupid(struct sema_ctx *s, struct ast_node *n)
{
	const char *path = literal_arg(s, n, "cgroupid(\"/sys/fs/cgroup/...\")");
	if (!path)
		return;
	char root[4096] = "";
	rs_cgroup2_root(root, sizeof(root));
	const char *p = path;
	struct stat st;
	struct statfs fs;
	if (path[0] != '/' && *root && stat(path, &st))
		p = arena_printf(sema_arena(s), "%s/%s", root, path);
	if (stat(p, &st)) {
		sema_error(s, n->call.args->loc, "cgroupid(): cannot find '%s': %s", path, strerror(errno));
		n->type.kind = TY_ERROR;
		return;
	}
	if (statfs(p, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		sema_error(s, n->call.args->loc, "cgroupid(): '%s' is not in the cgroup v2 hierarchy%s%s",
			   path, *root ? ", which is mounted at " : "", root);
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_uint64;
	n->note.value = st.st_ino;
}

#define FN(nm, na, chk, low, doc) \
	{.name = nm, .kind = BI_FUNC, .min_args = na, .max_args = na, .check = chk, .lower = low, \
	 .summary = doc}

const struct builtin stdlib_symbols[] = {
	FN("usym", 1, check_usym, lower_usym, "user symbol of an address in the current process"),
	FN("ksym", 1, check_ksym, lower_addr, "kernel symbol of an address"),
	FN("kaddr", 1, check_kaddr, lower_const, "address of a kernel symbol: kaddr(\"name\")"),
	FN("uaddr", 1, check_uaddr, lower_uaddr, "address of a symbol of the probed file: uaddr(\"name\")"),
	FN("reg", 1, check_reg, lower_reg, "a register of the probe's context: reg(\"ip\")"),
	FN("cgroupid", 1, check_cgroupid, lower_const, "id of a cgroup v2 directory: cgroupid(\"/path\")"),
	{0},
};
