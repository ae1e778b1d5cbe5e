/* Decisions of predicates under the facts. */
#include "facts_private.h"

/* Whether q (or each conjunct of q) is one of the assumptions, simplified
 * like q: facts the store does not use otherwise (x != 0, disjunctions)
 * still prove themselves. */
static int assumed(sym_ctx *ctx, sym_facts *f, const sym_expr *q)
{
	size_t i, k;
	if (!f)
		return 0;
	if (q->kind == SYM_KIND_AND) {
		for (k = 0; k < q->n; k++)
			if (!assumed(ctx, f, node_kids(q)[k]))
				return 0;
		return 1;
	}
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
