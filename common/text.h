/*
 * text.h - small text helpers more than one layer needs (text.c).
 */
#ifndef SONDE_TEXT_H
#define SONDE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* the value of a hexadecimal digit, -1 for any other character */
int text_hexdigit(int c);

/* n bytes of s (NULL: none) as a C string literal: quoted, with \n \t \r
 * \\ \" and \xNN for the other unprintable bytes */
void text_print_quoted(FILE *f, const char *s, uint32_t n);

/* open_memstream(buf, size) (*buf and *size start empty); out of memory
 * ends the program, as an arena that cannot grow does */
FILE *text_memstream(char **buf, size_t *size);

#endif
