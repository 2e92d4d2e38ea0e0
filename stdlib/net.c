/*
 * net.c - network addresses: ntop, pton and macaddr.
 *
 * ntop([af,] addr): an IPv4 or IPv6 address as text.
 *
 * The value is TY_INET, {u64 family, u8 address[16]}; userspace prints it
 * with inet_ntop.  addr is an integer (an IPv4 address in network byte
 * order, as in struct in_addr: the first byte in memory is the first
 * octet) or a 4- or 16-byte array (args->saddr, args->daddr_v6).  Without
 * af the family follows from the size: 16 bytes are IPv6, else IPv4.
 *
 * pton("addr") is the other way, at compile time as in bpftrace: a
 * literal IPv4 or IPv6 address becomes uint8[4] or uint8[16] in network
 * byte order, so ntop(pton("::1")) is "::1" and `args->daddr ==
 * pton(...)`-style comparisons see the kernel's byte order.
 *
 * macaddr(addr): 6 bytes (an array such as a struct field u8[6], or the
 * address of one) printed as "AA:BB:CC:DD:EE:FF".  BPF keeps them packed
 * in one integer (first byte lowest), a cheap map key and value; the text
 * is made when it prints (TY_DECODED).
 *
 * socket_cookie(sk): the socket's cookie (bpf_get_socket_cookie).
 *
 * skboutput(path, skb, len, offset): the first len bytes of the packet's
 * data go to the perf event array CG_SKB_MAP (bpf_skb_output copies them
 * behind a header of ours: {kind, event id}, CLOCK_BOOTTIME ns, len), and
 * runtime/skbout.c writes bytes offset..len of them into the pcap file at
 * path.  The helper's result (0, or -errno) is the value.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "common/explain.h"
#include "host/host.h"
#include "stdlib/stdlib_int.h"


static void check_ntop(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *af = n->call.nargs == 2 ? n->call.args : NULL;
	struct ast_node *a = af ? af->next : n->call.args;
	if (af) {
		struct type *t = sema_expr(s, af);
		if (t->kind != TY_INT && t->kind != TY_ERROR) {
			sema_error(s, af->loc, "ntop(af, addr): af must be an integer (2 for AF_INET, 10 for AF_INET6)");
			n->type.kind = TY_ERROR;
			return;
		}
	}
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	/* a kernel u8[16] field reads as a string (u6_addr8, as tcpdrop.bt
	 * uses it): its bytes are the address all the same */
	bool bytes = (t->kind == TY_ARRAY || (t->kind == TY_STR && a->kind == N_FIELD)) &&
		     (t->size == 4 || t->size == 16);
	if (!bytes && t->kind != TY_INT && t->kind != TY_PTR) {
		sema_error(s, a->loc, "ntop() needs an integer or a 4- or 16-byte array, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_INET, .size = 24};
}

static LLVMValueRef lower_ntop(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *af = n->call.nargs == 2 ? n->call.args : NULL;
	struct ast_node *a = af ? af->next : n->call.args;
	LLVMValueRef out = cg_alloca(cg, 24, "inet");
	LLVMValueRef fam = af ? cg_expr(cg, af) : NULL;
	LLVMValueRef v = cg_expr(cg, a);
	bool bytes = a->type.kind == TY_ARRAY || a->type.kind == TY_STR;
	if (!fam)
		fam = cg_const(cg, bytes && a->type.size == 16 ? AF_INET6 : AF_INET);
	cg_store_i64(cg, fam, out);
	if (bytes)
		cg_memcpy(cg, cg_gep(cg, out, 8), v, a->type.size);
	else
		cg_store_i64(cg, v, cg_gep(cg, out, 8));
	return out;
}

static void check_pton(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	uint8_t addr[16];
	if (a->kind != N_STR) {
		sema_expr(s, a);
		sema_error(s, a->loc, "pton() needs a string literal address, like pton(\"10.0.0.1\")");
		n->type.kind = TY_ERROR;
		return;
	}
	uint32_t len = inet_pton(AF_INET, a->s.value, addr) == 1 ? 4
		       : inet_pton(AF_INET6, a->s.value, addr) == 1 ? 16 : 0;
	if (!len) {
		sema_error(s, a->loc, "pton() needs a valid IPv4 or IPv6 address, not \"%s\"", a->s.value);
		n->type.kind = TY_ERROR;
		return;
	}
	struct type *elem = arena_alloc(sema_arena(s), sizeof(*elem));
	*elem = (struct type){.kind = TY_INT, .size = 1};
	n->type = (struct type){.kind = TY_ARRAY, .size = len, .elem = elem, .count = len};
}

static LLVMValueRef lower_pton(struct cg_ctx *cg, struct ast_node *n)
{
	/* the literal, checked by check_pton; its size says the family */
	uint8_t addr[16] = {0};
	inet_pton(n->type.size == 4 ? AF_INET : AF_INET6, n->call.args->s.value, addr);
	LLVMValueRef out = cg_alloca(cg, n->type.size, "pton");
	for (uint32_t i = 0; i < n->type.size; i += 4) {
		uint32_t w;
		memcpy(&w, addr + i, 4);
		LLVMValueRef st = LLVMBuildStore(cg_builder(cg), LLVMConstInt(cg_i32(cg), w, 0),
						 cg_gep(cg, out, i));
		LLVMSetAlignment(st, 4);
	}
	return out;
}

static const char *render_macaddr(struct arena *a, uint64_t v)
{
	return arena_printf(a, "%02X:%02X:%02X:%02X:%02X:%02X", (unsigned)(v & 0xff),
			    (unsigned)(v >> 8 & 0xff), (unsigned)(v >> 16 & 0xff),
			    (unsigned)(v >> 24 & 0xff), (unsigned)(v >> 32 & 0xff),
			    (unsigned)(v >> 40 & 0xff));
}

static const struct type_decoder macaddr_decoder = {"macaddr", true, render_macaddr};

static void check_macaddr(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	if (a->kind == N_STR || ((t->kind == TY_ARRAY || t->kind == TY_STR) && t->size != 6) ||
	    (t->kind != TY_ARRAY && t->kind != TY_STR && t->kind != TY_INT && t->kind != TY_PTR)) {
		sema_error(s, a->loc, "macaddr() needs 6 bytes: a u8[6] array or the address of one, not %s",
			   a->kind == N_STR ? "a string literal" : type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_DECODED, .size = 8, .decoder = &macaddr_decoder};
}

static LLVMValueRef lower_macaddr(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	LLVMValueRef out = cg_alloca(cg, 8, "mac");
	LLVMValueRef v = cg_expr(cg, a);
	if (a->type.kind == TY_ARRAY || a->type.kind == TY_STR)
		cg_memcpy(cg, out, v, 6);
	else
		cg_probe_read(cg, out, 6, v, a->type.kind == TY_PTR ? a->type.is_user : 0, 0);
	return cg_load_i64(cg, out);
}

/* socket_cookie(sk): bpf_get_socket_cookie of a struct sock *, as the
 * kernel allows it in tracing programs (a BTF pointer: fentry/fexit, and
 * raw tracepoints loaded as tp_btf) */
static void check_socket_cookie(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	n->type = ty_uint64;
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	if (t->kind != TY_PTR && t->kind != TY_INT) {
		sema_error(s, a->loc, "socket_cookie() needs a struct sock pointer, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	stdlib_btf_probe(s, n, "socket_cookie()", "bpf_get_socket_cookie", true);
}

static LLVMValueRef lower_socket_cookie(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef sk = LLVMBuildIntToPtr(cg_builder(cg), cg_expr(cg, n->call.args), cg_ptr(cg), "");
	return cg_helper_call(cg, BPF_FUNC_get_socket_cookie, &sk, 1);
}

/* skboutput("path", skb, len, offset): path and offset are known now (the
 * runtime opens each path once, at start); skb a struct sk_buff * the
 * verifier knows as one (stdlib_btf_probe) */
static void check_skboutput(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *path = n->call.args, *skb = path->next, *len = skb->next, *off = len->next;
	n->type = ty_int64;
	if (path->kind == N_POSITIONAL)
		sema_positional_text(s, path);
	if (path->kind != N_STR) {
		sema_expr(s, path);
		sema_error(s, path->loc, "skboutput() needs the pcap file's path as a string literal, "
			   "like skboutput(\"out.pcap\", args.skb, args.skb->len, 0)");
		n->type.kind = TY_ERROR;
		return;
	}
	if (!path->s.value[0]) {
		sema_error(s, path->loc, "skboutput() needs a pcap file's path, not an empty string");
		n->type.kind = TY_ERROR;
		return;
	}
	struct type *t = sema_expr(s, skb);
	if (t->kind != TY_ERROR && t->kind != TY_PTR && t->kind != TY_INT) {
		sema_error(s, skb->loc, "skboutput() needs a struct sk_buff pointer, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
	}
	t = sema_expr(s, len);
	if (t->kind != TY_ERROR && t->kind != TY_INT) {
		sema_error(s, len->loc, "skboutput() needs the number of bytes to copy as an integer, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
	}
	int64_t o = 0;
	sema_expr(s, off);
	if (!sema_const_int(s, off, &o)) {
		n->type.kind = TY_ERROR;
		return;
	}
	if (o < 0) {
		sema_error(s, off->loc, "skboutput()'s offset (the bytes of the packet left out of the "
			   "pcap file, 14 for an Ethernet header) cannot be negative: %lld", (long long)o);
		n->type.kind = TY_ERROR;
		return;
	}
	if (n->type.kind == TY_ERROR || !stdlib_btf_probe(s, n, "skboutput()", "bpf_skb_output", true))
		return;
	if (host_feature_answer(HF_SKB_OUTPUT) == HF_NO) {
		sema_error(s, n->loc, "skboutput() needs %s (Linux %s), which this kernel refuses [%s]",
			   host_feature_what(HF_SKB_OUTPUT), host_feature_since(HF_SKB_OUTPUT),
			   explain_get(EX_HELPER)->code);
		n->type.kind = TY_ERROR;
		return;
	}
	struct sema_event *ev = sema_add_event(s, EV_SKBOUTPUT, n, NULL, NULL);
	ev->fmt = path->s.value;
	ev->offset = (uint64_t)o;
	n->note.event = ev;
}

static LLVMValueRef lower_skboutput(struct cg_ctx *cg, struct ast_node *n)
{
	const struct sema_event *ev = n->note.event;
	LLVMBuilderRef b = cg_builder(cg);
	struct ast_node *skb = n->call.args->next, *len = skb->next;
	LLVMValueRef p = LLVMBuildIntToPtr(b, cg_expr(cg, skb), cg_ptr(cg), "skb");
	/* the kernel takes the length from the flags' upper 32 bits */
	LLVMValueRef l = LLVMBuildAnd(b, cg_expr(cg, len), cg_const(cg, 0xffffffffu), "");
	LLVMValueRef hdr = cg_alloca(cg, CG_SKB_HDR, "skbhdr");
	cg_store_i64(cg, cg_const(cg, EV_SKBOUTPUT | (uint64_t)(uint32_t)ev->id << 32), hdr);
	cg_store_i64(cg, cg_helper_call(cg, BPF_FUNC_ktime_get_boot_ns, NULL, 0), cg_gep(cg, hdr, 8));
	cg_store_i64(cg, l, cg_gep(cg, hdr, 16));
	LLVMValueRef args[] = {
		p, cg_aux_map(cg, CG_SKB_MAP, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 1, 4, 4),
		LLVMBuildOr(b, LLVMBuildShl(b, l, cg_const(cg, 32), ""), cg_const(cg, BPF_F_CURRENT_CPU), ""),
		hdr, cg_const(cg, CG_SKB_HDR)};
	return cg_helper_call(cg, BPF_FUNC_skb_output, args, 5);
}

const struct builtin stdlib_net[] = {
	{.name = "ntop", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_ntop,
	 .lower = lower_ntop, .summary = "IPv4/IPv6 address as text: ntop([af,] addr)"},
	{.name = "pton", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_pton,
	 .lower = lower_pton, .summary = "an IPv4/IPv6 address literal as bytes: pton(\"::1\")"},
	{.name = "macaddr", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_macaddr,
	 .lower = lower_macaddr, .summary = "6 bytes printed as a MAC address: macaddr(addr)"},
	{.name = "socket_cookie", .kind = BI_FUNC, .min_args = 1, .max_args = 1,
	 .check = check_socket_cookie, .lower = lower_socket_cookie,
	 .summary = "the kernel's cookie of a struct sock * (fentry/fexit, rawtracepoint)"},
	{.name = "skboutput", .kind = BI_FUNC, .min_args = 4, .max_args = 4,
	 .check = check_skboutput, .lower = lower_skboutput,
	 .summary = "a packet into a pcap file: skboutput(path, skb, len, offset) (fentry, rawtracepoint)"},
	{0},
};
