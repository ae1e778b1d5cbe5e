/* MatMul (numpy matmul: 1-D promotion, batch broadcasting), its CANN
 * variants with transposed operands, and Gemm. */
#include "rules_private.h"

#include <stdio.h>

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Guards that the contracted dims a and b agree. */
static int contracted(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym__rc_require(rc, eq(rc, a, b), SYM_GUARD_ASSERT, "contracted dims must be equal");
}

/* Guards that c broadcasts unidirectionally to the n dims target: c has at
 * most n dims and each, aligned right, is 1 or the target dim. */
static int unibroadcast(sym_rule_ctx *rc, const sym_tval *c, int n, const sym_expr *const *target,
                        const char *what)
{
	const char *reason;
	if (c->rank < 0)
		return 0;
	if (c->rank > n)
		return sym__rc_error(rc, "%s has rank %d and cannot broadcast to rank %d", what, c->rank, n);
	if (!(reason = sym__rc_text(rc, "%s dims must be 1 or equal to the output dims", what)))
		return -1;
	return sym__rc_unibroadcast(rc, c->rank, c->dims, n, target, reason);
}

/* numpy matmul of a and b, with the last two dims of an operand of rank
 * >= 2 swapped when ta (tb) is set. */
static int matmul(sym_rule_ctx *rc, const sym_tval *a, const sym_tval *b, int ta, int tb, int dtype)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *ad[2], *bd[2], **dims;
	sym_tval ba, bb;
	const sym_tval *bt[2];
	int nb, r = 0, k;
	if (a->rank < 0 || b->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, 0) < 0)
			return -1;
		return sym__rc_set_dtype(rc, 0, dtype);
	}
	if (a->rank < 1 || b->rank < 1)
		return sym__rc_error(rc, "inputs must have rank at least 1, not %d and %d", a->rank, b->rank);
	/* [n, k] of a and [k, m] of b; 1-D operands are promoted */
	if (a->rank == 1) {
		ad[0] = sym__one(ctx), ad[1] = a->dims[0];
	} else {
		ad[0] = a->dims[a->rank - 2 + !!ta];
		ad[1] = a->dims[a->rank - 1 - !!ta];
	}
	if (b->rank == 1) {
		bd[0] = b->dims[0], bd[1] = sym__one(ctx);
	} else {
		bd[0] = b->dims[b->rank - 2 + !!tb];
		bd[1] = b->dims[b->rank - 1 - !!tb];
	}
	if (contracted(rc, ad[1], bd[0]) < 0)
		return -1;
	/* batch dims broadcast; the broadcast result is staged in output 0 */
	ba = *a, bb = *b;
	ba.rank = a->rank > 2 ? a->rank - 2 : 0;
	bb.rank = b->rank > 2 ? b->rank - 2 : 0;
	ba.has_value = bb.has_value = 0;
	bt[0] = &ba, bt[1] = &bb;
	if (sym__rc_broadcast(rc, 2, bt, 0) < 0)
		return -1;
	nb = rc->out[0].rank;
	dims = sym__rc_alloc(rc, (size_t)(nb + 2) * sizeof(*dims));
	if (!dims)
		return -1;
	for (k = 0; k < nb; k++)
		dims[r++] = rc->out[0].dims[k];
	if (a->rank > 1)
		dims[r++] = ad[0];
	if (b->rank > 1)
		dims[r++] = bd[1];
	if (sym__rc_set_shape(rc, 0, r, dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dtype);
}

static int r_matmul(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b;
	if (!a || !(b = sym__rc_need(rc, 1)))
		return -1;
	return matmul(rc, a, b, 0, 0, a->dtype);
}

/* QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point,
 * y_scale, y_zero_point): MatMul's shape, the type of y_zero_point. */
static int r_qlinear_matmul(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b, *yz;
	if (!a || !(b = sym__rc_need(rc, 3)) || !(yz = sym__rc_need(rc, 7)))
		return -1;
	return matmul(rc, a, b, 0, 0, yz->dtype);
}

/* Det(X [*, M, M]): [*]. */
static int r_det(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	if (!x)
		return -1;
	if (x->rank < 2)
		return sym__rc_error(rc, "input must have rank at least 2 ([*, M, M]), not %d", x->rank);
	if (sym__rc_require(rc, eq(rc, x->dims[x->rank - 2], x->dims[x->rank - 1]), SYM_GUARD_ASSERT,
	                    "Det needs square matrices") < 0)
		return -1;
	if (sym__rc_set_shape(rc, 0, x->rank - 2, x->dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* MatMulInteger(A, B, a_zero_point, b_zero_point): int32 result. */
static int r_matmul_integer(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b;
	if (!a || !(b = sym__rc_need(rc, 1)))
		return -1;
	return matmul(rc, a, b, 0, 0, SYM_DT_INT32);
}

static int flag_attr(sym_rule_ctx *rc, const char *name, int *out)
{
	int64_t v;
	*out = 0;
	if (sym__rc_attr_int(rc, name, 0, &v) < 0)
		return -1;
	if (v != 0 && v != 1)
		return sym__rc_error(rc, "attribute '%s' must be 0 or 1, not %lld", name, (long long)v);
	*out = (int)v;
	return 0;
}

/* CANN MatMul/MatMulV2 (transpose_x1, transpose_x2) and BatchMatMul,
 * BatchMatMulV2 (adj_x1, adj_x2); an optional bias broadcasts to the
 * result. */
static int cann_matmul(sym_rule_ctx *rc, const char *n1, const char *n2)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b, *bias;
	int ta = 0, tb = 0;
	if (!a || !(b = sym__rc_need(rc, 1)) || flag_attr(rc, n1, &ta) < 0 || flag_attr(rc, n2, &tb) < 0)
		return -1;
	if (matmul(rc, a, b, ta, tb, a->dtype) < 0)
		return -1;
	bias = sym__rc_in(rc, 2);
	if (bias && rc->out[0].rank >= 0)
		return unibroadcast(rc, bias, rc->out[0].rank, rc->out[0].dims, "bias");
	return 0;
}

static int r_matmul_v2(sym_rule_ctx *rc)
{
	return cann_matmul(rc, "transpose_x1", "transpose_x2");
}
static int r_batch_matmul(sym_rule_ctx *rc)
{
	return cann_matmul(rc, "adj_x1", "adj_x2");
}

/* Gemm(A, B, C): [M, N] from op(A) [M, K] and op(B) [K, N]; C broadcasts
 * unidirectionally to [M, N]. */
static int r_gemm(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b, *c;
	const sym_expr *mn[2];
	int ta = 0, tb = 0;
	if (!a || !(b = sym__rc_need(rc, 1)) || flag_attr(rc, "transA", &ta) < 0 ||
	    flag_attr(rc, "transB", &tb) < 0)
		return -1;
	if (a->rank < 0 || b->rank < 0)
		return sym__rc_error(rc, "cannot infer: an input has unknown rank and the operator needs it");
	if (a->rank != 2 || b->rank != 2)
		return sym__rc_error(rc, "inputs A and B must have rank 2, not %d and %d", a->rank, b->rank);
	if (contracted(rc, a->dims[!ta], b->dims[tb]) < 0)
		return -1;
	mn[0] = a->dims[ta], mn[1] = b->dims[!tb];
	c = sym__rc_in(rc, 2);
	if (c && unibroadcast(rc, c, 2, mn, "C") < 0)
		return -1;
	if (sym__rc_set_shape(rc, 0, 2, mn) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, a->dtype);
}

const sym_rule_entry sym__rules_matmul[] = {
    {"MatMul", "", r_matmul, 0},
    {"MatMulInteger", "", r_matmul_integer, 0},
    {"QLinearMatMul", "", r_qlinear_matmul, 0},
    {"Det", "", r_det, 0},
    {"Gemm", "", r_gemm, SYM_RULE_ANY_DOMAIN},
    {"MatMul", "cann", r_matmul_v2, 0},
    {"MatMulV2", "cann", r_matmul_v2, SYM_RULE_ANY_DOMAIN},
    {"BatchMatMul", "cann", r_batch_matmul, SYM_RULE_ANY_DOMAIN},
    {"BatchMatMulV2", "cann", r_batch_matmul, SYM_RULE_ANY_DOMAIN},
};
const size_t sym__rules_matmul_count = sizeof(sym__rules_matmul) / sizeof(sym__rules_matmul[0]);
