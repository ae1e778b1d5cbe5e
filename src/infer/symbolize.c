/* Symbolization: every input dim becomes an expression (a constant, the
 * declared symbol or expression, a fresh symbol named after the input for
 * an anonymous dim) and every initializer gets its shape and, when small,
 * its value; the model symbols are recorded with their sources. */
#include "infer/passes.h"

#include <stdio.h>
#include <string.h>

/* A fresh symbol name for an anonymous dim: the input name (as an
 * identifier) and the dim index, made unique by trailing '_'.  A deliberate
 * naming cut: at most 60 bytes of the input name are kept (the symbol's
 * source names the whole input); the suffix is never cut. */
static const sym_expr *anon_symbol(sym_graph_result *r, const char *input, int k)
{
	char name[64];
	size_t i, n = 0;
	const sym_expr *s = NULL;
	sym_sbuf b;
	for (i = 0; input[i] && n < 60; i++) {
		char c = input[i];
		int ok =
		    c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		name[n++] = ok ? c : '_';
	}
	if (!n || (name[0] >= '0' && name[0] <= '9'))
		name[0] = n ? '_' : 'd', n = n ? n : 1;
	name[n] = 0;
	sym__sbuf_init(&b, r->ctx);
	sym__sbuf_printf(&b, "%s_%d", name, k);
	while (!b.fail) {
		s = sym_expr_symbol(r->ctx, b.s);
		if (!s || !sym__graph_find_sym(r, s))
			break;
		sym__sbuf_puts(&b, "_");
	}
	if (b.fail)
		s = NULL; /* out of memory recorded */
	sym__sbuf_clear(&b);
	return s;
}

/* Symbolizes input mt; src and dsrc are scratch builders of the caller's. */
static int symbolize_input(sym_graph_result *r, const sym_mtensor *mt, sym_sbuf *src, sym_sbuf *dsrc)
{
	{
		gtensor *t = sym__result_add_tensor(r, mt->name, -1, "an input");
		int k;
		if (!t)
			return -1;
		t->is_input = 1;
		t->tv.dtype = mt->dtype;
		t->tv.rank = mt->rank;
		if (mt->rank < 0)
			return 0;
		t->tv.dims =
		    sym__infer_alloc(&r->inf, (size_t)(mt->rank ? mt->rank : 1) * sizeof(*t->tv.dims));
		if (!t->tv.dims)
			return sym__result_nomem(r);
		for (k = 0; k < mt->rank; k++) {
			const sym_expr *d = NULL;
			src->n = 0;
			sym__sbuf_printf(src, "%s.shape[%d]", mt->name, k);
			if (src->fail)
				return sym__result_nomem(r);
			switch (mt->dims[k].kind) {
			case SYM_DIM_CONST:
				d = sym_expr_from_si(r->ctx, mt->dims[k].value);
				break;
			case SYM_DIM_ANON:
				d = anon_symbol(r, mt->name, k);
				if (d && sym__result_add_sym(r, d, src->s) < 0)
					return -1;
				break;
			case SYM_DIM_EXPR: {
				const sym_expr *found[16];
				size_t ns, j;
				d = sym_expr_from_str(r->ctx, mt->dims[k].text);
				if (!d)
					return sym__result_refail(r, "model: input '%s' dim %d '%s'",
					                          mt->name, k, mt->dims[k].text);
				if (sym_expr_is_pred(d))
					return sym__result_fail(r, "model: input '%s' dim %d is a predicate",
					                        mt->name, k);
				ns = sym_expr_symbols(r->ctx, d, found, 16);
				for (j = 0; j < ns && j < 16; j++) {
					dsrc->n = 0;
					if (sym_expr_kind(d) == SYM_KIND_SYM)
						sym__sbuf_puts(dsrc, src->s);
					else
						sym__sbuf_printf(dsrc, "%s == %s", src->s, mt->dims[k].text);
					if (dsrc->fail)
						return sym__result_nomem(r);
					if (sym__result_add_sym(r, found[j], dsrc->s) < 0)
						return -1;
				}
				break;
			}
			}
			if (!d)
				return -1;
			t->tv.dims[k] = d;
		}
	}
	return 0;
}

static int symbolize_inputs(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i;
	sym_sbuf src, dsrc;
	int st = 0;
	sym__sbuf_init(&src, r->ctx);
	sym__sbuf_init(&dsrc, r->ctx);
	for (i = 0; i < m->ninputs && !st; i++)
		st = symbolize_input(r, &m->inputs[i], &src, &dsrc);
	sym__sbuf_clear(&src);
	sym__sbuf_clear(&dsrc);
	return st;
}

int sym__init_tval(sym_graph_result *r, const sym_mtensor *mt, sym_tval *tv)
{
	size_t j;
	int k;
	memset(tv, 0, sizeof(*tv));
	tv->present = 1;
	tv->dtype = mt->dtype;
	tv->rank = mt->rank;
	tv->dims = sym__infer_alloc(&r->inf, (size_t)(mt->rank > 0 ? mt->rank : 1) * sizeof(*tv->dims));
	if (!tv->dims)
		return sym__result_nomem(r);
	for (k = 0; k < mt->rank; k++)
		tv->dims[k] = sym_expr_from_si(r->ctx, mt->dims[k].value);
	if (mt->has_data && mt->ndata <= 65536) {
		const sym_expr **v = sym__infer_alloc(&r->inf, (mt->ndata ? mt->ndata : 1) * sizeof(*v));
		if (!v)
			return sym__result_nomem(r);
		for (j = 0; j < mt->ndata; j++)
			v[j] = sym_expr_from_si(r->ctx, mt->data[j]);
		tv->has_value = 1, tv->nvalue = mt->ndata, tv->value = v;
	} else if (mt->fdata) {
		/* small floating-point tensors (Resize scales) as exact rationals */
		const sym_expr **v = sym__infer_alloc(&r->inf, (mt->nfdata ? mt->nfdata : 1) * sizeof(*v));
		if (!v)
			return sym__result_nomem(r);
		for (j = 0; j < mt->nfdata; j++)
			if (!(v[j] = sym__expr_from_double(r->ctx, mt->fdata[j])))
				return -1;
		tv->has_value = 1, tv->nvalue = mt->nfdata, tv->value = v;
	}
	return sym__failed(r->ctx) ? -1 : 0;
}

static int add_initializers(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i;
	for (i = 0; i < m->ninits; i++) {
		const sym_mtensor *mt = &m->inits[i];
		gtensor *t = sym__result_add_tensor(r, mt->name, -1, "an initializer");
		int present;
		if (!t)
			return -1;
		present = t->tv.present;
		if (sym__init_tval(r, mt, &t->tv) < 0)
			return -1;
		t->tv.present = present;
	}
	return sym__failed(r->ctx) ? -1 : 0;
}

int sym__symbolize(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t n = m->ninputs + m->ninits, i;
	/* the top graph's tensors, known up front (subgraphs add theirs) */
	for (i = 0; i < m->nnodes; i++)
		n += m->nodes[i].nout;
	if (sym__result_reserve(r, n) < 0)
		return -1;
	return symbolize_inputs(r) < 0 || add_initializers(r) < 0 ? -1 : 0;
}
