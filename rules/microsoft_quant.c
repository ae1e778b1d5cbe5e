/* Quantized operators of ONNX Runtime (com.microsoft) with ordered
 * (cuBLASLt) layouts, as its int8 transformer fusions write them:
 * QOrderedMatMul, QOrderedLayerNormalization, QOrderedGelu,
 * QOrderedAttention and QOrderedLongformerAttention.  Only CUDA kernels
 * exist for them, and their schemas infer less than the kernels check or
 * write (QOrderedMatMul's a numpy matmul, where the kernel writes A's shape
 * with the last dim replaced by B's and never broadcasts A's batch;
 * QOrderedAttention's the input's shape, where the kernel writes the
 * projected hidden size last); the rules follow the kernels, which is what
 * runs. */
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

/* Inputs i..i+n-1 must be present (the kernel reads each). */
static int need_all(sym_rule_ctx *rc, size_t i, size_t n)
{
	size_t k;
	for (k = i; k < i + n; k++)
		if (!sym__rc_need(rc, k))
			return -1;
	return 0;
}

/* Input i of known rank exactly rank (what names it in the error). */
static const sym_tval *rank_in(sym_rule_ctx *rc, size_t i, int rank, const char *what)
{
	const sym_tval *t = sym__rc_need_rank(rc, i);
	if (t && t->rank != rank) {
		sym__rc_error(rc, "input %s must have rank %d, not %d", what, rank, t->rank);
		return NULL;
	}
	return t;
}

static int require_eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const char *reason)
{
	return sym__rc_require(rc, eq(rc, a, b), SYM_GUARD_ASSERT, reason);
}

/* The assert a == b with the reason fmt naming what. */
static int require_eq_named(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const char *fmt,
                            const char *what)
{
	const char *reason = sym__rc_text(rc, fmt, what);
	return reason ? require_eq(rc, a, b, reason) : -1;
}

/* The int attribute name when present, else def; it must be want. */
static int order_attr_or(sym_rule_ctx *rc, const char *name, int64_t def, int64_t want, const char *what)
{
	int64_t v;
	if (sym__rc_attr_int(rc, name, def, &v) < 0)
		return -1;
	if (v != want)
		return sym__rc_error(rc, "attribute '%s' must be %lld (%s), not %lld", name, (long long)want,
		                     what, (long long)v);
	return 0;
}

/* QOrderedLayerNormalization(X [B, R, C], scale_X, scale, B, scale_Y):
 * X's shape, int8.  The kernel normalises rows of a 3-D row-major X over
 * its last axis only, in groups of four columns. */
static int r_qordered_layer_norm(sym_rule_ctx *rc)
{
	const sym_tval *x, *g;
	const sym_expr *cols;
	int64_t axis;
	double eps;
	int ax;
	size_t i;
	/* the current schema defaults both orders to ROW, which ONNX Runtime
	 * fills in before the kernel reads them */
	if (order_attr_or(rc, "order_X", ORDER_ROW, ORDER_ROW, "ROW") < 0 ||
	    order_attr_or(rc, "order_Y", ORDER_ROW, ORDER_ROW, "ROW, as order_X") < 0 ||
	    sym__rc_attr_int(rc, "axis", -1, &axis) < 0 || sym__rc_attr_float(rc, "epsilon", 1e-5, &eps) < 0)
		return -1;
	if (!(x = rank_in(rc, 0, 3, "X")) || need_all(rc, 1, 2) < 0 || !sym__rc_need(rc, 4))
		return -1;
	if (sym__rc_axis(rc, axis, 3, "axis", &ax) < 0)
		return -1;
	if (ax != 2)
		return sym__rc_error(rc, "attribute 'axis' must name the last axis (2 or -1), not %lld",
		                     (long long)axis);
	cols = x->dims[2];
	if (sym__rc_require_divisible(rc, cols, sym__rc_num(rc, 4), "X's columns must be a multiple of 4") <
	    0)
		return -1;
	for (i = 2; i <= 3; i++) {
		if (!(g = sym__rc_in(rc, i)) || g->rank < 0)
			continue;
		if (require_eq(rc, sym__rc_numel(rc, g), cols,
		               i == 2 ? "scale must hold one value per column of X"
		                      : "B must hold one value per column of X") < 0)
			return -1;
	}
	if (sym__rc_set_shape(rc, 0, 3, x->dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, SYM_DT_INT8);
}

/* QOrderedGelu(X, scale_X, scale_Y): X's shape, int8.  The kernel maps
 * every element and reads neither order attribute. */
static int r_qordered_gelu(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int64_t v;
	if (!x || need_all(rc, 1, 2) < 0 || sym__rc_attr_int(rc, "order_X", 0, &v) < 0 ||
	    sym__rc_attr_int(rc, "order_Y", 0, &v) < 0)
		return -1;
	if (x->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, 0) < 0)
			return -1;
	} else if (sym__rc_set_shape(rc, 0, x->rank, x->dims) < 0) {
		return -1;
	}
	return sym__rc_set_dtype(rc, 0, SYM_DT_INT8);
}

/* QOrderedAttention's inputs (ONNX Runtime's current schema and kernel). */
enum {
	QA_INPUT = 0,
	QA_WEIGHT = 5,       /* Q, K, V weights: 5, 6, 7 */
	QA_WEIGHT_SCALE = 8, /* their scales: 8, 9, 10 */
	QA_BIAS = 11,        /* Q, K, V biases: 11, 12, 13 */
	QA_MASK = 17
};

/* The Q, K and V hidden size: qkv_hidden_sizes, which the kernel requires
 * with three equal positive multiples of num_heads. */
static int qa_hidden(sym_rule_ctx *rc, int64_t heads, int64_t *hidden)
{
	const int64_t *hs;
	int r;
	if ((r = sym__rc_qkv_hidden_sizes(rc, heads, &hs)) < 0)
		return -1;
	if (!r)
		return sym__rc_error(rc, "attribute 'qkv_hidden_sizes' is required");
	if (hs[0] != hs[1] || hs[0] != hs[2])
		return sym__rc_error(rc,
		                     "attribute 'qkv_hidden_sizes' must have three equal values, not %lld, "
		                     "%lld, %lld",
		                     (long long)hs[0], (long long)hs[1], (long long)hs[2]);
	if ((hs[0] / heads) % 16)
		return sym__rc_error(
		    rc,
		    "the head size qkv_hidden_sizes[0] / num_heads must be a multiple of 16, "
		    "not %lld",
		    (long long)(hs[0] / heads));
	*hidden = hs[0];
	return 0;
}

/* The Q, K and V weights [Hin, H], their scales (scalars or [H]) and
 * biases [H] against the input x and hidden size h. */
static int qa_projections(sym_rule_ctx *rc, const sym_tval *x, const sym_expr *h)
{
	static const char *const qkv[3] = {"Q", "K", "V"};
	const sym_tval *w, *s, *b;
	const char *what;
	int i;
	for (i = 0; i < 3; i++) {
		if (!(what = sym__rc_text(rc, "%s_weight", qkv[i])) ||
		    !(w = rank_in(rc, QA_WEIGHT + (size_t)i, 2, what)))
			return -1;
		if (require_eq(rc, w->dims[0], x->dims[2],
		               "the Q, K and V weights' rows must equal the input hidden size") < 0 ||
		    require_eq(rc, w->dims[1], h,
		               "the Q, K and V weights' columns must equal qkv_hidden_sizes") < 0)
			return -1;
		if (!(s = sym__rc_need_rank(rc, QA_WEIGHT_SCALE + (size_t)i)))
			return -1;
		if (s->rank > 1)
			return sym__rc_error(rc,
			                     "input scale_%s_weight must be a scalar or 1-D, not of rank %d",
			                     qkv[i], s->rank);
		if (s->rank == 1 &&
		    require_eq(rc, s->dims[0], h, "a 1-D weight scale must hold qkv_hidden_sizes values") < 0)
			return -1;
		if (!(what = sym__rc_text(rc, "%s_bias", qkv[i])) ||
		    !(b = rank_in(rc, QA_BIAS + (size_t)i, 1, what)))
			return -1;
		if (require_eq(rc, b->dims[0], h, "the Q, K and V biases must hold qkv_hidden_sizes values") <
		    0)
			return -1;
	}
	return 0;
}

/* QOrderedAttention(input [B, S, Hin], scale_input, scale_Q_gemm,
 * scale_K_gemm, scale_V_gemm, Q_weight, K_weight, V_weight,
 * scale_Q_weight, scale_K_weight, scale_V_weight, Q_bias, K_bias, V_bias,
 * scale_QKT_gemm, scale_QKT_softmax, scale_values_gemm, mask_index [B, S],
 * past, relative_position_bias) -> [B, S, H], int8, H =
 * qkv_hidden_sizes[0].  The schema propagates the input's shape; the
 * kernel writes H last.  It reads every input up to mask_index (the
 * softmax scales and the mask too, which the schema calls optional) as a
 * [B, S] mask, and neither past nor relative_position_bias. */
static int r_qordered_attention(sym_rule_ctx *rc)
{
	const sym_tval *x, *mask;
	const sym_expr *d[3];
	int64_t heads, uni, hidden = 0;
	if (sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    sym__rc_attr_int(rc, "unidirectional", 0, &uni) < 0 || qa_hidden(rc, heads, &hidden) < 0 ||
	    order_attr(rc, "order_input", ORDER_ROW, "ROW") < 0 ||
	    order_attr(rc, "order_weight", ORDER_COL, "COL") < 0 ||
	    order_attr(rc, "order_output", ORDER_ROW, "ROW") < 0)
		return -1;
	if (!(x = rank_in(rc, QA_INPUT, 3, "input")) || need_all(rc, 1, 4) < 0 || need_all(rc, 14, 3) < 0)
		return -1;
	if (qa_projections(rc, x, sym__rc_num(rc, hidden)) < 0)
		return -1;
	if (!(mask = rank_in(rc, QA_MASK, 2, "mask_index")))
		return -1;
	if (require_eq(rc, mask->dims[0], x->dims[0], "mask_index must be [batch, sequence]") < 0 ||
	    require_eq(rc, mask->dims[1], x->dims[1], "mask_index must be [batch, sequence]") < 0 ||
	    sym__rc_require_divisible(rc, x->dims[1], sym__rc_num(rc, 16),
	                              "the sequence length must be a multiple of 16") < 0)
		return -1;
	d[0] = x->dims[0], d[1] = x->dims[1], d[2] = sym__rc_num(rc, hidden);
	if (sym__rc_set_shape(rc, 0, 3, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, SYM_DT_INT8);
}

/* QOrderedLongformerAttention(input [B, S, H], scale_input, weight
 * [H, 3H], scale_weight, bias [3H], scale_bias, scale_qkv_gemm, mask
 * [B, S], global_weight [H, 3H], scale_global_weight, global_bias [3H],
 * scale_global_gemm, global [B, S], scale_output): the input's shape,
 * int8, under LongformerAttention's checks. */
static int r_qordered_longformer_attention(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	static const char *const names[2][3] = {{"weight", "bias", "mask"},
	                                        {"global_weight", "global_bias", "global"}};
	const sym_tval *x, *w, *b, *m;
	const sym_expr *hid, *hid3;
	int64_t heads, window;
	int k;
	if (sym__rc_attr_pos(rc, "num_heads", &heads) < 0 || sym__rc_attr_pos(rc, "window", &window) < 0 ||
	    order_attr(rc, "order_input", ORDER_ROW, "ROW") < 0 ||
	    order_attr(rc, "order_weight", ORDER_COL, "COL") < 0 ||
	    order_attr(rc, "order_global_weight", ORDER_COL, "COL") < 0 ||
	    order_attr(rc, "order_output", ORDER_ROW, "ROW, as order_input") < 0)
		return -1;
	if (!(x = rank_in(rc, 0, 3, "input")) || need_all(rc, 1, 13) < 0)
		return -1;
	hid = x->dims[2];
	hid3 = sym_expr_mul(ctx, sym__rc_num(rc, 3), hid);
	if (sym__rc_require_divisible(rc, x->dims[1], sym__rc_num(rc, 2 * window),
	                              "the sequence length must be a multiple of 2 * window") < 0 ||
	    sym__rc_require_divisible(rc, hid, sym__rc_num(rc, heads),
	                              "the hidden size must be a multiple of num_heads") < 0)
		return -1;
	for (k = 0; k < 2; k++) {
		size_t base = k ? 8 : 2;
		if (!(w = rank_in(rc, base, 2, names[k][0])) ||
		    !(b = rank_in(rc, base + 2, 1, names[k][1])) ||
		    !(m = rank_in(rc, k ? 12 : 7, 2, names[k][2])))
			return -1;
		if (require_eq_named(rc, w->dims[0], hid, "%s must be [hidden, 3 * hidden]", names[k][0]) <
		        0 ||
		    require_eq_named(rc, w->dims[1], hid3, "%s must be [hidden, 3 * hidden]", names[k][0]) <
		        0 ||
		    require_eq_named(rc, b->dims[0], hid3, "%s must be [3 * hidden]", names[k][1]) < 0 ||
		    require_eq_named(rc, m->dims[0], x->dims[0], "%s must be [batch, sequence]",
		                     names[k][2]) < 0 ||
		    require_eq_named(rc, m->dims[1], x->dims[1], "%s must be [batch, sequence]",
		                     names[k][2]) < 0)
			return -1;
	}
	if (sym__rc_set_shape(rc, 0, 3, x->dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, SYM_DT_INT8);
}

const sym_rule_entry sym__rules_microsoft_quant[] = {
    {"QOrderedMatMul", MS, r_qordered_matmul, 0},
    {"QOrderedLayerNormalization", MS, r_qordered_layer_norm, 0},
    {"QOrderedGelu", MS, r_qordered_gelu, 0},
    {"QOrderedAttention", MS, r_qordered_attention, 0},
    {"QOrderedLongformerAttention", MS, r_qordered_longformer_attention, 0},
};
const size_t sym__rules_microsoft_quant_count =
    sizeof(sym__rules_microsoft_quant) / sizeof(sym__rules_microsoft_quant[0]);
