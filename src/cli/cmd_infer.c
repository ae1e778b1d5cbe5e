/* symshape infer: symbolic shapes, storage shapes, byte sizes, guards and
 * merge keys of a model. */
#include "pool.h"
#include "args.h"
#include "output.h"

#include <stdlib.h>
#include <string.h>

/* What infer computed: the result, and the failure of -o. */
typedef struct infer_result {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	char *save_error; /* -o failed: the message (NULL when out of memory, see save_failed) */
	int save_failed;
} infer_result;

static void infer_result_free(infer_result *res)
{
	sym_graph_result_free(res->r);
	sym_model_free(res->m);
	sym_ctx_free(res->ctx);
	free(res->save_error);
}

/* Loads and infers the model and writes the -o model.  Returns CLI_OK or
 * CLI_FAIL (message printed). */
static int infer_compute(cli_infer_opts *o, infer_result *res)
{
	sym_infer_options opt;
	memset(res, 0, sizeof(*res));
	if (!(res->ctx = cli_ctx_new())) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (!(res->m = sym_model_load(res->ctx, o->model))) {
		cli_error("%s: %s", o->model, sym_ctx_last_message(res->ctx));
		return CLI_FAIL;
	}
	if (cli_infer_options(&opt, res->ctx, &o->h, &o->x, o->allow_empty) != CLI_OK)
		return CLI_FAIL;
	if (!(res->r = sym_model_infer(res->ctx, res->m, &opt))) {
		cli_error("%s: %s", o->model, sym_ctx_last_message(res->ctx));
		return CLI_FAIL;
	}
	/* the message is kept and the error cleared: printing the result
	 * after a recorded error would print "?" for its expressions */
	if (o->out_file && sym_graph_save_onnx(res->ctx, res->r, o->model, o->out_file) < 0) {
		res->save_failed = 1;
		res->save_error = cli_format("%s", sym_ctx_last_message(res->ctx));
		sym_ctx_clear_error(res->ctx);
	}
	return CLI_OK;
}

/* Prints the result, then the per-node errors and the failure of -o;
 * returns the exit status. */
static int infer_print(const cli_infer_opts *o, const infer_result *res)
{
	size_t i, nerr = sym_graph_num_errors(res->r);
	int printed = o->json ? cli_print_infer_json(res->ctx, res->r, o->model)
	                      : cli_print_infer_text(res->ctx, res->r, o->model);
	if (printed < 0) {
		if (res->save_failed)
			cli_error("%s: %s", o->out_file, res->save_error ? res->save_error : "out of memory");
		return CLI_FAIL;
	}
	for (i = 0; i < nerr; i++)
		cli_error("%s", sym_graph_error(res->r, i, NULL));
	if (res->save_failed)
		cli_error("%s: %s", o->out_file, res->save_error ? res->save_error : "out of memory");
	return nerr || res->save_failed ? CLI_FAIL : CLI_OK;
}

int cli_infer(int argc, char **argv)
{
	cli_infer_opts o;
	infer_result res;
	int st = cli_infer_opts_parse(&o, argc, argv);
	memset(&res, 0, sizeof(res));
	if (st == CLI_OK)
		st = infer_compute(&o, &res);
	if (st == CLI_OK)
		st = infer_print(&o, &res);
	infer_result_free(&res);
	cli_infer_opts_free(&o);
	return st;
}
