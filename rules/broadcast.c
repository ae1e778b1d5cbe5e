/* Shape arithmetic shared by many operator families: constants, element
 * counts and multidirectional broadcasting, with the guards it needs. */
#include "rules_private.h"
#include "seam.h"
#include "session.h"

#include <string.h>

const sym_expr *sym__rc_num(sym_rule_ctx *rc, int64_t v)
{
	return sym_expr_from_si(rc->inf->ctx, v);
}

const sym_expr *sym__rc_numel(sym_rule_ctx *rc, const sym_tval *t)
{
	const sym_expr *r = sym__one(rc->inf->ctx);
	int k;
	for (k = 0; k < t->rank && r; k++)
		r = sym_expr_mul(rc->inf->ctx, r, t->dims[k]);
	return r;
}

/* Whether the facts bound e below by 1 or more: 1, 0, or -1 on error. */
static int at_least_one(sym_rule_ctx *rc, const sym_expr *e)
{
	const sym_expr *lo, *hi;
	long long v;
	if (!sym__bounds_expr(rc->inf->ctx, rc->inf->facts, e, &lo, &hi))
		return -1;
	return lo && sym_expr_get_si(lo, &v) && v >= 1;
}

int sym__rc_broadcast_dim(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const sym_expr **out)
{
	sym_ctx *ctx = rc->inf->ctx;
	const sym_expr *one = sym__one(ctx);
	const sym_expr *eq, *a1, *b1, *ok, *ab[2];
	int64_t ha, hb;
	int st;
	if (a == b || b == one) {
		*out = a;
		return 0;
	}
	if (a == one) {
		*out = b;
		return 0;
	}
	eq = sym_expr_rel(ctx, SYM_REL_EQ, a, b);
	a1 = sym_expr_rel(ctx, SYM_REL_EQ, a, one);
	b1 = sym_expr_rel(ctx, SYM_REL_EQ, b, one);
	if (sym__rc_prove(rc, eq) == SYM_TRUE || sym__rc_prove(rc, b1) == SYM_TRUE) {
		*out = a;
		return 0;
	}
	if (sym__rc_prove(rc, a1) == SYM_TRUE) {
		*out = b;
		return 0;
	}
	if (sym__rc_has_hints(rc) && sym__rc_hint_value(rc, a, &ha) && sym__rc_hint_value(rc, b, &hb)) {
		/* specialise on the branch the hints select */
		if (ha == hb) {
			*out = a;
			return sym__rc_require(rc, eq, SYM_GUARD_EXPECT, "broadcast dims taken as equal");
		}
		if (hb == 1) {
			*out = a;
			return sym__rc_require(rc, b1, SYM_GUARD_EXPECT, "broadcast dim taken as 1");
		}
		if (ha == 1) {
			*out = b;
			return sym__rc_require(rc, a1, SYM_GUARD_EXPECT, "broadcast dim taken as 1");
		}
		return sym__rc_error(rc, "dims %lld and %lld (hinted) cannot be broadcast", (long long)ha,
		                     (long long)hb);
	}
	ok = sym_expr_or(ctx, eq, sym_expr_or(ctx, a1, b1));
	if (sym__rc_require(rc, ok, SYM_GUARD_ASSERT, "dims must be equal or 1 to broadcast") < 0)
		return -1;
	/* exact for every valid pair: max(a, b)*min(a, b, 1), which is
	 * max(a, b) where both are at least 1 (dims of inputs are): the
	 * simplifier would find that from the same bounds, through three more
	 * nodes and a product */
	ab[0] = a, ab[1] = b;
	if ((st = at_least_one(rc, a)) < 0 || (st && (st = at_least_one(rc, b)) < 0))
		return -1;
	if (st)
		*out = sym_expr_max(ctx, 2, ab);
	else {
		const sym_expr *m3[3] = {a, b, one};
		*out = sym_expr_mul(ctx, sym_expr_max(ctx, 2, ab), sym_expr_min(ctx, 3, m3));
	}
	*out = sym__rc_simplify(rc, *out);
	return *out ? 0 : -1;
}

int sym__rc_broadcast(sym_rule_ctx *rc, size_t n, const sym_tval *const *ins, size_t out)
{
	int rank = 0, k;
	size_t i;
	const sym_expr **dims;
	for (i = 0; i < n; i++) {
		if (ins[i]->rank < 0)
			return sym__rc_set_unknown_rank(rc, out);
		if (ins[i]->rank > rank)
			rank = ins[i]->rank;
	}
	dims = sym__rc_alloc(rc, (size_t)(rank ? rank : 1) * sizeof(*dims));
	if (!dims)
		return -1;
	for (k = 0; k < rank; k++) {
		const sym_expr *d = NULL;
		for (i = 0; i < n; i++) {
			int off = rank - ins[i]->rank;
			const sym_expr *x;
			if (k < off)
				continue;
			x = ins[i]->dims[k - off];
			if (!d)
				d = x;
			else if (sym__rc_broadcast_dim(rc, d, x, &d) < 0)
				return -1;
		}
		dims[k] = d;
	}
	return sym__rc_set_shape(rc, out, rank, dims);
}
