/* Guards: the guards the rules stated are pruned (dropped when the symbol
 * ranges and the other guards imply them) and ordered, asserts before
 * expects.  Deduplication happened as they were stated: equal predicates
 * are equal pointers after simplification. */
#include "infer/passes.h"

#include <stdlib.h>
#include <string.h>

/* Collects into *out the guards to prune: r's own, then, when r was inferred
 * with hints, the asserts of r0 (the model inferred without them) that r
 * lacks.
 * A rule that takes a hinted branch states the choice as an expect and
 * works under it, so validity conditions the expect implies are never
 * stated; they hold whatever the hints, and with them a hinted program
 * still tells invalid input from a failed choice.  Returns the count, or
 * (size_t)-1 when memory runs out. */
static size_t guards_to_prune(sym_graph_result *r, const sym_graph_result *r0, sym_guard **out, size_t *cap)
{
	size_t n0 = r->inf.nguards, n = n0, i, j, k;
	*cap = n + (r0 ? r0->nguards : 0) + 1;
	if (!(*out = sym__alloc(r->ctx, *cap * sizeof(**out))))
		return (size_t)-1;
	if (n)
		memcpy(*out, r->inf.guards, n * sizeof(**out));
	for (i = 0; r0 && i < r0->nguards; i++) {
		const sym_guard *g = &r0->guards[i];
		const sym_expr *syms[16];
		size_t ns = sym_expr_symbols(r->ctx, g->pred, syms, 16);
		if (g->kind != SYM_GUARD_ASSERT || ns > 16)
			continue;
		for (k = 0; k < ns && sym__graph_find_sym(r, syms[k]); k++)
			;
		for (j = 0; j < n0 && r->inf.guards[j].pred != g->pred; j++)
			;
		if (k < ns || j < n0)
			continue; /* a symbol r does not have, or a guard r states */
		(*out)[n] = *g;
		(*out)[n].node = sym__infer_strdup(&r->inf, g->node);
		(*out)[n].reason = sym__infer_strdup(&r->inf, g->reason);
		if (!(*out)[n].node || !(*out)[n].reason) {
			sym__free(r->ctx, *out, *cap * sizeof(**out));
			*out = NULL;
			return (size_t)-1;
		}
		n++;
	}
	return n;
}

/* Drops the guards implied by the symbol ranges and the other guards: an
 * expect by any guards, an assert by the asserts alone (an expect is a
 * choice of the hints, so a hinted program still tells invalid input from a
 * failed choice).  Guard i is tested against the guards of that kind kept
 * before it and every one after it; by induction from the last guard, the
 * kept ones imply every dropped one (two guards implying each other keep
 * the first), and the kept asserts every dropped assert. */
/* After a facts or prover call that failed: out of memory fails the pass
 * (-1, the error kept); any other failure (a limit, say) only means the
 * fact or the proof is not had, and is cleared (0). */
static int soft_failure(sym_graph_result *r)
{
	if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
		return -1;
	sym_ctx_clear_error(r->ctx);
	return 0;
}

int sym__guards_prune(sym_graph_result *r, const sym_graph_result *r0)
{
	sym_guard *all, *tmp;
	size_t cap, n = guards_to_prune(r, r0, &all, &cap), i, j, w = 0, k = 0;
	int ret = -1;
	if (n == (size_t)-1)
		return -1;
	if (!(r->guards = sym__infer_alloc(&r->inf, (n + 1) * sizeof(*r->guards))))
		goto error;
	for (i = 0; i < n; i++) {
		const sym_guard *g = &all[i];
		int implied = 0, asserts_only = g->kind == SYM_GUARD_ASSERT;
		if (n <= 256) {
			sym_facts *f = sym__graph_range_facts(r);
			int st = 0;
			if (!f)
				goto error;
			for (j = 0; j < w && !st; j++)
				if ((!asserts_only || r->guards[j].kind == SYM_GUARD_ASSERT) &&
				    sym_facts_assume(f, r->guards[j].pred) != SYM_EOK)
					st = soft_failure(r);
			for (j = i + 1; j < n && !st; j++)
				if ((!asserts_only || all[j].kind == SYM_GUARD_ASSERT) &&
				    sym_facts_assume(f, all[j].pred) != SYM_EOK)
					st = soft_failure(r);
			if (!st)
				implied = sym_prove(r->ctx, f, g->pred) == SYM_TRUE;
			sym_facts_free(f);
			if (!st && sym__failed(r->ctx))
				st = soft_failure(r);
			if (st)
				goto error;
		}
		if (!implied)
			r->guards[w++] = *g;
	}
	r->nguards = w;
	/* asserts before expects (stable): a run that reaches an expect guard
	 * has checked every validity condition, so a failing expect guard
	 * means "recompile", never "maybe invalid"; all is the scratch */
	tmp = all;
	for (i = 0; i < w; i++)
		if (r->guards[i].kind == SYM_GUARD_ASSERT)
			tmp[k++] = r->guards[i];
	for (i = 0; i < w; i++)
		if (r->guards[i].kind != SYM_GUARD_ASSERT)
			tmp[k++] = r->guards[i];
	if (w)
		memcpy(r->guards, tmp, w * sizeof(*tmp));
	ret = 0;
error:
	sym__free(r->ctx, all, cap * sizeof(*all));
	return ret;
}
