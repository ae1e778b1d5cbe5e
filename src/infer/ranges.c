/* Shape ranges: the caller's ranges of input symbols become facts; every
 * dim's exact [min, max] follows from the bound analysis; data-dependent
 * symbols get the bounds their linear facts imply. */
#include "infer/passes.h"

#include <stdio.h>
#include <stdlib.h>

int sym__graph_assume(sym_graph_result *r, const sym_infer_options *opt)
{
	sym_ctx *ctx = r->ctx;
	size_t i;
	if (!opt || !opt->nranges)
		return 0;
	if (sym__graph_ext_get(r) < 0)
		return -1;
	if (!(r->ext->ranges = sym__infer_alloc(&r->inf, opt->nranges * sizeof(*r->ext->ranges))))
		return -1;
	for (i = 0; i < opt->nranges; i++) {
		const sym_expr *s = sym_expr_symbol(ctx, opt->range_names[i]);
		const sym_expr *lo = opt->range_lo ? opt->range_lo[i] : NULL;
		const sym_expr *hi = opt->range_hi ? opt->range_hi[i] : NULL;
		sym_grange *g;
		if (!s)
			return -1;
		if (!sym__graph_find_sym(r, s)) {
			sym__error(ctx, SYM_EDOMAIN, -1, "range of '%s': not a symbol of the model's inputs",
			           opt->range_names[i]);
			return -1;
		}
		if ((lo && sym_expr_is_pred(lo)) || (hi && sym_expr_is_pred(hi))) {
			sym__error(ctx, SYM_EDOMAIN, -1, "range of '%s': an end is a predicate",
			           opt->range_names[i]);
			return -1;
		}
		if (sym_facts_set_range(r->facts, s, lo, hi) != SYM_EOK) {
			return sym__result_refail(r, "range of '%s'", opt->range_names[i]);
		}
		g = &r->ext->ranges[r->ext->nranges++];
		g->sym = s, g->lo = lo, g->hi = hi;
	}
	return 0;
}

void sym__graph_assume_into(const sym_graph_result *r, sym_facts *f)
{
	sym_ctx *ctx = r->ctx;
	size_t i;
	/* the ranges and the data-dependent dims' ranges, not the driver's
	 * facts: those hold the guards themselves */
	for (i = 0; r->ext && i < r->ext->nranges; i++)
		if (sym_facts_set_range(f, r->ext->ranges[i].sym, r->ext->ranges[i].lo,
		                        r->ext->ranges[i].hi) != SYM_EOK)
			sym_ctx_clear_error(ctx);
	for (i = 0; i < r->inf.nfresh; i++) {
		const sym_expr *u = r->inf.fresh_syms[i], *p;
		if (sym__facts_exempt_default(f, u) != SYM_EOK)
			sym_ctx_clear_error(ctx);
		p = sym_expr_rel(ctx, SYM_REL_GE, u, r->inf.fresh_lo[i]);
		if (r->inf.fresh_hi[i])
			p = sym_expr_and(ctx, p, sym_expr_rel(ctx, SYM_REL_LE, u, r->inf.fresh_hi[i]));
		if (sym_facts_assume(f, p) != SYM_EOK)
			sym_ctx_clear_error(ctx);
	}
}

sym_facts *sym__graph_range_facts(const sym_graph_result *r)
{
	sym_facts *f = sym_facts_new(r->ctx);
	int64_t lo;
	if (!f)
		return NULL;
	if ((sym__facts_default_min(r->facts, &lo) && sym_facts_set_default_min(f, lo) != SYM_EOK) ||
	    (sym__facts_dims_bounded(r->facts) && sym__facts_bound_dims(f) != SYM_EOK)) {
		sym_facts_free(f);
		return NULL;
	}
	sym__graph_assume_into(r, f);
	return f;
}

int sym__graph_fresh_bounds(sym_graph_result *r)
{
	sym_ctx *ctx = r->ctx;
	size_t i;
	if (!r->inf.nfresh)
		return 0;
	if (sym__graph_ext_get(r) < 0)
		return -1;
	if (!(r->ext->fresh_max = sym__infer_alloc(&r->inf, (r->nsyms + 1) * sizeof(*r->ext->fresh_max))))
		return -1;
	for (i = 0; i < r->inf.nfresh; i++) {
		const sym_expr *u = r->inf.fresh_syms[i], *best;
		const gsym *g = sym__graph_find_sym(r, u);
		const sym_expr *lo, *h;
		if (!g || !r->inf.fresh_hi[i])
			continue;
		if (!(best = sym_simplify(ctx, r->facts, r->inf.fresh_hi[i])))
			return -1;
		r->ext->fresh_max[g - r->syms] = best;
		/* a constant bound of the expression bounds the symbol (u0 <=
		 * 4*n with n <= 64 gives u0 <= 256) */
		if (sym__bounds_expr(ctx, r->facts, best, &lo, &h) && h &&
		    sym_facts_set_range(r->facts, u, NULL, h) != SYM_EOK)
			return -1;
	}
	return sym__failed(ctx) ? -1 : 0;
}

int sym__ranges_of_symbols(sym_graph_result *r)
{
	size_t i;
	for (i = 0; i < r->nsyms; i++) {
		sym__bounds_expr(r->ctx, r->facts, r->syms[i].sym, &r->syms[i].min, &r->syms[i].max);
	}
	return sym__failed(r->ctx) ? -1 : 0;
}

const sym_expr *sym_graph_symbol_bound(const sym_graph_result *r, size_t i)
{
	if (!r->ext || !r->ext->fresh_max || i >= r->nsyms)
		return NULL;
	if (r->syms[i].max && r->ext->fresh_max[i] &&
	    sym_expr_get_si(r->ext->fresh_max[i], &(long long){0}) == 1)
		return NULL; /* the constant end says it */
	return r->ext->fresh_max[i];
}

int sym_graph_dim_range(const sym_graph_result *r, size_t i, int d, const sym_expr **min,
                        const sym_expr **max)
{
	const sym_expr *lo, *hi;
	int ok;
	if (i >= r->ntensors || d < 0 || d >= r->tensors[i].tv.rank)
		return -1;
	ok = sym__bounds_expr(r->ctx, r->facts, r->tensors[i].tv.dims[d], &lo, &hi);
	long long lov = 0;
	if (ok && (!lo || (sym_expr_get_si(lo, &lov) == 1 && lov < 0))) {
		/* interval arithmetic loses what a decision keeps: seq - max(-1,
		 * seq - K) - 1 has no lower end term by term, yet is >= 0 */
		const sym_expr *d0 = r->tensors[i].tv.dims[d];
		sym_truth t =
		    sym_prove(r->ctx, r->facts, sym_expr_rel(r->ctx, SYM_REL_GE, d0, sym__zero(r->ctx)));
		if (t == SYM_TRUE)
			lo = sym__zero(r->ctx);
		else if (t == SYM_ERROR)
			sym_ctx_clear_error(r->ctx);
	}
	if (min)
		*min = lo;
	if (max)
		*max = hi;
	return ok ? 0 : -1;
}
