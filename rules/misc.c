/* OneHot, Trilu, Dropout, ReverseSequence, DepthToSpace and SpaceToDepth:
 * small operators whose shapes follow from one attribute or input each. */
#include "rules_private.h"

#include <math.h>
#include <string.h>

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

const sym_rule_entry sym__rules_misc[] = {
    {"ReverseSequence", "", r_reverse_sequence, 0},
    {"OneHot", "", r_onehot, SYM_RULE_ANY_DOMAIN},
    {"Trilu", "", r_trilu, 0},
    {"DepthToSpace", "", r_depth_to_space, SYM_RULE_ANY_DOMAIN},
    {"SpaceToDepth", "", r_space_to_depth, SYM_RULE_ANY_DOMAIN},
    {"Dropout", "", r_dropout, SYM_RULE_ANY_DOMAIN},
};
const size_t sym__rules_misc_count = sizeof(sym__rules_misc) / sizeof(sym__rules_misc[0]);
