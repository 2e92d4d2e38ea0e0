/*
 * file.h - read a whole file, including the procfs/tracefs kind whose
 * st_size is 0.
 */
#ifndef SONDE_FILE_H
#define SONDE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Read path until EOF into a malloc'd, NUL-terminated buffer (*len
 * excludes the NUL; len may be NULL).  hint: initial capacity, 0 for a
 * default.  0 or -errno. */
int file_read_all(const char *path, size_t hint, char **out, size_t *len);

/* Undo, in place, the octal escapes (a backslash and three digits) that
 * mountinfo files write for space, tab, newline and backslash. */
void file_unescape_octal(char *s);

/* The executable a command name runs, as execvp finds it: name itself
 * when it holds a '/', else the first NAME in $PATH's directories (an
 * empty one is the current directory; no $PATH: /usr/local/bin:/usr/bin:
 * /bin) that may be executed, into out (cap bytes).  False when none. */
bool file_which(const char *name, char *out, size_t cap);

#endif
