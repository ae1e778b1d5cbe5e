/* The command line's options, read into one struct per command before any
 * work is done: strict integers, dims lists and NAME=INT lists (decimal
 * digits only: no signs, spaces or empty items; values within int64), the
 * hints, the --range/--align/--bind options, and the usage and error
 * messages of a bad command line.  Three files, one job each: messages.c
 * (one-line text, errors, usage), values.c (the value parsers), args.c
 * (each command's options).  They depend on cli.h and the library only,
 * so the fuzz target of the strict parsers builds them alone. */
#ifndef SYM_CLI_ARGS_H
#define SYM_CLI_ARGS_H

#include "cli.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- messages (messages.c; cli_error, cli_usage: cli.h) ------------------- */

/* Writes s to f with its control characters as \xNN escapes, so that a
 * message quoting the user's text stays one line. */
void cli_fputs_one_line(const char *s, FILE *f);
/* Takes the malloc'd message s and gives it back with its control
 * characters as \xNN (s itself when it has none; the caller frees), so that
 * a message quoting the user's text stays one line; NULL when s is NULL or
 * memory runs out (s freed). */
char *cli_one_line(char *s);
/* The printf-formatted text in memory of the caller's (free), NULL when out
 * of memory. */
char *cli_format(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
char *cli_vformat(const char *fmt, va_list ap);

/* ---- strict parsers (values.c) --------------------------------------------- */

/* The parsers below fail with -1 and *err a malloc'd one-line message
 * quoting the text whole (the caller frees it), or NULL when memory ran
 * out. */

/* Parses a strict nonnegative decimal integer. Returns 0 with the value in
 * *v or -1 with *err. */
int cli_parse_int(const char *text, int64_t *v, char **err);
/* Parses a strict dims list "D0,D1,..." (empty text: rank 0). Returns 0 and
 * a malloc'd array (caller frees; NULL when n == 0) or -1 with *err. */
int cli_parse_dims(const char *text, int64_t **dims, size_t *n, char **err);
/* Parses hints "NAME=INT,NAME=INT,..." (values as in cli_parse_int; a name
 * given twice is an error). Returns 0 with malloc'd parallel arrays names
 * (each malloc'd) and values (caller frees with cli_hints_free) or -1 with
 * *err. */
int cli_parse_hints(const char *text, char ***names, int64_t **values, size_t *n, char **err);
void cli_hints_free(char **names, int64_t *values, size_t n);

/* ---- hints --------------------------------------------------------------- */

/* The hints of --hint NAME=INT,... (or --variant), as parallel arrays. */
typedef struct hintset {
	char **names;
	long long *values;
	size_t n;
} hintset;

void cli_hintset_free(hintset *h);
/* Adds the hints "NAME=INT,NAME=INT" of option what ("--hint") to h; a name
 * hinted again takes the new value.  Returns CLI_OK or CLI_FAIL (message
 * printed). */
int cli_hintset_add(hintset *h, const char *what, const char *arg);
/* cli_hintset_add with the message in *msg (caller frees; NULL when out of
 * memory) instead of printed. */
int cli_hintset_add_msg(hintset *h, const char *what, const char *arg, char **msg);
/* Adds the hint name=value (name copied) unless name has one; returns 0 or
 * -1 when out of memory. */
int cli_hintset_put(hintset *h, const char *name, long long value);

/* ---- --range, --align, --bind -------------------------------------------- */

typedef struct cli_extra {
	size_t nranges;
	char **range_names, **range_lo, **range_hi; /* NULL ends are open */
	const sym_expr **lo_e, **hi_e;
	long long align; /* 0: the default */
	size_t nbinds;
	char **bind_names;
	long long *bind_values;
} cli_extra;

/* Parses argv[*i] (and its value) when it is --range NAME=LO:HI, --align N
 * or, when binds is set, --bind NAME=INT[,...].  Returns -1 when argv[*i]
 * is none of them, else CLI_OK or the status of a bad value (message
 * printed). */
int cli_extra_parse(cli_extra *x, int argc, char **argv, int *i, int binds);
void cli_extra_free(cli_extra *x);

/* Fills opt (zeroed first) with the hints h (borrowed), allow_empty, and the
 * ranges of x (parsed in ctx, kept in x) and its alignment.  Returns CLI_OK
 * or CLI_FAIL with a message. */
int cli_infer_options(sym_infer_options *opt, sym_ctx *ctx, const hintset *h, cli_extra *x, int allow_empty);

/* ---- the commands' options (args.c; the cache query: values.c) ------------ */

/* infer MODEL [--json] [--allow-empty] [-o OUT] [--hint H] [--range R]... [--align N] */
typedef struct cli_infer_opts {
	const char *model;
	const char *out_file; /* -o: the ONNX model with the shapes */
	int json;
	int allow_empty;
	hintset h;
	cli_extra x; /* --range, --align */
} cli_infer_opts;

int cli_infer_opts_parse(cli_infer_opts *o, int argc, char **argv);
void cli_infer_opts_free(cli_infer_opts *o);

/* run and emit-c: one model, --hint, --range, --align, --allow-empty; run
 * adds --shape, --bind and --json, emit-c adds -o and --prefix. */
typedef struct cli_program_opts {
	const char *model;
	int json;
	int allow_empty;
	const char *out_file;
	const char *prefix;
	char **shape_names;
	int64_t **shape_dims;
	size_t *shape_rank;
	size_t nshapes;
	hintset h;   /* --hint: the program of the variant specialised to them */
	cli_extra x; /* --range, --align, --bind */
} cli_program_opts;

/* emit: parse the options of emit-c, else those of run. */
int cli_program_opts_parse(cli_program_opts *o, int argc, char **argv, int emit);
void cli_program_opts_free(cli_program_opts *o);

/* cache MODEL [--variant H]... [--jit] [--capacity N] [--range R]... --query Q... */
typedef struct cli_cache_opts {
	const char *model;
	size_t capacity;
	int jit;
	const char **variants; /* borrowed from argv */
	size_t nvariants;
	const char **queries; /* borrowed from argv */
	size_t nqueries;
	cli_extra x; /* --range, --align */
} cli_cache_opts;

int cli_cache_opts_parse(cli_cache_opts *o, int argc, char **argv);
void cli_cache_opts_free(cli_cache_opts *o);

/* Parses the cache query "x=1,2,3;mask=1,1" (every input of m once, each
 * with its rank of strict dims) into dims in model input order.  Returns
 * CLI_OK, or CLI_FAIL with the message in *msg (caller frees; NULL when out
 * of memory). */
int cli_parse_query(const sym_model *m, const char *q, int64_t *dims, char **msg);

/* simplify, prove, equal: [--assume R]... [--dims] [--] ARG... */
typedef struct cli_expr_opts {
	const char **assume; /* borrowed from argv */
	int nassume;
	int dims;
	const char *pos[2];
	int npos;
} cli_expr_opts;

/* want: the number of expressions (1 or 2); "-" alone reads them from
 * standard input. */
int cli_expr_opts_parse(cli_expr_opts *o, int argc, char **argv, int want);
void cli_expr_opts_free(cli_expr_opts *o);

#endif
