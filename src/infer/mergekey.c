/* Merge keys: nodes whose output shapes print the same share a key. */
#include "infer/passes.h"

#include <stdlib.h>
#include <string.h>

/* The printed dims so far: a model's nodes share most of their dims, so
 * each distinct dim is printed once.  Open addressing on the node pointer,
 * power-of-two capacity. */
typedef struct dim_text {
	const sym_expr *e; /* NULL: a free slot */
	char *s;
	size_t len;
} dim_text;

typedef struct dim_memo {
	sym_ctx *ctx;
	dim_text *t;
	size_t cap, n;
} dim_memo;

static void memo_clear(dim_memo *m)
{
	size_t i;
	for (i = 0; i < m->cap; i++)
		if (m->t[i].e)
			sym__free(m->ctx, m->t[i].s, m->t[i].len + 1);
	sym__free(m->ctx, m->t, m->cap * sizeof(*m->t));
}

/* The slot of e, free when e was not printed yet; NULL when the table
 * cannot grow (out of memory recorded). */
static dim_text *memo_slot(dim_memo *m, const sym_expr *e)
{
	size_t i, j;
	if (2 * (m->n + 1) > m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		dim_text *nt = sym__alloc(m->ctx, nc * sizeof(*nt));
		if (!nt)
			return NULL;
		memset(nt, 0, nc * sizeof(*nt));
		for (i = 0; i < m->cap; i++) {
			if (!m->t[i].e)
				continue;
			for (j = sym_expr_hash(m->t[i].e) & (nc - 1); nt[j].e; j = (j + 1) & (nc - 1))
				;
			nt[j] = m->t[i];
		}
		sym__free(m->ctx, m->t, m->cap * sizeof(*m->t));
		m->t = nt, m->cap = nc;
	}
	for (j = sym_expr_hash(e) & (m->cap - 1); m->t[j].e; j = (j + 1) & (m->cap - 1))
		if (m->t[j].e == e)
			break;
	return &m->t[j];
}

/* Appends the printed form of e to b, from the memo when it is there;
 * 0 when printing or the memo failed (b->fail is set). */
static int put_dim(dim_memo *m, sym_sbuf *b, const sym_expr *e)
{
	dim_text *slot = memo_slot(m, e);
	size_t start = b->n;
	if (!slot) {
		b->fail = 1;
		return 0;
	}
	if (slot->e) {
		sym__sbuf_put(b, slot->s, slot->len);
		return !b->fail;
	}
	if (!sym__print(b, e) || b->fail) {
		b->fail = 1;
		return 0;
	}
	if (!(slot->s = sym__alloc(m->ctx, b->n - start + 1))) {
		b->fail = 1;
		return 0;
	}
	slot->len = b->n - start;
	memcpy(slot->s, b->s + start, slot->len);
	slot->s[slot->len] = 0;
	slot->e = e;
	m->n++;
	return 1;
}

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
	dim_memo memo = {r->ctx, NULL, 0, 0};
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
				put_dim(&memo, &b, tv->dims[d]);
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
	memo_clear(&memo);
	sym__free(r->ctx, all, nall * sizeof(*all));
	return st;
}
