/* The model commands' options and output for storage shapes, byte sizes,
 * shape ranges and data-dependent dims (--range, --align, --bind). */
#ifndef SYM_STORAGE_CLI_H
#define SYM_STORAGE_CLI_H

#include "cli.h"

#include <cjson/cJSON.h>

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
/* Puts the ranges (parsed in ctx) and the alignment into opt.  Returns
 * CLI_OK or CLI_FAIL with a message. */
int cli_extra_apply(cli_extra *x, sym_ctx *ctx, sym_infer_options *opt);

/* An integer in JSON, exact: a number (its decimal digits) within +-2^53,
 * else its decimal string.  Every integer the CLI writes as JSON goes
 * through it. */
cJSON *cli_int_json(long long v);
/* An expression in JSON: an integer as cli_int_json, any other as its
 * printed string, NULL as null. */
cJSON *cli_expr_json(sym_ctx *ctx, const sym_expr *e);
/* Prints "[d0, d1, ...]" (no newline). */
void cli_print_dims(sym_ctx *ctx, int rank, const sym_expr *const *dims);

/* infer: the symbolic upper bound of symbol i as text (caller frees), or
 * NULL; the extra lines of tensor i; the memory summary. */
char *cli_extra_symbol_bound(sym_ctx *ctx, const sym_graph_result *r, size_t i);
void cli_extra_symbol_json(sym_ctx *ctx, const sym_graph_result *r, size_t i, cJSON *o);
void cli_extra_tensor_text(sym_ctx *ctx, const sym_graph_result *r, size_t i);
void cli_extra_tensor_json(sym_ctx *ctx, const sym_graph_result *r, size_t i, cJSON *o);
void cli_extra_total_text(sym_ctx *ctx, const sym_graph_result *r);
void cli_extra_total_json(sym_ctx *ctx, const sym_graph_result *r, cJSON *root);

/* run: writes the --bind values of the program's data-dependent symbols to
 * out.  Returns CLI_OK or CLI_FAIL (a missing or unknown symbol). */
int cli_extra_fill_binds(const cli_extra *x, const sym_model_program *mp, int64_t *out);
/* run: allocates the storage-shape and byte-size outputs of mp (caller
 * frees, also on failure).  Returns CLI_OK or CLI_FAIL (out of memory). */
int cli_extra_alloc_parts(const sym_model_program *mp, int64_t **sto, int64_t **bytes);
/* run: the one-line message of a failed run (of the checks, the guards or
 * a segment). */
void cli_run_failure_message(const sym_model_run *res, char *msg, size_t msgsize);
/* run: prints what the segments computed, as text or into root. */
void cli_extra_run_text(const sym_model_program *mp, const int64_t *sto, const int64_t *bytes);
void cli_extra_run_json(const sym_model_program *mp, const int64_t *sto, const int64_t *bytes, cJSON *root);

#endif
