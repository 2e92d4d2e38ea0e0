/*
 * parser.h - text to AST.
 *
 * parse_program() runs the flex lexer and the bison grammar over one source
 * text.  It handles comments, `#define NAME VALUE` (object-like constants,
 * substituted for later uses of NAME), skips `#include` lines, and returns
 * the N_PROGRAM root.  On a syntax error it reports through `d` (located,
 * with the source line and a caret) and returns NULL.  Nodes live in `a`.
 */
#ifndef SONDE_PARSER_H
#define SONDE_PARSER_H

#include "common/arena.h"
#include "common/diag.h"
#include "parser/ast.h"

struct ast_node *parse_program(struct arena *a, struct diag *d, const char *src);

#endif
