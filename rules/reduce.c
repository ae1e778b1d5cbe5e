/* Reduce*, ArgMax/ArgMin, TopK and CumSum.  ReduceSum, ReduceProd,
 * ReduceMax and ReduceMin of a shape tensor reduced whole also give the
 * symbolic value (Shape -> ReduceProd is the element count). */
#include "rules_private.h"

#include <string.h>

typedef enum fold { FOLD_NONE, FOLD_SUM, FOLD_PROD, FOLD_MAX, FOLD_MIN } fold;

/* Folds two elements: integers exactly, floats through the float
 * operation (with the rounding records).  Returns 1, 0 for no value, -1. */
static int fold2(sym_rule_ctx *rc, fold f, int dtype, const sym_expr **acc, sym_fmeta *am, const sym_expr *b,
                 sym_fmeta bm)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *ab[2];
	static const sym_fop fops[] = {SYM_FOP_ADD, SYM_FOP_ADD, SYM_FOP_MUL, SYM_FOP_MAX, SYM_FOP_MIN};
	if (sym__dtype_is_float(dtype))
		return sym__rc_fop(rc, fops[f], dtype, *acc, *am, b, bm, acc, am);
	ab[0] = *acc, ab[1] = b;
	*acc = f == FOLD_SUM    ? sym_expr_add(ctx, *acc, b)
	       : f == FOLD_PROD ? sym_expr_mul(ctx, *acc, b)
	       : f == FOLD_MAX  ? sym_expr_max(ctx, 2, ab)
	                        : sym_expr_min(ctx, 2, ab);
	return *acc ? 1 : -1;
}

/* The value of reducing x over the dims in mask (its dims constants):
 * output element o folds, in row-major order, the input elements whose
 * kept coordinates are o's.  None for an empty Max/Min. */
static int fold_value(sym_rule_ctx *rc, const sym_tval *x, const char *mask, fold f)
{
	long long dims[SYM_RC_VALUE_RANK], numel, idx[SYM_RC_VALUE_RANK], i, nout = 1;
	const sym_expr **v;
	sym_fmeta *m;
	char *seen;
	int k, r, fl = sym__dtype_is_float(x->dtype);
	if (f == FOLD_NONE || !x->has_value)
		return 0;
	if (x->rank <= 1)
		dims[0] = (long long)x->nvalue, numel = dims[0];
	else if (!sym__rc_value_dims(x, dims, SYM_RC_VALUE_RANK, &numel))
		return 0;
	for (k = 0; k < x->rank; k++)
		if (!mask[k])
			nout *= dims[k];
	if (numel == 0 && (f == FOLD_MAX || f == FOLD_MIN))
		return 0;
	v = sym__rc_alloc(rc, (size_t)(nout ? nout : 1) * sizeof(*v));
	m = sym__rc_alloc(rc, (size_t)(nout ? nout : 1) * sizeof(*m));
	seen = sym__rc_alloc(rc, (size_t)(nout ? nout : 1));
	if (!v || !m || !seen)
		return -1;
	for (i = 0; i < nout; i++) {
		v[i] = sym_expr_from_si(sym__rc_ctx(rc), f == FOLD_PROD);
		m[i] = sym__rc_fmeta_at(&(sym_tval){.has_value = 1, .nvalue = 1, .value = &v[i]}, 0);
	}
	memset(idx, 0, sizeof(idx));
	for (i = 0; i < numel; i++) {
		long long o = 0;
		for (k = 0; k < x->rank; k++)
			if (!mask[k])
				o = o * dims[k] + idx[k];
		if (!seen[o]) {
			v[o] = x->value[i];
			m[o] = sym__rc_fmeta_at(x, (size_t)i);
		} else if ((r = fold2(rc, f, x->dtype, &v[o], &m[o], x->value[i],
		                      sym__rc_fmeta_at(x, (size_t)i))) <= 0) {
			return r;
		}
		seen[o] = 1;
		for (k = x->rank - 1; k >= 0; k--) {
			if (++idx[k] < dims[k])
				break;
			idx[k] = 0;
		}
	}
	return fl ? sym__rc_set_fvalue(rc, 0, (size_t)nout, v, m) : sym__rc_set_value(rc, 0, (size_t)nout, v);
}

/* Reduce*(data[, axes]; keepdims, noop_with_empty_axes): reduced dims
 * become 1 (keepdims) or go; no axes reduce every dim, or none with
 * noop_with_empty_axes. */
static int reduce(sym_rule_ctx *rc, fold f)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const int64_t *axes;
	int64_t keep, noop;
	const sym_expr **d;
	char *mask;
	size_t n;
	int has, k, r, m = 0;
	if (!x || sym__rc_attr_int(rc, "keepdims", 1, &keep) < 0 ||
	    sym__rc_attr_int(rc, "noop_with_empty_axes", 0, &noop) < 0 ||
	    (has = sym__rc_axes(rc, 1, &n, &axes)) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (!has)
		n = 0;
	if (n == 0 && noop) {
		if (sym__rc_set_shape(rc, 0, x->rank, x->dims) < 0)
			return -1;
		return sym__rc_pass_value(rc, 0, x);
	}
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	r = x->rank;
	mask = sym__rc_alloc(rc, (size_t)(r ? r : 1));
	d = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*d));
	if (!mask || !d)
		return -1;
	if (n == 0)
		memset(mask, 1, (size_t)(r ? r : 1));
	else if (sym__rc_axes_mask(rc, n, axes, r, mask) < 0)
		return -1;
	for (k = 0; k < r; k++) {
		if (!mask[k]) {
			d[m++] = x->dims[k];
		} else if (keep) {
			d[m++] = sym__one(sym__rc_ctx(rc));
		}
	}
	if (sym__rc_set_shape(rc, 0, m, d) < 0)
		return -1;
	return fold_value(rc, x, mask, f);
}

static int r_reduce(sym_rule_ctx *rc)
{
	return reduce(rc, FOLD_NONE);
}
static int r_reduce_sum(sym_rule_ctx *rc)
{
	return reduce(rc, FOLD_SUM);
}
static int r_reduce_prod(sym_rule_ctx *rc)
{
	return reduce(rc, FOLD_PROD);
}
static int r_reduce_max(sym_rule_ctx *rc)
{
	return reduce(rc, FOLD_MAX);
}
static int r_reduce_min(sym_rule_ctx *rc)
{
	return reduce(rc, FOLD_MIN);
}

/* ArgMax / ArgMin(data; axis, keepdims, select_last_index): int64, the
 * axis dim becomes 1 or goes; the axis must not be empty. */
static int r_arg(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	int64_t axis, keep, last;
	const sym_expr **d;
	int a, k, m = 0;
	if (!x || sym__rc_attr_int(rc, "axis", 0, &axis) < 0 ||
	    sym__rc_attr_int(rc, "keepdims", 1, &keep) < 0 ||
	    sym__rc_attr_int(rc, "select_last_index", 0, &last) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, SYM_DT_INT64) < 0)
		return -1;
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	if (sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, x->dims[a], sym__one(ctx)), SYM_GUARD_ASSERT,
	                    "the reduced axis must not be empty") < 0)
		return -1;
	d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < x->rank; k++)
		if (k != a)
			d[m++] = x->dims[k];
		else if (keep)
			d[m++] = sym__one(ctx);
	return sym__rc_set_shape(rc, 0, m, d);
}

/* The k of TopK: input 1 (a one-element tensor) or the 'k' attribute of
 * opset 1.  Returns 1 with *k set, 0 when input 1 has no known value. */
static int topk_k(sym_rule_ctx *rc, const sym_expr **k)
{
	const sym_tval *kt = sym__rc_in(rc, 1);
	int64_t ka;
	if (kt) {
		if (kt->rank > 1)
			return sym__rc_error(rc, "K must be a 1-D tensor of one element, not of rank %d",
			                     kt->rank);
		if (!kt->has_value)
			return 0;
		if (kt->nvalue != 1)
			return sym__rc_error(rc, "K must hold one element, not %zu", kt->nvalue);
		*k = kt->value[0];
		return 1;
	}
	if (!sym__rc_attr(rc, "k"))
		return sym__rc_error(rc, "K is required (input 1, or the attribute 'k' before opset 10)");
	if (sym__rc_attr_int(rc, "k", 0, &ka) < 0)
		return -1;
	*k = sym__rc_num(rc, ka);
	return 1;
}

/* TopK(X, K; axis, largest, sorted): Values and Indices (int64) have X's
 * shape with dim[axis] = K, 0 <= K <= dim[axis].  A K known only at run
 * time is a fresh symbol with that range. */
static int r_topk(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *k = NULL, *zero = sym_expr_from_si(ctx, 0);
	const sym_expr **d;
	int64_t axis, largest, sorted;
	int a, known, i;
	if (!x || sym__rc_attr_int(rc, "axis", -1, &axis) < 0 ||
	    sym__rc_attr_int(rc, "largest", 1, &largest) < 0 ||
	    sym__rc_attr_int(rc, "sorted", 1, &sorted) < 0 || (known = topk_k(rc, &k)) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0 ||
	    (rc->nout > 1 && sym__rc_set_dtype(rc, 1, SYM_DT_INT64) < 0))
		return -1;
	if (x->rank < 0) {
		if (rc->nout > 1 && sym__rc_set_unknown_rank(rc, 1) < 0)
			return -1;
		return sym__rc_set_unknown_rank(rc, 0);
	}
	if (sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	if (known) {
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, k, zero), SYM_GUARD_ASSERT,
		                    "TopK needs K >= 0") < 0 ||
		    sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_LE, k, x->dims[a]), SYM_GUARD_ASSERT,
		                    "TopK needs K <= the axis dim") < 0)
			return -1;
	} else {
		/* data-dependent: bound at run time, within [0, dim] */
		k = sym__rc_fresh_dim(rc, zero, x->dims[a], "the runtime K");
		if (!k)
			return -1;
	}
	d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d));
	if (!d)
		return -1;
	for (i = 0; i < x->rank; i++)
		d[i] = i == a ? k : x->dims[i];
	if (sym__rc_set_shape(rc, 0, x->rank, d) < 0)
		return -1;
	return rc->nout > 1 ? sym__rc_set_shape(rc, 1, x->rank, d) : 0;
}

/* CumSum(x, axis; exclusive, reverse): the shape of x; a known axis is
 * checked against the rank. */
static int r_cumsum(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0), *ax = sym__rc_need(rc, 1);
	int64_t excl, rev;
	if (!x || !ax || sym__rc_attr_int(rc, "exclusive", 0, &excl) < 0 ||
	    sym__rc_attr_int(rc, "reverse", 0, &rev) < 0)
		return -1;
	if (ax->rank > 1)
		return sym__rc_error(rc, "axis must be a scalar or a 1-element tensor, not of rank %d",
		                     ax->rank);
	if (ax->has_value) {
		long long v;
		int a;
		if (ax->nvalue != 1)
			return sym__rc_error(rc, "axis must hold one element, not %zu", ax->nvalue);
		if (sym_expr_get_si(ax->value[0], &v) != 1)
			return sym__rc_error(rc, "axis must be a constant integer");
		if (x->rank >= 0 && sym__rc_axis(rc, v, x->rank, "axis", &a) < 0)
			return -1;
	}
	return sym__rc_copy_shape(rc, 0, x);
}

const sym_rule_entry sym__rules_reduce[] = {
    {"ReduceSum", "", r_reduce_sum, SYM_RULE_ANY_DOMAIN},
    {"ReduceMean", "", r_reduce, SYM_RULE_ANY_DOMAIN},
    {"ReduceMax", "", r_reduce_max, SYM_RULE_ANY_DOMAIN},
    {"ReduceMin", "", r_reduce_min, SYM_RULE_ANY_DOMAIN},
    {"ReduceProd", "", r_reduce_prod, SYM_RULE_ANY_DOMAIN},
    {"ReduceL1", "", r_reduce, 0},
    {"ReduceL2", "", r_reduce, 0},
    {"ReduceLogSum", "", r_reduce, 0},
    {"ReduceLogSumExp", "", r_reduce, 0},
    {"ReduceSumSquare", "", r_reduce, 0},
    {"ArgMax", "", r_arg, SYM_RULE_ANY_DOMAIN},
    {"ArgMin", "", r_arg, SYM_RULE_ANY_DOMAIN},
    {"TopK", "", r_topk, SYM_RULE_ANY_DOMAIN},
    {"CumSum", "", r_cumsum, SYM_RULE_ANY_DOMAIN},
};
const size_t sym__rules_reduce_count = sizeof(sym__rules_reduce) / sizeof(sym__rules_reduce[0]);
