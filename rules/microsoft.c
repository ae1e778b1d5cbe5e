/* com.microsoft activations and matrix products that ONNX Runtime's
 * transformer optimizer writes: Gelu, BiasGelu, FastGelu, QuickGelu,
 * BiasAdd, BiasSplitGelu, BiasSoftmax, FusedMatMul, GemmFastGelu,
 * MatMulNBits, DynamicQuantizeMatMul, MatMulIntegerToFloat, FusedGemm,
 * Inverse and Trilu.  The
 * shapes follow ONNX Runtime's contrib operator schemas (docs/rules.md,
 * "com.microsoft"); the guards are the checks its kernels make. */
#include "rules_private.h"

#include <string.h>

#define MS "com.microsoft"

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Guards that the bias b (NULL: absent) is 1-D with the last dim of x. */
static int last_dim_bias(sym_rule_ctx *rc, const sym_tval *x, const sym_tval *b, const char *what)
{
	const char *reason;
	if (!b || b->rank < 0 || x->rank < 0)
		return 0;
	if (b->rank != 1)
		return sym__rc_error(rc, "input %s must have rank 1, not %d", what, b->rank);
	if (x->rank < 1)
		return sym__rc_error(rc, "input must have rank at least 1 to take a bias");
	if (!(reason = sym__rc_text(rc, "%s length must equal the last dim of the input", what)))
		return -1;
	return sym__rc_require(rc, eq(rc, b->dims[0], x->dims[x->rank - 1]), SYM_GUARD_ASSERT, reason);
}

/* Gelu(X): the shape of X. */
static int r_gelu(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* QuickGelu(X) (x * sigmoid(alpha * x)): the shape of X. */
static int r_quick_gelu(sym_rule_ctx *rc)
{
	double alpha;
	if (sym__rc_attr_float(rc, "alpha", 1.702, &alpha) < 0)
		return -1;
	return r_gelu(rc);
}

/* BiasGelu(A, B), FastGelu(X, bias): the shape of the first input; the bias
 * (required for BiasGelu) is 1-D with its last dim. */
static int bias_gelu(sym_rule_ctx *rc, int bias_required)
{
	const sym_tval *x = sym__rc_need(rc, 0), *b;
	if (!x)
		return -1;
	b = bias_required ? sym__rc_need(rc, 1) : sym__rc_in(rc, 1);
	if ((bias_required && !b) || last_dim_bias(rc, x, b, "bias") < 0)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

static int r_bias_gelu(sym_rule_ctx *rc)
{
	return bias_gelu(rc, 1);
}

static int r_fast_gelu(sym_rule_ctx *rc)
{
	return bias_gelu(rc, 0);
}

/* x must have rank 3 ([N, S, C]); unknown rank is an error. */
static const sym_tval *need_rank3(sym_rule_ctx *rc, size_t i, const char *what)
{
	const sym_tval *x = sym__rc_need_rank(rc, i);
	if (x && x->rank != 3) {
		sym__rc_error(rc, "input %s must have rank 3 ([N, S, C]), not %d", what, x->rank);
		return NULL;
	}
	return x;
}

/* BiasAdd(X [N, S, C], bias [C], skip [N, S, C]): [N, S, C]. */
static int r_bias_add(sym_rule_ctx *rc)
{
	const sym_tval *x = need_rank3(rc, 0, "X"), *b, *skip;
	int k;
	if (!x || !(b = sym__rc_need(rc, 1)) || !(skip = sym__rc_need(rc, 2)) ||
	    last_dim_bias(rc, x, b, "bias") < 0)
		return -1;
	if (skip->rank >= 0) {
		if (skip->rank != 3)
			return sym__rc_error(rc, "input skip must have rank 3 ([N, S, C]), not %d",
			                     skip->rank);
		for (k = 0; k < 3; k++)
			if (sym__rc_require(rc, eq(rc, skip->dims[k], x->dims[k]), SYM_GUARD_ASSERT,
			                    "skip must have the shape of X") < 0)
				return -1;
	}
	return sym__rc_copy_shape(rc, 0, x);
}

/* BiasSplitGelu(X [N, S, D], bias [D]): [N, S, D/2]; D is even. */
static int r_bias_split_gelu(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = need_rank3(rc, 0, "X"), *b;
	const sym_expr *two = sym__rc_num(rc, 2), *d[3];
	if (!x || !(b = sym__rc_need(rc, 1)) || last_dim_bias(rc, x, b, "bias") < 0)
		return -1;
	if (sym__rc_require_divisible(rc, x->dims[2], two, "the hidden dim must be even to split in halves") <
	    0)
		return -1;
	d[0] = x->dims[0], d[1] = x->dims[1];
	d[2] = sym_expr_floordiv(ctx, x->dims[2], two);
	if (sym__rc_set_shape(rc, 0, 3, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
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

/* The operand x of FusedMatMul with transBatch applied: the leading dim
 * moves behind the batch dims, [d0, d1, ..., dk, dl] -> [d1, ..., dk, d0,
 * dl]; rank 1 and 2 are unchanged. */
static int batch_transposed(sym_rule_ctx *rc, const sym_tval *x, int tbatch, sym_tval *out)
{
	const sym_expr **d;
	int k;
	*out = *x;
	out->has_value = 0;
	if (!tbatch || x->rank < 3)
		return 0;
	if (!(d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d))))
		return -1;
	for (k = 0; k < x->rank - 2; k++)
		d[k] = x->dims[k + 1];
	d[x->rank - 2] = x->dims[0];
	d[x->rank - 1] = x->dims[x->rank - 1];
	out->dims = d;
	return 0;
}

/* FusedMatMul(A, B): MatMul of op(A) and op(B), op being transBatch then
 * trans of the last two dims; with a transBatch flag ONNX Runtime's kernel
 * takes operands of one rank, at least 3, only. */
static int r_fused_matmul(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b;
	sym_tval a2, b2;
	int ta, tb, tba, tbb;
	double alpha;
	if (!a || !(b = sym__rc_need(rc, 1)) || flag_attr(rc, "transA", &ta) < 0 ||
	    flag_attr(rc, "transB", &tb) < 0 || flag_attr(rc, "transBatchA", &tba) < 0 ||
	    flag_attr(rc, "transBatchB", &tbb) < 0 || sym__rc_attr_float(rc, "alpha", 1.0, &alpha) < 0)
		return -1;
	if ((tba || tbb) && a->rank >= 0 && b->rank >= 0 && (a->rank != b->rank || a->rank < 3))
		return sym__rc_error(
		    rc, "transBatchA and transBatchB need operands of one rank, at least 3 (not %d and %d)",
		    a->rank, b->rank);
	if (batch_transposed(rc, a, tba, &a2) < 0 || batch_transposed(rc, b, tbb, &b2) < 0)
		return -1;
	return sym__rc_matmul(rc, &a2, &b2, ta, tb, a->dtype);
}

/* GemmFastGelu(X, W, bias): MatMul of X and W; the bias is 1-D with the
 * last dim of the product. */
static int r_gemm_fast_gelu(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0), *w;
	sym_tval y;
	if (!x || !(w = sym__rc_need(rc, 1)) || sym__rc_matmul(rc, x, w, 0, 0, x->dtype) < 0)
		return -1;
	y = rc->out[0];
	return last_dim_bias(rc, &y, sym__rc_in(rc, 2), "bias");
}

/* A required positive integer attribute. */
static int positive_attr(sym_rule_ctx *rc, const char *name, int required, int64_t def, int64_t *out)
{
	if (required && !sym__rc_attr(rc, name))
		return sym__rc_error(rc, "attribute '%s' is required", name);
	if (sym__rc_attr_int(rc, name, def, out) < 0)
		return -1;
	if (*out < 1)
		return sym__rc_error(rc, "attribute '%s' must be at least 1, not %lld", name,
		                     (long long)*out);
	return 0;
}

/* MatMulNBits(A [..., K], B (packed), scales, ...): [..., N]. */
static int r_matmul_nbits(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need(rc, 0);
	const sym_expr **d;
	int64_t k, n, bits, block;
	int i;
	if (!a || !sym__rc_need(rc, 1) || positive_attr(rc, "K", 1, 1, &k) < 0 ||
	    positive_attr(rc, "N", 1, 1, &n) < 0 || positive_attr(rc, "bits", 0, 4, &bits) < 0 ||
	    positive_attr(rc, "block_size", 1, 1, &block) < 0)
		return -1;
	if (bits > 8)
		return sym__rc_error(rc, "attribute 'bits' must be at most 8, not %lld", (long long)bits);
	if (a->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, 0) < 0)
			return -1;
		return sym__rc_set_dtype(rc, 0, a->dtype);
	}
	if (a->rank < 1)
		return sym__rc_error(rc, "input A must have rank at least 1");
	if (sym__rc_require(rc, eq(rc, a->dims[a->rank - 1], sym__rc_num(rc, k)), SYM_GUARD_ASSERT,
	                    "the last dim of A must equal attribute K") < 0)
		return -1;
	if (!(d = sym__rc_alloc(rc, (size_t)a->rank * sizeof(*d))))
		return -1;
	for (i = 0; i < a->rank - 1; i++)
		d[i] = a->dims[i];
	d[a->rank - 1] = sym__rc_num(rc, n);
	if (sym__rc_set_shape(rc, 0, a->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, a->dtype);
}

/* BiasSoftmax(data, bias): the shape of data. */
static int r_bias_softmax(sym_rule_ctx *rc)
{
	if (!sym__rc_need(rc, 1))
		return -1;
	return r_gelu(rc);
}

/* Inverse(X [*, M, M]) and Trilu(X [*, N, M], k): the shape of X. */
static int r_matrix_same(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x)
		return -1;
	if (x->rank >= 0 && x->rank < 2)
		return sym__rc_error(rc, "input must have rank at least 2, not %d", x->rank);
	if (!strcmp(rc->op, "Inverse") && x->rank >= 2 &&
	    sym__rc_require(rc, eq(rc, x->dims[x->rank - 2], x->dims[x->rank - 1]), SYM_GUARD_ASSERT,
	                    "Inverse needs square matrices") < 0)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias) and
 * MatMulIntegerToFloat(A, B, a_scale, b_scale, ..., bias): MatMul's shape,
 * of the float type of scale input s; the bias (input bias_in) is 1-D with
 * the product's last dim. */
static int quantized_matmul(sym_rule_ctx *rc, size_t s, size_t bias_in)
{
	const sym_tval *a = sym__rc_need(rc, 0), *b, *scale;
	sym_tval y;
	if (!a || !(b = sym__rc_need(rc, 1)) || !(scale = sym__rc_need(rc, s)))
		return -1;
	if (sym__rc_matmul(rc, a, b, 0, 0, scale->dtype ? scale->dtype : SYM_DT_FLOAT32) < 0)
		return -1;
	y = rc->out[0];
	return last_dim_bias(rc, &y, sym__rc_in(rc, bias_in), "bias");
}

static int r_dynamic_quantize_matmul(sym_rule_ctx *rc)
{
	return quantized_matmul(rc, 2, 4);
}

static int r_matmul_integer_to_float(sym_rule_ctx *rc)
{
	return quantized_matmul(rc, 2, 6);
}

/* FusedGemm(A, B, C): Gemm's [M, N] (transA, transB); C broadcasts
 * unidirectionally to it. */
static int r_fused_gemm(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_need_rank(rc, 0), *b, *c;
	const sym_expr *mn[2];
	int ta, tb;
	if (!a || !(b = sym__rc_need_rank(rc, 1)) || flag_attr(rc, "transA", &ta) < 0 ||
	    flag_attr(rc, "transB", &tb) < 0)
		return -1;
	if (a->rank != 2 || b->rank != 2)
		return sym__rc_error(rc, "inputs A and B must have rank 2, not %d and %d", a->rank, b->rank);
	if (sym__rc_matmul(rc, a, b, ta, tb, a->dtype) < 0)
		return -1;
	mn[0] = rc->out[0].dims[0], mn[1] = rc->out[0].dims[1];
	c = sym__rc_in(rc, 2);
	if (c && c->rank >= 0) {
		if (c->rank > 2)
			return sym__rc_error(rc, "input C has rank %d and cannot broadcast to rank 2",
			                     c->rank);
		return sym__rc_unibroadcast(rc, c->rank, c->dims, 2, mn,
		                            "C dims must be 1 or equal to the output dims");
	}
	return 0;
}

const sym_rule_entry sym__rules_microsoft[] = {
    {"Gelu", MS, r_gelu, 0},
    {"QuickGelu", MS, r_quick_gelu, 0},
    {"BiasGelu", MS, r_bias_gelu, 0},
    {"FastGelu", MS, r_fast_gelu, 0},
    {"BiasAdd", MS, r_bias_add, 0},
    {"BiasSplitGelu", MS, r_bias_split_gelu, 0},
    {"FusedMatMul", MS, r_fused_matmul, 0},
    {"GemmFastGelu", MS, r_gemm_fast_gelu, 0},
    {"MatMulNBits", MS, r_matmul_nbits, 0},
    {"BiasSoftmax", MS, r_bias_softmax, 0},
    {"Inverse", MS, r_matrix_same, 0},
    {"Trilu", MS, r_matrix_same, 0},
    {"DynamicQuantizeMatMul", MS, r_dynamic_quantize_matmul, 0},
    {"MatMulIntegerToFloat", MS, r_matmul_integer_to_float, 0},
    {"FusedGemm", MS, r_fused_gemm, 0},
};
const size_t sym__rules_microsoft_count = sizeof(sym__rules_microsoft) / sizeof(sym__rules_microsoft[0]);
