/* Pad, Resize/Upsample, OneHot, Trilu, DepthToSpace, SpaceToDepth,
 * Dropout, Einsum, and the data-dependent NonZero, Unique, Compress and
 * NonMaxSuppression, whose unknowable dims are fresh symbols (prefix "u")
 * with the range the operator implies recorded as a fact. */
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

/* A fresh data-dependent symbol u with lo <= u <= hi recorded as a fact
 * (no guard: the producing kernel guarantees it). */
static const sym_expr *fresh_dim(sym_rule_ctx *rc, const sym_expr *lo, const sym_expr *hi)
{
	return sym__rc_fresh_dim(rc, lo, hi, "the data-dependent size");
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

/* ---- OneHot, Trilu, Dropout -------------------------------------------- */

/* OneHot(indices, depth, values; axis): indices' shape with depth inserted
 * at axis (in [-(r+1), r]); depth must be positive. */
static int r_onehot(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *idx = sym__rc_need(rc, 0), *vals = sym__rc_need(rc, 2);
	const sym_expr *const *dv;
	const sym_expr **d, *depth;
	size_t nd;
	int64_t axis;
	int a, k, m = 0;
	if (!idx || !vals || sym__rc_attr_int(rc, "axis", -1, &axis) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, vals->dtype) < 0)
		return -1;
	if (sym__rc_in_value(rc, 1, &nd, &dv) < 0)
		return -1;
	if (nd != 1)
		return sym__rc_error(rc, "depth must hold one element, not %zu", nd);
	depth = dv[0];
	if (sym_expr_get_si(depth, &(long long){0}) == 2)
		return sym__rc_error(rc, "depth must be an integer");
	if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, depth, sym__one(ctx)), SYM_GUARD_ASSERT,
	                    "OneHot depth must be positive") < 0)
		return -1;
	if (idx->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	if (sym__rc_axis(rc, axis, idx->rank + 1, "axis", &a) < 0)
		return -1;
	d = sym__rc_alloc(rc, (size_t)(idx->rank + 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k <= idx->rank; k++)
		d[k] = k == a ? depth : idx->dims[m++];
	return sym__rc_set_shape(rc, 0, idx->rank + 1, d);
}

/* Trilu(input[, k]; upper): the same shape, of rank >= 2. */
static int r_trilu(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int64_t upper;
	if (!x || sym__rc_attr_int(rc, "upper", 1, &upper) < 0)
		return -1;
	if (x->rank >= 0 && x->rank < 2)
		return sym__rc_error(rc, "input must have rank >= 2, not %d", x->rank);
	return sym__rc_copy_shape(rc, 0, x);
}

/* Dropout(data[, ratio[, training_mode]]): output and the optional mask
 * have the data's shape. */
static int r_dropout(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	/* the mask is bool from opset 10, of the input's type before */
	if (rc->nout > 1 && (sym__rc_copy_shape(rc, 1, x) < 0 ||
	                     sym__rc_set_dtype(rc, 1, rc->opset >= 10 ? SYM_DT_BOOL : x->dtype) < 0))
		return -1;
	return 0;
}

/* ReverseSequence(input, sequence_lens): the input's shape; sequence_lens
 * has one length per batch entry. */
static int r_reverse_sequence(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0), *lens;
	int64_t batch_axis, time_axis;
	int b, t;
	if (!x || !(lens = sym__rc_need(rc, 1)) || sym__rc_attr_int(rc, "batch_axis", 1, &batch_axis) < 0 ||
	    sym__rc_attr_int(rc, "time_axis", 0, &time_axis) < 0)
		return -1;
	if (x->rank < 2)
		return sym__rc_error(rc, "input must have rank at least 2, not %d", x->rank);
	if (sym__rc_axis(rc, batch_axis, x->rank, "batch_axis", &b) < 0 ||
	    sym__rc_axis(rc, time_axis, x->rank, "time_axis", &t) < 0)
		return -1;
	if (b > 1 || t > 1 || b == t)
		return sym__rc_error(rc,
		                     "batch_axis and time_axis must be 0 and 1 in some order (%lld, %lld)",
		                     (long long)batch_axis, (long long)time_axis);
	if (lens->rank >= 0) {
		if (lens->rank != 1)
			return sym__rc_error(rc, "sequence_lens must have rank 1, not %d", lens->rank);
		if (sym__rc_require(rc, sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, lens->dims[0], x->dims[b]),
		                    SYM_GUARD_ASSERT,
		                    "sequence_lens must have one length per batch entry") < 0)
			return -1;
	}
	return sym__rc_copy_shape(rc, 0, x);
}

/* ---- DepthToSpace / SpaceToDepth --------------------------------------- */

static int block_rule(sym_rule_ctx *rc, int to_space)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *b, *bb, *d[4];
	int64_t bs;
	const char *mode;
	int k;
	if (!x || sym__rc_attr_string(rc, "mode", "DCR", &mode) < 0)
		return -1;
	if (!sym__rc_attr(rc, "blocksize"))
		return sym__rc_error(rc, "the attribute 'blocksize' is required");
	if (sym__rc_attr_int(rc, "blocksize", 0, &bs) < 0)
		return -1;
	if (bs < 1)
		return sym__rc_error(rc, "blocksize %lld must be positive", (long long)bs);
	if (to_space && strcmp(mode, "DCR") && strcmp(mode, "CRD"))
		return sym__rc_error(rc, "mode '%s' is not DCR or CRD", mode);
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	if (x->rank != 4)
		return sym__rc_error(rc, "input must have rank 4 [N, C, H, W], not %d", x->rank);
	b = sym__rc_num(rc, bs);
	bb = sym_expr_mul(ctx, b, b);
	d[0] = x->dims[0];
	if (to_space) {
		if (sym__rc_require_divisible(rc, x->dims[1], bb,
		                              "DepthToSpace channels must be divisible by blocksize**2") < 0)
			return -1;
		d[1] = sym_expr_floordiv(ctx, x->dims[1], bb);
		d[2] = sym_expr_mul(ctx, x->dims[2], b);
		d[3] = sym_expr_mul(ctx, x->dims[3], b);
	} else {
		for (k = 2; k < 4; k++)
			if (sym__rc_require_divisible(
			        rc, x->dims[k], b,
			        "SpaceToDepth height and width must be divisible by blocksize") < 0)
				return -1;
		d[1] = sym_expr_mul(ctx, x->dims[1], bb);
		d[2] = sym_expr_floordiv(ctx, x->dims[2], b);
		d[3] = sym_expr_floordiv(ctx, x->dims[3], b);
	}
	return sym__rc_set_shape(rc, 0, 4, d);
}

static int r_depth_to_space(sym_rule_ctx *rc)
{
	return block_rule(rc, 1);
}
static int r_space_to_depth(sym_rule_ctx *rc)
{
	return block_rule(rc, 0);
}

/* ---- Einsum ------------------------------------------------------------- */

#define EIN_MAX 64

/* One term of the equation: labels (letters) and the position of "..." (-1
 * when absent). */
typedef struct ein_term {
	char lab[EIN_MAX];
	int n, ell;
} ein_term;

/* Parses one term from s up to a ',' '-' or the end; returns the end. */
static const char *ein_term_parse(sym_rule_ctx *rc, const char *s, ein_term *t, int *err)
{
	t->n = 0, t->ell = -1;
	for (; *s && *s != ',' && *s != '-'; s++) {
		if (*s == ' ')
			continue;
		if (*s == '.') {
			if (strncmp(s, "...", 3) || t->ell >= 0) {
				*err = sym__rc_error(rc, "bad equation: '.' must come as one '...' per term");
				return s;
			}
			t->ell = t->n;
			s += 2;
			continue;
		}
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) {
			*err = sym__rc_error(rc, "bad equation: '%c' is not a letter", *s);
			return s;
		}
		if (t->n == EIN_MAX) {
			*err = sym__rc_error(rc, "bad equation: a term has more than %d labels", EIN_MAX);
			return s;
		}
		t->lab[t->n++] = *s;
	}
	return s;
}

/* Einsum(inputs...; equation): each label's dims are equal (assert
 * guards); "..." dims broadcast; the output is the explicit right side, or
 * the "..." dims then the labels seen once, in ASCII order. */
static int r_einsum(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const char *eq, *s;
	ein_term in[EIN_MAX], out;
	const sym_expr *lab_dim[128] = {0}, *ell[EIN_MAX];
	const sym_expr **d;
	int count[128] = {0};
	int nterms = 0, nell = 0, err = 0, explicit_out = 0, i, k, m = 0;
	if (!sym__rc_attr(rc, "equation"))
		return sym__rc_error(rc, "the attribute 'equation' is required");
	if (sym__rc_attr_string(rc, "equation", "", &eq) < 0)
		return -1;
	s = eq;
	for (;;) {
		if (nterms == EIN_MAX)
			return sym__rc_error(rc, "bad equation: more than %d terms", EIN_MAX);
		s = ein_term_parse(rc, s, &in[nterms++], &err);
		if (err)
			return -1;
		if (*s == ',') {
			s++;
			continue;
		}
		break;
	}
	if (*s == '-') {
		if (s[1] != '>')
			return sym__rc_error(rc, "bad equation: '-' must start '->'");
		s = ein_term_parse(rc, s + 2, &out, &err);
		if (err)
			return -1;
		if (*s)
			return sym__rc_error(rc, "bad equation: unexpected '%c' in the output", *s);
		explicit_out = 1;
	}
	if ((size_t)nterms != rc->nin)
		return sym__rc_error(rc, "the equation has %d input terms for %zu inputs", nterms, rc->nin);
	if (sym__rc_set_dtype(rc, 0,
	                      rc->nin && sym__rc_in(rc, 0) ? sym__rc_in(rc, 0)->dtype : SYM_DT_UNDEFINED) < 0)
		return -1;
	for (i = 0; i < nterms; i++) {
		const sym_tval *x = sym__rc_need(rc, (size_t)i);
		int ne, j, pos;
		if (!x)
			return -1;
		if (x->rank < 0)
			return sym__rc_set_unknown_rank(rc, 0);
		ne = x->rank - in[i].n;
		if (in[i].ell < 0 ? ne != 0 : ne < 0)
			return sym__rc_error(rc, "term %d has %d labels%s for input %d of rank %d", i,
			                     in[i].n, in[i].ell < 0 ? "" : " and '...'", i, x->rank);
		if (ne > EIN_MAX)
			return sym__rc_error(rc, "'...' stands for more than %d dims", EIN_MAX);
		/* "..." dims broadcast, aligned at the right */
		if (ne > nell) {
			memmove(ell + (ne - nell), ell, (size_t)nell * sizeof(*ell));
			for (j = 0; j < ne - nell; j++)
				ell[j] = NULL;
			nell = ne;
		}
		for (j = 0; j < ne; j++) {
			const sym_expr *e = x->dims[in[i].ell + j], **slot = &ell[nell - ne + j];
			if (!*slot)
				*slot = e;
			else if (sym__rc_broadcast_dim(rc, *slot, e, slot) < 0)
				return -1;
		}
		for (j = 0; j < in[i].n; j++) {
			int c = (unsigned char)in[i].lab[j];
			pos = in[i].ell >= 0 && j >= in[i].ell ? j + ne : j;
			count[c]++;
			if (!lab_dim[c]) {
				lab_dim[c] = x->dims[pos];
			} else if (sym__rc_require(rc,
			                           sym_expr_rel(ctx, SYM_REL_EQ, lab_dim[c], x->dims[pos]),
			                           SYM_GUARD_ASSERT,
			                           "Einsum dims with the same label must be equal") < 0) {
				return -1;
			}
		}
	}
	if (!explicit_out) {
		out.n = 0, out.ell = 0;
		for (i = 'A'; i <= 'z'; i++)
			if (count[i] == 1)
				out.lab[out.n++] = (char)i;
	} else {
		char seen[128] = {0};
		if (out.ell < 0 && nell > 0)
			return sym__rc_error(
			    rc, "bad equation: the inputs' '...' covers %d dims but the output has no '...'",
			    nell);
		for (k = 0; k < out.n; k++) {
			int c = (unsigned char)out.lab[k];
			if (!count[c])
				return sym__rc_error(
				    rc, "bad equation: output label '%c' is not in the inputs", c);
			if (seen[c]++)
				return sym__rc_error(rc, "bad equation: output label '%c' is repeated", c);
		}
	}
	d = sym__rc_alloc(rc, (size_t)(out.n + nell + 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k <= out.n; k++) {
		if (k == out.ell)
			for (i = 0; i < nell; i++)
				d[m++] = ell[i];
		if (k < out.n)
			d[m++] = lab_dim[(unsigned char)out.lab[k]];
	}
	return sym__rc_set_shape(rc, 0, m, d);
}

/* ---- data-dependent dims ------------------------------------------------ */

/* NonZero(X): [rank(X), u] int64 with 0 <= u <= numel(X) (a scalar counts
 * as one element of rank 1). */
static int r_nonzero(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr *d[2];
	if (!x)
		return -1;
	d[0] = sym__rc_num(rc, x->rank ? x->rank : 1);
	d[1] = fresh_dim(rc, zero_of(rc), sym__rc_numel(rc, x));
	if (!d[1] || sym__rc_set_shape(rc, 0, 2, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, SYM_DT_INT64);
}

/* Unique(X; sorted, axis): without axis Y, indices and counts are [u] and
 * inverse_indices [numel(X)]; with axis Y is X with dim[axis] = u and
 * inverse_indices [dim[axis]].  u is at least 1 when there is anything to
 * compare (min(1, n) <= u <= n). */
static int r_unique(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr *n, *u, *lo[2], **d;
	const sym_attr *aa;
	int64_t axis, sorted;
	int a = -1, k;
	size_t i;
	if (!x || sym__rc_attr_int(rc, "sorted", 1, &sorted) < 0 ||
	    sym__rc_attr_int(rc, "axis", 0, &axis) < 0)
		return -1;
	aa = sym__rc_attr(rc, "axis");
	if (aa && sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	n = a < 0 ? sym__rc_numel(rc, x) : x->dims[a];
	lo[0] = sym__one(ctx), lo[1] = n;
	if (!(u = fresh_dim(rc, sym_expr_min(ctx, 2, lo), n)))
		return -1;
	if (a < 0) {
		if (sym__rc_set_shape(rc, 0, 1, &u) < 0)
			return -1;
	} else {
		d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d));
		if (!d)
			return -1;
		for (k = 0; k < x->rank; k++)
			d[k] = k == a ? u : x->dims[k];
		if (sym__rc_set_shape(rc, 0, x->rank, d) < 0)
			return -1;
	}
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	for (i = 1; i < rc->nout && i < 4; i++)
		if (sym__rc_set_shape(rc, i, 1, i == 2 ? &n : &u) < 0 ||
		    sym__rc_set_dtype(rc, i, SYM_DT_INT64) < 0)
			return -1;
	return 0;
}

/* Compress(input, condition; axis): without axis [u] over the flattened
 * input, with axis the input with dim[axis] = u; u counts the true
 * elements among the first min(len(condition), n): exact when the
 * condition is a known constant, else a fresh symbol in [0, min(len, n)]. */
static int r_compress(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *c = sym__rc_need(rc, 1);
	const sym_expr *n, *len, *u = NULL, *mn[2], **d;
	int64_t axis;
	int a = -1, k;
	if (!x || !c || sym__rc_attr_int(rc, "axis", 0, &axis) < 0)
		return -1;
	if (c->rank >= 0 && c->rank != 1)
		return sym__rc_error(rc, "condition must be 1-D, not of rank %d", c->rank);
	if (sym__rc_attr(rc, "axis") && sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	n = a < 0 ? sym__rc_numel(rc, x) : x->dims[a];
	if (c->has_value) {
		/* a known condition: count its true elements among the first n */
		size_t i, cnt = 0, upto = c->nvalue;
		long long nc, v;
		int all_const = 1;
		if (sym__rc_prove(rc, sym_expr_rel(ctx, SYM_REL_LE, sym__rc_num(rc, (int64_t)c->nvalue),
		                                   n)) != SYM_TRUE) {
			if (sym_expr_get_si(sym__rc_simplify(rc, n), &nc) == 1)
				upto = (size_t)nc < upto ? (size_t)nc : upto;
			else
				all_const = 0;
		}
		for (i = 0; all_const && i < upto; i++) {
			if (sym_expr_get_si(c->value[i], &v) != 1)
				all_const = 0;
			else
				cnt += v != 0;
		}
		if (all_const)
			u = sym__rc_num(rc, (int64_t)cnt);
	}
	if (!u) {
		len = c->rank == 1 ? c->dims[0] : n;
		mn[0] = len, mn[1] = n;
		if (!(u = fresh_dim(rc, zero_of(rc), sym_expr_min(ctx, 2, mn))))
			return -1;
	}
	if (a < 0)
		return sym__rc_set_shape(rc, 0, 1, &u);
	d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < x->rank; k++)
		d[k] = k == a ? u : x->dims[k];
	return sym__rc_set_shape(rc, 0, x->rank, d);
}

/* NonMaxSuppression(boxes [B, N, 4], scores [B, C, N][,
 * max_output_boxes_per_class[, iou_threshold[, score_threshold]]]): [u, 3]
 * int64 with 0 <= u <= B*C*min(N, max) when max is known (B*C*N
 * otherwise); no max, or max <= 0, selects nothing: [0, 3]. */
static int r_nms(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *boxes = sym__rc_need_rank(rc, 0), *scores = sym__rc_need_rank(rc, 1),
	               *mo = sym__rc_in(rc, 2);
	const sym_expr *d[2], *per = NULL, *mn[2];
	int64_t cpb;
	long long v;
	if (!boxes || !scores || sym__rc_attr_int(rc, "center_point_box", 0, &cpb) < 0)
		return -1;
	if (cpb != 0 && cpb != 1)
		return sym__rc_error(rc, "center_point_box must be 0 or 1, not %lld", (long long)cpb);
	if (boxes->rank != 3)
		return sym__rc_error(rc, "boxes must have rank 3 [batches, boxes, 4], not %d", boxes->rank);
	if (scores->rank != 3)
		return sym__rc_error(rc, "scores must have rank 3 [batches, classes, boxes], not %d",
		                     scores->rank);
	if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, boxes->dims[2], sym__rc_num(rc, 4)),
	                    SYM_GUARD_ASSERT, "boxes must have 4 coordinates") < 0 ||
	    sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, boxes->dims[0], scores->dims[0]),
	                    SYM_GUARD_ASSERT, "boxes and scores must have the same batch count") < 0 ||
	    sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, boxes->dims[1], scores->dims[2]),
	                    SYM_GUARD_ASSERT, "boxes and scores must have the same box count") < 0)
		return -1;
	d[1] = sym__rc_num(rc, 3);
	if (sym__rc_set_dtype(rc, 0, SYM_DT_INT64) < 0)
		return -1;
	if (!mo) {
		per = zero_of(rc);
	} else if (mo->has_value) {
		if (mo->nvalue != 1)
			return sym__rc_error(rc, "max_output_boxes_per_class must hold one element, not %zu",
			                     mo->nvalue);
		per = mo->value[0];
		if (sym_expr_get_si(per, &v) == 1 && v < 0)
			per = zero_of(rc);
	}
	if (per && sym_expr_get_si(per, &v) == 1 && v == 0) {
		d[0] = zero_of(rc);
		return sym__rc_set_shape(rc, 0, 2, d);
	}
	mn[0] = boxes->dims[1];
	if (per) {
		mn[1] = per;
		per = sym_expr_min(ctx, 2, mn);
		if (sym_expr_get_si(mn[1], &v) != 1) /* a negative max selects nothing */
			per = sym_expr_max(ctx, 2, (const sym_expr *[]){per, zero_of(rc)});
	} else {
		per = mn[0];
	}
	d[0] = fresh_dim(rc, zero_of(rc),
	                 sym_expr_mul(ctx, sym_expr_mul(ctx, scores->dims[0], scores->dims[1]), per));
	if (!d[0])
		return -1;
	return sym__rc_set_shape(rc, 0, 2, d);
}

const sym_rule_entry sym__rules_misc[] = {
    {"ReverseSequence", "", r_reverse_sequence, 0},
    {"Pad", "", r_pad, SYM_RULE_ANY_DOMAIN},
    {"Resize", "", r_resize, SYM_RULE_ANY_DOMAIN},
    {"Upsample", "", r_resize, 0},
    {"OneHot", "", r_onehot, SYM_RULE_ANY_DOMAIN},
    {"Trilu", "", r_trilu, 0},
    {"DepthToSpace", "", r_depth_to_space, SYM_RULE_ANY_DOMAIN},
    {"SpaceToDepth", "", r_space_to_depth, SYM_RULE_ANY_DOMAIN},
    {"Dropout", "", r_dropout, SYM_RULE_ANY_DOMAIN},
    {"Einsum", "", r_einsum, 0},
    {"NonZero", "", r_nonzero, 0},
    {"Unique", "", r_unique, 0},
    {"Compress", "", r_compress, 0},
    {"NonMaxSuppression", "", r_nms, 0},
};
const size_t sym__rules_misc_count = sizeof(sym__rules_misc) / sizeof(sym__rules_misc[0]);
