/* Squeeze and Unsqueeze.  The axes come from input 1 (opset 13) or the
 * 'axes' attribute (earlier opsets), whichever the node carries.  Symbolic
 * values pass through unchanged: the element order does not move. */
#include "rules_private.h"

static int pass_value(sym_rule_ctx *rc, const sym_tval *x)
{
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	return sym__rc_pass_value(rc, 0, x);
}

/* Without axes, a dim is squeezed when it is 1.  A symbolic dim must be
 * decided by the facts, or by the hints (an expect guard). */
static int squeeze_all(sym_rule_ctx *rc, const sym_expr *d, int *drop)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *is1 = sym_expr_rel(ctx, SYM_REL_EQ, d, sym__one(ctx));
	sym_truth t = sym__rc_prove(rc, is1);
	int64_t h;
	if (t == SYM_TRUE || t == SYM_FALSE) {
		*drop = t == SYM_TRUE;
		return 0;
	}
	if (t == SYM_ERROR)
		return -1;
	if (sym__rc_has_hints(rc) && sym__rc_hint_value(rc, d, &h)) {
		*drop = h == 1;
		return sym__rc_require(rc, h == 1 ? is1 : sym_expr_rel(ctx, SYM_REL_NE, d, sym__one(ctx)),
		                       SYM_GUARD_EXPECT,
		                       h == 1 ? "Squeeze dim taken as 1" : "Squeeze dim taken as not 1");
	}
	{
		char *s = sym_expr_to_str(ctx, d);
		sym__rc_error(rc,
		              "cannot tell whether dim %s is 1 (Squeeze without axes needs it decided; give "
		              "axes or a hint)",
		              s ? s : "?");
		sym_str_free(ctx, s);
	}
	return -1;
}

static int r_squeeze(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const int64_t *axes;
	const sym_expr **d;
	char *mask;
	size_t n;
	int has, k, r = 0;
	if (!x || (has = sym__rc_axes(rc, 1, &n, &axes)) < 0)
		return -1;
	if (x->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, 0) < 0)
			return -1;
		return pass_value(rc, x);
	}
	mask = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1));
	d = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*d));
	if (!mask || !d)
		return -1;
	if (has && sym__rc_axes_mask(rc, n, axes, x->rank, mask) < 0)
		return -1;
	for (k = 0; k < x->rank; k++) {
		int drop = mask[k];
		if (has && drop) {
			if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, x->dims[k], sym__one(ctx)),
			                    SYM_GUARD_ASSERT, "a squeezed dim must be 1") < 0)
				return -1;
		} else if (!has && squeeze_all(rc, x->dims[k], &drop) < 0) {
			return -1;
		}
		if (!drop)
			d[r++] = x->dims[k];
	}
	if (sym__rc_set_shape(rc, 0, r, d) < 0)
		return -1;
	return pass_value(rc, x);
}

static int r_unsqueeze(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const int64_t *axes;
	const sym_expr **d;
	char *mask;
	size_t n;
	int has, k, j = 0, r;
	if (!x || (has = sym__rc_axes(rc, 1, &n, &axes)) < 0)
		return -1;
	if (!has)
		return sym__rc_error(rc, "the axes (input 1, or the attribute before opset 13) are required");
	if (x->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, 0) < 0)
			return -1;
		return pass_value(rc, x);
	}
	if (n > SYM_RC_VALUE_LIMIT)
		return sym__rc_error(rc, "too many axes (%zu)", n);
	r = x->rank + (int)n;
	mask = sym__rc_alloc(rc, (size_t)(r ? r : 1));
	d = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*d));
	if (!mask || !d || sym__rc_axes_mask(rc, n, axes, r, mask) < 0)
		return -1;
	for (k = 0; k < r; k++)
		d[k] = mask[k] ? sym__one(sym__rc_ctx(rc)) : x->dims[j++];
	if (sym__rc_set_shape(rc, 0, r, d) < 0)
		return -1;
	return pass_value(rc, x);
}

const sym_rule_entry sym__rules_squeeze[] = {
    {"Squeeze", "", r_squeeze, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"Unsqueeze", "", r_unsqueeze, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
};
const size_t sym__rules_squeeze_count = sizeof(sym__rules_squeeze) / sizeof(sym__rules_squeeze[0]);
