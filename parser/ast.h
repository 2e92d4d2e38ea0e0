/*
 * ast.h - the tagged-union syntax tree shared by every pass.
 *
 * A node is a common head (kind, location, type) followed by one union
 * member per kind.  Lists (statements, probe attach points, call arguments,
 * map keys, tuple elements) are singly linked through `next`.  Passes switch
 * on `kind` with no default: label; the build uses -Wswitch-enum -Werror so
 * a new kind breaks every pass that forgot it.
 *
 * The parser fills syntax only; `type` is zero (TY_NONE) until sema sets it.
 * All nodes live in the compile's arena.
 */
#ifndef SONDE_AST_H
#define SONDE_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/diag.h"

struct arena;

/* ---- types (filled by sema) ------------------------------------------- */

enum type_kind {
	TY_NONE,	/* not yet typed */
	TY_VOID,	/* statement-like calls: printf, exit, delete ... */
	TY_INT,		/* size 1/2/4/8, is_signed */
	TY_STR,		/* NUL-padded char[size] */
	TY_BUF,		/* length-prefixed bytes, buf() */
	TY_TUPLE,	/* fields[0..nfields) */
	TY_PTR,		/* pointer: elem is the pointee; size 8 */
	TY_STRUCT,	/* record: sname, fields with offsets */
	TY_ARRAY,	/* elem[count] */
	/* map value kinds: what an aggregation function stores */
	TY_COUNT, TY_SUM, TY_AVG, TY_MIN, TY_MAX, TY_STATS,
	TY_HIST, TY_LHIST, TY_TSERIES,
	/* integers that print specially */
	TY_USYM,	/* {address, pid}: 16 bytes, printed as a user symbol */
	TY_KSYM,	/* kernel address, printed as symbol */
	TY_USTACK, TY_KSTACK,	/* stack id (ustack: pid << 32 | id) */
	TY_INET,	/* ntop() result: {u64 family, u8 addr[16]} */
	TY_TIMESTAMP,	/* strftime() */
	TY_USERNAME,	/* uid printed as a name */
	TY_CGROUP_PATH,	/* cgroup id printed as its path */
	TY_CONTAINER,	/* cgroup id printed as a short container id */
	TY_PROBE,	/* probe index printed as its name */
	TY_DECODED,	/* integer a stdlib decoder names at print time (type.decoder) */
	TY_ERROR,	/* after a reported error, to silence cascades */
};

struct type_field;
struct arena;

/* How a TY_DECODED integer prints: ioctl fields, fd paths, syscall and
 * disk names.  The builtin that makes the value (stdlib/) owns the
 * decoder, so a new one touches stdlib/ only.  render() returns text in
 * the arena; is_str says JSON quotes it. */
struct type_decoder {
	const char *name;	/* in type_str and messages: "ioc_dir" */
	bool is_str;
	const char *(*render)(struct arena *a, uint64_t v);
};

/* The enumerators of an enum type, for printing its values by name. */
struct type_enum {
	int n;
	const char **names;
	const uint64_t *values;
};

struct hdw_type;

#define STACK_MODE_PYTHON 3	/* type.stack_mode of pystack */
#define STACK_MODE_MIXED 4	/* ustack(python): native frames, the interpreter's as Python's */
#define STACK_MODE_BUILD_ID 5	/* ustack(build_id): "<build-id> 0x<file offset>" a frame */

struct type {
	enum type_kind kind;
	uint32_t size;		/* bytes in a map slot or event record */
	uint32_t csize;		/* an integer widened into an 8-byte slot: its C
				 * size (sizeof of a tuple holding it); 0: size */
	bool is_signed;		/* TY_INT */
	bool is_bool;		/* TY_INT: a bool (true/false, has_key()), printed
				 * as a word, as the newest bpftrace prints it */
	bool is_char;		/* TY_INT: C's plain char (not signed char, unsigned
				 * char, int8_t, uint8_t): an array of them is a
				 * string, any other array of bytes an array of
				 * numbers, as bpftrace 0.17 reads them */
	const struct type_enum *enumv;	/* TY_INT of an enum type: a value prints
					 * as its enumerator's name (maps, %s) */
	const struct type_enum *fmt_enum;	/* TY_INT holding an enumerator the
						 * script wrote: printf's %s names it (a
						 * variable, a map value); elsewhere its
						 * number, as 0.17 prints it */
	bool trunc_mark;	/* TY_STR read by str(): one that fills its size
				 * (it may go on) prints with str_trunc_trailer */
	bool is_user;		/* address space: a TY_PTR points into user memory;
				 * a struct or array value was read from there, so
				 * the pointers it holds do too */
	struct type *elem;	/* TY_PTR, TY_ARRAY */
	uint32_t count;		/* TY_ARRAY: elements; TY_USTACK, TY_KSTACK: frames kept */
	uint8_t stack_mode;	/* TY_USTACK, TY_KSTACK: 0 bpftrace, 1 perf, 2 raw;
				 * TY_USTACK 3: pystack (STACK_MODE_PYTHON),
				 * 4: ustack(python) (STACK_MODE_MIXED),
				 * 5: ustack(build_id) (STACK_MODE_BUILD_ID) */
	const char *fmt;	/* TY_TIMESTAMP: the strftime() format */
	const char *sname;	/* TY_STRUCT */
	uint32_t btf_id;	/* TY_STRUCT from the kernel's BTF: its fields are
				 * read from BTF when first needed (nfields 0 until then) */
	const struct hdw_type *dwarf;	/* TY_STRUCT from a binary's DWARF (uprobe
					 * args): the same, from there */
	bool newest_print;	/* TY_STRUCT: `args` as a whole, a value bpftrace 0.17
				 * cannot make: it prints as the newest bpftrace
				 * prints a struct (pointers in hex, blanks in a map
				 * key too), nested structs with it */
	const struct type_decoder *decoder;	/* TY_DECODED */
	struct type_field *fields;	/* TY_TUPLE, TY_STRUCT */
	int nfields;
	int64_t lh_min, lh_max, lh_step;	/* TY_LHIST */
};

struct type_field {
	const char *name;	/* NULL in tuples */
	uint32_t offset;
	uint8_t bit_off, bit_size;	/* bitfields: bits from `offset` (little
					 * endian); bit_size 0 for whole fields */
	struct type type;
};

/* A record is a TY_TUPLE whose fields have names ((a=1, b="x")): its
 * field of that name, NULL when it has none (or t is a plain tuple). */
static inline const struct type_field *type_record_field(const struct type *t,
							 const char *name)
{
	for (int i = 0; i < t->nfields; i++)
		if (t->fields[i].name && name && !strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

static inline bool type_is_record(const struct type *t)
{
	return t->kind == TY_TUPLE && t->nfields && t->fields[0].name;
}

/* ---- nodes -------------------------------------------------------------- */

enum node_kind {
	/* expressions */
	N_INT,		/* 42, 'c' */
	N_STR,		/* "text" */
	N_IDENT,	/* builtin variable: pid, comm, args, arg0 ... */
	N_VAR,		/* $x */
	N_MAP,		/* @m, @m[k], @m[k1, k2] */
	N_POSITIONAL,	/* $1 ... $N, $# */
	N_CALL,		/* f(a, b) */
	N_BINARY,	/* a OP b */
	N_UNARY,	/* -a !a ~a *a &a */
	N_INCDEC,	/* ++x x++ --x x-- on $x or @m[..] */
	N_TERNARY,	/* c ? a : b */
	N_FIELD,	/* a.f  a->f */
	N_INDEX,	/* a[i] on a non-map expression */
	N_CAST,		/* (uint32)a  (struct foo *)a */
	N_SIZEOF,	/* sizeof(type) sizeof(expr) */
	N_TUPLE,	/* (a, b, ...) */
	/* statements */
	N_EXPR_STMT,	/* expr; */
	N_ASSIGN,	/* lvalue = e; lvalue OP= e */
	N_IF,		/* if (c) {..} else if .. else {..} */
	N_WHILE,	/* while (c) {..} */
	N_UNROLL,	/* unroll(N) {..} */
	N_FOR,		/* for ($kv : @m) {..}  for ($i : a..b) {..} */
	N_RETURN,	/* return; return e; */
	N_BREAK,	/* break; */
	N_CONTINUE,	/* continue; */
	N_BLOCK,	/* { stmts } */
	/* top level */
	N_PROBE,	/* attach, attach /pred/ { body } */
	N_MACRO,	/* macro name(params) { body }: expanded away by the parser */
	N_STRUCT_DEF,	/* struct name { fields };  union name { fields };
			 * enum name? { A = 1, B }; */
	N_PROGRAM,
};

/* Operator codes: binary, unary and compound-assignment operators share
 * this set (OP_NONE for plain '=').  Values are the token text. */
enum ast_op {
	OP_NONE,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_AND, OP_OR, OP_XOR, OP_SHL, OP_SHR,	/* & | ^ << >> */
	OP_LAND, OP_LOR,			/* && || */
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_NEG, OP_LNOT, OP_BNOT, OP_DEREF, OP_ADDR,	/* unary - ! ~ * & */
};

/* A C type as written in a cast, sizeof or struct field:
 * "unsigned int", "uint64", "struct task_struct", plus '*'s and an array
 * length.  Sema maps it to a struct type. */
struct ast_ctype {
	const char *name;	/* base name: "int", "uint64", "char" */
	bool is_struct;		/* written "struct NAME" or "union NAME" (one
				 * namespace of tags, as in C) */
	bool is_union;		/* written "union NAME" */
	bool is_enum;		/* written "enum NAME" */
	bool is_unsigned;	/* "unsigned int" etc. */
	int ptr_depth;		/* number of '*' */
	int array_len;		/* -1 unless NAME[N] in a struct field */
	int dims[4];		/* NAME[N][M]..: every length, outermost first */
	int ndims;
	int bit_width;		/* NAME : W in a struct field; 0 for none */
	struct ast_node *of;	/* typeof(e): the type of e (name unused) */
};

/* One attach point as written ("tracepoint:sched:sched_switch",
 * "uprobe:/bin/bash:readline", "BEGIN").  The parser keeps the raw text;
 * sema splits it and resolves wildcards. */
struct ast_attach {
	struct ast_attach *next;
	struct src_loc loc;
	const char *raw;
};

struct ast_node;

/* one "name = value" of a config block, as written */
struct ast_config {
	struct ast_config *next;
	struct src_loc loc;		/* the name */
	struct src_loc value_loc;
	const char *name, *value;
};

/* let @m = lruhash(100); before the probes: the BPF map type and size */
struct ast_map_decl {
	struct ast_map_decl *next;
	struct src_loc loc, type_loc, entries_loc;	/* the map, the type, the size */
	const char *name;	/* "@m" */
	const char *type;	/* hash lruhash percpuhash percpulruhash percpuarray */
	uint64_t entries;
};

/* import "lib.bpf.c"; (or a directory holding one, or a module of sonde's
 * stdlib): C compiled and linked into the program (codegen/cimport.c) */
struct ast_cimport {
	struct ast_cimport *next;
	struct src_loc loc;	/* the import statement */
	const char *path;	/* the file, or NULL for a module of sonde's own */
	const char *module;	/* "stdlib/test": the stdlib module's name */
	const char *tried;	/* a module: the path that was looked at first */
};

struct ast_struct_field {
	struct ast_struct_field *next;
	struct src_loc loc;
	const char *name;
	struct ast_ctype ctype;	/* struct and union members */
	struct ast_node *value;	/* enumerators: "= expr", or NULL */
};

/* What a N_STRUCT_DEF defines. */
enum ast_tag { TAG_STRUCT, TAG_UNION, TAG_ENUM };

struct sema_event;
struct builtin;

/* What sema (or a builtin's check) learned about a node that codegen
 * needs; each field names what sets it. */
struct ast_note {
	const struct builtin *builtin;	/* N_CALL, N_IDENT: the builtin sema resolved
					 * the name to (codegen lowers through it) */
	struct sema_event *event;	/* printf-like calls, print(expr), join():
					 * the event the call sends */
	const struct type *record;	/* N_FIELD: the struct the field is read from */
	uint64_t value;			/* a constant folded at compile time: kaddr()'s
					 * address, cgroupid()'s inode, reg()'s pt_regs
					 * offset, signal()'s number, uaddr()'s symbol;
					 * print(@m)'s enum print_then, and 1 on the
					 * clear()/zero() joined to it (sema/printclear.c) */
	uint64_t site;			/* uaddr(): the probed site's link-time address
					 * (0: the binary is not position-independent) */
	bool narrow;			/* N_ASSIGN, N_INCDEC of a variable declared
					 * narrower (let $x: int16): the value stored is
					 * converted to its type, 70000 to 4464 */
};

struct ast_node {
	enum node_kind kind;
	struct src_loc loc;
	struct type type;	/* set by sema */
	struct ast_node *next;	/* sibling in a list */
	struct ast_note note;	/* what sema learned for codegen */
	union {
		struct { uint64_t value; bool is_char, is_signed;
			 const struct type_enum *enumv; } i;	/* N_INT; is_signed: an enumerator, int64 whatever its bits;
			 * enumv: the script's enum it names (printf's %s prints its name) */
		struct { const char *value; uint32_t len; } s;		/* N_STR: len excludes NUL */
		struct { const char *name; } ident;			/* N_IDENT */
		struct { const char *name; } var;			/* N_VAR: without '$' */
		struct { const char *name; struct ast_node *keys; int nkeys; } map; /* N_MAP: name with '@' ("@" alone for anonymous) */
		struct { int index; } pos;				/* N_POSITIONAL: 0 is $# */
		struct { const char *name; struct ast_node *args; int nargs; bool macro_other; } call;	/* N_CALL; macro_other: a macro of the name takes other arguments (the builtin's call, or an error) */
		struct { enum ast_op op; struct ast_node *lhs, *rhs; } bin;	/* N_BINARY */
		struct { enum ast_op op; struct ast_node *operand; } un;	/* N_UNARY */
		struct { struct ast_node *target; bool is_inc, is_post; } incdec;	/* N_INCDEC */
		struct { struct ast_node *cond, *then, *els; } tern;	/* N_TERNARY: then NULL for a ?: b */
		struct { struct ast_node *base; const char *name; bool is_arrow; } field; /* N_FIELD */
		struct { struct ast_node *base, *index; } index;	/* N_INDEX */
		struct { struct ast_ctype ctype; struct ast_node *operand; } cast; /* N_CAST */
		struct { struct ast_ctype ctype; struct ast_node *expr; const char *field; } size_of; /* N_SIZEOF: expr NULL for a type; field: offsetof(type, a.b) */
		struct { struct ast_node *elems; int nelems;
			 const char **names; } tuple;	/* N_TUPLE; names: a record's
			 * field names ((a=1, b="x")), NULL for a tuple */
		struct { struct ast_node *expr; bool discard; } expr_stmt;	/* N_EXPR_STMT; discard: `_ = e;` */
		struct { struct ast_node *value; } ret;		/* N_RETURN: value NULL for `return;` */
		struct { struct ast_node *target; enum ast_op op; struct ast_node *value;
			 bool is_let, has_ctype; struct ast_ctype ctype; } assign; /* N_ASSIGN; "let $x": is_let,
			 * value NULL without "= e", ctype when ": type" is written */
		struct { struct ast_node *var, *map, *start, *end, *body; } for_;	/* N_FOR: map, or start..end */
		struct { struct ast_node *cond, *then, *els; } if_;	/* N_IF: then is N_BLOCK; els NULL, N_BLOCK or N_IF */
		struct { struct ast_node *cond, *body; } while_;	/* N_WHILE */
		struct { struct ast_node *count, *body; } unroll;	/* N_UNROLL: count is an expression (N_INT after sema) */
		struct { struct ast_node *stmts, *value; bool open_end; } block;	/* N_BLOCK: value, the last
			 * expression of a block used as a value ({ ..; e }); open_end: the
			 * last statement had no ';' (it may become the value) */
		struct { const char *name; struct ast_node *params, *body; int nparams; } macro; /* N_MACRO */
		struct { struct ast_attach *attach; struct ast_node *pred, *body; int index; } probe; /* N_PROBE: pred may be NULL; body is N_BLOCK */
		struct { const char *name; struct ast_struct_field *fields; enum ast_tag tag; bool packed; } sdef;	/* N_STRUCT_DEF: name NULL for an anonymous enum; an enum's fields are its enumerators; packed: __attribute__((packed)) */
		struct { struct ast_node *items; struct ast_config *config;
			 struct ast_map_decl *decls; bool newer;
			 struct ast_cimport *cimports; } program;	/* N_PROGRAM: N_PROBE and N_STRUCT_DEF
			 * in source order; the config block; map declarations; newer: it uses syntax
			 * bpftrace 0.17 does not parse (so it is no 0.17 script); cimports:
			 * the C its imports bring (parser/import.c) */
	};
};

struct ast_node *ast_new(struct arena *a, enum node_kind kind, struct src_loc loc);
/* fn(child, ctx) for each direct child of n (expressions, statements,
 * blocks), in source order */
void ast_each_child(const struct ast_node *n, void (*fn)(const struct ast_node *, void *), void *ctx);
/* a block whose last statement is an expression with no ';' after it:
 * that expression becomes block.value; false when there is none */
bool ast_block_take_value(struct ast_node *block);
/* a copy of the tree under n (lists included, n's own next excluded) */
struct ast_node *ast_copy(struct arena *a, const struct ast_node *n);
const char *ast_kind_name(enum node_kind kind);
const char *ast_op_text(enum ast_op op);
/* --emit ast: an indented tree, one node a line, with types once sema ran */
void ast_dump(FILE *out, const struct ast_node *n);
/* C's integer promotions and usual arithmetic conversions: is an
 * operation on l and r signed?  (uint64 > -1 is unsigned; uint8 + int8 and
 * uint32 < int64 are signed.)  Values are 64-bit in registers either way. */
bool type_arith_signed(const struct type *l, const struct type *r);
/* text of a type for messages: "uint64", "string[64]", "hist", "(int64, string[16])" */
const char *type_str(struct arena *a, const struct type *t);

/* What a type kind is, in one table (ast.c) instead of a predicate per
 * stage.  A new kind is a row there; the passes read these bits. */
enum type_trait {
	TT_INT_STORAGE = 1u << 0,	/* held as 8 bytes holding an integer in maps
					 * and events, whatever it prints as */
	TT_INT_VALUE = 1u << 1,		/* an i64 in generated code (the int storage
					 * kinds, plus count/sum/min/max read back) */
	TT_AGGREGATE = 1u << 2,		/* what an aggregation function stores */
	TT_PRINTS_NUMBER = 1u << 3,	/* a map value printed as a plain number
					 * (sorted by it); the rest are rendered text */
	TT_MANY_TO_ONE = 1u << 4,	/* many values print the same (a container
					 * spans cgroups): keys holding it fold */
};
unsigned type_traits(enum type_kind k);
/* does t's kind have every trait in `traits`? */
bool type_is(const struct type *t, unsigned traits);
/* does t, or a field of a tuple t (at any depth), satisfy pred? */
bool type_any(const struct type *t, bool (*pred)(const struct type *t));

#endif
