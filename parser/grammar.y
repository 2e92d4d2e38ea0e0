/*
 * grammar.y - the bison grammar of the tracing language.
 *
 * A pure (reentrant) LALR(1) parser over the tokens of lexer/lexer.l.  It
 * only recognises structure: every action hands its pieces to a builder in
 * parse.c (parse_binary, parse_probe, ...) and stores the result.  Operator
 * precedence follows C: binary operators are declared with %left/%right
 * below rather than spelled out as one nonterminal per level; unary and
 * postfix operators have nonterminals of their own.  Lists are
 * left-recursive so the parser stack stays shallow however long a block is.
 *
 * Syntax errors are reported once, by yyreport_syntax_error() (bison's
 * "custom" error hook), as
 *
 *   syntax error: unexpected '}', expecting ';'
 *
 * with the offending token's location; the parse then stops (there are no
 * error-recovery rules) and parse_program() returns NULL.  A lexical error
 * reaches the parser as bison's error token, which stops it silently: the
 * scanner already printed the message.
 */

%define api.pure full
%define api.prefix {parse_yy}
%define api.token.prefix {TOK_}
%define api.location.type {struct src_loc}
%define parse.error custom
%define parse.lac full
%locations
%param {struct parse_ctx *px}
%expect 0

%code requires {
#include "parser/parse_impl.h"
}

%code provides {
/* the scanner entry the grammar pulls tokens from (lexer/lexer.l) */
int lex_next(PARSE_YYSTYPE *val, PARSE_YYLTYPE *loc, struct lexer *lx);
}

%code {
#include <stdio.h>
#include <string.h>

#define parse_yylex(val, loc, px) lex_next((val), (loc), (px)->lx)

/* A rule's span runs from its first non-empty symbol to its last; an
 * empty rule is a zero-width span just after the symbol before it. */
#define YYLLOC_DEFAULT(cur, rhs, n)					\
	do {								\
		if (n) {						\
			int k_ = 1;					\
			while (k_ < (n) && YYRHSLOC(rhs, k_).line ==	\
			       YYRHSLOC(rhs, k_).end_line &&		\
			       YYRHSLOC(rhs, k_).col ==			\
			       YYRHSLOC(rhs, k_).end_col)		\
				k_++;					\
			(cur) = diag_span(YYRHSLOC(rhs, k_),		\
					  YYRHSLOC(rhs, n));		\
		} else {						\
			(cur) = YYRHSLOC(rhs, 0);			\
			(cur).line = (cur).end_line;			\
			(cur).col = (cur).end_col;			\
		}							\
	} while (0)

/* Bison's stack limit: only programs nested far deeper than
 * PARSE_MAX_DEPTH reach it, and get the same message. */
#define YYMAXDEPTH 10000

/* A builder returned NULL after reporting a located error: stop. */
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)

static void parse_yyerror(const struct src_loc *loc, struct parse_ctx *px,
			  const char *msg);
}

%union {
	uint64_t ival;
	struct { char *p; uint32_t len; } str;
	const char *name;
	int pos;
	enum ast_op op;
	struct ast_node *node;
	struct parse_list list;
	struct parse_attach_list attach;
	struct parse_field_list fields;
	struct parse_config_list config;
	struct ast_config *setting;
	struct ast_struct_field *field;
	struct parse_type type;
	struct ast_ctype ctype;
}

%token EOI 0		"end of input"
%token <name> ATTACH	"attach point"
%token <name> IDENT	"identifier"
%token <name> VAR	"variable"
%token <name> MAP	"map"
%token <pos> POSITIONAL	"positional parameter"
%token <ival> INT	"integer"
%token <ival> CHAR	"character literal"
%token <str> STRING	"string"
%token <name> TYPE_WORD	"type name"
%token <name> TYPE_QUAL	"type qualifier"
%token <name> TYPE_NAME	"typedef name"
%token <name> ATTRIBUTE	"'__attribute__((...))'"
%token <op> ASSIGN_OP	"compound assignment"
%token IF "'if'" ELSE "'else'" WHILE "'while'" UNROLL "'unroll'"
%token RETURN "'return'" BREAK "'break'" CONTINUE "'continue'"
%token IMPORT "'import'"
%token LET "'let'" FOR "'for'" DOTDOT "'..'" MACRO "'macro'"
%token OFFSETOF "'offsetof'" TYPEOF "'typeof'"
%token SIZEOF "'sizeof'" STRUCT "'struct'" CONFIG "'config'" UNION "'union'" ENUM "'enum'"
%token ENDPRED "'/'"
%token OR_OR "'||'" AND_AND "'&&'" EQ "'=='" NE "'!='" LE "'<='" GE "'>='"
%token SHL "'<<'" SHR "'>>'" INC "'++'" DEC "'--'" ARROW "'->'"
/* '{' and 'if' where an operand is expected (after an operator, '=', '(',
 * ',' ...): they start a block expression and an if expression; the
 * scanner tells them from the statements' (lex_in_value in lexer.l) */
%token LBRACE_VALUE "'{' (a block value)" IF_VALUE "'if' (a value)"

%type <list> items stmts stmt_seq expr_list call_args macro_params record_fields
%type <node> item probe pred block simple_stmt compound_stmt if_stmt
%type <ival> attributes
%type <node> lvalue map expr unary cast_operand postfix primary struct_def
%type <node> if_value if_else macro_def macro_param map_decl config record_field import
%type <attach> attach_list
%type <config> settings setting_list
%type <setting> setting
%type <fields> field_decls member_decls field_decl declarators enumerators
%type <field> declarator enumerator
%type <type> type_spec type_item
%type <ctype> ctype typeof_type
%type <name> member_path
%type <pos> stars
%type <name> field_name

/* the order "expecting" lists them in */
%token ';' ',' ']' ')'

/* C precedence, loosest first */
%right '?' ':'
%left OR_OR
%left AND_AND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' '>' LE GE
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence MAP_BARE		/* "@m" then '[' takes the keys */
%precedence '['
%precedence PAREN_IDENT		/* "(name" then ')' may start a cast */
%precedence ')'

%%

/* program = item*  (one config block, anywhere before the first probe:
 * the preamble's #include, #define, types, config and map declarations
 * come in any order) */
program
	: items			{ px->root = parse_program_node(px, px->config, $1, @$); }
	;

/* config = "config" "=" "{" (setting (";" setting)* ";"?)? "}"
 * setting = name "=" (word | integer | string)
 * kept on the program, not as an item: NULL here */
config
	: CONFIG '=' '{' settings '}'
				{ parse_config_block(px, $4, @1); $$ = NULL; }
	;

settings
	: %empty		{ $$ = (struct parse_config_list){0}; }
	| setting_list
	| setting_list ';'
	;

setting_list
	: setting		{ $$ = parse_config_add((struct parse_config_list){0}, $1); }
	| setting_list ';' setting
				{ $$ = parse_config_add($1, $3); }
	;

setting
	: IDENT '=' IDENT	{ $$ = parse_config_item(px, $1, @1, $3, @3); }
	| IDENT '=' INT		{ $$ = parse_config_item(px, $1, @1, parse_int_text(px, $3), @3); }
	| IDENT '=' STRING	{ $$ = parse_config_item(px, $1, @1, $3.p, @3); }
	;

items
	: %empty		{ $$ = (struct parse_list){0}; }
	| items item		{ $$ = parse_take_anon(px, $1); if ($2) $$ = parse_list_add($$, $2); }
	;

/* item = probe | struct_def (struct, union and enum definitions) | macro_def
 *      | map_decl | config | import */
item
	: probe
	| struct_def
	| macro_def
	| map_decl
	| config
	| import
	;

/* import = "import" string ";"  (after the C definitions, before the
 * probes, macros and map declarations; parser/import.c reads the files)
 * kept on the parse, not as an item: NULL here */
import
	: IMPORT STRING ';'	{ parse_import(px, $2.p, $2.len, @2, @$); $$ = NULL; }
	;

/* map_decl = "let" map "=" name "(" integer ")" ";"  (let @m = lruhash(100);)
 * kept on the program, not as an item: NULL here */
map_decl
	: LET MAP '=' IDENT '(' INT ')' ';'
				{ parse_map_decl(px, $2, @2, $4, @4, $6, @6); $$ = NULL; }
	;

/* macro_def = "macro" name "(" (macro_param ("," macro_param)*)? ")" block
 * macro_param = "$" name | map | name */
macro_def
	: MACRO IDENT '(' ')' block
				{ $$ = parse_macro(px, $2, (struct parse_list){0}, $5, @$); }
	| MACRO IDENT '(' macro_params ')' block
				{ $$ = parse_macro(px, $2, $4, $6, @$); }
	;

macro_params
	: macro_param		{ $$ = parse_list_add((struct parse_list){0}, $1); }
	| macro_params ',' macro_param
				{ $$ = parse_list_add($1, $3); }
	;

macro_param
	: VAR			{ $$ = parse_name(px, N_VAR, $1, @$); }
	| MAP			{ $$ = parse_map(px, $1, (struct parse_list){0}, @$); }
	| IDENT			{ $$ = parse_name(px, N_IDENT, $1, @$); }
	;

/* probe = attach ("," attach)* ("/" expr "/")? block */
probe
	: attach_list pred block
				{ CHECK($$ = parse_probe(px, $1, $2, $3, @$)); }
	;

attach_list
	: ATTACH		{ $$ = parse_attach_add(px, (struct parse_attach_list){0}, $1, @1); }
	| attach_list ',' ATTACH
				{ $$ = parse_attach_add(px, $1, $3, @3); }
	;

pred
	: %empty		{ $$ = NULL; }
	| '/' expr ENDPRED	{ $$ = $2; }
	;

/* block = "{" (stmt (";" stmt)*)? ";"? "}"
 * where if/while/unroll/{} need no ";" after them, and stray ";" are empty
 * statements */
block
	: '{' stmts '}'		{ $$ = parse_block(px, $2, @$); }
	;

stmts
	: stmt_seq
	| stmt_seq simple_stmt	{ $$ = parse_list_add($1, $2); $$.open_end = true; }
	;

stmt_seq
	: %empty		{ $$ = (struct parse_list){0}; }
	| stmt_seq simple_stmt ';'
				{ $$ = parse_list_add($1, $2); }
	| stmt_seq compound_stmt
				{ $$ = parse_list_add($1, $2); }
	| stmt_seq ';'
	;

/* simple_stmt = expr | lvalue ("=" | "+=" | ...) expr | "_" "=" expr
 *             | "let" "$" name (":" ctype)? ("=" expr)?
 *             | "return" expr? | "break" | "continue" */
simple_stmt
	: expr			{ CHECK($$ = parse_expr_stmt(px, $1)); }
	| LET VAR		{ CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), NULL, NULL, @$)); }
	| LET VAR '=' expr	{ CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), NULL, $4, @$)); }
	| LET VAR ':' ctype	{ CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), &$4, NULL, @$)); }
	| LET VAR ':' typeof_type
				{ CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), &$4, NULL, @$)); }
	| LET VAR ':' typeof_type '=' expr
				{ CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), &$4, $6, @$)); }
	| LET VAR ':' ctype '=' expr
				{ CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), &$4, $6, @$)); }
	| LET VAR ':' ctype '[' INT ']'
				{ $4.ndims = 1; $4.dims[0] = (int)$6;
				  CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), &$4, NULL, @$)); }
	| LET VAR ':' ctype '[' INT ']' '=' expr
				{ $4.ndims = 1; $4.dims[0] = (int)$6;
				  CHECK($$ = parse_let(px, parse_name(px, N_VAR, $2, @2), &$4, $9, @$)); }
	| lvalue '=' expr	{ CHECK($$ = parse_assign(px, $1, OP_NONE, $3, @$)); }
	| IDENT '=' expr	{ CHECK($$ = parse_discard(px, $1, @1, $3)); }
	| lvalue ASSIGN_OP expr	{ CHECK($$ = parse_assign(px, $1, $2, $3, @$)); }
	| RETURN		{ $$ = parse_jump(px, N_RETURN, @$); }
	| RETURN expr		{ CHECK($$ = parse_return(px, $2, @$)); }
	| BREAK			{ $$ = parse_jump(px, N_BREAK, @$); }
	| CONTINUE		{ $$ = parse_jump(px, N_CONTINUE, @$); }
	;

/* compound_stmt = if_stmt | "while" "(" expr ")" block
 *               | "unroll" "(" expr ")" block | block
 *               | "for" "(" for_head ")" block | "for" for_head block
 * for_head = "$" name ":" (map | unary ".." unary)
 * (the newest bpftrace's tools write the loop without parentheses:
 * opensnoop.bt's `for $j : ((uint64)0)..((uint64)$max_path_depth) {`) */
compound_stmt
	: if_stmt
	| FOR '(' VAR ':' MAP ')' block
				{ CHECK($$ = parse_for(px, parse_name(px, N_VAR, $3, @3),
						       parse_map(px, $5, (struct parse_list){0}, @5),
						       NULL, $7, @$)); }
	| FOR VAR ':' MAP block
				{ CHECK($$ = parse_for(px, parse_name(px, N_VAR, $2, @2),
						       parse_map(px, $4, (struct parse_list){0}, @4),
						       NULL, $5, @$)); }
	| FOR '(' VAR ':' unary DOTDOT unary ')' block
				{ CHECK($$ = parse_for(px, parse_name(px, N_VAR, $3, @3), $5, $7, $9, @$)); }
	| FOR VAR ':' unary DOTDOT unary block
				{ CHECK($$ = parse_for(px, parse_name(px, N_VAR, $2, @2), $4, $6, $7, @$)); }
	| WHILE '(' expr ')' block
				{ CHECK($$ = parse_loop(px, N_WHILE, $3, $5, @$)); }
	| UNROLL '(' expr ')' block
				{ CHECK($$ = parse_loop(px, N_UNROLL, $3, $5, @$)); }
	| block
	;

/* if_stmt = "if" expr block ("else" (block | if_stmt))?
 * The parentheses bpftrace 0.17 requires are the expression's own: newer
 * bpftrace (and its tools, e.g. syscount.bt) also write "if $x {". */
if_stmt
	: IF expr block		{ CHECK($$ = parse_if(px, $2, $3, NULL, @$)); }
	| IF expr block ELSE block
				{ CHECK($$ = parse_if(px, $2, $3, $5, @$)); }
	| IF expr block ELSE if_stmt
				{ CHECK($$ = parse_if(px, $2, $3, $5, @$)); }
	;

/* if_value = "if" expr block "else" if_else
 * if_else = block | "if" expr block "else" if_else
 * An if with an else where an operand is expected is a value: each
 * branch's block ends in its value ($d = if ($a > 5) { 1 } else { 2 }) */
if_value
	: IF_VALUE expr block ELSE if_else
				{ CHECK($$ = parse_if_value(px, $2, $3, $5, @$)); }
	;

if_else
	: block
	| IF expr block ELSE if_else
				{ CHECK($$ = parse_if_value(px, $2, $3, $5, @$)); }
	;

/* lvalue = "$" name | map */
lvalue
	: VAR			{ $$ = parse_name(px, N_VAR, $1, @$); }
	| map
	;

/* map = "@" name? ("[" expr ("," expr)* "]")? */
map
	: MAP %prec MAP_BARE	{ $$ = parse_map(px, $1, (struct parse_list){0}, @$); }
	| MAP '[' expr_list ']'	{ $$ = parse_map(px, $1, $3, @$); }
	;

expr_list
	: expr			{ $$ = parse_list_add((struct parse_list){0}, $1); }
	| expr_list ',' expr	{ $$ = parse_list_add($1, $3); }
	;

call_args
	: expr			{ $$ = parse_list_add((struct parse_list){0}, $1); }
	| call_args ',' expr	{ $$ = parse_list_add($1, $3); }
	;

/* expr = expr "?" expr ":" expr | expr "?:" expr | expr binop expr | unary
 * ("a ?: b", the newest bpftrace's: a when it is not 0, else b; a
 * ternary without a then, its condition evaluated once)
 * (binary operators at C precedence, declared above) */
expr
	: expr '?' expr ':' expr
				{ $$ = parse_ternary(px, $1, $3, $5); }
	| expr '?' ':' expr	{ $$ = parse_ternary(px, $1, NULL, $4); }
	| expr OR_OR expr	{ $$ = parse_binary(px, OP_LOR, $1, $3, @$); }
	| expr AND_AND expr	{ $$ = parse_binary(px, OP_LAND, $1, $3, @$); }
	| expr '|' expr		{ $$ = parse_binary(px, OP_OR, $1, $3, @$); }
	| expr '^' expr		{ $$ = parse_binary(px, OP_XOR, $1, $3, @$); }
	| expr '&' expr		{ $$ = parse_binary(px, OP_AND, $1, $3, @$); }
	| expr EQ expr		{ $$ = parse_binary(px, OP_EQ, $1, $3, @$); }
	| expr NE expr		{ $$ = parse_binary(px, OP_NE, $1, $3, @$); }
	| expr '<' expr		{ $$ = parse_binary(px, OP_LT, $1, $3, @$); }
	| expr '>' expr		{ $$ = parse_binary(px, OP_GT, $1, $3, @$); }
	| expr LE expr		{ $$ = parse_binary(px, OP_LE, $1, $3, @$); }
	| expr GE expr		{ $$ = parse_binary(px, OP_GE, $1, $3, @$); }
	| expr SHL expr		{ $$ = parse_binary(px, OP_SHL, $1, $3, @$); }
	| expr SHR expr		{ $$ = parse_binary(px, OP_SHR, $1, $3, @$); }
	| expr '+' expr		{ $$ = parse_binary(px, OP_ADD, $1, $3, @$); }
	| expr '-' expr		{ $$ = parse_binary(px, OP_SUB, $1, $3, @$); }
	| expr '*' expr		{ $$ = parse_binary(px, OP_MUL, $1, $3, @$); }
	| expr '/' expr		{ $$ = parse_binary(px, OP_DIV, $1, $3, @$); }
	| expr '%' expr		{ $$ = parse_binary(px, OP_MOD, $1, $3, @$); }
	| unary
	;

/* unary = postfix | ("-" | "!" | "~" | "*" | "&" | "++" | "--") unary
 *       | "(" ctype ")" unary | "(" name ")" cast_operand
 *       | "(" ctype "[" integer? "]" ")" unary   (an array cast) */
unary
	: postfix
	| '-' unary		{ $$ = parse_unary(px, OP_NEG, $2, @$); }
	| '!' unary		{ $$ = parse_unary(px, OP_LNOT, $2, @$); }
	| '~' unary		{ $$ = parse_unary(px, OP_BNOT, $2, @$); }
	| '*' unary		{ $$ = parse_unary(px, OP_DEREF, $2, @$); }
	| '&' unary		{ $$ = parse_unary(px, OP_ADDR, $2, @$); }
	| INC unary		{ CHECK($$ = parse_incdec(px, $2, true, false, @$)); }
	| DEC unary		{ CHECK($$ = parse_incdec(px, $2, false, false, @$)); }
	| '(' ctype ')' unary	{ $$ = parse_cast(px, $2, $4, @$); }
	| '(' typeof_type ')' unary
				{ $$ = parse_cast(px, $2, $4, @$); }
	| '(' ctype '[' INT ']' ')' unary
				{ CHECK($$ = parse_array_cast(px, $2, $4, @4, $7, @$)); }
	| '(' ctype '[' ']' ')' unary
				{ CHECK($$ = parse_array_cast(px, $2, 0, @3, $6, @$)); }
	| '(' IDENT ')' cast_operand
				{ $$ = parse_cast(px, parse_typedef(px, $2), $4, @$); }
	;

/* A cast to a typedef name, "(u32)$x", as bpftrace reads it: "(name)" is
 * a cast only when what follows cannot continue an expression, so
 * "(pid) - 1" subtracts and "(u32)-1" is not a cast.
 * cast_operand = postfix | ("!" | "~") unary | "(" ctype ")" unary
 *              | "(" name ")" cast_operand */
cast_operand
	: postfix
	| '!' unary		{ $$ = parse_unary(px, OP_LNOT, $2, @$); }
	| '~' unary		{ $$ = parse_unary(px, OP_BNOT, $2, @$); }
	| '(' ctype ')' unary	{ $$ = parse_cast(px, $2, $4, @$); }
	| '(' typeof_type ')' unary
				{ $$ = parse_cast(px, $2, $4, @$); }
	| '(' ctype '[' INT ']' ')' unary
				{ CHECK($$ = parse_array_cast(px, $2, $4, @4, $7, @$)); }
	| '(' ctype '[' ']' ')' unary
				{ CHECK($$ = parse_array_cast(px, $2, 0, @3, $6, @$)); }
	| '(' IDENT ')' cast_operand
				{ $$ = parse_cast(px, parse_typedef(px, $2), $4, @$); }
	;

/* postfix = primary | postfix ("++" | "--") | postfix "[" expr "]"
 *         | postfix "." name | postfix "." integer | postfix "->" name */
postfix
	: primary
	| postfix INC		{ CHECK($$ = parse_incdec(px, $1, true, true, @$)); }
	| postfix DEC		{ CHECK($$ = parse_incdec(px, $1, false, true, @$)); }
	| postfix '[' expr ']'	{ $$ = parse_index(px, $1, $3, @$); }
	| postfix '.' field_name
				{ $$ = parse_field(px, $1, $3, false, @$); }
	| postfix '.' INT	{ $$ = parse_tuple_field(px, $1, $3, @$); }
	| postfix ARROW field_name
				{ $$ = parse_field(px, $1, $3, true, @$); }
	;

field_name
	: IDENT
	| TYPE_WORD
	;

/* primary = integer | char | string | ident | "$" name | "$" N | "$#"
 *         | map | ident "(" args? ")" | "(" ident ")" | "(" expr ")"
 *         | "(" expr ("," expr)+ ")"
 *         | "sizeof" "(" (ctype | expr) ")"
 *         | "{" stmts "}" | if_value   (where an operand is expected: a
 *           block whose last statement is an expression without ';' is
 *           that expression's value, { let $b = 1; $b } + 1) */
primary
	: INT			{ $$ = parse_int(px, $1, false, @$); }
	| CHAR			{ $$ = parse_int(px, $1, true, @$); }
	| STRING		{ $$ = parse_str(px, $1.p, $1.len, @$); }
	| IDENT %prec PAREN_IDENT
				{ $$ = parse_name(px, N_IDENT, $1, @$); }
	| VAR			{ $$ = parse_name(px, N_VAR, $1, @$); }
	| POSITIONAL		{ $$ = parse_positional(px, $1, @$); }
	| map
	| IDENT '(' ')'		{ $$ = parse_call(px, $1, (struct parse_list){0}, @$); }
	| IDENT '(' call_args ')'
				{ $$ = parse_call(px, $1, $3, @$); }
	| '(' IDENT ')'		{ $$ = parse_name(px, N_IDENT, $2, @2); }
	| '(' expr ')'		{ $$ = $2; }
	| '(' expr ',' expr_list ')'
				{ $$ = parse_tuple(px, $2, $4, @$); }
	| '(' record_fields ')'	{ CHECK($$ = parse_record(px, $2, @$)); }
	| SIZEOF '(' ctype ')'	{ $$ = parse_sizeof(px, $3, NULL, @$); }
	| SIZEOF '(' expr ')'	{ $$ = parse_sizeof(px, (struct ast_ctype){0}, $3, @$); }
	| OFFSETOF '(' ctype ',' member_path ')'
				{ $$ = parse_sizeof(px, $3, NULL, @$); $$->size_of.field = $5; }
	| LBRACE_VALUE stmts '}'
				{ CHECK($$ = parse_block_value(px, parse_block(px, $2, @$))); }
	| if_value
	;

/* record_fields = name "=" expr ("," name "=" expr)*: (a=1, b="x") */
record_fields
	: record_field		{ $$ = parse_list_add((struct parse_list){0}, $1); }
	| record_fields ',' record_field
				{ $$ = parse_list_add($1, $3); }
	;

record_field
	: IDENT '=' expr	{ $$ = parse_record_field(px, $1, @1, $3, @$); }
	;

/* member_path = name ("." name)* : offsetof(struct S, a.b) */
member_path
	: IDENT
	| member_path '.' IDENT	{ $$ = arena_printf(px->arena, "%s.%s", $1, $3); }
	;

/* typeof_type = "typeof" "(" (expr | ctype) ")": the newest bpftrace's
 * type of an expression (not evaluated), where a type is written */
typeof_type
	: TYPEOF '(' expr ')'	{ $$ = parse_typeof(px, $3); }
	| TYPEOF '(' ctype ')'	{ px->newer = true; $$ = $3; }
	;

/* ctype = type_item+ "*"* ; e.g. "unsigned long", "struct foo *" */
ctype
	: type_spec stars	{ CHECK(parse_ctype_finish(px, &$1, $2, &$$)); }
	;

type_spec
	: type_item
	| type_spec type_item	{ $$ = $1; parse_type_add(px, &$$, $2); }
	;

type_item
	: TYPE_WORD		{ $$ = parse_type_word(px, $1, @$); }
	| TYPE_QUAL		{ $$ = parse_type_word(px, $1, @$); }
	| TYPE_NAME		{ $$ = parse_type_word(px, $1, @$); }
	| STRUCT IDENT		{ $$ = parse_type_tag(px, TAG_STRUCT, $2, @$); }
	| STRUCT TYPE_NAME	{ $$ = parse_type_tag(px, TAG_STRUCT, $2, @$); }
	| UNION IDENT		{ $$ = parse_type_tag(px, TAG_UNION, $2, @$); }
	| UNION TYPE_NAME	{ $$ = parse_type_tag(px, TAG_UNION, $2, @$); }
	| ENUM IDENT		{ $$ = parse_type_tag(px, TAG_ENUM, $2, @$); }
	| ENUM TYPE_NAME	{ $$ = parse_type_tag(px, TAG_ENUM, $2, @$); }
	| STRUCT '{' member_decls '}'
				{ $$ = parse_anon_tag(px, TAG_STRUCT, $3, @$); }
	| UNION '{' member_decls '}'
				{ $$ = parse_anon_tag(px, TAG_UNION, $3, @$); }
	;

stars
	: %empty		{ $$ = 0; }
	| stars '*'		{ $$ = $1 + 1; }
	;

/* struct_def = ("struct" | "union") name "{" field_decl* last_decl? "}"
 *              ("__attribute__" "((" ... "))")* ";"?
 *            | "enum" name? "{" enumerator ("," enumerator)* ","? "}" ";"?
 * (a struct's attributes as the newest bpftrace takes them: packed lays
 * its members out without padding, the others change nothing here) */
struct_def
	: STRUCT IDENT '{' member_decls '}' attributes semi_opt
				{ $$ = parse_struct_def(px, TAG_STRUCT, $2, $4, @$);
				  $$->sdef.packed = $6; }
	| UNION IDENT '{' member_decls '}' semi_opt
				{ $$ = parse_struct_def(px, TAG_UNION, $2, $4, @$); }
	| ENUM IDENT '{' enumerators comma_opt '}' semi_opt
				{ $$ = parse_struct_def(px, TAG_ENUM, $2, $4, @$); }
	| ENUM '{' enumerators comma_opt '}' semi_opt
				{ $$ = parse_struct_def(px, TAG_ENUM, NULL, $3, @$); }
	;

comma_opt
	: %empty
	| ','
	;

attributes
	: %empty		{ $$ = 0; }
	| attributes ATTRIBUTE	{ $$ = $1 || strstr($2, "packed"); }
	;

enumerators
	: enumerator		{ $$ = parse_field_add((struct parse_field_list){0}, $1); }
	| enumerators ',' enumerator
				{ $$ = parse_field_add($1, $3); }
	;

/* enumerator = name ("=" expr)? */
enumerator
	: IDENT			{ $$ = parse_enumerator(px, $1, NULL, @$); }
	| IDENT '=' expr	{ $$ = parse_enumerator(px, $1, $3, @$); }
	;

semi_opt
	: %empty
	| ';'
	;

field_decls
	: %empty		{ $$ = (struct parse_field_list){0}; }
	| field_decls field_decl
				{ $$ = $1;
				  if ($2.head) {
					if ($$.tail)
						$$.tail->next = $2.head;
					else
						$$.head = $2.head;
					$$.tail = $2.tail;
				  } }
	;

/* member_decls = field_decl* (type_spec declarator ("," declarator)*)?
 * The last member may go without its ';', as bpftrace takes it. */
member_decls
	: field_decls
	| field_decls type_spec declarators
				{ $$ = $1;
				  CHECK(parse_field_decl(px, &$2, $3));
				  if ($$.tail)
					$$.tail->next = $3.head;
				  else
					$$.head = $3.head;
				  $$.tail = $3.tail; }
	;

/* field_decl = type_spec declarator ("," declarator)* ";"
 *            | type_spec ";"   (an anonymous struct or union member) */
field_decl
	: type_spec declarators ';'
				{ $$ = $2; CHECK(parse_field_decl(px, &$1, $2)); }
	| type_spec ';'		{ $$ = parse_field_add((struct parse_field_list){0},
						       parse_declarator(px, 0, NULL, @$));
				  CHECK(parse_field_decl(px, &$1, $$)); }
	;

declarators
	: declarator		{ $$ = parse_field_add((struct parse_field_list){0}, $1); }
	| declarators ',' declarator
				{ $$ = parse_field_add($1, $3); }
	;

/* declarator = "*"* name ("[" integer "]")* (":" integer)? */
declarator
	: stars IDENT		{ $$ = parse_declarator(px, $1, $2, @$); }
	| declarator '[' INT ']'
				{ CHECK($$ = parse_array_declarator(px, $1, $3, @3, @$)); }
	| declarator ':' INT	{ CHECK($$ = parse_bitfield(px, $1, $3, @3)); }
	;

%%

/* How a token kind reads in "expecting ...": bison's alias without the
 * double quotes it stores ("'if'", "identifier", "'}'"). */
static const char *parse_symbol_text(yysymbol_kind_t sym, char *buf,
				     size_t size)
{
	const char *name = yysymbol_name(sym);
	size_t len = strlen(name);
	if (len >= 2 && name[0] == '"' && name[len - 1] == '"') {
		snprintf(buf, size, "%.*s", (int)(len - 2), name + 1);
		return buf;
	}
	return name;
}

/* The unexpected token as the message shows it: its class and, for names
 * and literals, its text ("identifier 'foo'"); keywords and operators as
 * their text ("'}'"). */
static void parse_describe_unexpected(struct parse_ctx *px,
				      yysymbol_kind_t sym, char *buf,
				      size_t size)
{
	static const struct { yysymbol_kind_t sym; const char *cls; } classes[] = {
		{ YYSYMBOL_ATTACH, "attach point" },
		{ YYSYMBOL_IDENT, "identifier" },
		{ YYSYMBOL_VAR, "variable" },
		{ YYSYMBOL_MAP, "map" },
		{ YYSYMBOL_POSITIONAL, "positional parameter" },
		{ YYSYMBOL_INT, "integer" },
		{ YYSYMBOL_TYPE_WORD, "type name" },
		{ YYSYMBOL_TYPE_QUAL, "type qualifier" },
		{ YYSYMBOL_TYPE_NAME, "typedef name" },
	};
	const char *text = lex_last_text(px->lx);
	if (sym == YYSYMBOL_YYEOF) {
		snprintf(buf, size, "end of input");
		return;
	}
	if (sym == YYSYMBOL_STRING || sym == YYSYMBOL_CHAR) {
		/* the text keeps its quotes */
		snprintf(buf, size, "%s %s",
			 sym == YYSYMBOL_STRING ? "string" : "character literal",
			 text);
		return;
	}
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (classes[i].sym == sym) {
			snprintf(buf, size, "%s '%s'", classes[i].cls, text);
			return;
		}
	}
	snprintf(buf, size, "'%s'", text);
}

/* Tokens that end or separate something: when too many tokens could come
 * next (every binary operator, say), these are the ones worth naming. */
static bool parse_is_closer(yysymbol_kind_t sym)
{
	static const int closers[] = {
		TOK_EOI, TOK_ENDPRED, ';', '}', ')', ']', ',', ':',
	};
	for (size_t i = 0; i < sizeof(closers) / sizeof(closers[0]); i++)
		if (YYTRANSLATE(closers[i]) == sym)
			return true;
	return false;
}

/* Bison's "custom" syntax-error hook: one located message.  Up to eight
 * expected tokens are listed.  A longer list is cut down to the closers in
 * it (';' '}' ')' ']' ',' ':'), or else reads "expecting an expression"
 * when an expression could start here, or else is left out. */
static int yyreport_syntax_error(const yypcontext_t *ctx, struct parse_ctx *px)
{
	enum { MAX_LISTED = 9 };
	yysymbol_kind_t expected[YYNTOKENS];
	char what[128], name[64], tail[320];

	if (lex_failed(px->lx) || px->failed)
		return 0;
	parse_describe_unexpected(px, yypcontext_token(ctx), what,
				  sizeof(what));
	int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
	if (n > MAX_LISTED) {
		bool expr = false;
		int k = 0;
		for (int i = 0; i < n; i++) {
			if (expected[i] == YYSYMBOL_INT)
				expr = true;
			if (parse_is_closer(expected[i]))
				expected[k++] = expected[i];
		}
		n = k > MAX_LISTED ? 0 : k;
		if (n == 0 && expr) {
			expected[0] = YYSYMBOL_YYEMPTY;	/* "an expression" */
			n = 1;
		}
	}
	tail[0] = '\0';
	size_t off = 0;
	for (int i = 0; i < n && off < sizeof(tail); i++) {
		const char *sep = i == 0 ? ", expecting " :
				  i == n - 1 ? " or " : ", ";
		const char *s = expected[i] == YYSYMBOL_YYEMPTY ? "an expression" :
			parse_symbol_text(expected[i], name, sizeof(name));
		off += (size_t)snprintf(tail + off, sizeof(tail) - off, "%s%s",
					sep, s);
	}
	parse_error(px, *yypcontext_location(ctx),
		   "syntax error: unexpected %s%s", what, tail);
	return 0;
}

/* Bison's own complaints: only "memory exhausted", i.e. the stack passed
 * YYMAXDEPTH on absurdly nested input. */
static void parse_yyerror(const struct src_loc *loc, struct parse_ctx *px,
			  const char *msg)
{
	(void)msg;
	if (px->failed || lex_failed(px->lx))
		return;
	parse_error(px, *loc, "nested deeper than %d levels", PARSE_MAX_DEPTH);
}
