/* The data-dependent NonZero, Unique, Compress and NonMaxSuppression,
 * whose unknowable dims are fresh symbols (prefix "u") with the range the
 * operator implies recorded as a fact. */
#include "rules_private.h"

#include <math.h>
#include <string.h>

static const sym_expr *zero_of(sym_rule_ctx *rc)
{
	return sym_expr_from_si(sym__rc_ctx(rc), 0);
}

/* A fresh data-dependent symbol u with lo <= u <= hi recorded as a fact
 * (no guard: the producing kernel guarantees it). */
static const sym_expr *fresh_dim(sym_rule_ctx *rc, const sym_expr *lo, const sym_expr *hi)
{
	return sym__rc_fresh_dim(rc, lo, hi, "the data-dependent size");
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

const sym_rule_entry sym__rules_datadep[] = {
    {"NonZero", "", r_nonzero, 0},
    {"Unique", "", r_unique, 0},
    {"Compress", "", r_compress, 0},
    {"NonMaxSuppression", "", r_nms, 0},
};
const size_t sym__rules_datadep_count = sizeof(sym__rules_datadep) / sizeof(sym__rules_datadep[0]);
