/* Merge keys: nodes whose output shapes print the same share a key. */
#include "infer/passes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The printed dims so far: a model's nodes share most of their dims, so
 * each distinct dim is printed once.  A dim's text is not copied: it lies
 * in the key it was first printed into (the key's text is the result's,
 * kept as long as the memo).  Open addressing on the node pointer,
 * power-of-two capacity. */
typedef struct dim_text {
	const sym_expr *e; /* NULL: a free slot */
	const char *s;     /* inside a key; NULL until that key is kept */
	size_t len;
} dim_text;

typedef struct dim_memo {
	sym_ctx *ctx;
	dim_text *t;
	size_t cap, n;
} dim_memo;

static void memo_clear(dim_memo *m)
{
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

/* The dims of the key being made that were printed for it: where their
 * text starts in it, to be pointed at once the key is kept. */
typedef struct new_dims {
	struct {
		const sym_expr *e;
		size_t at;
	} * v;
	size_t n, cap;
} new_dims;

/* Appends the printed form of e to b, from the memo when it is there (a
 * dim printed earlier in this key is printed again: its text is pointed at
 * only once the key is kept); 0 when printing or the memo failed (b->fail
 * is set). */
static int put_dim(dim_memo *m, new_dims *nd, sym_sbuf *b, const sym_expr *e)
{
	dim_text *slot = memo_slot(m, e);
	size_t start = b->n;
	if (!slot) {
		b->fail = 1;
		return 0;
	}
	if (slot->e && slot->s) {
		sym__sbuf_put(b, slot->s, slot->len);
		return !b->fail;
	}
	if (!sym__print(b, e) || b->fail) {
		b->fail = 1;
		return 0;
	}
	/* a dim met before in a key that was not kept (a later output of
	 * its node had no shape) is pointed at this key's text */
	if (SYM_GROW(m->ctx, nd->v, nd->n + 1, nd->cap, 8) < 0) {
		b->fail = 1;
		return 0;
	}
	nd->v[nd->n].e = e, nd->v[nd->n].at = start;
	nd->n++;
	if (!slot->e) {
		slot->e = e;
		slot->s = NULL;
		slot->len = b->n - start;
		m->n++;
	}
	return 1;
}

/* Points the memo's new dims at their text in the kept key. */
static void keep_dims(dim_memo *m, new_dims *nd, const char *key)
{
	size_t i;
	for (i = 0; i < nd->n; i++) {
		dim_text *slot = memo_slot(m, nd->v[i].e);
		if (slot && slot->e == nd->v[i].e)
			slot->s = key + nd->v[i].at;
	}
	nd->n = 0;
}

/* The distinct keys so far: each node's key is looked up by its text,
 * and only the distinct keys are sorted.  Open addressing on the text's
 * hash, power-of-two capacity; a group's nodes are counted first, listed
 * after. */
typedef struct key_group {
	const char *key; /* NULL: a free slot */
	size_t hash, n;
	size_t id;    /* in the order the keys were met (slots move as the table grows) */
	size_t place; /* in r->keys, once sorted */
} key_group;

typedef struct key_table {
	sym_ctx *ctx;
	key_group *t;
	size_t cap, n;
} key_table;

/* A key's hash, from what its text is made of: each output's rank and its
 * dims' structural hashes (the printed text of a node is its own, so equal
 * texts have equal parts), not from the bytes of a text that repeats
 * every long dim. */
static size_t key_mix(size_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3u + (h >> 29);
}

/* The group of the key text s[0..len) (hash h), made free when missing;
 * NULL when the table cannot grow (out of memory recorded). */
static key_group *group_slot(key_table *k, const char *s, size_t len, size_t h)
{
	size_t i, j;
	if (2 * (k->n + 1) > k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 64;
		key_group *nt = sym__alloc(k->ctx, nc * sizeof(*nt));
		if (!nt)
			return NULL;
		memset(nt, 0, nc * sizeof(*nt));
		for (i = 0; i < k->cap; i++) {
			if (!k->t[i].key)
				continue;
			for (j = k->t[i].hash & (nc - 1); nt[j].key; j = (j + 1) & (nc - 1))
				;
			nt[j] = k->t[i];
		}
		sym__free(k->ctx, k->t, k->cap * sizeof(*k->t));
		k->t = nt, k->cap = nc;
	}
	for (j = h & (k->cap - 1); k->t[j].key; j = (j + 1) & (k->cap - 1))
		if (k->t[j].hash == h && !strncmp(k->t[j].key, s, len) && !k->t[j].key[len])
			break;
	return &k->t[j];
}

static int group_cmp(const void *x, const void *y)
{
	const key_group *a = *(const key_group *const *)x, *b = *(const key_group *const *)y;
	return strcmp(a->key, b->key); /* distinct keys: never equal */
}

/* The merge key of a node: its output shapes printed canonically, one
 * bracket per output, "[d0, d1][d0]" ("[*]" for an unknown rank).  A
 * top-level ", " or "][" cannot occur inside a printed expression, so two
 * nodes share a key exactly when their output shapes are the same.  Keys
 * are listed in the order of their text, each with its nodes in model
 * order. */
int sym__merge_keys(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i, j, g;
	size_t nall = m->nnodes + 1;
	size_t *group_of = NULL; /* each node's group id, or -1 */
	key_group **sorted = NULL, **by_id = NULL;
	key_table keys = {r->ctx, NULL, 0, 0};
	dim_memo memo = {r->ctx, NULL, 0, 0};
	new_dims nd = {NULL, 0, 0};
	sym_sbuf b;
	int st = -1;
	sym__sbuf_init(&b, r->ctx);
	if (!(r->node_keys = sym__infer_alloc(&r->inf, nall * sizeof(*r->node_keys))) ||
	    !(group_of = sym__alloc(r->ctx, nall * sizeof(*group_of))))
		goto error;
	for (i = 0; i < m->nnodes; i++) {
		key_group *kg;
		int ok = 1;
		size_t h = 14695981039346656037u;
		b.n = 0;
		if (b.s)
			b.s[0] = 0;
		nd.n = 0;
		group_of[i] = (size_t)-1;
		for (j = 0; j < m->nodes[i].nout && ok; j++) {
			const sym_tval *tv =
			    &r->tensors[r->tix
			                    ? r->tix[r->tix_at[i] + m->nodes[i].nin + m->nodes[i].nouter + j]
			                    : sym__graph_find(r, m->nodes[i].out[j])]
			         .tv;
			int d;
			if (tv->rank < -1) {
				ok = 0;
				break;
			}
			sym__sbuf_puts(&b, "[");
			if (tv->rank < 0)
				sym__sbuf_puts(&b, "*");
			h = key_mix(h, (uint64_t)(tv->rank + 2));
			for (d = 0; d < tv->rank; d++) {
				if (d)
					sym__sbuf_puts(&b, ", ");
				put_dim(&memo, &nd, &b, tv->dims[d]);
				h = key_mix(h, sym_expr_hash(tv->dims[d]));
			}
			sym__sbuf_puts(&b, "]");
		}
		/* a dim's text too long (named by its node), no memory, or a key
		 * cut short by a failed allocation (it would group wrongly) */
		if (b.fail || sym__failed(r->ctx)) {
			if (sym_ctx_last_error(r->ctx) == SYM_ELIMIT)
				sym__result_refail(r, "merge key of node '%s'", m->nodes[i].name);
			goto nomem;
		}
		if (!ok || !b.s)
			continue;
		if (!(kg = group_slot(&keys, b.s, b.n, h)))
			goto nomem;
		if (!kg->key) {
			if (!(kg->key = sym__infer_strdup(&r->inf, b.s)))
				goto nomem;
			kg->hash = h;
			kg->id = keys.n++;
		}
		keep_dims(&memo, &nd, kg->key);
		kg->n++;
		r->node_keys[i] = (char *)kg->key;
		group_of[i] = kg->id;
	}
	if (!(sorted = sym__alloc(r->ctx, (keys.n + 1) * sizeof(*sorted))) ||
	    !(by_id = sym__alloc(r->ctx, (keys.n + 1) * sizeof(*by_id))))
		goto nomem;
	for (i = 0, g = 0; i < keys.cap; i++)
		if (keys.t[i].key)
			sorted[g++] = by_id[keys.t[i].id] = &keys.t[i];
	qsort(sorted, keys.n, sizeof(*sorted), group_cmp);
	if (!(r->keys = sym__infer_alloc(&r->inf, (keys.n + 1) * sizeof(*r->keys))))
		goto error;
	for (g = 0; g < keys.n; g++) {
		gkey *k = &r->keys[g];
		k->key = (char *)sorted[g]->key;
		if (!(k->nodes = sym__infer_alloc(&r->inf, sorted[g]->n * sizeof(*k->nodes))))
			goto error;
		sorted[g]->place = g;
	}
	r->nkeys = keys.n;
	for (i = 0; i < m->nnodes; i++) /* in model order */
		if (group_of[i] != (size_t)-1) {
			gkey *k = &r->keys[by_id[group_of[i]]->place];
			k->nodes[k->n++] = m->nodes[i].name;
		}
	st = 0;
	goto error;
nomem:
	if (!sym__failed(r->ctx))
		sym__result_nomem(r);
error:
	sym__sbuf_clear(&b);
	memo_clear(&memo);
	sym__free(r->ctx, nd.v, nd.cap * sizeof(*nd.v));
	sym__free(r->ctx, sorted, (keys.n + 1) * sizeof(*sorted));
	sym__free(r->ctx, by_id, (keys.n + 1) * sizeof(*by_id));
	sym__free(r->ctx, keys.t, keys.cap * sizeof(*keys.t));
	sym__free(r->ctx, group_of, nall * sizeof(*group_of));
	return st;
}
