/* Normalization: LayerNormalization (ONNX) and LayerNorm (CANN) with their
 * statistics outputs, BatchNormalization, InstanceNormalization,
 * GroupNormalization, RMSNormalization, LpNormalization, LRN and
 * MeanVarianceNormalization.  Y always has the shape of X; the rules check
 * the parameter shapes and compute the shapes of the statistics. */
#include "rules_private.h"

#include <stdio.h>

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Guards that parameter p (NULL: absent) broadcasts unidirectionally to the
 * n dims target: at most n dims, each (aligned right) 1 or the target's. */
static int unibroadcast(sym_rule_ctx *rc, const sym_tval *p, int n, const sym_expr *const *target,
                        const char *what)
{
	const char *reason;
	if (!p || p->rank < 0)
		return 0;
	if (p->rank > n)
		return sym__rc_error(rc, "%s has rank %d but the normalized dims are %d", what, p->rank, n);
	if (!(reason = sym__rc_text(rc, "%s dims must be 1 or equal to the normalized dims", what)))
		return -1;
	return sym__rc_unibroadcast(rc, p->rank, p->dims, n, target, reason);
}

/* Guards that the per-channel parameter p (NULL: absent) is 1-D of length c. */
static int per_channel(sym_rule_ctx *rc, const sym_tval *p, const sym_expr *c, const char *what)
{
	const char *reason;
	if (!p || p->rank < 0)
		return 0;
	if (p->rank != 1)
		return sym__rc_error(rc, "%s must have rank 1, not %d", what, p->rank);
	if (!(reason = sym__rc_text(rc, "%s length must equal the channels", what)))
		return -1;
	return sym__rc_require(rc, eq(rc, p->dims[0], c), SYM_GUARD_ASSERT, reason);
}

int sym__rc_norm_stats(sym_rule_ctx *rc, size_t i, const sym_tval *x, int axis, int dtype)
{
	const sym_expr **d;
	int k;
	if (i >= rc->nout)
		return 0;
	if (x->rank < 0) {
		if (sym__rc_set_unknown_rank(rc, i) < 0)
			return -1;
		return sym__rc_set_dtype(rc, i, dtype);
	}
	d = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < x->rank; k++)
		d[k] = k < axis ? x->dims[k] : sym__one(sym__rc_ctx(rc));
	if (sym__rc_set_shape(rc, i, x->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, i, dtype);
}

/* The dtype named by stash_type (default float32). */
static int stash_dtype(sym_rule_ctx *rc, int *dt)
{
	int64_t s;
	if (sym__rc_attr_int(rc, "stash_type", SYM_DT_FLOAT32, &s) < 0)
		return -1;
	if (s <= 0 || s >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'stash_type' (%lld) is not a known element type",
		                     (long long)s);
	*dt = (int)s;
	return 0;
}

/* Axis attribute normalised for x (unknown rank: -1). */
static int axis_attr(sym_rule_ctx *rc, const char *name, int64_t def, const sym_tval *x, int *axis)
{
	int64_t a;
	*axis = -1;
	if (sym__rc_attr_int(rc, name, def, &a) < 0)
		return -1;
	if (x->rank < 0)
		return 0;
	return sym__rc_axis(rc, a, x->rank, name, axis);
}

int sym__rc_norm_axis_stash(sym_rule_ctx *rc, const sym_tval *x, int *axis, int *dtype)
{
	if (axis_attr(rc, "axis", -1, x, axis) < 0)
		return -1;
	return stash_dtype(rc, dtype);
}

/* LayerNormalization(X, Scale, B) -> Y, Mean, InvStdDev. */
static int r_layer_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int axis, dt = SYM_DT_FLOAT32;
	if (!x || !sym__rc_need(rc, 1) || sym__rc_norm_axis_stash(rc, x, &axis, &dt) < 0)
		return -1;
	if (x->rank >= 0 &&
	    (unibroadcast(rc, sym__rc_in(rc, 1), x->rank - axis, x->dims + axis, "Scale") < 0 ||
	     unibroadcast(rc, sym__rc_in(rc, 2), x->rank - axis, x->dims + axis, "B") < 0))
		return -1;
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	if (sym__rc_norm_stats(rc, 1, x, axis, dt) < 0)
		return -1;
	return sym__rc_norm_stats(rc, 2, x, axis, dt);
}

/* RMSNormalization(X, scale) -> Y. */
static int r_rms_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int axis, dt = SYM_DT_FLOAT32;
	if (!x || !sym__rc_need(rc, 1) || sym__rc_norm_axis_stash(rc, x, &axis, &dt) < 0)
		return -1;
	if (x->rank >= 0 && unibroadcast(rc, sym__rc_in(rc, 1), x->rank - axis, x->dims + axis, "scale") < 0)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* CANN LayerNorm(x, gamma, beta) -> y, mean, variance; mean and variance
 * keep the dims before begin_norm_axis and have 1 from there on. */
static int r_cann_layer_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int naxis, paxis;
	if (!x || axis_attr(rc, "begin_norm_axis", 0, x, &naxis) < 0 ||
	    axis_attr(rc, "begin_params_axis", 0, x, &paxis) < 0)
		return -1;
	if (x->rank >= 0 &&
	    (unibroadcast(rc, sym__rc_in(rc, 1), x->rank - paxis, x->dims + paxis, "gamma") < 0 ||
	     unibroadcast(rc, sym__rc_in(rc, 2), x->rank - paxis, x->dims + paxis, "beta") < 0))
		return -1;
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	if (sym__rc_norm_stats(rc, 1, x, naxis, x->dtype) < 0)
		return -1;
	return sym__rc_norm_stats(rc, 2, x, naxis, x->dtype);
}

/* The channel dim of x: dims[1], or 1 for a 1-D input. */
static const sym_expr *channels(sym_rule_ctx *rc, const sym_tval *x)
{
	return x->rank > 1 ? x->dims[1] : sym__one(sym__rc_ctx(rc));
}

/* BatchNormalization(X, scale, B, input_mean, input_var) -> Y and, in
 * training mode (or the old five-output form), per-channel statistics. */
static int r_batch_norm(sym_rule_ctx *rc)
{
	static const char *const names[] = {"scale", "B", "input_mean", "input_var"};
	const sym_tval *x = sym__rc_need_rank(rc, 0), *mean;
	const sym_expr *c;
	int64_t training;
	size_t i;
	if (!x || sym__rc_attr_int(rc, "training_mode", 0, &training) < 0)
		return -1;
	if (training != 0 && training != 1)
		return sym__rc_error(rc, "attribute 'training_mode' must be 0 or 1, not %lld",
		                     (long long)training);
	if (x->rank < 1)
		return sym__rc_error(rc, "input X must have rank at least 1");
	c = channels(rc, x);
	for (i = 0; i < 4; i++) {
		const sym_tval *p = i < 2 ? sym__rc_need(rc, i + 1) : sym__rc_in(rc, i + 1);
		if ((i < 2 && !p) || per_channel(rc, p, c, names[i]) < 0)
			return -1;
	}
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	mean = sym__rc_in(rc, 3);
	for (i = 1; i < rc->nout; i++)
		if (sym__rc_set_shape(rc, i, 1, &c) < 0 ||
		    sym__rc_set_dtype(rc, i, mean ? mean->dtype : x->dtype) < 0)
			return -1;
	return 0;
}

/* InstanceNormalization(input, scale, B) -> Y. */
static int r_instance_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x || !sym__rc_need(rc, 1) || !sym__rc_need(rc, 2))
		return -1;
	if (x->rank >= 0) {
		if (x->rank < 3)
			return sym__rc_error(
			    rc, "input must have rank at least 3 (N, C and spatial dims), not %d", x->rank);
		if (per_channel(rc, sym__rc_in(rc, 1), x->dims[1], "scale") < 0 ||
		    per_channel(rc, sym__rc_in(rc, 2), x->dims[1], "B") < 0)
			return -1;
	}
	return sym__rc_copy_shape(rc, 0, x);
}

/* GroupNormalization(X, scale, bias) -> Y; scale and bias have num_groups
 * elements before opset 21 and C from 21 on. */
static int r_group_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *g, *per;
	int64_t groups;
	if (!x || !sym__rc_need(rc, 1) || !sym__rc_need(rc, 2))
		return -1;
	if (!sym__rc_attr(rc, "num_groups"))
		return sym__rc_error(rc, "attribute 'num_groups' is required");
	if (sym__rc_attr_int(rc, "num_groups", 1, &groups) < 0)
		return -1;
	if (groups < 1)
		return sym__rc_error(rc, "attribute 'num_groups' must be at least 1, not %lld",
		                     (long long)groups);
	if (x->rank >= 0) {
		if (x->rank < 2)
			return sym__rc_error(rc, "input must have rank at least 2 (N and C), not %d",
			                     x->rank);
		g = sym__rc_num(rc, groups);
		if (sym__rc_require_divisible(rc, x->dims[1], g, "channels must be divisible by num_groups") <
		    0)
			return -1;
		per = rc->opset >= 21 ? x->dims[1] : g;
		if (per_channel(rc, sym__rc_in(rc, 1), per, "scale") < 0 ||
		    per_channel(rc, sym__rc_in(rc, 2), per, "bias") < 0)
			return -1;
	}
	return sym__rc_copy_shape(rc, 0, x);
}

/* LpNormalization(input) -> same shape; axis in range, p 1 or 2. */
static int r_lp_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int64_t p;
	int axis;
	if (!x || axis_attr(rc, "axis", -1, x, &axis) < 0 || sym__rc_attr_int(rc, "p", 2, &p) < 0)
		return -1;
	if (p != 1 && p != 2)
		return sym__rc_error(rc, "attribute 'p' must be 1 or 2, not %lld", (long long)p);
	return sym__rc_copy_shape(rc, 0, x);
}

/* LRN(X) -> same shape; size is required and positive. */
static int r_lrn(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int64_t size;
	if (!x)
		return -1;
	if (!sym__rc_attr(rc, "size"))
		return sym__rc_error(rc, "attribute 'size' is required");
	if (sym__rc_attr_int(rc, "size", 1, &size) < 0)
		return -1;
	if (size < 1)
		return sym__rc_error(rc, "attribute 'size' must be at least 1, not %lld", (long long)size);
	if (x->rank >= 0 && x->rank < 2)
		return sym__rc_error(rc, "input must have rank at least 2 (N and C), not %d", x->rank);
	return sym__rc_copy_shape(rc, 0, x);
}

/* MeanVarianceNormalization(X) -> same shape; axes (default [0, 2, 3]) in
 * range and distinct. */
static int r_mvn(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	static const int64_t def[] = {0, 2, 3};
	const int64_t *axes;
	size_t n, i, j;
	int r;
	if (!x || (r = sym__rc_attr_ints(rc, "axes", &n, &axes)) < 0)
		return -1;
	if (!r)
		axes = def, n = 3;
	if (x->rank >= 0) {
		int *seen = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*seen));
		if (!seen)
			return -1;
		for (i = 0; i < n; i++) {
			if (sym__rc_axis(rc, axes[i], x->rank, "axes value", &seen[i]) < 0)
				return -1;
			for (j = 0; j < i; j++)
				if (seen[j] == seen[i])
					return sym__rc_error(rc, "attribute 'axes' repeats axis %d", seen[i]);
		}
	}
	return sym__rc_copy_shape(rc, 0, x);
}

const sym_rule_entry sym__rules_norm[] = {
    {"LayerNormalization", "", r_layer_norm, 0},
    {"RMSNormalization", "", r_rms_norm, 0},
    {"LayerNorm", "cann", r_cann_layer_norm, SYM_RULE_ANY_DOMAIN},
    {"BatchNormalization", "", r_batch_norm, SYM_RULE_ANY_DOMAIN},
    {"InstanceNormalization", "", r_instance_norm, 0},
    {"GroupNormalization", "", r_group_norm, 0},
    {"LpNormalization", "", r_lp_norm, 0},
    {"LRN", "", r_lrn, SYM_RULE_ANY_DOMAIN},
    {"MeanVarianceNormalization", "", r_mvn, 0},
};
const size_t sym__rules_norm_count = sizeof(sym__rules_norm) / sizeof(sym__rules_norm[0]);
