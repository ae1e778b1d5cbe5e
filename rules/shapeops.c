/* Shape, Size, Constant, ConstantOfShape and Range: the operators that make
 * shape tensors.  Their outputs carry symbolic values (the dims, the element
 * count, the constant's data, small filled or ranged tensors), which is what
 * lets later shape arithmetic stay symbolic. */
#include "rules_private.h"

/* Integer tensors up to this many elements carry their value. */
#define FLOAT_VALUE_LIMIT 64

static const sym_expr *const *dims_or_empty(const sym_tval *t)
{
	return t->rank > 0 ? t->dims : NULL;
}

/* Shape(x) with optional start/end (opset 15): the slice dims[start:end],
 * both clamped to [0, rank] after adding rank to negative ones. */
static int r_shape(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	int64_t start, end, r;
	const sym_expr *n;
	if (!x)
		return -1;
	r = x->rank;
	if (sym__rc_attr_int(rc, "start", 0, &start) < 0 || sym__rc_attr_int(rc, "end", r, &end) < 0)
		return -1;
	if (start < 0)
		start += r;
	if (end < 0)
		end += r;
	start = start < 0 ? 0 : start > r ? r : start;
	end = end < 0 ? 0 : end > r ? r : end;
	if (end < start)
		end = start;
	n = sym__rc_num(rc, end - start);
	if (sym__rc_set_shape(rc, 0, 1, &n) < 0 || sym__rc_set_dtype(rc, 0, SYM_DT_INT64) < 0)
		return -1;
	return sym__rc_set_value(rc, 0, (size_t)(end - start), dims_or_empty(x) ? x->dims + start : NULL);
}

/* Size(x): a scalar holding the element count. */
static int r_size(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *n;
	if (!x || sym__rc_set_shape(rc, 0, 0, NULL) < 0 || sym__rc_set_dtype(rc, 0, SYM_DT_INT64) < 0)
		return -1;
	if (x->rank < 0)
		return 0;
	n = sym__rc_numel(rc, x);
	return sym__rc_set_value(rc, 0, 1, &n);
}

/* The value of a tensor attribute, when its element count is a known
 * constant that agrees with the data. */
static int tensor_value(sym_rule_ctx *rc, const sym_tval *t)
{
	long long numel;
	const sym_expr *e = sym__rc_simplify(rc, sym__rc_numel(rc, t));
	if (!e)
		return -1;
	if (!t->has_value || t->rank < 0)
		return 0;
	if (sym_expr_get_si(e, &numel) == 1 && (size_t)numel != t->nvalue)
		return sym__rc_error(rc, "the value tensor has %zu elements, its shape needs %lld", t->nvalue,
		                     numel);
	/* floating-point values (at most FLOAT_VALUE_LIMIT, exact rationals
	 * from an ONNX Constant) are what Resize reads its scales from */
	if (t->nvalue > (sym__dtype_is_int(t->dtype) ? SYM_RC_VALUE_LIMIT : FLOAT_VALUE_LIMIT))
		return 0;
	return sym__rc_pass_value(rc, 0, t);
}

/* Constant: exactly one of value (a tensor), value_int(s), value_float(s),
 * value_string(s). */
static int r_constant(sym_rule_ctx *rc)
{
	static const char *const names[] = {"value",        "value_int",    "value_ints",    "value_float",
	                                    "value_floats", "value_string", "value_strings", "sparse_value"};
	const sym_attr *a = NULL;
	size_t k, found = 0, which = 0, i;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (sym__rc_attr(rc, names[k])) {
			a = sym__rc_attr(rc, names[k]);
			which = k;
			found++;
		}
	if (found != 1)
		return sym__rc_error(rc, "exactly one of the value attributes must be given (found %zu)",
		                     found);
	switch (which) {
	case 0: {
		const sym_tval *t = a->tensor;
		if (a->type != SYM_ATTR_TENSOR || !t)
			return sym__rc_error(rc, "attribute 'value' must be a tensor");
		if (sym__rc_copy_shape(rc, 0, t) < 0)
			return -1;
		return tensor_value(rc, t);
	}
	case 1:
	case 2: {
		const sym_expr **v;
		const sym_expr *n;
		if (a->type != (which == 1 ? SYM_ATTR_INT : SYM_ATTR_INTS))
			return sym__rc_error(rc, "attribute '%s' must be %s", names[which],
			                     which == 1 ? "an integer" : "a list of integers");
		v = sym__rc_alloc(rc, (a->n ? a->n : 1) * sizeof(*v));
		if (!v)
			return -1;
		for (i = 0; i < a->n; i++)
			v[i] = sym__rc_num(rc, a->ints[i]);
		n = sym__rc_num(rc, (int64_t)a->n);
		if (sym__rc_set_shape(rc, 0, which == 1 ? 0 : 1, &n) < 0 ||
		    sym__rc_set_dtype(rc, 0, SYM_DT_INT64) < 0)
			return -1;
		return a->n <= SYM_RC_VALUE_LIMIT ? sym__rc_set_value(rc, 0, a->n, v) : 0;
	}
	case 3:
	case 4:
	case 5:
	case 6: {
		int list = which == 4 || which == 6;
		const sym_expr *n = sym__rc_num(rc, (int64_t)a->n);
		int ok = which <= 4 ? (a->type == (list ? SYM_ATTR_FLOATS : SYM_ATTR_FLOAT) ||
		                       a->type == (list ? SYM_ATTR_INTS : SYM_ATTR_INT))
		                    : a->type == (list ? SYM_ATTR_STRINGS : SYM_ATTR_STRING);
		if (!ok)
			return sym__rc_error(rc, "attribute '%s' has the wrong type", names[which]);
		if (sym__rc_set_shape(rc, 0, list, &n) < 0 ||
		    sym__rc_set_dtype(rc, 0, which <= 4 ? SYM_DT_FLOAT32 : SYM_DT_STRING) < 0)
			return -1;
		if (which <= 4 && a->n <= FLOAT_VALUE_LIMIT) {
			/* float32 numbers, exactly (an integer written for a float is
			 * that number, rounded to float32) */
			const sym_expr **v = sym__rc_alloc(rc, (a->n ? a->n : 1) * sizeof(*v));
			int fl = a->type == (list ? SYM_ATTR_FLOATS : SYM_ATTR_FLOAT);
			if (!v)
				return -1;
			for (i = 0; i < a->n; i++)
				if (!(v[i] = sym__rc_from_double(rc, fl ? (double)(float)a->floats[i]
				                                        : (double)(float)a->ints[i])))
					return -1;
			return sym__rc_set_fvalue(rc, 0, a->n, v, NULL);
		}
		return 0;
	}
	default:
		return sym__rc_error(rc, "attribute 'sparse_value' is not supported");
	}
}

/* ConstantOfShape(shape): the output shape is the input's value; the
 * element type and fill come from the one-element 'value' tensor (float32
 * zero by default). */
static int r_constant_of_shape(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_attr *a = sym__rc_attr(rc, "value");
	const sym_expr *const *v;
	const sym_expr *fill = NULL, *numel;
	const sym_expr **vals;
	size_t n, i;
	long long count;
	int dtype = SYM_DT_FLOAT32;
	if (!x)
		return -1;
	if (x->rank > 1)
		return sym__rc_error(rc, "input 0 must be 1-D, not of rank %d", x->rank);
	if (sym__rc_in_value(rc, 0, &n, &v) < 0)
		return -1;
	if (a) {
		const sym_tval *t = a->tensor;
		if (a->type != SYM_ATTR_TENSOR || !t)
			return sym__rc_error(rc, "attribute 'value' must be a tensor");
		if (t->has_value && t->nvalue != 1)
			return sym__rc_error(rc, "attribute 'value' must hold one element, not %zu",
			                     t->nvalue);
		dtype = t->dtype;
		if (t->has_value && (sym__dtype_is_int(dtype) || sym__dtype_is_float(dtype)))
			fill = t->value[0];
	}
	for (i = 0; i < n; i++)
		if (sym__rc_require(rc, sym_expr_rel(sym__rc_ctx(rc), SYM_REL_GE, v[i], sym__rc_num(rc, 0)),
		                    SYM_GUARD_ASSERT, "ConstantOfShape dims must be nonnegative") < 0)
			return -1;
	if (sym__rc_set_shape(rc, 0, (int)n, v) < 0 || sym__rc_set_dtype(rc, 0, dtype) < 0)
		return -1;
	numel = sym__rc_simplify(rc, sym__rc_numel(rc, &rc->out[0]));
	if (!numel)
		return -1;
	if (!fill || sym_expr_get_si(numel, &count) != 1 || count > SYM_RC_VALUE_LIMIT)
		return 0;
	vals = sym__rc_alloc(rc, (size_t)(count ? count : 1) * sizeof(*vals));
	if (!vals)
		return -1;
	for (i = 0; i < (size_t)count; i++)
		vals[i] = fill;
	/* a float fill is the number the tensor holds, exactly */
	if (sym__dtype_is_float(dtype))
		return sym__rc_set_fvalue(rc, 0, (size_t)count, vals, NULL);
	return sym__rc_set_value(rc, 0, (size_t)count, vals);
}

/* One scalar input of Range. */
static const sym_expr *scalar_in(sym_rule_ctx *rc, size_t i)
{
	const sym_expr *const *v;
	size_t n;
	const sym_tval *t = sym__rc_need(rc, i);
	if (!t)
		return NULL;
	if (t->rank > 1 || (t->rank == 1 && t->dims[0] != sym__one(sym__rc_ctx(rc)))) {
		sym__rc_error(rc, "input %zu must be a scalar", i);
		return NULL;
	}
	if (sym__rc_in_value(rc, i, &n, &v) < 0)
		return NULL;
	if (n != 1) {
		sym__rc_error(rc, "input %zu must hold one element, not %zu", i, n);
		return NULL;
	}
	return v[0];
}

/* Range(start, limit, delta): max(ceil((limit - start)/delta), 0) elements
 * start + i*delta; delta 0 is an error. */
static int r_range(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *start, *limit, *delta, *len, *zero = sym__rc_num(rc, 0), *mx[2];
	const sym_expr **vals;
	long long count, i;
	sym_truth z;
	if (!(start = scalar_in(rc, 0)) || !(limit = scalar_in(rc, 1)) || !(delta = scalar_in(rc, 2)))
		return -1;
	z = sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_EQ, delta, zero));
	if (z == SYM_TRUE)
		return sym__rc_error(rc, "delta must not be zero");
	if (z != SYM_FALSE && sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_NE, delta, zero),
	                                      SYM_GUARD_ASSERT, "Range delta must not be zero") < 0)
		return -1;
	if (sym__dtype_is_float(rc->in[0].dtype)) {
		/* the runtime computes ceil(double(limit - start) / delta), the
		 * difference in the input type: the float operations bound it */
		const sym_expr *diff, *q;
		sym_fmeta md, mq, exact = sym__rc_fmeta_at(&rc->in[0], 0);
		int r = sym__rc_fop(rc, SYM_FOP_SUB, rc->in[0].dtype, limit, sym__rc_fmeta_at(&rc->in[1], 0),
		                    start, exact, &diff, &md);
		if (r > 0)
			r = sym__rc_fop(rc, SYM_FOP_DIV, SYM_DT_FLOAT64, diff, md, delta,
			                sym__rc_fmeta_at(&rc->in[2], 0), &q, &mq);
		if (r > 0)
			r = sym__rc_fop(rc, SYM_FOP_CEIL, SYM_DT_FLOAT64, q, mq, NULL, mq, &mx[0], &mq);
		if (r < 0)
			return -1;
		if (!r)
			return sym__rc_error(rc, "the length of a float Range is not known exactly");
	} else {
		mx[0] = sym_expr_ceil(ctx, sym_expr_div(ctx, sym_expr_sub(ctx, limit, start), delta));
	}
	mx[1] = zero;
	len = sym__rc_simplify(rc, sym_expr_max(ctx, 2, mx));
	if (!len || sym__rc_set_shape(rc, 0, 1, &len) < 0 || sym__rc_set_dtype(rc, 0, rc->in[0].dtype) < 0)
		return -1;
	if (!sym__dtype_is_int(rc->in[0].dtype) || sym_expr_get_si(len, &count) != 1 ||
	    count > SYM_RC_VALUE_LIMIT)
		return 0;
	vals = sym__rc_alloc(rc, (size_t)(count ? count : 1) * sizeof(*vals));
	if (!vals)
		return -1;
	for (i = 0; i < count; i++)
		vals[i] = sym_expr_add(ctx, start, sym_expr_mul(ctx, sym__rc_num(rc, i), delta));
	return sym__rc_set_value(rc, 0, (size_t)count, vals);
}

const sym_rule_entry sym__rules_shapeops[] = {
    {"Shape", "", r_shape, SYM_RULE_ANY_DOMAIN},       {"Size", "", r_size, SYM_RULE_ANY_DOMAIN},
    {"Constant", "", r_constant, SYM_RULE_ANY_DOMAIN}, {"ConstantOfShape", "", r_constant_of_shape, 0},
    {"Range", "", r_range, SYM_RULE_ANY_DOMAIN},
};
const size_t sym__rules_shapeops_count = sizeof(sym__rules_shapeops) / sizeof(sym__rules_shapeops[0]);
