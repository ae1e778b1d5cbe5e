/* Merge keys: nodes whose output shapes print the same share a key. */
#include "infer/passes.h"

#include <stdlib.h>
#include <string.h>

static int key_cmp(const void *x, const void *y)
{
	const gkey *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	return c ? c : (a->n > b->n) - (a->n < b->n); /* then model order */
}

/* The merge key of a node: its output shapes printed canonically, one
 * bracket per output, "[d0, d1][d0]" ("[*]" for an unknown rank).  A
 * top-level ", " or "][" cannot occur inside a printed expression, so two
 * nodes share a key exactly when their output shapes are the same. */
int sym__merge_keys(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i, j, nk = 0;
	size_t nall = m->nnodes + 1;
	gkey *all;
	int st = -1;
	if (!(r->node_keys = sym__infer_alloc(&r->inf, nall * sizeof(*r->node_keys))) ||
	    !(all = sym__alloc(r->ctx, nall * sizeof(*all))))
		return -1;
	memset(all, 0, nall * sizeof(*all));
	for (i = 0; i < m->nnodes; i++) {
		sym_sbuf b;
		int ok = 1;
		sym__sbuf_init(&b, r->ctx);
		for (j = 0; j < m->nodes[i].nout && ok; j++) {
			const sym_tval *tv = &r->tensors[sym__graph_find(r, m->nodes[i].out[j])].tv;
			int d;
			if (tv->rank < -1) {
				ok = 0;
				break;
			}
			sym__sbuf_puts(&b, "[");
			if (tv->rank < 0)
				sym__sbuf_puts(&b, "*");
			for (d = 0; d < tv->rank; d++) {
				if (d)
					sym__sbuf_puts(&b, ", ");
				if (!sym__print(&b, tv->dims[d]))
					b.fail = 1;
			}
			sym__sbuf_puts(&b, "]");
		}
		/* a dim's text too long, no memory, or a key cut short by a failed
		 * allocation (it would group wrongly) */
		if (b.fail || sym__failed(r->ctx) ||
		    (ok && b.s && !(r->node_keys[i] = sym__infer_strdup(&r->inf, b.s)))) {
			sym__sbuf_clear(&b);
			if (!sym__failed(r->ctx))
				sym__result_nomem(r);
			goto error;
		}
		if (ok && b.s) {
			all[nk].key = r->node_keys[i];
			all[nk].n = i; /* node index */
			nk++;
		}
		sym__sbuf_clear(&b);
	}
	qsort(all, nk, sizeof(*all), key_cmp);
	if (!(r->keys = sym__infer_alloc(&r->inf, (nk + 1) * sizeof(*r->keys))))
		goto error;
	for (i = 0; i < nk;) {
		size_t e = i, k;
		gkey *g = &r->keys[r->nkeys++];
		while (e < nk && !strcmp(all[e].key, all[i].key))
			e++;
		g->key = all[i].key;
		g->nodes = sym__infer_alloc(&r->inf, (e - i) * sizeof(*g->nodes));
		if (!g->nodes)
			goto error;
		for (k = i; k < e; k++) /* in model order */
			g->nodes[k - i] = m->nodes[all[k].n].name;
		g->n = e - i;
		i = e;
	}
	st = 0;
error:
	sym__free(r->ctx, all, nall * sizeof(*all));
	return st;
}
