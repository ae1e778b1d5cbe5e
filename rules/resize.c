/* Padding and resampling: Pad (pads from input 1 or the attribute), and
 * Resize/Upsample with scales or sizes, following the runtime's float32
 * arithmetic where a scale is computed. */
#include "rules_private.h"

#include <math.h>
#include <string.h>

static const sym_expr *zero_of(sym_rule_ctx *rc)
{
	return sym_expr_from_si(sym__rc_ctx(rc), 0);
}

/* Returns 1 when s is one of the n names, 0 otherwise. */
static int one_of(const char *s, size_t n, const char *const *names)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return 1;
	return 0;
}

/* Normalises the *np axes v against rank into out[], rejecting repeats;
 * without given axes, every axis in order. */
static int norm_axes(sym_rule_ctx *rc, int given, size_t *np, const int64_t *v, int rank, int *out)
{
	char *seen;
	size_t i, n;
	if (!given) {
		*np = (size_t)rank;
		for (i = 0; i < (size_t)rank; i++)
			out[i] = (int)i;
		return 0;
	}
	n = *np;
	if (n > (size_t)rank)
		return sym__rc_error(rc, "%zu axes for rank %d", n, rank);
	seen = sym__rc_alloc(rc, (size_t)(rank ? rank : 1));
	if (!seen)
		return -1;
	for (i = 0; i < n; i++) {
		if (sym__rc_axis(rc, v[i], rank, "axis", &out[i]) < 0)
			return -1;
		if (seen[out[i]])
			return sym__rc_error(rc, "axis %lld is repeated", (long long)v[i]);
		seen[out[i]] = 1;
	}
	return 0;
}

/* ---- Pad ---------------------------------------------------------------- */

/* Pad(data, pads[, constant_value[, axes]]; mode), or the 'pads'
 * attribute before opset 11: dim k becomes begin_k + dim_k + end_k, which
 * must not be negative. */
static int r_pad(sym_rule_ctx *rc)
{
	static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *const *pads;
	const sym_expr **pv = NULL, **d;
	const char *mode;
	size_t npads, naxes, i;
	int *axes;
	int r;
	if (!x || sym__rc_attr_string(rc, "mode", "constant", &mode) < 0)
		return -1;
	if (!one_of(mode, 4, modes))
		return sym__rc_error(rc, "mode '%s' is not one of constant, reflect, edge, wrap", mode);
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (sym__rc_in(rc, 1)) {
		if (sym__rc_in(rc, 1)->rank > 1)
			return sym__rc_error(rc, "pads must be 1-D");
		if (sym__rc_in_value(rc, 1, &npads, &pads) < 0)
			return -1;
	} else {
		const int64_t *pa;
		int has = sym__rc_attr_ints(rc, "pads", &npads, &pa);
		if (has == 0)
			has = sym__rc_attr_ints(rc, "paddings", &npads, &pa);
		if (has < 0)
			return -1;
		if (!has)
			return sym__rc_error(
			    rc, "pads are required (input 1, or the attribute 'pads' before opset 11)");
		pv = sym__rc_alloc(rc, (npads ? npads : 1) * sizeof(*pv));
		if (!pv)
			return -1;
		for (i = 0; i < npads; i++)
			pv[i] = sym__rc_num(rc, pa[i]);
		pads = pv;
	}
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	r = x->rank;
	axes = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*axes));
	if (!axes)
		return -1;
	{
		int64_t *av = NULL;
		int given = sym__rc_in(rc, 3) != NULL;
		if (given && sym__rc_in_ints(rc, 3, &naxes, &av) < 0)
			return -1;
		if (norm_axes(rc, given, &naxes, av, r, axes) < 0)
			return -1;
	}
	if (npads != 2 * naxes)
		return sym__rc_error(rc, "pads has %zu entries, expected %zu (a begin and an end per axis)",
		                     npads, 2 * naxes);
	d = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*d));
	if (!d)
		return -1;
	memcpy(d, x->dims, (size_t)r * sizeof(*d));
	for (i = 0; i < naxes; i++) {
		int k = axes[i];
		d[k] = sym__rc_simplify(rc,
		                        sym_expr_add(ctx, d[k], sym_expr_add(ctx, pads[i], pads[i + naxes])));
		if (!d[k] || sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, d[k], zero_of(rc)),
		                             SYM_GUARD_ASSERT, "padded dims must not be negative") < 0)
			return -1;
	}
	return sym__rc_set_shape(rc, 0, r, d);
}

/* ---- Resize / Upsample -------------------------------------------------- */

/* The exact rational value of a finite double: mantissa * 2**exp. */
static const sym_expr *exact_double(sym_rule_ctx *rc, double v)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	int e;
	double m;
	long long mi;
	if (!isfinite(v)) {
		sym__rc_error(rc, "a scale is not a finite number");
		return NULL;
	}
	m = frexp(v, &e); /* v = m * 2**e, 0.5 <= |m| < 1 */
	mi = (long long)ldexp(m, 53);
	e -= 53;
	return sym_expr_mul(ctx, sym_expr_from_si(ctx, mi),
	                    sym_expr_pow_si(ctx, sym_expr_from_si(ctx, 2), e));
}

/* An input that is absent or an empty tensor (Resize's way to omit scales
 * or sizes) counts as absent. */
static const sym_tval *nonempty_in(sym_rule_ctx *rc, size_t i)
{
	const sym_tval *t = sym__rc_in(rc, i);
	long long n;
	if (!t)
		return NULL;
	if (t->has_value && t->nvalue == 0)
		return NULL;
	if (t->rank == 1 && sym_expr_get_si(t->dims[0], &n) == 1 && n == 0)
		return NULL;
	return t;
}

/* The record of a scale given as an attribute: the number, exactly. */
static sym_fmeta exact_scale(const sym_expr *f)
{
	sym_tval t;
	memset(&t, 0, sizeof(t));
	t.has_value = 1, t.nvalue = 1, t.value = &f;
	return sym__rc_fmeta_at(&t, 0);
}

/* dim * scale as the runtime computes it: the dim converted to float32,
 * multiplied by the float32 scale, rounded to an integer by op (values.c:
 * an exact floor form, or a runtime-bound dim when float rounding could
 * change the integer). */
static int float_dim(sym_rule_ctx *rc, const sym_expr *di, const sym_expr *f, sym_fmeta mf, sym_fop op,
                     const sym_expr **out)
{
	const sym_expr *cd, *p;
	sym_fmeta mc, mp;
	int r = sym__rc_fcast_from_int(rc, SYM_DT_FLOAT32, di, &cd, &mc);
	if (r > 0)
		r = sym__rc_fop(rc, SYM_FOP_MUL, SYM_DT_FLOAT32, cd, mc, f, mf, &p, &mp);
	if (r > 0)
		r = sym__rc_fop(rc, op, SYM_DT_FLOAT32, p, mp, NULL, mp, out, &mc);
	if (r < 0)
		return -1;
	if (!r)
		return sym__rc_error(rc, "the output size of a scale is not known");
	return 0;
}

static int scaled_dim(sym_rule_ctx *rc, const sym_expr *di, const sym_expr *f, sym_fmeta mf,
                      const sym_expr **out)
{
	return float_dim(rc, di, f, mf, SYM_FOP_TRUNC, out);
}

/* Folds size/dim, as float32 divides it, into the aspect-ratio scale:
 * the least (lower) or the greatest so far (first: the scale is it). */
static int policy_scale(sym_rule_ctx *rc, const sym_expr *size, const sym_expr *di, int lower, int first,
                        const sym_expr **scale, sym_fmeta *ms)
{
	const sym_expr *a, *b, *q;
	sym_fmeta ma, mb, mq;
	int r = sym__rc_fcast_from_int(rc, SYM_DT_FLOAT32, size, &a, &ma);
	if (r > 0)
		r = sym__rc_fcast_from_int(rc, SYM_DT_FLOAT32, di, &b, &mb);
	if (r > 0)
		r = sym__rc_fop(rc, SYM_FOP_DIV, SYM_DT_FLOAT32, a, ma, b, mb, &q, &mq);
	if (r > 0 && first)
		*scale = q, *ms = mq;
	else if (r > 0)
		r = sym__rc_fop(rc, lower ? SYM_FOP_MIN : SYM_FOP_MAX, SYM_DT_FLOAT32, *scale, *ms, q, mq,
		                scale, ms);
	if (r < 0)
		return -1;
	if (!r)
		return sym__rc_error(rc, "the aspect-ratio scale is not known");
	return 0;
}

/* Resize with sizes whose value is not known but whose length is: each
 * resized dim is a data-dependent symbol (SPEC §10), the others X's. */
static int sizes_from_data(sym_rule_ctx *rc, const sym_tval *x, const sym_tval *sizes, int has_axes,
                           size_t naxes, const int64_t *av)
{
	const sym_expr **d;
	int *axes, r;
	long long n;
	size_t i;
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	r = x->rank;
	if (sizes->rank != 1 || sym_expr_get_si(sizes->dims[0], &n) != 1)
		return sym__rc_error(rc, "the value of input 3 must be known (sizes of unknown length)");
	axes = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*axes));
	d = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*d));
	if (!axes || !d)
		return -1;
	if (norm_axes(rc, has_axes, &naxes, av, r, axes) < 0)
		return -1;
	if ((size_t)n != naxes)
		return sym__rc_error(rc, "sizes has %lld entries for %zu axes", n, naxes);
	memcpy(d, x->dims, (size_t)r * sizeof(*d));
	for (i = 0; i < naxes; i++)
		if (!(d[axes[i]] = sym__rc_fresh_dim(rc, sym__zero(sym__rc_ctx(rc)), NULL,
		                                     "a size computed from data")))
			return -1;
	return sym__rc_set_shape(rc, 0, r, d);
}

/* Resize(X, roi, scales, sizes) (opset 11+; X, scales in opset 10) and
 * Upsample(X, scales) or its 'scales' attribute: with sizes the output
 * dims are the sizes (keep_aspect_ratio_policy rescales them); with scales
 * dim*scale rounded down, the scale taken as the exact rational value of
 * the number given. */
static int r_resize(sym_rule_ctx *rc)
{
	static const char *const policies[] = {"stretch", "not_larger", "not_smaller"};
	static const char *const modes[] = {"nearest", "linear", "cubic", "bilinear"};
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0), *scales_t, *sizes_t, *roi_t;
	const sym_expr *const *sv = NULL;
	const sym_expr **d, **fv = NULL;
	const char *policy, *ctm, *mode;
	const int64_t *av;
	size_t naxes, nv = 0, i;
	int *axes, r, two = rc->nin <= 2 || !strcmp(rc->op, "Upsample"), has_axes;
	if (!x || sym__rc_attr_string(rc, "keep_aspect_ratio_policy", "stretch", &policy) < 0 ||
	    sym__rc_attr_string(rc, "coordinate_transformation_mode", "half_pixel", &ctm) < 0 ||
	    sym__rc_attr_string(rc, "mode", "nearest", &mode) < 0 ||
	    (has_axes = sym__rc_attr_ints(rc, "axes", &naxes, &av)) < 0)
		return -1;
	if (!one_of(policy, 3, policies))
		return sym__rc_error(
		    rc, "keep_aspect_ratio_policy '%s' is not one of stretch, not_larger, not_smaller",
		    policy);
	if (!one_of(mode, 4, modes))
		return sym__rc_error(rc, "mode '%s' is not one of nearest, linear, cubic", mode);
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	scales_t = nonempty_in(rc, two ? 1 : 2);
	sizes_t = two ? NULL : nonempty_in(rc, 3);
	roi_t = two ? NULL : nonempty_in(rc, 1);
	if (scales_t && sizes_t)
		return sym__rc_error(rc, "only one of scales and sizes may be given");
	if (scales_t && scales_t->has_value && sym__dtype_is_float(scales_t->dtype) &&
	    strcmp(ctm, "tf_crop_and_resize")) {
		/* computed scales are read with their rounding records */
		nv = scales_t->nvalue, sv = scales_t->value;
	} else if (sizes_t && !sizes_t->has_value && !strcmp(policy, "stretch")) {
		/* sizes computed from tensor data (a box's extent, say): the
		 * resized dims are known once that computation has run */
		return sizes_from_data(rc, x, sizes_t, has_axes, naxes, av);
	} else if (scales_t || sizes_t) {
		if (sym__rc_in_value(rc, scales_t ? (two ? 1 : 2) : 3, &nv, &sv) < 0)
			return -1;
	} else {
		const double *fa;
		int has = sym__rc_attr_floats(rc, "scales", &nv, &fa);
		if (has < 0)
			return -1;
		if (!has)
			return sym__rc_error(rc, "scales or sizes are required");
		fv = sym__rc_alloc(rc, (nv ? nv : 1) * sizeof(*fv));
		if (!fv)
			return -1;
		for (i = 0; i < nv; i++)
			if (!(fv[i] = exact_double(rc, (double)(float)fa[i])))
				return -1;
		sv = fv;
	}
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	r = x->rank;
	axes = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*axes));
	d = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*d));
	if (!axes || !d)
		return -1;
	if (norm_axes(rc, has_axes, &naxes, av, r, axes) < 0)
		return -1;
	if (nv != naxes)
		return sym__rc_error(rc, "%s has %zu entries for %zu axes", sizes_t ? "sizes" : "scales", nv,
		                     naxes);
	memcpy(d, x->dims, (size_t)r * sizeof(*d));
	if (sizes_t) {
		const sym_expr *scale = NULL;
		for (i = 0; i < naxes; i++)
			if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, sv[i], zero_of(rc)),
			                    SYM_GUARD_ASSERT, "Resize sizes must not be negative") < 0)
				return -1;
		sym_fmeta ms;
		if (strcmp(policy, "stretch")) {
			/* one scale for every axis: the least (not_larger) or the
			 * greatest (not_smaller) of sizes/dims, in float32 */
			for (i = 0; i < naxes; i++) {
				const sym_expr *di = x->dims[axes[i]];
				if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, di, sym__one(ctx)),
				                    SYM_GUARD_ASSERT,
				                    "keeping the aspect ratio needs nonempty dims") < 0)
					return -1;
				if (policy_scale(rc, sv[i], di, !strcmp(policy, "not_larger"), i == 0, &scale,
				                 &ms) < 0)
					return -1;
			}
		}
		for (i = 0; i < naxes; i++) {
			const sym_expr *di = x->dims[axes[i]];
			d[axes[i]] = sv[i];
			/* std::round(scale * dim): half away from zero, in float32 */
			if (scale && float_dim(rc, di, scale, ms, SYM_FOP_ROUND_AWAY, &d[axes[i]]) < 0)
				return -1;
		}
	} else {
		const sym_expr *const *roi = NULL;
		size_t nroi = 0;
		if (!strcmp(ctm, "tf_crop_and_resize")) {
			if (!roi_t)
				return sym__rc_error(rc, "tf_crop_and_resize needs roi");
			if (sym__rc_in_value(rc, 1, &nroi, &roi) < 0)
				return -1;
			if (nroi != 2 * naxes)
				return sym__rc_error(
				    rc, "roi has %zu entries, expected %zu (a start and an end per axis)",
				    nroi, 2 * naxes);
		}
		for (i = 0; i < naxes; i++) {
			const sym_expr *di = x->dims[axes[i]], *f = sv[i];
			if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GT, f, zero_of(rc)),
			                    SYM_GUARD_ASSERT, "Resize scales must be positive") < 0)
				return -1;
			if (roi) {
				f = sym_expr_mul(ctx, f, sym_expr_sub(ctx, roi[i + naxes], roi[i]));
				d[axes[i]] = sym_expr_floor(ctx, sym_expr_mul(ctx, di, f));
			} else if (scaled_dim(rc, di, f,
			                      scales_t ? sym__rc_fmeta_at(scales_t, i) : exact_scale(f),
			                      &d[axes[i]]) < 0) {
				return -1;
			}
		}
	}
	return sym__rc_set_shape(rc, 0, r, d);
}

const sym_rule_entry sym__rules_resize[] = {
    {"Pad", "", r_pad, SYM_RULE_ANY_DOMAIN},
    {"Resize", "", r_resize, SYM_RULE_ANY_DOMAIN},
    {"Upsample", "", r_resize, 0},
};
const size_t sym__rules_resize_count = sizeof(sym__rules_resize) / sizeof(sym__rules_resize[0]);
