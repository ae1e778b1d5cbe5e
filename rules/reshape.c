/* Reshape and Flatten.  Reshape's target may hold symbolic values (from a
 * Shape -> Gather -> Concat chain); the element counts are checked exactly
 * and the -1 dim is the exact quotient, guarded to divide only when that is
 * not provable. */
#include "rules_private.h"

/* The target shape: input 1 (opset 5+) or the 'shape' attribute (opset 1). */
static int target_of(sym_rule_ctx *rc, size_t *n, const sym_expr *const **v)
{
	const sym_tval *s = sym__rc_in(rc, 1);
	size_t na, i;
	const int64_t *a;
	const sym_expr **e;
	int r;
	if (s) {
		if (s->rank > 1)
			return sym__rc_error(rc, "the shape input must be 1-D, not of rank %d", s->rank);
		return sym__rc_in_value(rc, 1, n, v);
	}
	if ((r = sym__rc_attr_ints(rc, "shape", &na, &a)) < 0)
		return -1;
	if (!r)
		return sym__rc_error(rc, "input 1 (the target shape) is required");
	e = sym__rc_alloc(rc, (na ? na : 1) * sizeof(*e));
	if (!e)
		return -1;
	for (i = 0; i < na; i++)
		e[i] = sym__rc_num(rc, a[i]);
	*n = na, *v = e;
	return 0;
}

static int r_reshape(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *const *t;
	const sym_expr **d, *known, *numel;
	int64_t allowzero;
	size_t n, i;
	long long infer = -1;
	if (!x || target_of(rc, &n, &t) < 0 || sym__rc_attr_int(rc, "allowzero", 0, &allowzero) < 0)
		return -1;
	if (n > SYM_RC_VALUE_LIMIT)
		return sym__rc_error(rc, "the target shape has too many dims (%zu)", n);
	d = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*d));
	if (!d)
		return -1;
	known = sym__one(ctx);
	for (i = 0; i < n; i++) {
		long long c;
		if (sym_expr_get_si(t[i], &c) == 1) {
			if (c == -1) {
				if (infer >= 0)
					return sym__rc_error(
					    rc, "the target shape has two -1 dims (%lld and %zu)", infer, i);
				infer = (long long)i;
				continue;
			}
			if (c < -1)
				return sym__rc_error(rc, "target dim %zu is %lld (only -1 may be negative)",
				                     i, c);
			if (c == 0 && !allowzero) {
				if (x->rank < 0)
					return sym__rc_error(
					    rc,
					    "cannot infer: target dim %zu copies an input dim "
					    "and input 0 has unknown rank",
					    i);
				if ((int)i >= x->rank)
					return sym__rc_error(
					    rc, "target dim %zu is 0 (copy) but the input has rank %d", i,
					    x->rank);
				d[i] = x->dims[i];
			} else {
				d[i] = t[i];
			}
		} else {
			/* a symbolic target dim is taken as a size, not as 0 (copy) or -1 (infer) */
			if (sym_expr_is_pred(t[i]) || !sym__expr_is_int(t[i]))
				return sym__rc_error(rc, "target dim %zu is not an integer", i);
			/* the input's own dim i (a dim, so >= 0): read as 0 (copy) or
			 * as a size, it is that dim either way */
			if ((int)i < x->rank &&
			    (t[i] == x->dims[i] || sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_EQ, t[i],
			                                                          x->dims[i])) == SYM_TRUE)) {
				d[i] = x->dims[i];
				known = sym_expr_mul(ctx, known, d[i]);
				continue;
			}
			if (sym__rc_require(
			        rc, sym_expr_rel(ctx, SYM_REL_GE, t[i], sym__rc_num(rc, allowzero ? 0 : 1)),
			        SYM_GUARD_EXPECT, "a symbolic Reshape target dim is taken as a size") < 0)
				return -1;
			d[i] = t[i];
		}
		known = sym_expr_mul(ctx, known, d[i]);
	}
	if (!known)
		return -1;
	if (x->rank < 0) {
		if (infer >= 0)
			return sym__rc_error(rc, "cannot infer: the -1 dim needs the rank of input 0");
		goto done;
	}
	numel = sym__rc_numel(rc, x);
	if (infer < 0) {
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, numel, known), SYM_GUARD_ASSERT,
		                    "Reshape must keep the element count") < 0)
			return -1;
	} else {
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_NE, known, sym__zero(ctx)),
		                    SYM_GUARD_ASSERT, "the dims beside -1 must not multiply to 0") < 0)
			return -1;
		known = sym__rc_simplify(rc, known);
		if (!known ||
		    sym__rc_require_divisible(
		        rc, numel, known, "the element count must be divisible by the known target dims") < 0)
			return -1;
		d[infer] = sym_expr_div(ctx, numel, known);
	}
done:
	if (sym__rc_set_shape(rc, 0, (int)n, d) < 0 || sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	return sym__rc_pass_value(rc, 0, x);
}

/* Flatten(x, axis): [prod(dims[:axis]), prod(dims[axis:])], axis in
 * [-rank, rank]. */
static int r_flatten(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr *d[2];
	int64_t axis;
	int k;
	if (!x || sym__rc_attr_int(rc, "axis", 1, &axis) < 0)
		return -1;
	if (axis < -(int64_t)x->rank || axis > x->rank)
		return sym__rc_error(rc, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
	if (axis < 0)
		axis += x->rank;
	d[0] = d[1] = sym__one(ctx);
	for (k = 0; k < x->rank; k++)
		d[k >= axis] = sym_expr_mul(ctx, d[k >= axis], x->dims[k]);
	if (sym__rc_set_shape(rc, 0, 2, d) < 0 || sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	return sym__rc_pass_value(rc, 0, x);
}

const sym_rule_entry sym__rules_reshape[] = {
    {"Reshape", "", r_reshape, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"Flatten", "", r_flatten, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
};
const size_t sym__rules_reshape_count = sizeof(sym__rules_reshape) / sizeof(sym__rules_reshape[0]);
