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

/* ---- bool values --------------------------------------------------------
 * An element of a bool value is 0, 1 or a predicate that the facts do not
 * decide (Equal of shape values: batch == 1).  An If on such a condition
 * takes the branch the hints select (src/infer/subgraph.c).  Only rules
 * flagged SYM_RULE_PREDICATES see predicate elements (rules/context.c). */

/* The bool element for predicate p whose proof gave t: 1 or 0 when it is
 * decided, else p simplified; NULL out of memory (a prover or simplifier
 * that gives up leaves p as it is). */
static const sym_expr *bool_elem_proved(sym_rule_ctx *rc, const sym_expr *p, sym_truth t)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *q;
	if (t == SYM_TRUE || t == SYM_FALSE)
		return sym_expr_from_si(ctx, t == SYM_TRUE);
	if (t == SYM_UNKNOWN && (q = sym__rc_simplify(rc, p)) != NULL)
		return q == sym__true(ctx) ? sym__one(ctx) : q == sym__false(ctx) ? sym__zero(ctx) : q;
	if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
		return NULL;
	sym_ctx_clear_error(ctx);
	return p;
}

/* The bool element for predicate p (bool_elem_proved after its proof). */
static const sym_expr *bool_elem(sym_rule_ctx *rc, const sym_expr *p)
{
	return p ? bool_elem_proved(rc, p, sym__rc_prove(rc, p)) : NULL;
}

/* The predicate that the element e of a bool value states (a nonzero
 * constant is true); NULL, with no error, for an element that is neither. */
static const sym_expr *elem_pred(sym_ctx *ctx, const sym_expr *e)
{
	if (sym_expr_is_pred(e))
		return e;
	if (sym_expr_kind(e) == SYM_KIND_NUM)
		return e == sym__zero(ctx) ? sym__false(ctx) : sym__true(ctx);
	return NULL;
}

/* Unary on a value through the float operation op: float elements with
 * their rounding records, integer ones (Floor of an int tensor is the
 * identity, say) through fn.  to is the output dtype: a float op whose
 * result is an integer type (a cast) keeps no records. */
static int unary_fvalue(sym_rule_ctx *rc, const sym_tval *x, sym_fop op, int to)
{
	const sym_expr **v;
	sym_fmeta *m;
	size_t i;
	int r;
	if (!x->has_value)
		return 0;
	v = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*v));
	m = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*m));
	if (!v || !m)
		return -1;
	for (i = 0; i < x->nvalue; i++)
		if ((r = sym__rc_fop(rc, op, x->dtype, x->value[i], sym__rc_fmeta_at(x, i), NULL, m[i], &v[i],
		                     &m[i])) <= 0)
			return r;
	if (!sym__dtype_is_float(to))
		return sym__rc_set_value(rc, 0, x->nvalue, v);
	return sym__rc_set_fvalue(rc, 0, x->nvalue, v, m);
}

/* Float unary operators with a value: Neg, Abs, Reciprocal, Floor, Ceil,
 * Round.  An integer input keeps the integer map fn (NULL: no value). */
static int unary_op(sym_rule_ctx *rc, sym_fop op, map1_fn fn)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x)
		return -1;
	if (!sym__dtype_is_float(x->dtype))
		return unary_value(rc, fn);
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return unary_fvalue(rc, x, op, x->dtype);
}

static int r_identity(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return sym__rc_pass_value(rc, 0, x);
}
static int r_neg(sym_rule_ctx *rc)
{
	return unary_op(rc, SYM_FOP_NEG, sym_expr_neg);
}
static int r_abs(sym_rule_ctx *rc)
{
	return unary_op(rc, SYM_FOP_ABS, sym_expr_abs);
}
/* Not: the negation of each element (of a predicate, the predicate's). */
static int r_not(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr **v;
	size_t i;
	if (!x || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	if (!x->has_value)
		return 0;
	if (!(v = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*v))))
		return -1;
	for (i = 0; i < x->nvalue; i++) {
		const sym_expr *p = elem_pred(ctx, x->value[i]);
		if (!p)
			return 0;
		if (!(v[i] = bool_elem(rc, sym_expr_not(ctx, p))))
			return -1;
	}
	return sym__rc_set_value(rc, 0, x->nvalue, v);
}
static int r_reciprocal(sym_rule_ctx *rc)
{
	return unary_op(rc, SYM_FOP_RECIP, NULL);
}
static int r_floor(sym_rule_ctx *rc)
{
	return unary_op(rc, SYM_FOP_FLOOR, NULL);
}
static int r_ceil(sym_rule_ctx *rc)
{
	return unary_op(rc, SYM_FOP_CEIL, NULL);
}
static int r_round(sym_rule_ctx *rc)
{
	return unary_op(rc, SYM_FOP_ROUND, NULL);
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

/* Cast: integer to integer keeps the value; integer to float32/float64 is
 * exact up to 2**24 (2**53), float to integer truncates toward zero, and
 * float to float keeps or rounds (sym__rc_fop and friends, values.c). */
static int cast_value(sym_rule_ctx *rc, const sym_tval *x, int to)
{
	const sym_expr **v;
	sym_fmeta *m;
	size_t i;
	int r, from = x->dtype;
	if (!x->has_value)
		return 0;
	/* a predicate is a bool, not a number */
	if (sym__rc_has_predicates(x))
		return to == SYM_DT_BOOL ? sym__rc_set_value(rc, 0, x->nvalue, x->value) : 0;
	if (to == SYM_DT_BOOL && sym__dtype_is_int(from) && from != SYM_DT_BOOL) {
		sym_ctx *ctx = sym__rc_ctx(rc);
		if (!(v = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*v))))
			return -1;
		for (i = 0; i < x->nvalue; i++)
			if (!(v[i] =
			          bool_elem(rc, sym_expr_rel(ctx, SYM_REL_NE, x->value[i], sym__zero(ctx)))))
				return -1;
		return sym__rc_set_value(rc, 0, x->nvalue, v);
	}
	if (sym__dtype_is_int(from) && sym__dtype_is_int(to))
		return sym__rc_set_value(rc, 0, x->nvalue, x->value);
	if (sym__dtype_is_float(from) && sym__dtype_is_int(to))
		return to == SYM_DT_BOOL ? 0 : unary_fvalue(rc, x, SYM_FOP_TRUNC, to);
	v = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*v));
	m = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*m));
	if (!v || !m)
		return -1;
	for (i = 0; i < x->nvalue; i++) {
		if (sym__dtype_is_int(from)) {
			if ((r = sym__rc_fcast_from_int(rc, to, x->value[i], &v[i], &m[i])) <= 0)
				return r;
			continue;
		}
		if (!sym__dtype_is_float(from) || (to != SYM_DT_FLOAT32 && to != SYM_DT_FLOAT64))
			return 0;
		m[i] = sym__rc_fmeta_at(x, i);
		v[i] = x->value[i];
		/* to a wider type, or a number the narrower one holds: unchanged;
		 * float64 to float32 otherwise rounds once */
		if (to == SYM_DT_FLOAT32 && from == SYM_DT_FLOAT64 && (m[i].err || m[i].q == SYM_FQ_NONE)) {
			m[i].rn = !m[i].err;
			m[i].err++;
			m[i].q = SYM_FQ_NONE;
		}
	}
	return sym__rc_set_fvalue(rc, 0, x->nvalue, v, m);
}

static int r_cast(sym_rule_ctx *rc)
{
	int64_t to;
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x || sym__rc_attr_int(rc, "to", x->dtype, &to) < 0)
		return -1;
	if (to <= 0 || to >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'to' (%lld) is not a known element type", (long long)to);
	if (sym__rc_copy_shape(rc, 0, x) < 0 || sym__rc_set_dtype(rc, 0, (int)to) < 0)
		return -1;
	return cast_value(rc, x, (int)to);
}

/* CastLike(x, like): the shape of x, the element type of like. */
static int r_cast_like(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0), *like = sym__rc_need(rc, 1);
	if (!x || !like || sym__rc_copy_shape(rc, 0, x) < 0 || sym__rc_set_dtype(rc, 0, like->dtype) < 0)
		return -1;
	return cast_value(rc, x, like->dtype);
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

/* The layout of output 0 for values: its constant dims, or for a result
 * of rank <= 1 (taken as 1-D) the longest input value. */
static int value_layout(sym_rule_ctx *rc, size_t nin, long long *od, long long *on, int *orank)
{
	const sym_tval *o = &rc->out[0];
	size_t k;
	if (o->rank < 0)
		return 0;
	if (o->rank > 1) {
		*orank = o->rank;
		return sym__rc_out_layout(o, od, on);
	}
	*orank = 1;
	if (o->rank == 1 && sym__rc_out_layout(o, od, on))
		return 1;
	*on = o->rank == 0;
	for (k = 0; k < nin; k++) {
		const sym_tval *t = sym__rc_in(rc, k);
		if (t && t->has_value && (long long)t->nvalue > *on)
			*on = (long long)t->nvalue;
	}
	od[0] = *on;
	return 1;
}

/* Whether every element of a float input is exact at run time (the
 * conditions become expect guards); 1 for integer inputs. */
static int exact_input(sym_rule_ctx *rc, const sym_tval *t)
{
	return sym__dtype_is_float(t->dtype) ? sym__rc_value_exact(rc, t) : 1;
}

/* Values of a broadcasting operator: integer elements through fn, float
 * ones through the float operation fop (< 0: none), each output element
 * from the input elements broadcasting maps to it. */
static int broadcast_values_f(sym_rule_ctx *rc, size_t nin, map2_fn fn, int fop)
{
	const sym_tval *a = sym__rc_in(rc, 0);
	size_t *map[16], i, k;
	long long od[SYM_RC_VALUE_RANK], on;
	const sym_expr **v;
	sym_fmeta *m = NULL;
	int fl = a && sym__dtype_is_float(a->dtype), r, orank;
	if (nin > 16 || !a || (fl ? fop < 0 && !fn : !fn))
		return 0;
	if (!value_layout(rc, nin, od, &on, &orank))
		return 0;
	for (k = 0; k < nin; k++) {
		const sym_tval *t = sym__rc_in(rc, k);
		/* float and integer inputs mixed (an invalid model) give no value */
		if (t && sym__dtype_is_float(t->dtype) != fl)
			return 0;
		if (!t || (r = sym__rc_bcast_map(rc, t, orank, od, on, &map[k])) <= 0)
			return t ? r : 0;
		if (fl && fop < 0 && (r = exact_input(rc, t)) <= 0)
			return r;
	}
	v = sym__rc_alloc(rc, (size_t)(on ? on : 1) * sizeof(*v));
	if (!v || (fl && fop >= 0 && !(m = sym__rc_alloc(rc, (size_t)(on ? on : 1) * sizeof(*m)))))
		return -1;
	for (i = 0; i < (size_t)on; i++) {
		v[i] = a->value[map[0][i]];
		if (m) {
			m[i] = sym__rc_fmeta_at(a, map[0][i]);
			for (k = 1; k < nin; k++) {
				const sym_tval *t = sym__rc_in(rc, k);
				if ((r = sym__rc_fop(rc, (sym_fop)fop, a->dtype, v[i], m[i],
				                     t->value[map[k][i]], sym__rc_fmeta_at(t, map[k][i]),
				                     &v[i], &m[i])) <= 0)
					return r;
			}
			continue;
		}
		for (k = 1; k < nin && v[i]; k++) {
			const sym_tval *t = sym__rc_in(rc, k);
			v[i] = fn(rc, v[i], t->value[map[k][i]]);
		}
		if (!v[i])
			return -1;
	}
	if (m)
		return sym__rc_set_fvalue(rc, 0, (size_t)on, v, m);
	return sym__rc_set_value(rc, 0, (size_t)on, v);
}

static int broadcast_values(sym_rule_ctx *rc, size_t nin, map2_fn fn)
{
	return broadcast_values_f(rc, nin, fn, -1);
}

static int broadcast_op_f(sym_rule_ctx *rc, size_t nin, int dtype, map2_fn fn, int fop)
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
	return broadcast_values_f(rc, nin, fn, fop);
}

static int broadcast_op(sym_rule_ctx *rc, size_t nin, int dtype, map2_fn fn)
{
	return broadcast_op_f(rc, nin, dtype, fn, -1);
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

/* The element of comparing a and b by rel: 1 or 0 when decided; on
 * integer values the predicate itself otherwise, on float ones none (the
 * runtime's comparison sees rounded numbers). */
static const sym_expr *compare_elem(sym_rule_ctx *rc, sym_relop rel, const sym_expr *a, const sym_expr *b)
{
	const sym_tval *x = sym__rc_in(rc, 0);
	const sym_expr *p = sym_expr_rel(sym__rc_ctx(rc), rel, a, b);
	sym_truth t = p ? sym__rc_prove(rc, p) : SYM_ERROR;
	if (t == SYM_TRUE || t == SYM_FALSE)
		return sym_expr_from_si(sym__rc_ctx(rc), t == SYM_TRUE);
	if (t == SYM_UNKNOWN && x && !sym__dtype_is_float(x->dtype))
		return bool_elem_proved(rc, p, t);
	return NULL;
}

static const sym_expr *v_eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return compare_elem(rc, SYM_REL_EQ, a, b);
}

/* And, Or, Xor (rc's operator) of the truths of a and b. */
static const sym_expr *v_logic(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *p = elem_pred(ctx, a), *q = elem_pred(ctx, b);
	if (!p || !q)
		return NULL;
	if (!strcmp(rc->op, "And"))
		return bool_elem(rc, sym_expr_and(ctx, p, q));
	if (!strcmp(rc->op, "Or"))
		return bool_elem(rc, sym_expr_or(ctx, p, q));
	return bool_elem(rc, sym_expr_or(ctx, sym_expr_and(ctx, p, sym_expr_not(ctx, q)),
	                                 sym_expr_and(ctx, sym_expr_not(ctx, p), q)));
}

static int r_add(sym_rule_ctx *rc)
{
	return broadcast_op_f(rc, 2, -1, v_add, SYM_FOP_ADD);
}
static int r_sub(sym_rule_ctx *rc)
{
	return broadcast_op_f(rc, 2, -1, v_sub, SYM_FOP_SUB);
}
static int r_mul(sym_rule_ctx *rc)
{
	return broadcast_op_f(rc, 2, -1, v_mul, SYM_FOP_MUL);
}
static int r_max(sym_rule_ctx *rc)
{
	return broadcast_op_f(rc, rc->nin, -1, v_max, SYM_FOP_MAX);
}
static int r_min(sym_rule_ctx *rc)
{
	return broadcast_op_f(rc, rc->nin, -1, v_min, SYM_FOP_MIN);
}
static int r_variadic(sym_rule_ctx *rc)
{
	return broadcast_op(rc, rc->nin, -1, NULL);
}
static int r_binary(sym_rule_ctx *rc)
{
	return broadcast_op(rc, 2, -1, NULL);
}

static const sym_expr *v_order(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	const char *op = rc->op;
	sym_relop rel = !strcmp(op, "Less")          ? SYM_REL_LT
	                : !strcmp(op, "LessOrEqual") ? SYM_REL_LE
	                : !strcmp(op, "Greater")     ? SYM_REL_GT
	                                             : SYM_REL_GE;
	return compare_elem(rc, rel, a, b);
}

/* Output 0's value through fn, or none when an element has none (an error
 * on the way, out of memory aside, only means no value). */
static int values_or_none(sym_rule_ctx *rc, size_t nin, map2_fn fn)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	if (broadcast_values(rc, nin, fn) >= 0)
		return 0;
	if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
		return -1;
	sym_ctx_clear_error(ctx);
	rc->out[0].has_value = 0, rc->out[0].nvalue = 0, rc->out[0].value = NULL;
	return 0;
}

/* Less, LessOrEqual, Greater, GreaterOrEqual: on shape values each element
 * is decided or a predicate (torch exports max(a, b) of shapes as Greater
 * -> Where). */
static int r_order(sym_rule_ctx *rc)
{
	if (broadcast_op(rc, 2, SYM_DT_BOOL, NULL) < 0)
		return -1;
	return values_or_none(rc, 2, v_order);
}

/* And, Or, Xor: on bool values, the connective of the elements' truths. */
static int r_logic(sym_rule_ctx *rc)
{
	if (broadcast_op(rc, 2, SYM_DT_BOOL, NULL) < 0)
		return -1;
	return values_or_none(rc, 2, v_logic);
}

static int r_div(sym_rule_ctx *rc)
{
	const sym_tval *a = sym__rc_in(rc, 0);
	int ints = a && sym__dtype_is_int(a->dtype);
	if (broadcast_op(rc, 2, -1, NULL) < 0)
		return -1;
	if (!ints)
		return broadcast_values_f(rc, 2, NULL, SYM_FOP_DIV);
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
	return values_or_none(rc, 2, v_eq);
}

/* The element that Where(p, x, y) picks for the predicate p, when it is
 * one expression: a comparison of x and y makes it max(x, y) (p is
 * x >= y or x > y: equal elements are one), min(x, y) (x <= y, x < y), y
 * (x == y) or x (x != y); NULL otherwise, with no error unless out of
 * memory. */
static const sym_expr *pick_by_pred(sym_rule_ctx *rc, const sym_expr *p, const sym_expr *x, const sym_expr *y)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *d, *xy, *yx, *ab[2] = {x, y};
	long long c;
	if (x == y)
		return x;
	if (!sym_expr_is_pred(p) || sym_expr_is_pred(x) || sym_expr_is_pred(y))
		return NULL;
	if (sym__expr_nargs(p) != 1)
		return NULL;
	/* a relation compares d with 0; on integers d < 0 is d + 1 <= 0 */
	d = sym__expr_arg(p, 0);
	if (sym_expr_kind(p) == SYM_KIND_LT)
		d = sym_expr_add(ctx, d, sym__one(ctx));
	if (!d || !(xy = sym_expr_sub(ctx, x, y)) || !(yx = sym_expr_sub(ctx, y, x)))
		return NULL;
	switch (sym_expr_kind(p)) {
	case SYM_KIND_EQ:
		return d == xy || d == yx ? y : NULL;
	case SYM_KIND_NE:
		return d == xy || d == yx ? x : NULL;
	case SYM_KIND_LE:
	case SYM_KIND_LT:
		/* d <= 0 for d = y - x + c is x >= y + c; for d = x - y + c it
		 * is x <= y - c: with c 0 or 1 the pick is the max, the min (at
		 * x == y + 1, say, x >= y + 1 picks x, the larger) */
		if (sym_expr_get_si(sym_expr_sub(ctx, d, yx), &c) == 1 && (c == 0 || c == 1))
			return sym_expr_max(ctx, 2, ab);
		if (sym_expr_get_si(sym_expr_sub(ctx, d, xy), &c) == 1 && (c == 0 || c == 1))
			return sym_expr_min(ctx, 2, ab);
		return NULL;
	default:
		return NULL;
	}
}

/* Where(cond, x, y): broadcast of all three; the value is known when every
 * condition element is a known constant.  Elements are picked, not
 * computed: float elements keep their rounding records. */
static int r_where(sym_rule_ctx *rc)
{
	const sym_tval *ins[3];
	size_t k, i, *map[3];
	long long od[SYM_RC_VALUE_RANK], on;
	const sym_expr **v;
	sym_fmeta *m = NULL;
	int r, orank, fl;
	for (k = 0; k < 3; k++)
		if (!(ins[k] = sym__rc_need(rc, k)))
			return -1;
	if (sym__rc_broadcast(rc, 3, ins, 0) < 0 || sym__rc_set_dtype(rc, 0, ins[1]->dtype) < 0)
		return -1;
	if (!value_layout(rc, 3, od, &on, &orank))
		return 0;
	for (k = 0; k < 3; k++)
		if ((r = sym__rc_bcast_map(rc, ins[k], orank, od, on, &map[k])) <= 0)
			return r;
	fl = sym__dtype_is_float(ins[1]->dtype);
	v = sym__rc_alloc(rc, (size_t)(on ? on : 1) * sizeof(*v));
	if (!v || (fl && !(m = sym__rc_alloc(rc, (size_t)(on ? on : 1) * sizeof(*m)))))
		return -1;
	for (i = 0; i < (size_t)on; i++) {
		long long c;
		const sym_tval *t;
		if (sym_expr_get_si(ins[0]->value[map[0][i]], &c) != 1) {
			/* a predicate: a min or max of integer elements at most */
			if (fl || !(v[i] = pick_by_pred(rc, ins[0]->value[map[0][i]],
			                                ins[1]->value[map[1][i]], ins[2]->value[map[2][i]])))
				return sym__failed(sym__rc_ctx(rc)) ? -1 : 0;
			continue;
		}
		t = ins[c ? 1 : 2];
		v[i] = t->value[map[c ? 1 : 2][i]];
		if (fl)
			m[i] = sym__rc_fmeta_at(t, map[c ? 1 : 2][i]);
	}
	return fl ? sym__rc_set_fvalue(rc, 0, (size_t)on, v, m) : sym__rc_set_value(rc, 0, (size_t)on, v);
}

const sym_rule_entry sym__rules_elementwise[] = {
    {"Identity", "", r_identity, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"Neg", "", r_neg, 0},
    {"Abs", "", r_abs, 0},
    {"Cast", "", r_cast, SYM_RULE_PREDICATES},
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
    {"Reciprocal", "", r_reciprocal, 0},
    {"Floor", "", r_floor, 0},
    {"Ceil", "", r_ceil, 0},
    {"Round", "", r_round, 0},
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
    {"CastLike", "", r_cast_like, SYM_RULE_PREDICATES},
    {"Erf", "", r_unary, 0},
    {"Gelu", "", r_unary, SYM_RULE_ANY_DOMAIN},
    {"FastGelu", "cann", r_unary, SYM_RULE_ANY_DOMAIN},
    {"Softplus", "", r_unary, 0},
    {"Softsign", "", r_unary, 0},
    {"Mish", "", r_unary, 0},
    {"Clip", "", r_unary, 0},
    {"Not", "", r_not, SYM_RULE_PREDICATES},
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
    {"And", "", r_logic, SYM_RULE_PREDICATES},
    {"Or", "", r_logic, SYM_RULE_PREDICATES},
    {"Xor", "", r_logic, SYM_RULE_PREDICATES},
    {"Where", "", r_where, SYM_RULE_PREDICATES},
};
const size_t sym__rules_elementwise_count =
    sizeof(sym__rules_elementwise) / sizeof(sym__rules_elementwise[0]);
