/* symshape cache: the guard cache's decisions for a list of queries, with
 * the variants compiled up front and, with --jit, on a miss. */
#include "pool.h"
#include "args.h"
#include "output.h"

#include <stdlib.h>
#include <string.h>

/* The state of one cache session. */
typedef struct cache_state {
	sym_ctx *ctx;
	sym_model *m;
	sym_guard_cache *c;
	sym_infer_options base; /* the ranges and the alignment of every variant */
	int64_t *dims;
	cli_cache_result *res;
} cache_state;

/* Records the failure's message (printed after the events). */
static int fail(cli_cache_result *res, char *msg)
{
	res->status = CLI_FAIL;
	res->error = msg;
	res->oom = !msg;
	return CLI_FAIL;
}

static cli_cache_event *add_event(cli_cache_result *res)
{
	cli_cache_event *nv = realloc(res->v, (res->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	res->v = nv;
	memset(&nv[res->n], 0, sizeof(*nv));
	return &nv[res->n++];
}

/* Compiles the variant of the hints h, labelled label in messages.
 * Returns the program or NULL (failure recorded). */
static sym_model_program *compile_variant(cache_state *s, const hintset *h, const char *label)
{
	sym_infer_options opt = s->base;
	sym_graph_result *r;
	sym_model_program *mp = NULL;
	opt.nhints = h->n;
	opt.hint_names = (const char *const *)h->names;
	opt.hint_values = h->values;
	r = sym_model_infer(s->ctx, s->m, &opt);
	if (r) {
		mp = sym_graph_compile(s->ctx, r, 0);
		sym_graph_result_free(r);
	}
	if (mp && sym_model_program_num_bound(mp)) {
		fail(s->res,
		     cli_format("variant '%s': the model has data-dependent dims (%s): the guard cache takes "
		                "input dims only",
		                label, sym_model_program_bound(mp, 0, NULL)));
		sym_model_program_free(mp);
		return NULL;
	}
	if (!mp)
		fail(s->res, cli_format("variant '%s': %s", label, sym_ctx_last_message(s->ctx)));
	return mp;
}

/* Compiles the variant of the --variant text hints ("" for none). */
static sym_model_program *compile_variant_text(cache_state *s, const char *hints)
{
	hintset h;
	sym_model_program *mp = NULL;
	char *msg;
	memset(&h, 0, sizeof(h));
	if (!*hints || cli_hintset_add_msg(&h, "--variant", hints, &msg) == CLI_OK)
		mp = compile_variant(s, &h, hints);
	else
		fail(s->res, msg);
	cli_hintset_free(&h);
	return mp;
}

/* The hints, for the symbols that input dims bind exactly, into h (one per
 * symbol, the first dim naming it), and their text "s=v,..." into *label
 * (caller frees).  Returns CLI_OK or CLI_FAIL (failure recorded). */
static int hints_of(cache_state *s, hintset *h, char **label)
{
	sym_graph_result *r = sym_model_infer(s->ctx, s->m, NULL);
	size_t i, p = 0, len = 0, n0;
	*label = calloc(1, 1);
	if (!r || !*label) {
		fail(s->res, r ? NULL : cli_format("%s", sym_ctx_last_message(s->ctx)));
		sym_graph_result_free(r);
		return CLI_FAIL;
	}
	for (i = 0; i < sym_model_num_inputs(s->m); i++) {
		int rank, d;
		const sym_expr *const *dd;
		sym_graph_tensor(r, sym_graph_find_tensor(r, sym_model_input_name(s->m, i)), &rank, &dd,
		                 NULL);
		for (d = 0; d < rank; d++, p++) {
			const char *name = sym_expr_symbol_name(dd[d]);
			size_t need;
			char *nl;
			if (!name)
				continue;
			n0 = h->n;
			if (cli_hintset_put(h, name, (long long)s->dims[p]) < 0)
				goto oom;
			if (h->n == n0)
				continue;
			need = len + strlen(name) + 24;
			if (!(nl = realloc(*label, need)))
				goto oom;
			*label = nl;
			len += (size_t)snprintf(*label + len, need - len, "%s%s=%lld", len ? "," : "", name,
			                        (long long)s->dims[p]);
		}
	}
	sym_graph_result_free(r);
	return CLI_OK;
oom:
	fail(s->res, NULL);
	sym_graph_result_free(r);
	return CLI_FAIL;
}

/* --jit on a miss: compiles the variant of the query's dims into the cache
 * and records it in e. */
static int compile_for_query(cache_state *s, cli_cache_event *e)
{
	hintset h;
	char *label = NULL;
	sym_model_program *mp = NULL;
	memset(&h, 0, sizeof(h));
	if (hints_of(s, &h, &label) == CLI_OK)
		mp = compile_variant(s, &h, label);
	cli_hintset_free(&h);
	if (!mp) {
		free(label);
		e->compiled = -1;
		return CLI_FAIL;
	}
	e->id = sym_guard_cache_add(s->c, mp, label);
	e->text = label;
	e->compiled = 1;
	return CLI_OK;
}

/* Answers query q into a new event. */
static int answer_query(cache_state *s, const cli_cache_opts *o, const char *q)
{
	cli_cache_event *e;
	const char *reason = NULL;
	char *msg;
	long id = -1;
	if (cli_parse_query(s->m, q, s->dims, &msg) != CLI_OK)
		return fail(s->res, msg);
	if (!(e = add_event(s->res)))
		return fail(s->res, NULL);
	e->is_query = 1;
	e->query = q;
	e->answer = sym_guard_cache_lookup(s->c, s->dims, &id, &reason);
	e->id = id;
	if (e->answer == SYM_CACHE_HIT)
		e->text = cli_format("%s", sym_guard_cache_label(s->c, id));
	else if (e->answer == SYM_CACHE_INVALID)
		e->text = cli_format("%s", reason);
	else if (o->jit)
		return compile_for_query(s, e);
	else
		return CLI_OK;
	return e->text ? CLI_OK : fail(s->res, NULL);
}

/* Compiles the generic variant (the validity checks) and the --variant
 * ones. */
static int compile_variants(cache_state *s, const cli_cache_opts *o)
{
	size_t i;
	sym_model_program *generic = compile_variant_text(s, "");
	if (!generic)
		return CLI_FAIL;
	if (sym_guard_cache_set_validity(s->c, generic) < 0)
		return fail(s->res, NULL);
	for (i = 0; i < o->nvariants; i++) {
		const char *label = *o->variants[i] ? o->variants[i] : "(no hints)";
		sym_model_program *mp = compile_variant_text(s, o->variants[i]);
		cli_cache_event *e;
		if (!mp)
			return CLI_FAIL;
		if (!(e = add_event(s->res))) {
			sym_model_program_free(mp);
			return fail(s->res, NULL);
		}
		e->id = sym_guard_cache_add(s->c, mp, label);
		if (!(e->text = cli_format("%s", label)))
			return fail(s->res, NULL);
	}
	return CLI_OK;
}

/* Runs the session of o into res: the events up to the first failure.
 * Returns CLI_OK, or CLI_FAIL with the failure in res (or printed when
 * nothing was computed yet). */
static int cache_compute(cli_cache_opts *o, cache_state *s)
{
	hintset none;
	size_t i, n = 0;
	memset(&none, 0, sizeof(none));
	if (!(s->ctx = cli_ctx_new()) || !(s->c = sym_guard_cache_new(o->capacity)))
		return fail(s->res, NULL);
	if (!(s->m = sym_model_load(s->ctx, o->model)))
		return fail(s->res, cli_format("%s: %s", o->model, sym_ctx_last_message(s->ctx)));
	if (cli_infer_options(&s->base, s->ctx, &none, &o->x, 0) != CLI_OK)
		return s->res->status = CLI_FAIL;
	if (compile_variants(s, o) != CLI_OK)
		return CLI_FAIL;
	for (i = 0; i < sym_model_num_inputs(s->m); i++)
		n += (size_t)(sym_model_input_rank(s->m, i) > 0 ? sym_model_input_rank(s->m, i) : 0);
	if (!(s->dims = calloc(n + 1, sizeof(*s->dims))))
		return s->res->status = CLI_FAIL;
	for (i = 0; i < o->nqueries; i++)
		if (answer_query(s, o, o->queries[i]) != CLI_OK)
			return CLI_FAIL;
	return CLI_OK;
}

int cli_cache(int argc, char **argv)
{
	cli_cache_opts o;
	cli_cache_result res;
	cache_state s;
	int st = cli_cache_opts_parse(&o, argc, argv);
	memset(&res, 0, sizeof(res));
	memset(&s, 0, sizeof(s));
	s.res = &res;
	if (st == CLI_OK) {
		cache_compute(&o, &s);
		cli_print_cache(&res);
		st = res.status;
	}
	free(s.dims);
	sym_guard_cache_free(s.c);
	sym_model_free(s.m);
	sym_ctx_free(s.ctx);
	cli_cache_result_free(&res);
	cli_cache_opts_free(&o);
	return st;
}
