/* Decisions of predicates under the facts. */
#include "facts_private.h"

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
	return SYM_UNKNOWN;
}
