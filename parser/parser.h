/*
 * parser.h - text to AST.
 *
 * parse_program() runs the flex lexer and the bison grammar over one source
 * text.  It handles comments, `#define NAME VALUE` (object-like constants,
 * substituted for later uses of NAME), skips `#include` lines, and returns
 * the N_PROGRAM root.  On a syntax error it reports through `d` (located,
 * with the source line and a caret) and returns NULL.  Nodes live in `a`.
 *
 * `import "PATH";` statements read other files (parser/import.c): scripts
 * and headers are put before the script's text, each part after a
 * `#line N "FILE"` marker that diag.c reads to name the file and line an
 * error is in, and the whole is parsed again.  Then d->src is
 * that text: later stages (line info, the runtime's located messages)
 * take it from there.  C files are listed on the root (program.cimports).
 * Paths are relative to d->file's directory, the current one for "stdin".
 */
#ifndef SONDE_PARSER_H
#define SONDE_PARSER_H

#include "common/arena.h"
#include "common/diag.h"
#include "parser/ast.h"

struct ast_node *parse_program(struct arena *a, struct diag *d, const char *src);

/* A C type written as text, as a tracepoint's format declares a field
 * ("unsigned long", "const char *", "struct file *", "char __user *"):
 * its words folded by the grammar's own rules (parse_ctype_finish: "long
 * int" is long, "unsigned" alone unsigned int ...).  False, quietly, when
 * they make no type. */
bool parse_ctype_text(struct arena *a, const char *text, struct ast_ctype *out);

#endif
