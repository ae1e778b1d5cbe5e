/* symshape emit-c: the standalone C guard, shape and size functions of a
 * model. */
#include "model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Compiles the model of o and returns its emitted C (caller frees), or NULL
 * (message printed). */
static char *emit_compute(cli_program_opts *o)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = NULL;
	sym_graph_result *r = NULL;
	sym_model_program *mp = NULL;
	char *code = NULL;
	if (!ctx)
		return NULL;
	mp = cli_load_program(ctx, o->model, o->allow_empty, &o->h, &o->x, 0, &m, &r);
	if (mp && !(code = sym_model_program_emit_c(mp, o->prefix)))
		cli_error("out of memory");
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	return code;
}

/* Writes code to the -o file of o, or to stdout.  Returns CLI_OK or
 * CLI_FAIL (message printed). */
static int emit_print(const cli_program_opts *o, const char *code)
{
	FILE *f;
	if (!o->out_file) {
		fputs(code, stdout);
		return CLI_OK;
	}
	f = fopen(o->out_file, "w");
	if (!f || fputs(code, f) < 0 || fclose(f) != 0) {
		cli_error("cannot write '%s': %s", o->out_file, strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_emit_c(int argc, char **argv)
{
	cli_program_opts o;
	char *code = NULL;
	int st = cli_program_opts_parse(&o, argc, argv, 1);
	if (st == CLI_OK && !(code = emit_compute(&o)))
		st = CLI_FAIL;
	if (st == CLI_OK)
		st = emit_print(&o, code);
	free(code);
	cli_program_opts_free(&o);
	return st;
}
