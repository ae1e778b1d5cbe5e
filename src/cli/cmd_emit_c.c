/* symshape emit-c: the standalone C guard, shape and size functions of a
 * model. */
#include "pool.h"
#include "model.h"

#include <errno.h>
#include <string.h>

/* What emit-c computes: the model program and its C text (freed through
 * the program, emit_free). */
typedef struct emit_result {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *mp;
	char *code;
} emit_result;

static void emit_free(emit_result *e)
{
	sym_model_program_str_free(e->mp, e->code);
	sym_model_program_free(e->mp);
	sym_graph_result_free(e->r);
	sym_model_free(e->m);
	sym_ctx_free(e->ctx);
}

/* Compiles the model of o and emits its C into e.  Returns CLI_OK or
 * CLI_FAIL (message printed). */
static int emit_compute(cli_program_opts *o, emit_result *e)
{
	memset(e, 0, sizeof(*e));
	if (!(e->ctx = cli_ctx_new()))
		return CLI_FAIL;
	e->mp = cli_load_program(e->ctx, o->model, o->allow_empty, &o->h, &o->x, 0, &e->m, &e->r);
	if (!e->mp)
		return CLI_FAIL;
	if (!(e->code = sym_model_program_emit_c(e->mp, o->prefix))) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	return CLI_OK;
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
	emit_result e;
	int st = cli_program_opts_parse(&o, argc, argv, 1);
	memset(&e, 0, sizeof(e));
	if (st == CLI_OK)
		st = emit_compute(&o, &e);
	if (st == CLI_OK)
		st = emit_print(&o, e.code);
	emit_free(&e);
	cli_program_opts_free(&o);
	return st;
}
