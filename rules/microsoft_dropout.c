/* Dropouts of ONNX Runtime's training graphs (com.microsoft): BiasDropout
 * and BitmaskBiasDropout, dropout(data + bias) + residual. */
#include "rules_private.h"

#define MS "com.microsoft"

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Guards that t has the dims of x. */
static int same_shape(sym_rule_ctx *rc, const sym_tval *t, const sym_tval *x, const char *what)
{
	const char *reason;
	int k;
	if (t->rank != x->rank)
		return sym__rc_error(rc, "input %s must have the shape of data (rank %d), not rank %d", what,
		                     x->rank, t->rank);
	if (!(reason = sym__rc_text(rc, "%s must have the shape of data", what)))
		return -1;
	for (k = 0; k < x->rank; k++)
		if (sym__rc_require(rc, eq(rc, t->dims[k], x->dims[k]), SYM_GUARD_ASSERT, reason) < 0)
			return -1;
	return 0;
}

/* BiasDropout(data, bias, residual, ratio, training_mode) -> output (data's
 * shape), mask: bool of data's shape, or with bitmask the uint32 words
 * [ceil(numel / 32)].  bias has data's shape or is [data.shape[-1]]. */
static int bias_dropout(sym_rule_ctx *rc, int bitmask)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0), *bias, *res;
	const sym_expr *words;
	if (!x || !(bias = sym__rc_need(rc, 1)))
		return -1;
	if (x->rank == 0)
		return sym__rc_error(rc, "input data must have rank at least 1, not 0");
	if (x->rank > 0 && bias->rank >= 0) {
		if (bias->rank == 1) {
			if (sym__rc_require(rc, eq(rc, bias->dims[0], x->dims[x->rank - 1]), SYM_GUARD_ASSERT,
			                    "bias length must equal data's last dim") < 0)
				return -1;
		} else if (bias->rank == x->rank) {
			if (same_shape(rc, bias, x, "bias") < 0)
				return -1;
		} else {
			return sym__rc_error(rc, "input bias must have rank 1 or data's rank %d, not %d",
			                     x->rank, bias->rank);
		}
	}
	if ((res = sym__rc_in(rc, 2)) && res->rank >= 0 && x->rank >= 0 &&
	    same_shape(rc, res, x, "residual") < 0)
		return -1;
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	if (rc->nout < 2)
		return 0;
	if (!bitmask) {
		if (sym__rc_copy_shape(rc, 1, x) < 0)
			return -1;
		return sym__rc_set_dtype(rc, 1, SYM_DT_BOOL);
	}
	if (x->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, 1) < 0)
			return -1;
	} else {
		words = sym_expr_floordiv(ctx, sym_expr_add(ctx, sym__rc_numel(rc, x), sym__rc_num(rc, 31)),
		                          sym__rc_num(rc, 32));
		if (sym__rc_set_shape(rc, 1, 1, &words) < 0)
			return -1;
	}
	return sym__rc_set_dtype(rc, 1, SYM_DT_UINT32);
}

static int r_bias_dropout(sym_rule_ctx *rc)
{
	return bias_dropout(rc, 0);
}

static int r_bitmask_bias_dropout(sym_rule_ctx *rc)
{
	return bias_dropout(rc, 1);
}

const sym_rule_entry sym__rules_microsoft_dropout[] = {
    {"BiasDropout", MS, r_bias_dropout, 0},
    {"BitmaskBiasDropout", MS, r_bitmask_bias_dropout, 0},
};
const size_t sym__rules_microsoft_dropout_count =
    sizeof(sym__rules_microsoft_dropout) / sizeof(sym__rules_microsoft_dropout[0]);
