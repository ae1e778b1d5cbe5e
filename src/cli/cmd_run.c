/* symshape run: the concrete shapes, storage shapes and byte sizes of a
 * model for concrete input dims, with the checks and guards. */
#include "pool.h"
#include "model.h"
#include "output.h"

#include <stdlib.h>
#include <string.h>

/* A run: the compiled model and what its segments computed. */
typedef struct run_state {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *mp;
	int64_t *dims;
	cli_run_result res;
} run_state;

static void run_state_free(run_state *s)
{
	free(s->dims);
	free(s->res.out);
	free(s->res.sto);
	free(s->res.bytes);
	sym_model_program_free(s->mp);
	sym_graph_result_free(s->r);
	sym_model_free(s->m);
	sym_ctx_free(s->ctx);
}

/* Writes the declared dims of input tensor name to dims when they are all
 * constants (no symbol comes from its shape: a guard may have made a
 * symbol's dim constant); returns whether they were. */
static int constant_input_dims(const sym_graph_result *r, const char *name, int rank, int64_t *dims)
{
	int k, d;
	const sym_expr *const *dd;
	size_t t = sym_graph_find_tensor(r, name), i, n = strlen(name);
	if (t == (size_t)-1 || !sym_graph_tensor(r, t, &k, &dd, NULL) || k != rank || rank < 0)
		return 0;
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		sym_graph_symbol(r, i, &src, NULL, NULL);
		if (src && !strncmp(src, name, n) && !strncmp(src + n, ".shape[", 7))
			return 0;
	}
	for (d = 0; d < rank; d++) {
		long long v;
		if (sym_expr_get_si(dd[d], &v) != 1)
			return 0;
		dims[d] = v;
	}
	return 1;
}

/* Writes the dims of every model input, in input order, to dims and their
 * count to *p: the --shape dims, or the declared ones of an input whose
 * shape is constant.  Returns CLI_OK or CLI_FAIL (message printed). */
static int fill_input_dims(const cli_program_opts *o, const sym_model *m, const sym_graph_result *r,
                           int64_t *dims, size_t *p)
{
	size_t i, k;
	for (i = 0; i < o->nshapes; i++) {
		for (k = 0; k < sym_model_num_inputs(m); k++)
			if (!strcmp(sym_model_input_name(m, k), o->shape_names[i]))
				break;
		if (k == sym_model_num_inputs(m)) {
			cli_error("--shape %s: the model has no input '%s'", o->shape_names[i],
			          o->shape_names[i]);
			return CLI_FAIL;
		}
		for (k = 0; k < i; k++)
			if (!strcmp(o->shape_names[k], o->shape_names[i])) {
				cli_error("--shape %s: input '%s' is given twice", o->shape_names[i],
				          o->shape_names[i]);
				return CLI_FAIL;
			}
	}
	*p = 0;
	for (i = 0; i < sym_model_num_inputs(m); i++) {
		const char *name = sym_model_input_name(m, i);
		int rank = sym_model_input_rank(m, i);
		for (k = 0; k < o->nshapes && strcmp(o->shape_names[k], name); k++)
			;
		if (k == o->nshapes && constant_input_dims(r, name, rank, dims + *p)) {
			*p += (size_t)rank;
			continue;
		}
		if (k == o->nshapes) {
			cli_error("missing --shape %s=D0,D1,... for input '%s'", name, name);
			return CLI_FAIL;
		}
		if (rank < 0 || o->shape_rank[k] != (size_t)rank) {
			cli_error("--shape %s: input '%s' has rank %d, got %zu dims", name, name, rank,
			          o->shape_rank[k]);
			return CLI_FAIL;
		}
		if (rank)
			memcpy(dims + *p, o->shape_dims[k], (size_t)rank * sizeof(*dims));
		*p += (size_t)rank;
	}
	return CLI_OK;
}

/* Writes the --bind values of the program's data-dependent symbols to
 * out.  Returns CLI_OK or CLI_FAIL (a missing or unknown symbol). */
static int fill_binds(const cli_extra *x, const sym_model_program *mp, int64_t *out)
{
	size_t i, k, n = sym_model_program_num_bound(mp);
	for (k = 0; k < x->nbinds; k++) {
		for (i = 0; i < n && strcmp(sym_model_program_bound(mp, i, NULL), x->bind_names[k]); i++)
			;
		if (i == n) {
			cli_error("--bind %s: the model has no data-dependent symbol '%s'%s",
			          x->bind_names[k], x->bind_names[k], n ? "" : " (it has none)");
			return CLI_FAIL;
		}
	}
	for (i = 0; i < n; i++) {
		const char *src, *name = sym_model_program_bound(mp, i, &src);
		for (k = x->nbinds; k-- > 0 && strcmp(x->bind_names[k], name);)
			;
		if (k == (size_t)-1) {
			cli_error("missing --bind %s=INT: %s is %s, known once that kernel has run", name,
			          name, src);
			return CLI_FAIL;
		}
		out[i] = x->bind_values[k];
	}
	return CLI_OK;
}

/* Allocates the dims and the outputs of every segment of s->mp. */
static int alloc_run(run_state *s)
{
	const sym_model_program *mp = s->mp;
	s->dims = calloc(sym_model_program_num_dims(mp) + 1, sizeof(*s->dims));
	s->res.out = calloc(sym_model_program_num_out_dims(mp) + 1, sizeof(*s->res.out));
	s->res.sto = calloc(sym_model_program_num_storage_dims(mp) + 1, sizeof(*s->res.sto));
	s->res.bytes = calloc(sym_model_program_num_tensors(mp) + 2, sizeof(*s->res.bytes));
	if (!s->dims || !s->res.out || !s->res.sto || !s->res.bytes) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Compiles the model and runs every segment (the checks and guards once)
 * for the dims of o, before anything is printed: a run that fails anywhere
 * prints no shapes.  Returns CLI_OK with the outcome of the run in s->res
 * (which may be a failed guard), or CLI_FAIL (message printed). */
static int run_compute(cli_program_opts *o, run_state *s)
{
	size_t p = 0;
	memset(s, 0, sizeof(*s));
	if (!(s->ctx = cli_ctx_new()))
		return CLI_FAIL;
	s->mp = cli_load_program(s->ctx, o->model, o->allow_empty, &o->h, &o->x, 1, &s->m, &s->r);
	if (!s->mp || alloc_run(s) != CLI_OK)
		return CLI_FAIL;
	s->res.mp = s->mp;
	if (fill_input_dims(o, s->m, s->r, s->dims, &p) != CLI_OK ||
	    fill_binds(&o->x, s->mp, s->dims + p) != CLI_OK)
		return CLI_FAIL;
	{
		int64_t *const outs[SYM_SEGMENT_COUNT] = {s->res.out, s->res.sto, s->res.bytes};
		sym_model_program_run_segments(s->mp, s->dims, outs, &s->res.run);
	}
	return CLI_OK;
}

int cli_run(int argc, char **argv)
{
	cli_program_opts o;
	run_state s;
	int st = cli_program_opts_parse(&o, argc, argv, 0);
	memset(&s, 0, sizeof(s));
	if (st == CLI_OK)
		st = run_compute(&o, &s);
	if (st == CLI_OK) {
		cli_print_run(&s.res, o.json);
		st = s.res.run.status == SYM_EOK ? CLI_OK : CLI_FAIL;
	}
	run_state_free(&s);
	cli_program_opts_free(&o);
	return st;
}
