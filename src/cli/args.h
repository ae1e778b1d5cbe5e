/* The command line's integers, dims lists and NAME=INT lists, read by one
 * strict parser: decimal digits only (no signs, spaces or empty items),
 * values within int64. */
#ifndef SYM_CLI_ARGS_H
#define SYM_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes s to f with its control characters as \xNN escapes, so that a
 * message quoting the user's text stays one line. */
void cli_fputs_one_line(const char *s, FILE *f);

/* Parses a strict nonnegative decimal integer. Returns 0 with the value in
 * *v or -1 with a one-line message in err. */
int cli_parse_int(const char *text, int64_t *v, char *err, size_t errsize);
/* Parses a strict dims list "D0,D1,..." (empty text: rank 0). Returns 0 and
 * a malloc'd array (caller frees; NULL when n == 0) or -1 with a one-line
 * message in err. */
int cli_parse_dims(const char *text, int64_t **dims, size_t *n, char *err, size_t errsize);
/* Parses hints "NAME=INT,NAME=INT,..." (values as in cli_parse_int; a name
 * given twice is an error). Returns 0 with malloc'd parallel arrays names
 * (each malloc'd) and values (caller frees with cli_hints_free) or -1 with a
 * message in err. */
int cli_parse_hints(const char *text, char ***names, int64_t **values, size_t *n, char *err, size_t errsize);
void cli_hints_free(char **names, int64_t *values, size_t n);

#endif
