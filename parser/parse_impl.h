/*
 * parse_impl.h - private to the parser: what grammar.y and parse.c share.
 *
 * The bison grammar (grammar.y) only recognises structure; every node it
 * makes comes from one of the small builders below, defined in parse.c so
 * that they compile under the project's -Werror warning set (the generated
 * parser does not).  struct parse_ctx is bison's %param: the arena, the
 * diag, the scanner and the result.  Nothing outside parser/ and lexer/
 * includes this header; other stages use parser.h.
 */
#ifndef SONDE_PARSE_IMPL_H
#define SONDE_PARSE_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/diag.h"
#include "lexer/lexer.h"
#include "parser/ast.h"

/* how deep a program may nest: parse.c, parse_depth_ok() */
enum { PARSE_MAX_DEPTH = 200 };

struct parse_config_list {
	struct ast_config *head, *tail;
};

/* import "PATH"; as written: the statement and its string */
struct parse_import {
	struct parse_import *next;
	const char *path;
	struct src_loc loc, path_loc;
};

struct parse_ctx {
	struct arena *arena;
	struct diag *diag;
	struct lexer *lx;
	struct ast_node *root;	/* N_PROGRAM once the start rule reduced */
	int nprobes;		/* probes seen so far: the next probe's index */
	int expr_nodes;		/* expression nodes of the current statement */
	bool failed;		/* a builder reported an error */
	struct ast_map_decl *decls, **decls_tail;	/* let @m = hash(n); in order */
	struct parse_config_list config;	/* the config = { } block */
	bool have_config;
	bool newer;		/* syntax bpftrace 0.17 does not parse (let, for,
				 * macros, block values, map declarations) */
	/* import "PATH"; statements in order, for parser/import.c */
	struct parse_import *imports, **imports_tail;
	const char *body_seen;	/* "a probe", "a macro", "a map declaration":
				 * the first of them, which imports go before */
	bool combined;		/* the text with its imports spliced in
				 * (import.c): their rules were checked */
	/* anonymous structs and unions met inside a definition, named by
	 * where they are: they go into the program before the item holding
	 * them */
	struct ast_node *anon_head, *anon_tail;
};

/* One error per parse: the first is reported, and the parse has failed;
 * a failed parse reads on to the end of a statement (or of the grammar),
 * and what it meets there is not news.  The lexer keeps to the same rule. */
void parse_error(struct parse_ctx *px, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A node list under construction: appending is O(1). */
struct parse_list {
	struct ast_node *head, *tail;
	int n;
	bool open_end;		/* statements: the last had no ';' after it */
};

struct parse_attach_list {
	struct ast_attach *head, *tail;
};

struct parse_field_list {
	struct ast_struct_field *head, *tail;
};

/* The words of a C type as the grammar meets them ("unsigned", "long",
 * "struct foo", "const"), checked and folded into an ast_ctype by
 * parse_ctype_finish(). */
struct parse_type {
	struct src_loc loc;
	const char *text;	/* the words as written, for messages */
	const char *word;	/* intN/uintN/void/bool, a typedef name, or
				 * the struct name */
	bool is_struct;		/* "struct NAME" or "union NAME" */
	bool is_union, is_enum;	/* "union NAME", "enum NAME" */
	int n_signed, n_unsigned, n_char, n_short, n_int, n_long, n_other;
};

/* "struct { ... }" as a type: a definition named by its place, kept for
 * parse_take_anon; the type names it */
struct parse_type parse_anon_tag(struct parse_ctx *px, enum ast_tag tag,
				 struct parse_field_list fields, struct src_loc loc);
/* the anonymous definitions made so far appended to l, first */
struct parse_list parse_take_anon(struct parse_ctx *px, struct parse_list l);

/* Implemented by the generated grammar. */
int parse_yyparse(struct parse_ctx *px);

/* lists */
struct parse_list parse_list_add(struct parse_list l, struct ast_node *n);
struct parse_attach_list parse_attach_add(struct parse_ctx *px,
	struct parse_attach_list l, const char *raw, struct src_loc loc);
struct parse_field_list parse_field_add(struct parse_field_list l,
	struct ast_struct_field *f);

/* types */
struct parse_type parse_type_word(struct parse_ctx *px, const char *word,
				  struct src_loc loc);
/* "struct NAME", "union NAME", "enum NAME" */
struct parse_type parse_type_tag(struct parse_ctx *px, enum ast_tag tag,
				 const char *name, struct src_loc loc);
/* the next word of a type; parse_ctype_finish() checks the combination */
void parse_type_add(struct parse_ctx *px, struct parse_type *t,
		    struct parse_type w);
/* "(u32)": a cast to a name the parser cannot know; sema resolves it */
struct ast_ctype parse_typedef(struct parse_ctx *px, const char *name);
bool parse_ctype_finish(struct parse_ctx *px, const struct parse_type *t,
			int ptr_depth, struct ast_ctype *out);

/* expressions */
struct ast_node *parse_int(struct parse_ctx *px, uint64_t v, bool is_char,
			   struct src_loc loc);
struct ast_node *parse_str(struct parse_ctx *px, const char *s, uint32_t len,
			   struct src_loc loc);
struct ast_node *parse_name(struct parse_ctx *px, enum node_kind kind,
			    const char *name, struct src_loc loc);
struct ast_node *parse_positional(struct parse_ctx *px, int index,
				  struct src_loc loc);
struct ast_node *parse_map(struct parse_ctx *px, const char *name,
			   struct parse_list keys, struct src_loc loc);
struct ast_node *parse_call(struct parse_ctx *px, const char *name,
			    struct parse_list args, struct src_loc loc);
struct ast_node *parse_binary(struct parse_ctx *px, enum ast_op op,
			      struct ast_node *l, struct ast_node *r,
			      struct src_loc loc);
struct ast_node *parse_unary(struct parse_ctx *px, enum ast_op op,
			     struct ast_node *e, struct src_loc loc);
/* NULL (after reporting) unless `target` is a variable or a map */
struct ast_node *parse_incdec(struct parse_ctx *px, struct ast_node *target,
			      bool is_inc, bool is_post, struct src_loc loc);
struct ast_node *parse_ternary(struct parse_ctx *px, struct ast_node *c,
			       struct ast_node *a, struct ast_node *b);
struct ast_node *parse_field(struct parse_ctx *px, struct ast_node *base,
			     const char *name, bool is_arrow, struct src_loc loc);
struct ast_node *parse_tuple_field(struct parse_ctx *px, struct ast_node *base,
				   uint64_t index, struct src_loc loc);
struct ast_node *parse_index(struct parse_ctx *px, struct ast_node *base,
			     struct ast_node *index, struct src_loc loc);
struct ast_node *parse_cast(struct parse_ctx *px, struct ast_ctype ct,
			    struct ast_node *e, struct src_loc loc);
struct ast_node *parse_sizeof(struct parse_ctx *px, struct ast_ctype ct,
			      struct ast_node *e, struct src_loc loc);
/* primary = "(" name "=" expr ("," name "=" expr)* ")": a record; each
 * field arrives as an N_ASSIGN of the name (an N_IDENT) and the value */
struct ast_node *parse_record_field(struct parse_ctx *px, const char *name,
				    struct src_loc name_loc, struct ast_node *value,
				    struct src_loc loc);
struct ast_node *parse_record(struct parse_ctx *px, struct parse_list fields,
			      struct src_loc loc);
struct ast_node *parse_tuple(struct parse_ctx *px, struct ast_node *first,
			     struct parse_list rest, struct src_loc loc);

/* statements: these (and parse_probe) return NULL once a builder failed */
struct ast_node *parse_expr_stmt(struct parse_ctx *px, struct ast_node *e);
struct ast_node *parse_assign(struct parse_ctx *px, struct ast_node *target,
			      enum ast_op op, struct ast_node *value,
			      struct src_loc loc);
struct ast_node *parse_if(struct parse_ctx *px, struct ast_node *cond,
			  struct ast_node *then, struct ast_node *els,
			  struct src_loc loc);
struct ast_node *parse_loop(struct parse_ctx *px, enum node_kind kind,
			    struct ast_node *head, struct ast_node *body,
			    struct src_loc loc);
/* "let $x (: type)? (= e)?": ct and value may be NULL */
struct ast_node *parse_let(struct parse_ctx *px, struct ast_node *var,
			   const struct ast_ctype *ct, struct ast_node *value,
			   struct src_loc loc);
/* "for ($kv : @m) {}" (end NULL, start the map) or "for ($i : a..b) {}" */
struct ast_node *parse_for(struct parse_ctx *px, struct ast_node *var,
			   struct ast_node *start, struct ast_node *end,
			   struct ast_node *body, struct src_loc loc);
/* typeof(e) where a type is written: a ctype standing for e's type */
struct ast_ctype parse_typeof(struct parse_ctx *px, struct ast_node *e);
/* "(" ctype "[" N? "]" ")" unary: the newest bpftrace's array cast (n 0:
 * the length follows from the operand's size) */
struct ast_node *parse_array_cast(struct parse_ctx *px, struct ast_ctype ct, uint64_t n,
				  struct src_loc n_loc, struct ast_node *e, struct src_loc loc);
/* simple_stmt = "_" "=" expr: the newest bpftrace's discard; another
 * identifier is an error */
struct ast_node *parse_discard(struct parse_ctx *px, const char *name, struct src_loc name_loc,
			       struct ast_node *value);
/* simple_stmt = "return" expr: the newest bpftrace's return with a value */
struct ast_node *parse_return(struct parse_ctx *px, struct ast_node *value, struct src_loc loc);
struct ast_node *parse_jump(struct parse_ctx *px, enum node_kind kind,
			    struct src_loc loc);
struct ast_node *parse_block(struct parse_ctx *px, struct parse_list stmts,
			     struct src_loc loc);
/* a block where a value goes: its last statement, an expression without
 * ';', becomes block.value; NULL (after reporting) when there is none */
struct ast_node *parse_block_value(struct parse_ctx *px, struct ast_node *block);
/* if c { a } else { b } as a value: c ? a : b over block values */
struct ast_node *parse_if_value(struct parse_ctx *px, struct ast_node *cond,
				struct ast_node *then, struct ast_node *els,
				struct src_loc loc);
/* macro_def: params are N_VAR, N_MAP (no keys) and N_IDENT nodes */
struct ast_node *parse_macro(struct parse_ctx *px, const char *name,
			     struct parse_list params, struct ast_node *body,
			     struct src_loc loc);

/* top level */
struct ast_node *parse_probe(struct parse_ctx *px, struct parse_attach_list at,
			     struct ast_node *pred, struct ast_node *body,
			     struct src_loc loc);
/* one declarator of a struct field: "*name", "name[16]" */
struct ast_struct_field *parse_declarator(struct parse_ctx *px, int ptr_depth,
	const char *name, struct src_loc loc);
/* "name[N]": NULL (after reporting) if N is not a sane array length */
struct ast_struct_field *parse_array_declarator(struct parse_ctx *px,
	struct ast_struct_field *f, uint64_t len, struct src_loc len_loc,
	struct src_loc loc);
struct ast_struct_field *parse_bitfield(struct parse_ctx *px, struct ast_struct_field *f,
					uint64_t width, struct src_loc wloc);
/* give every declarator of one "TYPE a, *b, c[4];" line its base type */
bool parse_field_decl(struct parse_ctx *px, const struct parse_type *t,
		      struct parse_field_list decls);
struct ast_node *parse_struct_def(struct parse_ctx *px, enum ast_tag tag,
				  const char *name, struct parse_field_list fields,
				  struct src_loc loc);
/* enumerator = name ("=" expr)? */
struct ast_struct_field *parse_enumerator(struct parse_ctx *px, const char *name,
					  struct ast_node *value, struct src_loc loc);
struct ast_config *parse_config_item(struct parse_ctx *px, const char *name,
				     struct src_loc name_loc, const char *value,
				     struct src_loc value_loc);
struct parse_config_list parse_config_add(struct parse_config_list l, struct ast_config *c);
const char *parse_int_text(struct parse_ctx *px, uint64_t v);
void parse_map_decl(struct parse_ctx *px, const char *map, struct src_loc map_loc,
		    const char *type, struct src_loc type_loc, uint64_t entries,
		    struct src_loc entries_loc);
/* import = "import" string ";" */
void parse_import(struct parse_ctx *px, const char *path, uint32_t len, struct src_loc path_loc,
		  struct src_loc loc);
/* the grammar over src alone (no macro expansion): px->root, or false
 * after reporting; px holds the arena and diag */
bool parse_grammar(struct parse_ctx *px, const char *src);
/* import.c: the files px->imports name, read; the text they make with the
 * script's own (*src then points at it, and d->src too) parsed again.
 * NULL after reporting */
struct ast_node *parse_imports(struct parse_ctx *px, const char **src);
/* macro.c: replace macro calls by their expansions and drop the
 * definitions; false after reporting an error */
bool parse_expand_macros(struct parse_ctx *px, struct ast_node *prog);
void parse_config_block(struct parse_ctx *px, struct parse_config_list config, struct src_loc loc);
struct ast_node *parse_program_node(struct parse_ctx *px, struct parse_config_list config,
				    struct parse_list items, struct src_loc loc);

#endif
