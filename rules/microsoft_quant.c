/* Quantized operators of ONNX Runtime (com.microsoft) with ordered
 * (cuBLASLt) layouts: QOrderedMatMul.  Its schema infers a numpy matmul,
 * but the kernel writes A's shape with the last dim replaced by B's and
 * never broadcasts A's batch against B's; the rule follows the kernel,
 * which is what runs. */
#include "rules_private.h"

#define MS "com.microsoft"

/* cuBLASLt's order codes that the kernel accepts. */
enum { ORDER_COL = 0, ORDER_ROW = 1 };

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* The required order attribute name, which must be want. */
static int order_attr(sym_rule_ctx *rc, const char *name, int64_t want, const char *what)
{
	int64_t v;
	if (!sym__rc_attr(rc, name))
		return sym__rc_error(rc, "attribute '%s' is required", name);
	if (sym__rc_attr_int(rc, name, 0, &v) < 0)
		return -1;
	if (v != want)
		return sym__rc_error(rc, "attribute '%s' must be %lld (%s), not %lld", name, (long long)want,
		                     what, (long long)v);
	return 0;
}

/* Input i of rank 2 or 3 ([rows, cols] or [batch, rows, cols]). */
static const sym_tval *matrix_in(sym_rule_ctx *rc, size_t i, const char *what)
{
	const sym_tval *t = sym__rc_need_rank(rc, i);
	if (t && t->rank != 2 && t->rank != 3) {
		sym__rc_error(rc, "input %s must have rank 2 or 3, not %d", what, t->rank);
		return NULL;
	}
	return t;
}

/* The batch count of a matrix input (1 for rank 2). */
static const sym_expr *batch_of(sym_rule_ctx *rc, const sym_tval *t)
{
	return t->rank == 3 ? t->dims[0] : sym__one(sym__rc_ctx(rc));
}

/* Guards that t's batch count is a's or 1. */
static int batch_matches(sym_rule_ctx *rc, const sym_tval *t, const sym_tval *a, const char *reason)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *bt = batch_of(rc, t);
	return sym__rc_require(rc, sym_expr_or(ctx, eq(rc, bt, batch_of(rc, a)), eq(rc, bt, sym__one(ctx))),
	                       SYM_GUARD_ASSERT, reason);
}

/* QOrderedMatMul(A, scale_A, B, scale_B, scale_Y, bias, C, scale_C): A
 * [.., M, K] row-major, B [.., K, N] column-major, Y A's dims with N last,
 * int8. */
static int r_qordered_matmul(sym_rule_ctx *rc)
{
	const sym_tval *a, *b, *bias, *c;
	const sym_expr **d, *n;
	int k;
	if (order_attr(rc, "order_A", ORDER_ROW, "ROW") < 0 ||
	    order_attr(rc, "order_B", ORDER_COL, "COL") < 0 ||
	    order_attr(rc, "order_Y", ORDER_ROW, "ROW") < 0)
		return -1;
	if (!(a = matrix_in(rc, 0, "A")) || !sym__rc_need(rc, 1) || !(b = matrix_in(rc, 2, "B")) ||
	    !sym__rc_need(rc, 3) || !sym__rc_need(rc, 4))
		return -1;
	n = b->dims[b->rank - 1];
	if (batch_matches(rc, b, a, "B's batch must be A's or 1") < 0 ||
	    sym__rc_require(rc, eq(rc, a->dims[a->rank - 1], b->dims[b->rank - 2]), SYM_GUARD_ASSERT,
	                    "A's columns must equal B's rows") < 0)
		return -1;
	if ((bias = sym__rc_in(rc, 5)) && bias->rank >= 0) {
		if (bias->rank != 1)
			return sym__rc_error(rc, "input bias must have rank 1, not %d", bias->rank);
		if (sym__rc_require(rc, eq(rc, bias->dims[0], n), SYM_GUARD_ASSERT,
		                    "bias length must equal B's columns") < 0)
			return -1;
	}
	if (sym__rc_in(rc, 6)) {
		if (!(c = matrix_in(rc, 6, "C")))
			return -1;
		if (!sym__rc_in(rc, 7))
			return sym__rc_error(rc, "input C needs scale_C (input 7)");
		if (batch_matches(rc, c, a, "C's batch must be A's or 1") < 0 ||
		    sym__rc_require(rc, eq(rc, c->dims[c->rank - 2], a->dims[a->rank - 2]), SYM_GUARD_ASSERT,
		                    "C's rows must equal A's") < 0 ||
		    sym__rc_require(rc, eq(rc, c->dims[c->rank - 1], n), SYM_GUARD_ASSERT,
		                    "C's columns must equal B's") < 0)
			return -1;
	}
	if (!(d = sym__rc_alloc(rc, (size_t)a->rank * sizeof(*d))))
		return -1;
	for (k = 0; k < a->rank - 1; k++)
		d[k] = a->dims[k];
	d[a->rank - 1] = n;
	if (sym__rc_set_shape(rc, 0, a->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, SYM_DT_INT8);
}

const sym_rule_entry sym__rules_microsoft_quant[] = {
    {"QOrderedMatMul", MS, r_qordered_matmul, 0},
};
const size_t sym__rules_microsoft_quant_count =
    sizeof(sym__rules_microsoft_quant) / sizeof(sym__rules_microsoft_quant[0]);
