/*
 * verifier.h - map a verifier rejection back to the script's source line.
 */
#ifndef SONDE_VERIFIER_H
#define SONDE_VERIFIER_H

#include <stddef.h>

/* The 1-based line of src that produced the failing instruction, judged
 * from the last "; <source text>" line of the verifier log, with its
 * non-blank column span; 0 when the log names no line or the text is not
 * found exactly once in src. */
int vf_failing_line(const char *log, size_t len, const char *src, int *col, int *end_col);

#endif
