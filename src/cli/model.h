/* The model commands' common step: load the model, infer and compile. */
#ifndef SYM_CLI_MODEL_H
#define SYM_CLI_MODEL_H

#include "args.h"

/* Loads the model at path, infers it with the hints h, the options x and
 * allow_empty, prints the per-node errors of the result and compiles it
 * (all: with the storage and byte-size segments).  Returns the program
 * (caller frees) with the model and the result in *m and *r (caller frees,
 * also on failure), or NULL with the message printed. */
sym_model_program *cli_load_program(sym_ctx *ctx, const char *path, int allow_empty, const hintset *h,
                                    cli_extra *x, int all, sym_model **m, sym_graph_result **r);

#endif
