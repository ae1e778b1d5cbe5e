/* Decisions of predicates under the facts. */
#include "facts_private.h"

/* The assumptions as the prover compares them (each, with the defining
 * equalities substituted, and its conjuncts), in a set of node pointers
 * kept in the fact store: rebuilt when the facts change (their version
 * moves), extended when an assumption arrives, so that a decision does not
 * go through every assumption. */
struct sym_aset {
	const sym_expr **slot;
	size_t cap, count;
	size_t nassumed; /* assumptions in the set */
	unsigned long version;
};

void sym__aset_free(sym_facts *f)
{
	if (!f->aset)
		return;
	sym__free(f->ctx, f->aset->slot, f->aset->cap * sizeof(*f->aset->slot));
	sym__free(f->ctx, f->aset, sizeof(*f->aset));
	f->aset = NULL;
}

static int aset_put(sym_ctx *ctx, struct sym_aset *a, const sym_expr *e)
{
	size_t j;
	if ((a->count + 1) * 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64, i;
		const sym_expr **ns = sym__alloc(ctx, cap * sizeof(*ns));
		if (!ns)
			return 0;
		memset(ns, 0, cap * sizeof(*ns));
		for (i = 0; i < a->cap; i++)
			if (a->slot[i]) {
				for (j = a->slot[i]->hash & (cap - 1); ns[j]; j = (j + 1) & (cap - 1))
					;
				ns[j] = a->slot[i];
			}
		sym__free(ctx, a->slot, a->cap * sizeof(*a->slot));
		a->slot = ns;
		a->cap = cap;
	}
	for (j = e->hash & (a->cap - 1); a->slot[j]; j = (j + 1) & (a->cap - 1))
		if (a->slot[j] == e)
			return 1;
	a->slot[j] = e;
	a->count++;
	return 1;
}

static int aset_has(const struct sym_aset *a, const sym_expr *e)
{
	size_t j;
	if (!a->cap)
		return 0;
	for (j = e->hash & (a->cap - 1); a->slot[j]; j = (j + 1) & (a->cap - 1))
		if (a->slot[j] == e)
			return 1;
	return 0;
}

/* The set of f brought up to date; NULL when memory runs out (the caller
 * then compares assumption by assumption). */
static struct sym_aset *aset_get(sym_ctx *ctx, sym_facts *f)
{
	struct sym_aset *a = f->aset;
	size_t k;
	if (!a) {
		if (!(a = f->aset = sym__alloc(ctx, sizeof(*a))))
			goto nomem;
		memset(a, 0, sizeof(*a));
		a->version = f->version;
	}
	if (a->version != f->version) {
		if (a->cap)
			memset(a->slot, 0, a->cap * sizeof(*a->slot));
		a->count = a->nassumed = 0;
		a->version = f->version;
	}
	for (; a->nassumed < f->nassumed; a->nassumed++) {
		const sym_expr *e = f->assumed[a->nassumed], *d;
		if (!aset_put(ctx, a, e))
			goto nomem;
		d = sym__facts_apply_defs(ctx, f, e);
		if (!d)
			goto nomem;
		if (!aset_put(ctx, a, d))
			goto nomem;
		if (d->kind == SYM_KIND_AND)
			for (k = 0; k < d->n; k++)
				if (!aset_put(ctx, a, node_kids(d)[k]))
					goto nomem;
	}
	return a;
nomem:
	sym_ctx_clear_error(ctx); /* the set is optional */
	sym__aset_free(f);
	return NULL;
}

/* Whether q (or each conjunct of q) is one of the assumptions, simplified
 * like q: facts the store does not use otherwise (x != 0, disjunctions)
 * still prove themselves. */
static int assumed(sym_ctx *ctx, sym_facts *f, const sym_expr *q)
{
	size_t i, k;
	struct sym_aset *set;
	if (!f)
		return 0;
	if (q->kind == SYM_KIND_AND) {
		for (k = 0; k < q->n; k++)
			if (!assumed(ctx, f, node_kids(q)[k]))
				return 0;
		return 1;
	}
	if ((set = aset_get(ctx, f)))
		return aset_has(set, q);
	for (i = 0; i < f->nassumed; i++) {
		const sym_expr *a = f->assumed[i];
		if (a == q)
			return 1;
		a = sym__facts_apply_defs(ctx, f, a);
		if (a == q)
			return 1;
		if (a && a->kind == SYM_KIND_AND)
			for (k = 0; k < a->n; k++)
				if (node_kids(a)[k] == q)
					return 1;
	}
	return 0;
}

sym_truth sym_prove(sym_ctx *ctx, sym_facts *f, const sym_expr *p)
{
	const sym_expr *q;
	if (!p || sym__failed(ctx))
		return SYM_ERROR;
	if (!(p->flags & SYM_F_PRED)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "prove needs a predicate (a relation), not a number");
		return SYM_ERROR;
	}
	q = sym_simplify(ctx, f, p);
	if (!q)
		return SYM_ERROR;
	if (q->kind == SYM_KIND_BOOL)
		return *(const int64_t *)NODE_PAYLOAD(q) ? SYM_TRUE : SYM_FALSE;
	return assumed(ctx, f, q) ? SYM_TRUE : SYM_UNKNOWN;
}
