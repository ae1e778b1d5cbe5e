/* Loss operators: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. */
#include "rules_private.h"

#include <string.h>

/* The shared rule: scores [N, C, d1, ..., dk] (input 0), target
 * [N, d1, ..., dk] (input 1), optional weight [C] (input 2).  Output 0 is
 * the target's shape with reduction "none", a scalar with "mean" or "sum";
 * output 1 (SoftmaxCrossEntropyLoss's log_prob) has the scores' shape. */
static int loss(sym_rule_ctx *rc, int with_log_prob)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *t, *w;
	const char *reduction;
	int k;
	if (!x || !(t = sym__rc_need_rank(rc, 1)) ||
	    sym__rc_attr_string(rc, "reduction", "mean", &reduction) < 0)
		return -1;
	if (strcmp(reduction, "none") && strcmp(reduction, "mean") && strcmp(reduction, "sum"))
		return sym__rc_error(rc, "attribute 'reduction' must be none, mean or sum, not '%s'",
		                     reduction);
	if (x->rank < 2)
		return sym__rc_error(rc, "input 0 must have rank at least 2 ([N, C, ...]), not %d", x->rank);
	if (t->rank != x->rank - 1)
		return sym__rc_error(rc,
		                     "the target (input 1) must have rank %d (the scores' without C), not %d",
		                     x->rank - 1, t->rank);
	for (k = 0; k < t->rank; k++)
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, t->dims[k], x->dims[k ? k + 1 : 0]),
		                    SYM_GUARD_ASSERT, "the target must have the scores' shape without C") < 0)
			return -1;
	w = sym__rc_in(rc, 2);
	if (w && w->rank >= 0) {
		if (w->rank != 1)
			return sym__rc_error(rc, "the weight (input 2) must have rank 1, not %d", w->rank);
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, w->dims[0], x->dims[1]),
		                    SYM_GUARD_ASSERT, "the weight must have C elements") < 0)
			return -1;
	}
	if (strcmp(reduction, "none") ? sym__rc_set_shape(rc, 0, 0, NULL) < 0
	                              : sym__rc_copy_shape(rc, 0, t) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (with_log_prob && rc->nout > 1 && sym__rc_copy_shape(rc, 1, x) < 0)
		return -1;
	return 0;
}

static int r_nll_loss(sym_rule_ctx *rc)
{
	return loss(rc, 0);
}

static int r_softmax_cross_entropy_loss(sym_rule_ctx *rc)
{
	return loss(rc, 1);
}

const sym_rule_entry sym__rules_loss[] = {
    {"NegativeLogLikelihoodLoss", "", r_nll_loss, 0},
    {"SoftmaxCrossEntropyLoss", "", r_softmax_cross_entropy_loss, 0},
};
const size_t sym__rules_loss_count = sizeof(sym__rules_loss) / sizeof(sym__rules_loss[0]);
