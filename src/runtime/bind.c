/* The binding of a model program's inputs: one program input per input dim
 * position, the graph symbols bound to positions (or solved from a dim
 * a*s + b), and the checks every input must pass before the guards: the
 * dims equal their declared forms, every symbol in its range, every
 * data-dependent dim in its. */
#include "seam.h"
#include "bind_private.h"
#include "infer/passes.h"
#include "infer/storage.h"
#include "program_private.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sym__elist_push(sym_ctx *ctx, sym__elist *l, const sym_expr *e)
{
	if (!e || SYM_GROW(ctx, l->v, l->n + 1, l->cap, 32) < 0)
		return -1;
	l->v[l->n++] = e;
	return 0;
}

void sym__elist_free(sym_ctx *ctx, sym__elist *l)
{
	sym__free(ctx, l->v, l->cap * sizeof(*l->v));
	memset(l, 0, sizeof(*l));
}

int sym__slist_push(sym_ctx *ctx, sym__slist *l, char *s)
{
	if (!s)
		return -1;
	if (SYM_GROW(ctx, l->v, l->n + 1, l->cap, 32) < 0) {
		sym__free(ctx, s, strlen(s) + 1);
		return -1;
	}
	l->v[l->n++] = s;
	return 0;
}

/* The printf-formatted text allocated with ctx's hook (strlen + 1 bytes),
 * NULL when memory runs out. */
static char *fmt(sym_ctx *ctx, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *fmt(sym_ctx *ctx, const char *f, ...)
{
	va_list ap;
	char *r;
	int k;
	va_start(ap, f);
	k = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (k < 0 || !(r = sym__alloc(ctx, (size_t)k + 1)))
		return NULL;
	va_start(ap, f);
	vsnprintf(r, (size_t)k + 1, f, ap);
	va_end(ap);
	return r;
}

/* Whether the constant c is at most SYM_DIM_MAX. */
static int below_dim_max(const sym_expr *c)
{
	long long v;
	return sym_expr_get_si(c, &v) == 1 && v <= SYM_DIM_MAX;
}

/* The check e <= SYM_DIM_MAX (NULL when e is, error recorded). */
static const sym_expr *dim_max_check(sym_ctx *ctx, const sym_expr *e)
{
	return sym_expr_rel(ctx, SYM_REL_LE, e, sym_expr_from_si(ctx, SYM_DIM_MAX));
}

/* Appends the range check of each data-dependent input (over the program's
 * inputs: from/to maps graph symbols to them) to checks and texts. */
static int bind_fresh(sym_ctx *ctx, const sym_graph_result *r, size_t nsubst, const sym_expr *const *from,
                      const sym_expr *const *to, sym__elist *checks, sym__slist *texts)
{
	size_t i;
	for (i = 0; i < r->inf.nfresh; i++) {
		const sym_expr *u = r->inf.fresh_syms[i], *lo = r->inf.fresh_lo[i], *hi = r->inf.fresh_hi[i],
		               *p;
		char *lt, *ht, *text;
		p = sym_expr_rel(ctx, SYM_REL_GE, u, lo);
		if (hi)
			p = sym_expr_and(ctx, p, sym_expr_rel(ctx, SYM_REL_LE, u, hi));
		lt = sym_expr_to_str(ctx, lo);
		ht = hi ? sym_expr_to_str(ctx, hi) : NULL;
		text = fmt(ctx, "data-dependent %s must be in the range [%s, %s%s", sym_expr_symbol_name(u),
		           lt ? lt : "?",
		           ht   ? ht
		           : hi ? "?"
		                : "inf",
		           hi ? "]" : ")");
		sym_str_free(ctx, lt), sym_str_free(ctx, ht);
		if (sym__elist_push(ctx, checks, sym_expr_subst(ctx, p, nsubst, from, to)) < 0) {
			sym__free(ctx, text, text ? strlen(text) + 1 : 0);
			goto nomem;
		}
		if (sym__slist_push(ctx, texts, text) < 0)
			goto nomem;
		/* a dim at most SYM_DIM_MAX, as the prover assumed, unless its own
		 * constant end says so */
		if (!sym__facts_dims_bounded(r->facts) || (hi && below_dim_max(hi)))
			continue;
		if (sym__elist_push(ctx, checks,
		                    dim_max_check(ctx, sym_expr_subst(ctx, u, nsubst, from, to))) < 0 ||
		    sym__slist_push(ctx, texts,
		                    fmt(ctx, "data-dependent %s must be at most %" PRId64 ", the largest dim",
		                        sym_expr_symbol_name(u), SYM_DIM_MAX)) < 0)
			goto nomem;
	}
	return 0;
nomem:
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	return -1;
}

void sym__binding_free(sym_ctx *ctx, sym__binding *b)
{
	size_t i;
	for (i = 0; i < b->texts.n; i++)
		sym__free(ctx, b->texts.v[i], strlen(b->texts.v[i]) + 1);
	sym__free(ctx, b->texts.v, b->texts.cap * sizeof(*b->texts.v));
	sym__elist_free(ctx, &b->ins), sym__elist_free(ctx, &b->from);
	sym__elist_free(ctx, &b->to), sym__elist_free(ctx, &b->checks);
	memset(b, 0, sizeof(*b));
}

int sym__bind_inputs(sym_ctx *ctx, const sym_graph_result *r, sym__binding *b)
{
	const sym_model *m = r->model;
	sym__elist pos = {0}, gsyms = {0}, gby = {0}, guards = {0};
	sym__slist bind = {0};
	size_t i, k, p = 0, np = 0, *gat = NULL; /* gat[k]: the dim position binding gsyms.v[k] */
	const char **pin = NULL;                 /* pin[p], pdim[p]: input and dim of position p */
	int d, *pdim = NULL, ret = -1;
	sym_facts *rf = NULL;
	/* one symbol per input dim position; graph symbols bound to the first
	 * position that is exactly that symbol */
	for (i = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		if (t->tv.rank < 0) {
			sym__error(ctx, SYM_EDOMAIN, -1,
			           "input '%s' has unknown rank: the runtime program needs it",
			           m->inputs[i].name);
			goto fail;
		}
		for (d = 0; d < t->tv.rank; d++, p++) {
			char name[32];
			const sym_expr *ps, *dim = t->tv.dims[d];
			snprintf(name, sizeof(name), "_d%zu", p);
			ps = sym_expr_symbol(ctx, name);
			if (sym__elist_push(ctx, &pos, ps) < 0)
				goto nomem;
			if (sym_expr_kind(dim) == SYM_KIND_SYM) {
				for (k = 0; k < gsyms.n && gsyms.v[k] != dim; k++)
					;
				if (k == gsyms.n) {
					if (sym__elist_push(ctx, &gsyms, dim) < 0 ||
					    sym__elist_push(ctx, &gby, ps) < 0)
						goto nomem;
					continue;
				}
			}
		}
	}
	np = p;
	pin = sym__alloc(ctx, (np + 1) * sizeof(*pin));
	pdim = sym__alloc(ctx, (np + 1) * sizeof(*pdim));
	gat = sym__alloc(ctx, (2 * np + 1) * sizeof(*gat)); /* a symbol per position at most, twice */
	if (!pin || !pdim || !gat)
		goto nomem;
	for (i = 0, p = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		for (d = 0; d < t->tv.rank; d++, p++)
			pin[p] = m->inputs[i].name, pdim[p] = d;
	}
	for (k = 0; k < gsyms.n; k++)
		for (gat[k] = 0; pos.v[gat[k]] != gby.v[k]; gat[k]++)
			;
	/* data-dependent dims follow the input dims, bound once their
	 * producing kernel has run */
	for (i = 0; i < r->inf.nfresh; i++)
		if (sym__elist_push(ctx, &pos, r->inf.fresh_syms[i]) < 0)
			goto nomem;
	b->ndims = pos.n;
	/* a symbol that only appears inside a dim expression a*s + b (b over
	 * bound symbols) is solved from that dim: s = (d - b)/a, checked below
	 * by the binding of that dim and by s being an integer >= its minimum */
	p = 0;
	for (i = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		for (d = 0; d < t->tv.rank; d++, p++) {
			const sym_expr *dim = t->tv.dims[d], *found[8], *s = NULL, *rest, *sol, *coef;
			size_t nf = sym_expr_symbols(ctx, dim, found, 8), j, nun = 0;
			int lin;
			if (sym_expr_kind(dim) == SYM_KIND_SYM || nf > 8)
				continue;
			for (j = 0; j < nf; j++) {
				for (k = 0; k < gsyms.n && gsyms.v[k] != found[j]; k++)
					;
				if (k == gsyms.n)
					s = found[j], nun++;
			}
			if (nun != 1)
				continue;
			if ((lin = sym__linear_coef(ctx, dim, s, &coef)) < 0)
				goto fail;
			if (!lin)
				continue; /* s is not a linear term */
			rest = sym_expr_sub(ctx, dim, sym_expr_mul(ctx, coef, s));
			{
				const sym_expr *rf[8];
				size_t nr = sym_expr_symbols(ctx, rest, rf, 8), q;
				int uses_s = 0;
				for (q = 0; q < nr && q < 8; q++)
					if (rf[q] == s)
						uses_s = 1;
				if (uses_s)
					continue;
			}
			sol = sym_expr_div(
			    ctx,
			    sym_expr_sub(ctx, pos.v[p], sym_expr_subst(ctx, rest, gsyms.n, gsyms.v, gby.v)),
			    coef);
			if (!sol || sym__elist_push(ctx, &gsyms, s) < 0 ||
			    sym__elist_push(ctx, &gby, sol) < 0)
				goto fail;
			gat[gsyms.n - 1] = p;
			/* s must be an integer (its range is checked below) */
			{
				const sym_expr *ok =
				    sym_expr_rel(ctx, SYM_REL_EQ, sym_expr_floor(ctx, sol), sol);
				char *st = sym_expr_to_str(ctx, dim);
				if (sym__elist_push(ctx, &guards, ok) < 0 ||
				    sym__slist_push(ctx, &bind,
				                    fmt(ctx, "input '%s' dim %d must be %s for an integer %s",
				                        m->inputs[i].name, d, st ? st : "?",
				                        sym_expr_symbol_name(s))) < 0) {
					sym_str_free(ctx, st);
					goto nomem;
				}
				sym_str_free(ctx, st);
			}
		}
	}
	/* binding checks: every dim equals its declared form */
	p = 0;
	for (i = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		for (d = 0; d < t->tv.rank; d++, p++) {
			const sym_expr *dim = t->tv.dims[d], *want;
			char *text;
			if (sym_expr_kind(dim) == SYM_KIND_SYM) {
				for (k = 0; k < gsyms.n && gsyms.v[k] != dim; k++)
					;
				if (gby.v[k] == pos.v[p])
					continue; /* the binding occurrence */
			}
			want = sym_expr_subst(ctx, dim, gsyms.n, gsyms.v, gby.v);
			if (!want)
				goto fail;
			{
				const sym_expr *left[4];
				size_t nl = sym_expr_symbols(ctx, want, left, 4), j;
				for (j = 0; j < nl && j < 4; j++)
					if (sym_expr_symbol_name(left[j])[0] != '_') {
						sym__error(ctx, SYM_EDOMAIN, -1,
						           "input '%s' dim %d: symbol '%s' is not bound "
						           "by any input dim",
						           m->inputs[i].name, d,
						           sym_expr_symbol_name(left[j]));
						goto fail;
					}
			}
			if (sym__elist_push(ctx, &guards, sym_expr_rel(ctx, SYM_REL_EQ, pos.v[p], want)) < 0)
				goto nomem;
			{
				char *wt = sym_expr_to_str(ctx, dim);
				text = fmt(ctx, "input '%s' dim %d must be %s", m->inputs[i].name, d,
				           wt ? wt : "?");
				sym_str_free(ctx, wt);
			}
			if (sym__slist_push(ctx, &bind, text) < 0)
				goto nomem;
			/* no input dim above SYM_DIM_MAX: a symbol's check below
			 * covers its own positions, a constant its own value */
			if (!sym__facts_dims_bounded(r->facts) ||
			    (sym_expr_kind(dim) == SYM_KIND_SYM || below_dim_max(dim)))
				continue;
			if (sym__elist_push(ctx, &guards, dim_max_check(ctx, pos.v[p])) < 0 ||
			    sym__slist_push(
			        ctx, &bind,
			        fmt(ctx, "input '%s' dim %d must be at most %" PRId64 ", the largest dim",
			            m->inputs[i].name, d, SYM_DIM_MAX)) < 0)
				goto nomem;
		}
	}
	/* the input symbols' ranges (the default minimum, --range): the
	 * formulas hold only inside them */
	if (!(rf = sym__graph_range_facts(r)))
		goto fail;
	for (k = 0; k < gsyms.n; k++) {
		const sym_expr *ok = sym_expr_bool(ctx, 1), *lo, *hi;
		char *lt, *ht;
		if (!sym__facts_symbol_range(ctx, rf, gsyms.v[k], &lo, &hi))
			goto fail;
		if (lo)
			ok = sym_expr_and(ctx, ok, sym_expr_rel(ctx, SYM_REL_GE, gby.v[k], lo));
		if (hi)
			ok = sym_expr_and(ctx, ok, sym_expr_rel(ctx, SYM_REL_LE, gby.v[k], hi));
		if (!ok)
			goto fail;
		if (lo || hi) {
			lt = lo ? sym_expr_to_str(ctx, lo) : NULL;
			ht = hi ? sym_expr_to_str(ctx, hi) : NULL;
			if (sym__elist_push(ctx, &guards, ok) < 0 ||
			    sym__slist_push(ctx, &bind,
			                    fmt(ctx, "%s must be in the range %s%s, %s%s (input '%s' dim %d)",
			                        sym_expr_symbol_name(gsyms.v[k]), lo ? "[" : "(",
			                        lt ? lt : "-inf", ht ? ht : "inf", hi ? "]" : ")",
			                        pin[gat[k]], pdim[gat[k]])) < 0) {
				sym_str_free(ctx, lt), sym_str_free(ctx, ht);
				goto nomem;
			}
			sym_str_free(ctx, lt), sym_str_free(ctx, ht);
		}
		/* a dim at most SYM_DIM_MAX, as the prover assumed (an end of
		 * its own is clamped to it) */
		if (hi || !sym__facts_dims_bounded(rf))
			continue;
		if (sym__elist_push(ctx, &guards, dim_max_check(ctx, gby.v[k])) < 0 ||
		    sym__slist_push(
		        ctx, &bind,
		        fmt(ctx, "%s must be at most %" PRId64 ", the largest dim (input '%s' dim %d)",
		            sym_expr_symbol_name(gsyms.v[k]), SYM_DIM_MAX, pin[gat[k]], pdim[gat[k]])) < 0)
			goto nomem;
	}
	/* the ranges of data-dependent dims */
	if (bind_fresh(ctx, r, gsyms.n, gsyms.v, gby.v, &guards, &bind) < 0)
		goto fail;
	ret = 0;
	goto done;
nomem:
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
fail:
done:
	b->ins = pos, b->from = gsyms, b->to = gby, b->checks = guards, b->texts = bind;
	sym__free(ctx, pin, (np + 1) * sizeof(*pin));
	sym__free(ctx, pdim, (np + 1) * sizeof(*pdim));
	sym__free(ctx, gat, (2 * np + 1) * sizeof(*gat));
	sym_facts_free(rf);
	return ret;
}
