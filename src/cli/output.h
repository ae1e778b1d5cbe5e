/* The command line's output: expressions and integers as text and JSON, the
 * inference result of infer, and the result structs of run and cache with
 * their printing.  The commands compute a result first and print it here
 * last, so that a command's standard output and its messages come in the
 * order a reader expects. */
#ifndef SYM_CLI_OUTPUT_H
#define SYM_CLI_OUTPUT_H

#include "cli.h"

#include <stdint.h>

/* The printed form of e in memory of the caller's (free), NULL when out of
 * memory. */
char *cli_expr_text(sym_ctx *ctx, const sym_expr *e);

/* infer: prints the result as text or JSON (symbols, tensors with their
 * ranges, storage shapes and byte sizes, guards, merge keys, memory).
 * Returns 0, or -1 when an expression cannot be printed (its text longer
 * than SYM_MAX_TEXT_BYTES, or out of memory): then nothing is written on
 * stdout and the message, prefixed with model, is on stderr.  A memory
 * total too long to print is not a failure: the output says why it is
 * missing. */
int cli_print_infer_text(sym_ctx *ctx, const sym_graph_result *r, const char *model);
int cli_print_infer_json(sym_ctx *ctx, const sym_graph_result *r, const char *model);

/* run: what the segments of one run computed. */
typedef struct cli_run_result {
	const sym_model_program *mp; /* borrowed */
	int64_t *out, *sto, *bytes;  /* the shape, storage-shape and byte-size segments */
	sym_model_run run;           /* the status, and the failing guard or segment */
} cli_run_result;

/* run: prints a run that worked (the shapes, storage shapes and byte sizes)
 * or, on stderr, why it failed (with json, also the failure object on
 * stdout). */
void cli_print_run(const cli_run_result *res, int json);

/* cache: one line of output, a compiled variant or a query's answer. */
typedef struct cli_cache_event {
	int is_query;
	const char *query; /* borrowed from argv */
	sym_cache_answer answer;
	int compiled; /* --jit on a miss: 1 compiled a variant, -1 failed to (the line stops) */
	long id;      /* the variant compiled or reused */
	char *text;   /* the variant's label, or the reason of an invalid input */
} cli_cache_event;

typedef struct cli_cache_result {
	cli_cache_event *v;
	size_t n;
	int status;  /* CLI_OK, or CLI_FAIL after the events */
	char *error; /* the message of the failure; NULL: none, or out of memory when oom */
	int oom;
} cli_cache_result;

void cli_cache_result_free(cli_cache_result *res);
/* cache: prints the events, then the failure's message on stderr. */
void cli_print_cache(const cli_cache_result *res);

#endif
