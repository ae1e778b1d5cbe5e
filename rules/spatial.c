/* Operators on images and regions with their own output shapes: RoiAlign,
 * MaxRoiPool, GridSample, MaxUnpool, Col2Im and CenterCropPad. */
#include "rules_private.h"

#include <string.h>

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Input i must have rank n (what names it). */
static const sym_tval *need_rank_n(sym_rule_ctx *rc, size_t i, int n, const char *what)
{
	const sym_tval *t = sym__rc_need_rank(rc, i);
	if (t && t->rank != n) {
		sym__rc_error(rc, "%s (input %zu) must have rank %d, not %d", what, i, n, t->rank);
		return NULL;
	}
	return t;
}

/* The assert that every dim taken from a value is nonnegative. */
static int nonneg(sym_rule_ctx *rc, size_t n, const sym_expr *const *v, const char *what)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (sym__rc_require(
		        rc, sym_expr_rel(sym__rc_ctx(rc), SYM_REL_GE, v[k], sym__zero(sym__rc_ctx(rc))),
		        SYM_GUARD_ASSERT, what) < 0)
			return -1;
	return 0;
}

/* A positive integer attribute with a default. */
static int pos_attr(sym_rule_ctx *rc, const char *name, int64_t def, int64_t *v)
{
	if (sym__rc_attr_int(rc, name, def, v) < 0)
		return -1;
	if (*v < 1)
		return sym__rc_error(rc, "attribute '%s' must be at least 1, not %lld", name, (long long)*v);
	return 0;
}

/* RoiAlign(X [N, C, H, W], rois [num_rois, 4], batch_indices [num_rois]):
 * [num_rois, C, output_height, output_width]. */
static int r_roi_align(sym_rule_ctx *rc)
{
	const sym_tval *x = need_rank_n(rc, 0, 4, "X"), *rois, *bi;
	const sym_expr *d[4];
	int64_t oh, ow;
	if (!x || !(rois = need_rank_n(rc, 1, 2, "rois")) || !(bi = need_rank_n(rc, 2, 1, "batch_indices")))
		return -1;
	if (pos_attr(rc, "output_height", 1, &oh) < 0 || pos_attr(rc, "output_width", 1, &ow) < 0)
		return -1;
	if (sym__rc_require(rc, eq(rc, rois->dims[1], sym__rc_num(rc, 4)), SYM_GUARD_ASSERT,
	                    "rois must be [num_rois, 4]") < 0 ||
	    sym__rc_require(rc, eq(rc, bi->dims[0], rois->dims[0]), SYM_GUARD_ASSERT,
	                    "batch_indices must have one element per roi") < 0)
		return -1;
	d[0] = rois->dims[0], d[1] = x->dims[1], d[2] = sym__rc_num(rc, oh), d[3] = sym__rc_num(rc, ow);
	if (sym__rc_set_shape(rc, 0, 4, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* MaxRoiPool(X [N, C, H, W], rois [num_rois, 5]):
 * [num_rois, C, pooled_shape[0], pooled_shape[1]]. */
static int r_max_roi_pool(sym_rule_ctx *rc)
{
	const sym_tval *x = need_rank_n(rc, 0, 4, "X"), *rois;
	const sym_expr *d[4];
	const int64_t *ps;
	size_t n;
	int has;
	if (!x || !(rois = need_rank_n(rc, 1, 2, "rois")))
		return -1;
	if ((has = sym__rc_attr_ints(rc, "pooled_shape", &n, &ps)) < 0)
		return -1;
	if (!has || n != 2 || ps[0] < 1 || ps[1] < 1)
		return sym__rc_error(rc, "attribute 'pooled_shape' must be two positive integers");
	if (sym__rc_require(rc, eq(rc, rois->dims[1], sym__rc_num(rc, 5)), SYM_GUARD_ASSERT,
	                    "rois must be [num_rois, 5]") < 0)
		return -1;
	d[0] = rois->dims[0], d[1] = x->dims[1], d[2] = sym__rc_num(rc, ps[0]), d[3] = sym__rc_num(rc, ps[1]);
	if (sym__rc_set_shape(rc, 0, 4, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* GridSample(X [N, C, D1..Dr], grid [N, D1_out..Dr_out, r]):
 * [N, C, D1_out..Dr_out] (r = 2 before opset 20). */
static int r_grid_sample(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0), *g;
	const sym_expr **d;
	int k, r;
	if (!x || !(g = sym__rc_need_rank(rc, 1)))
		return -1;
	if (x->rank < 3)
		return sym__rc_error(rc, "X must have rank at least 3 ([N, C, spatial...]), not %d", x->rank);
	if (rc->opset < 20 && x->rank != 4)
		return sym__rc_error(rc, "X must have rank 4 before opset 20, not %d", x->rank);
	r = x->rank - 2;
	if (g->rank != x->rank)
		return sym__rc_error(rc, "grid must have X's rank %d, not %d", x->rank, g->rank);
	if (sym__rc_require(rc, eq(rc, g->dims[0], x->dims[0]), SYM_GUARD_ASSERT,
	                    "grid and X must have the same batch size") < 0 ||
	    sym__rc_require(rc, eq(rc, g->dims[g->rank - 1], sym__rc_num(rc, r)), SYM_GUARD_ASSERT,
	                    "the last dim of grid must be the number of spatial dims") < 0)
		return -1;
	if (!(d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d))))
		return -1;
	d[0] = x->dims[0], d[1] = x->dims[1];
	for (k = 0; k < r; k++)
		d[2 + k] = g->dims[1 + k];
	if (sym__rc_set_shape(rc, 0, x->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* An ints attribute of n values (absent: def for each); each at least min. */
static int ints_n(sym_rule_ctx *rc, const char *name, size_t n, int64_t def, int64_t min, int64_t *out)
{
	const int64_t *v;
	size_t m, k;
	int has = sym__rc_attr_ints(rc, name, &m, &v);
	if (has < 0)
		return -1;
	if (has && m != n)
		return sym__rc_error(rc, "attribute '%s' must have %zu values, not %zu", name, n, m);
	for (k = 0; k < n; k++) {
		out[k] = has ? v[k] : def;
		if (out[k] < min)
			return sym__rc_error(rc, "attribute '%s' must be at least %lld, not %lld", name,
			                     (long long)min, (long long)out[k]);
	}
	return 0;
}

/* MaxUnpool(X [N, C, D...], I, output_shape): output_shape's value when
 * given, else [N, C, (D_i - 1)*stride_i + kernel_i - pad_begin_i - pad_end_i]. */
static int r_max_unpool(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *idx, *os = sym__rc_in(rc, 2);
	const sym_expr **d;
	int64_t *kern, *str, *pads;
	size_t n, k;
	if (!x || !(idx = sym__rc_need(rc, 1)))
		return -1;
	if (x->rank < 3)
		return sym__rc_error(rc, "X must have rank at least 3 ([N, C, spatial...]), not %d", x->rank);
	n = (size_t)x->rank - 2;
	if (idx->rank >= 0 && idx->rank != x->rank)
		return sym__rc_error(rc, "I must have X's rank %d, not %d", x->rank, idx->rank);
	for (k = 0; idx->rank >= 0 && k < (size_t)x->rank; k++)
		if (sym__rc_require(rc, eq(rc, idx->dims[k], x->dims[k]), SYM_GUARD_ASSERT,
		                    "I must have X's shape") < 0)
			return -1;
	if (!(d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d))) ||
	    !(kern = sym__rc_alloc(rc, 4 * n * sizeof(*kern))))
		return -1;
	str = kern + n, pads = kern + 2 * n;
	if (!sym__rc_attr(rc, "kernel_shape"))
		return sym__rc_error(rc, "the attribute 'kernel_shape' is required");
	if (ints_n(rc, "kernel_shape", n, 1, 1, kern) < 0 || ints_n(rc, "strides", n, 1, 1, str) < 0 ||
	    ints_n(rc, "pads", 2 * n, 0, 0, pads) < 0)
		return -1;
	if (os && os->rank >= 0) {
		const sym_expr *const *v;
		size_t nv;
		if (sym__rc_in_value(rc, 2, &nv, &v) < 0)
			return -1;
		if (nv != (size_t)x->rank)
			return sym__rc_error(rc, "output_shape must have %d elements (X's rank), not %zu",
			                     x->rank, nv);
		if (nonneg(rc, nv, v, "output_shape must not be negative") < 0 ||
		    sym__rc_set_shape(rc, 0, x->rank, v) < 0)
			return -1;
		return sym__rc_set_dtype(rc, 0, x->dtype);
	}
	d[0] = x->dims[0], d[1] = x->dims[1];
	for (k = 0; k < n; k++) {
		const sym_expr *e = sym_expr_mul(ctx, sym_expr_sub(ctx, x->dims[2 + k], sym__one(ctx)),
		                                 sym__rc_num(rc, str[k]));
		e = sym_expr_add(ctx, e, sym__rc_num(rc, kern[k] - pads[k] - pads[n + k]));
		if (!e)
			return -1;
		d[2 + k] = e;
	}
	if (nonneg(rc, n, d + 2, "the unpooled dims must not be negative (pads larger than the kernel)") <
	        0 ||
	    sym__rc_set_shape(rc, 0, x->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* Col2Im(input [N, C*prod(block_shape), L], image_shape, block_shape):
 * [N, C, image_shape...], with L the number of blocks the image holds. */
static int r_col2im(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = need_rank_n(rc, 0, 3, "input");
	const sym_expr *const *img, **d, *prod, *blocks;
	int64_t *blk, *dil, *str, *pads;
	size_t ni, nb, k;
	if (!x || sym__rc_in_value(rc, 1, &ni, &img) < 0 || sym__rc_in_ints(rc, 2, &nb, &blk) < 0)
		return -1;
	if (nonneg(rc, ni, img, "image_shape must not be negative") < 0)
		return -1;
	if (ni != nb || ni == 0)
		return sym__rc_error(
		    rc, "image_shape and block_shape must have the same nonzero length (%zu, %zu)", ni, nb);
	if (!(d = sym__rc_alloc(rc, (ni + 2) * sizeof(*d))) ||
	    !(dil = sym__rc_alloc(rc, 4 * ni * sizeof(*dil))))
		return -1;
	str = dil + ni, pads = dil + 2 * ni;
	if (ints_n(rc, "dilations", ni, 1, 1, dil) < 0 || ints_n(rc, "strides", ni, 1, 1, str) < 0 ||
	    ints_n(rc, "pads", 2 * ni, 0, 0, pads) < 0)
		return -1;
	prod = sym__one(ctx), blocks = sym__one(ctx);
	for (k = 0; k < ni; k++) {
		const sym_expr *span;
		if (blk[k] < 1)
			return sym__rc_error(rc, "block_shape values must be at least 1, not %lld",
			                     (long long)blk[k]);
		prod = sym_expr_mul(ctx, prod, sym__rc_num(rc, blk[k]));
		/* blocks along k: (image + pads - dilation*(block - 1) - 1) // stride + 1 */
		span = sym_expr_add(ctx, img[k],
		                    sym__rc_num(rc, pads[k] + pads[ni + k] - dil[k] * (blk[k] - 1) - 1));
		blocks = sym_expr_mul(
		    ctx, blocks,
		    sym_expr_add(ctx, sym_expr_floordiv(ctx, span, sym__rc_num(rc, str[k])), sym__one(ctx)));
		if (!blocks || sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, span, sym__zero(ctx)),
		                               SYM_GUARD_ASSERT, "the image must cover a dilated block") < 0)
			return -1;
	}
	if (sym__rc_require_divisible(rc, x->dims[1], prod, "dim 1 must be divisible by the block size") <
	        0 ||
	    sym__rc_require(rc, eq(rc, x->dims[2], blocks), SYM_GUARD_ASSERT,
	                    "dim 2 must be the number of blocks in the image") < 0)
		return -1;
	d[0] = x->dims[0];
	d[1] = sym_expr_floordiv(ctx, x->dims[1], prod);
	for (k = 0; k < ni; k++)
		d[2 + k] = img[k];
	if (!d[1] || sym__rc_set_shape(rc, 0, (int)ni + 2, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* CenterCropPad(input, shape): the dims at 'axes' (all when absent)
 * become shape's values. */
static int r_center_crop_pad(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr *const *v, **d;
	const int64_t *axes;
	size_t nv, na, k;
	char *mask;
	int has;
	if (!x || sym__rc_in_value(rc, 1, &nv, &v) < 0)
		return -1;
	if (nonneg(rc, nv, v, "shape must not be negative") < 0)
		return -1;
	if ((has = sym__rc_attr_ints(rc, "axes", &na, &axes)) < 0)
		return -1;
	if (!has)
		na = (size_t)x->rank;
	if (nv != na)
		return sym__rc_error(rc, "shape must have one value per axis (%zu), not %zu", na, nv);
	if (!(d = sym__rc_alloc(rc, ((size_t)x->rank + 1) * sizeof(*d))) ||
	    !(mask = sym__rc_alloc(rc, (size_t)x->rank + 1)))
		return -1;
	if (has && sym__rc_axes_mask(rc, na, axes, x->rank, mask) < 0)
		return -1;
	for (k = 0; k < (size_t)x->rank; k++)
		d[k] = x->dims[k];
	for (k = 0; k < na; k++) {
		int a = (int)k;
		if (has && sym__rc_axis(rc, axes[k], x->rank, "axes", &a) < 0)
			return -1;
		d[a] = v[k];
	}
	if (sym__rc_set_shape(rc, 0, x->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

const sym_rule_entry sym__rules_spatial[] = {
    {"RoiAlign", "", r_roi_align, 0},     {"MaxRoiPool", "", r_max_roi_pool, 0},
    {"GridSample", "", r_grid_sample, 0}, {"MaxUnpool", "", r_max_unpool, 0},
    {"Col2Im", "", r_col2im, 0},          {"CenterCropPad", "", r_center_crop_pad, 0},
};
const size_t sym__rules_spatial_count = sizeof(sym__rules_spatial) / sizeof(sym__rules_spatial[0]);
