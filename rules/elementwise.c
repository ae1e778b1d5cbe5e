/* Elementwise operators: unary ones keep the input shape; binary, variadic
 * and Where broadcast their inputs (numpy rules).  On small integer tensors
 * they also compute symbolic values, so shape arithmetic stays symbolic. */
#include "rules_private.h"

#include <string.h>

/* Unary: output 0 has the shape and (unless the rule says) dtype of input 0.
 * Unknown rank passes through. */
static int unary(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* Unary with a symbolic value for integer tensors. */
typedef const sym_expr *(*map1_fn)(sym_ctx *ctx, const sym_expr *a);

static int unary_value(sym_rule_ctx *rc, map1_fn fn)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr **v;
	size_t i;
	if (!x || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	if (!x->has_value || !fn)
		return 0;
	v = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < x->nvalue; i++)
		if (!(v[i] = fn(sym__rc_ctx(rc), x->value[i])))
			return -1;
	return sym__rc_set_value(rc, 0, x->nvalue, v);
}

static const sym_expr *id1(sym_ctx *ctx, const sym_expr *a)
{
	(void)ctx;
	return a;
}

static int r_identity(sym_rule_ctx *rc)
{
	return unary_value(rc, id1);
}
static int r_neg(sym_rule_ctx *rc)
{
	return unary_value(rc, sym_expr_neg);
}
static int r_abs(sym_rule_ctx *rc)
{
	return unary_value(rc, sym_expr_abs);
}
static int r_unary(sym_rule_ctx *rc)
{
	return unary(rc);
}

static int r_bool_unary(sym_rule_ctx *rc)
{
	if (unary(rc) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, SYM_DT_BOOL);
}

/* A floating-point value cast to an integer type rounds toward zero. */
static const sym_expr *trunc1(sym_ctx *ctx, const sym_expr *a)
{
	const sym_expr *neg = sym_expr_rel(ctx, SYM_REL_LT, a, sym__zero(ctx));
	if (!neg)
		return NULL;
	return neg == sym__true(ctx) ? sym_expr_ceil(ctx, a) : sym_expr_floor(ctx, a);
}

/* Whether every element of a floating-point value is a constant (only
 * then is the value of a cast to an integer type known). */
static int all_constants(const sym_tval *x)
{
	size_t i;
	for (i = 0; x->has_value && i < x->nvalue; i++)
		if (sym_expr_kind(x->value[i]) != SYM_KIND_NUM)
			return 0;
	return 1;
}

static int r_cast(sym_rule_ctx *rc)
{
	int64_t to;
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x || sym__rc_attr_int(rc, "to", x->dtype, &to) < 0)
		return -1;
	if (to <= 0 || to >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'to' (%lld) is not a known element type", (long long)to);
	if (unary_value(rc, !sym__dtype_is_int((int)to)   ? NULL
	                    : sym__dtype_is_int(x->dtype) ? id1
	                    : all_constants(x)            ? trunc1
	                                                  : NULL) < 0)
		return -1;
	if (!sym__dtype_is_int((int)to))
		rc->out[0].has_value = 0;
	return sym__rc_set_dtype(rc, 0, (int)to);
}

/* CastLike(x, like): the shape of x, the element type of like. */
static int r_cast_like(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0), *like = sym__rc_need(rc, 1);
	if (!x || !like || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, like->dtype);
}

/* Softmax-like operators with an axis attribute check it when the rank is
 * known. */
static int r_axis_unary(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int64_t axis;
	int a;
	if (!x || sym__rc_attr_int(rc, "axis", -1, &axis) < 0)
		return -1;
	if (x->rank >= 0 && x->rank > 0 && sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* ---- broadcasting operators ------------------------------------------- */

typedef const sym_expr *(*map2_fn)(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b);

/* Element index of a broadcast output position in an input of n elements
 * (values are at most 1-D here, or scalars). */
static size_t bidx(size_t i, size_t n)
{
	return n == 1 ? 0 : i;
}

static int broadcast_values(sym_rule_ctx *rc, size_t nin, map2_fn fn)
{
	const sym_tval *a = sym__rc_in(rc, 0);
	size_t n = 0, i, k;
	const sym_expr **v;
	if (!fn)
		return 0;
	for (k = 0; k < nin; k++) {
		const sym_tval *t = sym__rc_in(rc, k);
		if (!t || !t->has_value || t->rank > 1)
			return 0;
		if (t->nvalue > n)
			n = t->nvalue;
	}
	for (k = 0; k < nin; k++) {
		const sym_tval *t = sym__rc_in(rc, k);
		if (t->nvalue != n && t->nvalue != 1)
			return 0;
	}
	v = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		v[i] = a->value[bidx(i, a->nvalue)];
		for (k = 1; k < nin && v[i]; k++) {
			const sym_tval *t = sym__rc_in(rc, k);
			v[i] = fn(rc, v[i], t->value[bidx(i, t->nvalue)]);
		}
		if (!v[i])
			return -1;
	}
	return sym__rc_set_value(rc, 0, n, v);
}

static int broadcast_op(sym_rule_ctx *rc, size_t nin, int dtype, map2_fn fn)
{
	const sym_tval *ins[16];
	size_t k;
	if (nin > 16)
		return sym__rc_error(rc, "too many inputs (%zu)", nin);
	/* a variadic operator (Max, Sum, ...) still needs input 0 */
	for (k = 0; k < (nin ? nin : 1); k++)
		if (!(ins[k] = sym__rc_need(rc, k)))
			return -1;
	if (sym__rc_broadcast(rc, nin, ins, 0) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, dtype >= 0 ? dtype : ins[0]->dtype) < 0)
		return -1;
	return broadcast_values(rc, nin, fn);
}

static const sym_expr *v_add(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_add(sym__rc_ctx(rc), a, b);
}
static const sym_expr *v_sub(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_sub(sym__rc_ctx(rc), a, b);
}
static const sym_expr *v_mul(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_mul(sym__rc_ctx(rc), a, b);
}
static const sym_expr *v_max(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	const sym_expr *ab[2] = {a, b};
	return sym_expr_max(sym__rc_ctx(rc), 2, ab);
}
static const sym_expr *v_min(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	const sym_expr *ab[2] = {a, b};
	return sym_expr_min(sym__rc_ctx(rc), 2, ab);
}

/* ONNX integer division truncates toward zero: floor division when the
 * signs agree, ceil when they differ; otherwise a guard that the dividend
 * is nonnegative. */
static const sym_expr *v_div(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *zero = sym_expr_from_si(ctx, 0);
	int bpos = sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_GT, b, zero)) == SYM_TRUE;
	int bneg = !bpos && sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_LT, b, zero)) == SYM_TRUE;
	int apos, aneg;
	if (!bpos && !bneg) {
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GT, b, zero), SYM_GUARD_ASSERT,
		                    "integer Div of shape values needs a positive divisor") < 0)
			return NULL;
		bpos = 1;
	}
	apos = sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_GE, a, zero)) == SYM_TRUE;
	aneg = !apos && sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_LE, a, zero)) == SYM_TRUE;
	if (!apos && !aneg) {
		if (sym__rc_require(
		        rc, sym_expr_rel(ctx, SYM_REL_GE, a, zero), SYM_GUARD_ASSERT,
		        "integer Div of shape values is exact here only for a nonnegative dividend") < 0)
			return NULL;
		apos = 1;
	}
	if (apos == bpos)
		return sym_expr_floordiv(ctx, a, b);
	return sym_expr_ceil(ctx, sym_expr_div(ctx, a, b));
}

static const sym_expr *v_mod(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_mod(sym__rc_ctx(rc), a, b);
}

static const sym_expr *v_eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	/* a value is known only when the comparison is decided */
	sym_truth t = sym__rc_prove(rc, sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b));
	if (t == SYM_TRUE || t == SYM_FALSE)
		return sym_expr_from_si(sym__rc_ctx(rc), t == SYM_TRUE);
	return NULL;
}

static int r_add(sym_rule_ctx *rc)
{
	return broadcast_op(rc, 2, -1, v_add);
}
static int r_sub(sym_rule_ctx *rc)
{
	return broadcast_op(rc, 2, -1, v_sub);
}
static int r_mul(sym_rule_ctx *rc)
{
	return broadcast_op(rc, 2, -1, v_mul);
}
static int r_max(sym_rule_ctx *rc)
{
	return broadcast_op(rc, rc->nin, -1, v_max);
}
static int r_min(sym_rule_ctx *rc)
{
	return broadcast_op(rc, rc->nin, -1, v_min);
}
static int r_variadic(sym_rule_ctx *rc)
{
	return broadcast_op(rc, rc->nin, -1, NULL);
}
static int r_binary(sym_rule_ctx *rc)
{
	return broadcast_op(rc, 2, -1, NULL);
}
static int r_compare(sym_rule_ctx *rc)
{
	return broadcast_op(rc, 2, SYM_DT_BOOL, NULL);
}

static const sym_expr *v_order(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const char *op = rc->op;
	sym_relop rel = !strcmp(op, "Less")          ? SYM_REL_LT
	                : !strcmp(op, "LessOrEqual") ? SYM_REL_LE
	                : !strcmp(op, "Greater")     ? SYM_REL_GT
	                                             : SYM_REL_GE;
	/* a value is known only when the comparison is decided */
	sym_truth t = sym__rc_prove(rc, sym_expr_rel(ctx, rel, a, b));
	if (t == SYM_TRUE || t == SYM_FALSE)
		return sym_expr_from_si(ctx, t == SYM_TRUE);
	return NULL;
}

/* Less, LessOrEqual, Greater, GreaterOrEqual: on shape values the result
 * is known where every comparison is decided (torch exports max(a, b) of
 * shapes as Greater -> Where). */
static int r_order(sym_rule_ctx *rc)
{
	if (broadcast_op(rc, 2, SYM_DT_BOOL, NULL) < 0)
		return -1;
	if (broadcast_values(rc, 2, v_order) < 0) {
		sym_ctx_clear_error(sym__rc_ctx(rc));
		rc->out[0].has_value = 0;
	}
	return 0;
}

static int r_div(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_in(rc, 0);
	int ints = a && sym__dtype_is_int(a->dtype);
	if (broadcast_op(rc, 2, -1, NULL) < 0)
		return -1;
	if (!ints)
		return 0;
	if (broadcast_values(rc, 2, v_div) < 0) {
		/* a failed guard is an error; an unknown value is not */
		return sym__failed(sym__rc_ctx(rc)) ? -1 : 0;
	}
	return 0;
}

static int r_mod(sym_rule_ctx *rc)
{
	int64_t fmod;
	if (sym__rc_attr_int(rc, "fmod", 0, &fmod) < 0)
		return -1;
	return broadcast_op(rc, 2, -1, fmod ? NULL : v_mod);
}

static int r_equal(sym_rule_ctx *rc)
{
	const sym_tval *ins[2];
	if (!(ins[0] = sym__rc_need(rc, 0)) || !(ins[1] = sym__rc_need(rc, 1)))
		return -1;
	if (sym__rc_broadcast(rc, 2, ins, 0) < 0 || sym__rc_set_dtype(rc, 0, SYM_DT_BOOL) < 0)
		return -1;
	/* the value is known only when every comparison is decided */
	if (broadcast_values(rc, 2, v_eq) < 0) {
		sym_ctx_clear_error(sym__rc_ctx(rc));
		rc->out[0].has_value = 0;
	}
	return 0;
}

/* Where(cond, x, y): broadcast of all three; the value is known when every
 * condition element is a known constant. */
static int r_where(sym_rule_ctx *rc)
{
	const sym_tval *ins[3];
	size_t k, i, n = 0;
	const sym_expr **v;
	for (k = 0; k < 3; k++)
		if (!(ins[k] = sym__rc_need(rc, k)))
			return -1;
	if (sym__rc_broadcast(rc, 3, ins, 0) < 0 || sym__rc_set_dtype(rc, 0, ins[1]->dtype) < 0)
		return -1;
	for (k = 0; k < 3; k++) {
		if (!ins[k]->has_value || ins[k]->rank > 1)
			return 0;
		if (ins[k]->nvalue > n)
			n = ins[k]->nvalue;
	}
	for (k = 0; k < 3; k++)
		if (ins[k]->nvalue != n && ins[k]->nvalue != 1)
			return 0;
	v = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		long long c;
		if (sym_expr_get_si(ins[0]->value[bidx(i, ins[0]->nvalue)], &c) != 1)
			return 0;
		v[i] = c ? ins[1]->value[bidx(i, ins[1]->nvalue)] : ins[2]->value[bidx(i, ins[2]->nvalue)];
	}
	return sym__rc_set_value(rc, 0, n, v);
}

const sym_rule_entry sym__rules_elementwise[] = {
    {"Identity", "", r_identity, SYM_RULE_ANY_DOMAIN},
    {"Neg", "", r_neg, 0},
    {"Abs", "", r_abs, 0},
    {"Cast", "", r_cast, 0},
    {"Relu", "", r_unary, SYM_RULE_ANY_DOMAIN},
    {"LeakyRelu", "", r_unary, 0},
    {"Elu", "", r_unary, 0},
    {"Selu", "", r_unary, 0},
    {"Sigmoid", "", r_unary, SYM_RULE_ANY_DOMAIN},
    {"HardSigmoid", "", r_unary, 0},
    {"HardSwish", "", r_unary, 0},
    {"Tanh", "", r_unary, SYM_RULE_ANY_DOMAIN},
    {"Exp", "", r_unary, 0},
    {"Log", "", r_unary, 0},
    {"Sqrt", "", r_unary, 0},
    {"Reciprocal", "", r_unary, 0},
    {"Floor", "", r_unary, 0},
    {"Ceil", "", r_unary, 0},
    {"Round", "", r_unary, 0},
    {"Sign", "", r_unary, 0},
    {"Sin", "", r_unary, 0},
    {"Cos", "", r_unary, 0},
    {"Tan", "", r_unary, 0},
    {"Asin", "", r_unary, 0},
    {"Acos", "", r_unary, 0},
    {"Atan", "", r_unary, 0},
    {"Sinh", "", r_unary, 0},
    {"Cosh", "", r_unary, 0},
    {"Asinh", "", r_unary, 0},
    {"Acosh", "", r_unary, 0},
    {"Atanh", "", r_unary, 0},
    {"Celu", "", r_unary, 0},
    {"ThresholdedRelu", "", r_unary, 0},
    {"Shrink", "", r_unary, 0},
    {"CastLike", "", r_cast_like, 0},
    {"Erf", "", r_unary, 0},
    {"Gelu", "", r_unary, SYM_RULE_ANY_DOMAIN},
    {"FastGelu", "cann", r_unary, SYM_RULE_ANY_DOMAIN},
    {"Softplus", "", r_unary, 0},
    {"Softsign", "", r_unary, 0},
    {"Mish", "", r_unary, 0},
    {"Clip", "", r_unary, 0},
    {"Not", "", r_unary, 0},
    {"IsNaN", "", r_bool_unary, 0},
    {"IsInf", "", r_bool_unary, 0},
    {"IsFinite", "", r_bool_unary, SYM_RULE_ANY_DOMAIN},
    {"Softmax", "", r_axis_unary, SYM_RULE_ANY_DOMAIN},
    {"LogSoftmax", "", r_axis_unary, 0},
    {"Hardmax", "", r_axis_unary, 0},
    {"Add", "", r_add, SYM_RULE_ANY_DOMAIN},
    {"Sub", "", r_sub, SYM_RULE_ANY_DOMAIN},
    {"Mul", "", r_mul, SYM_RULE_ANY_DOMAIN},
    {"Div", "", r_div, SYM_RULE_ANY_DOMAIN},
    {"Mod", "", r_mod, 0},
    {"Pow", "", r_binary, 0},
    {"PRelu", "", r_binary, 0},
    {"BitShift", "", r_binary, 0},
    {"BitwiseAnd", "", r_binary, 0},
    {"BitwiseOr", "", r_binary, 0},
    {"BitwiseXor", "", r_binary, 0},
    {"Max", "", r_max, 0},
    {"Min", "", r_min, 0},
    {"Sum", "", r_variadic, 0},
    {"Mean", "", r_variadic, 0},
    {"Equal", "", r_equal, 0},
    {"Less", "", r_order, 0},
    {"LessOrEqual", "", r_order, 0},
    {"Greater", "", r_order, 0},
    {"GreaterOrEqual", "", r_order, 0},
    {"And", "", r_compare, 0},
    {"Or", "", r_compare, 0},
    {"Xor", "", r_compare, 0},
    {"Where", "", r_where, 0},
};
const size_t sym__rules_elementwise_count =
    sizeof(sym__rules_elementwise) / sizeof(sym__rules_elementwise[0]);
