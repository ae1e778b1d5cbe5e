/* Conv, ConvTranspose and pooling: spatial output sizes from kernel, pads,
 * strides, dilations and the padding mode; channel and group checks. */
#include "rules_private.h"

#include <string.h>

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

/* The spatial attributes of one node, read and checked. */
typedef struct spatial {
	int n; /* spatial dims */
	int pad_mode;
	const sym_expr **k; /* kernel, n */
	int64_t *strides;   /* n, >= 1 */
	int64_t *dils;      /* n, >= 1 */
	int64_t *pads;      /* 2n: begins then ends, >= 0 */
} spatial;

static const sym_expr *rel(sym_rule_ctx *rc, sym_relop op, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), op, a, b);
}

static const sym_expr *add(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_add(sym__rc_ctx(rc), a, b);
}

static const sym_expr *addi(sym_rule_ctx *rc, const sym_expr *a, int64_t b)
{
	return sym_expr_add(sym__rc_ctx(rc), a, sym__rc_num(rc, b));
}

static const sym_expr *muli(sym_rule_ctx *rc, const sym_expr *a, int64_t b)
{
	return sym_expr_mul(sym__rc_ctx(rc), a, sym__rc_num(rc, b));
}

/* ceil(a/s) for a constant s >= 1, written as a floor division. */
static const sym_expr *ceildiv(sym_rule_ctx *rc, const sym_expr *a, int64_t s)
{
	return sym_expr_floordiv(sym__rc_ctx(rc), addi(rc, a, s - 1), sym__rc_num(rc, s));
}

/* Reads an ints attribute of exactly n values into out (def when absent);
 * every value must be at least min. */
static int ints_attr(sym_rule_ctx *rc, const char *name, int n, int64_t def, int64_t min, int64_t *out)
{
	size_t m, i;
	const int64_t *v;
	int r = sym__rc_attr_ints(rc, name, &m, &v);
	if (r < 0)
		return -1;
	for (i = 0; i < (size_t)n; i++)
		out[i] = def;
	if (!r)
		return 0;
	if (m != (size_t)n)
		return sym__rc_error(rc, "attribute '%s' must have %d values, not %zu", name, n, m);
	for (i = 0; i < m; i++) {
		if (v[i] < min)
			return sym__rc_error(rc, "attribute '%s' value %lld must be at least %lld", name,
			                     (long long)v[i], (long long)min);
		out[i] = v[i];
	}
	return 0;
}

static int pad_mode(sym_rule_ctx *rc, int *mode)
{
	const char *s;
	if (sym__rc_attr_string(rc, "auto_pad", "NOTSET", &s) < 0)
		return -1;
	if (!strcmp(s, "NOTSET") || !*s)
		*mode = PAD_NOTSET;
	else if (!strcmp(s, "SAME_UPPER"))
		*mode = PAD_SAME_UPPER;
	else if (!strcmp(s, "SAME_LOWER"))
		*mode = PAD_SAME_LOWER;
	else if (!strcmp(s, "VALID"))
		*mode = PAD_VALID;
	else
		return sym__rc_error(rc, "attribute 'auto_pad' has the unknown value '%s'", s);
	return 0;
}

/* Reads auto_pad, strides, dilations and pads for n spatial dims.  With
 * auto_pad other than NOTSET, explicit pads must be all zero (they are
 * ignored). */
static int read_spatial(sym_rule_ctx *rc, int n, spatial *sp)
{
	int i;
	sp->n = n;
	sp->k = sym__rc_alloc(rc, (size_t)n * sizeof(*sp->k));
	sp->strides = sym__rc_alloc(rc, (size_t)n * sizeof(int64_t));
	sp->dils = sym__rc_alloc(rc, (size_t)n * sizeof(int64_t));
	sp->pads = sym__rc_alloc(rc, 2 * (size_t)n * sizeof(int64_t));
	if (!sp->k || !sp->strides || !sp->dils || !sp->pads)
		return -1;
	if (pad_mode(rc, &sp->pad_mode) < 0 || ints_attr(rc, "strides", n, 1, 1, sp->strides) < 0 ||
	    ints_attr(rc, "dilations", n, 1, 1, sp->dils) < 0 ||
	    ints_attr(rc, "pads", 2 * n, 0, 0, sp->pads) < 0)
		return -1;
	if (sp->pad_mode != PAD_NOTSET) {
		for (i = 0; i < 2 * n; i++)
			if (sp->pads[i])
				return sym__rc_error(rc, "attribute 'pads' cannot be used with auto_pad");
	}
	return 0;
}

/* The kernel from kernel_shape, or from the dims of W starting at wdim0
 * (W may be NULL for pooling, where kernel_shape is required).  A
 * kernel_shape that disagrees with W is an error or an assert guard. */
static int read_kernel(sym_rule_ctx *rc, spatial *sp, const sym_tval *w, int wdim0)
{
	size_t m;
	const int64_t *v;
	int r = sym__rc_attr_ints(rc, "kernel_shape", &m, &v), i;
	if (r < 0)
		return -1;
	if (r && m != (size_t)sp->n)
		return sym__rc_error(rc, "attribute 'kernel_shape' must have %d values, not %zu", sp->n, m);
	if (!r && !w)
		return sym__rc_error(rc, "attribute 'kernel_shape' is required");
	for (i = 0; i < sp->n; i++) {
		if (r) {
			if (v[i] < 1)
				return sym__rc_error(rc,
				                     "attribute 'kernel_shape' value %lld must be at least 1",
				                     (long long)v[i]);
			sp->k[i] = sym__rc_num(rc, v[i]);
			if (w &&
			    sym__rc_require(rc, rel(rc, SYM_REL_EQ, w->dims[wdim0 + i], sp->k[i]),
			                    SYM_GUARD_ASSERT, "kernel_shape must match the weight dims") < 0)
				return -1;
		} else {
			/* as kernel_shape: a kernel dim of W is at least 1 */
			long long c;
			if (sym_expr_get_si(w->dims[wdim0 + i], &c) == 1 && c < 1)
				return sym__rc_error(
				    rc, "the weight's kernel dim %d (W dim %d) is %lld, must be at least 1",
				    i, wdim0 + i, c);
			if (sym__rc_require(rc, rel(rc, SYM_REL_GE, w->dims[wdim0 + i], sym__rc_num(rc, 1)),
			                    SYM_GUARD_ASSERT,
			                    "the weight's kernel dims must be at least 1") < 0)
				return -1;
			sp->k[i] = w->dims[wdim0 + i];
		}
	}
	return 0;
}

/* The dilated kernel extent d*(k - 1) + 1. */
static const sym_expr *eff_kernel(sym_rule_ctx *rc, const spatial *sp, int i)
{
	return addi(rc, muli(rc, addi(rc, sp->k[i], -1), sp->dils[i]), 1);
}

/* Output size of a convolution or pooling window along spatial dim i:
 * SAME: ceil(in/s); otherwise floor((in + pads - eff)/s) + 1, or with
 * ceil_mode the ceiling, dropping a last window that starts in the right
 * padding.  Guards that there is a window: the padded input covers the
 * dilated kernel, or with ceil_mode falls short of it by less than a stride
 * (ceil((in + pads - eff)/s) + 1 >= 1, as ONNX and torch compute it: a
 * MaxPool of kernel 3 and stride 2 on 2 elements gives 1). */
static const sym_expr *window_out(sym_rule_ctx *rc, const spatial *sp, int i, const sym_expr *in,
                                  int ceil_mode)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	int64_t s = sp->strides[i], pb = sp->pads[i], pe = sp->pads[sp->n + i];
	const sym_expr *eff, *padded, *span, *c, *c2, *mm[2];
	if (sp->pad_mode == PAD_SAME_UPPER || sp->pad_mode == PAD_SAME_LOWER)
		return ceildiv(rc, in, s);
	eff = eff_kernel(rc, sp, i);
	padded = addi(rc, addi(rc, in, pb), pe);
	if (!ceil_mode && sym__rc_require(rc, rel(rc, SYM_REL_GE, padded, eff), SYM_GUARD_ASSERT,
	                                  "input must cover the dilated kernel") < 0)
		return NULL;
	if (ceil_mode &&
	    sym__rc_require(rc, rel(rc, SYM_REL_GE, addi(rc, padded, s - 1), eff), SYM_GUARD_ASSERT,
	                    "with ceil_mode, input must reach the dilated kernel within a stride") < 0)
		return NULL;
	span = sym_expr_sub(ctx, padded, eff);
	if (!ceil_mode)
		return addi(rc, sym_expr_floordiv(ctx, span, sym__rc_num(rc, s)), 1);
	c = addi(rc, ceildiv(rc, span, s), 1);
	/* the last window starts at (c - 1)*s - pb; it is dropped when that is
	 * at or past the input end, i.e. when c - 1 >= ceil((in + pb)/s) */
	c2 = ceildiv(rc, addi(rc, in, pb), s);
	if (sym__rc_prove(rc, rel(rc, SYM_REL_LT, sym__rc_num(rc, pe), eff)) != SYM_TRUE) {
		/* with pads at least the kernel, c can exceed c2 by more than 1 */
		mm[0] = addi(rc, c, -1), mm[1] = c2;
		c2 = sym_expr_max(ctx, 2, mm);
	}
	mm[0] = c, mm[1] = c2;
	return sym_expr_min(ctx, 2, mm);
}

/* The inputs X and W of Conv and ConvTranspose: ranks (X at least 3, W the
 * same), the group and the spatial attributes with W's kernel (W's dims
 * from 2 on, or from 1 on when last: the channels-last [M, k..., C/group]). */
static int conv_inputs_at(sym_rule_ctx *rc, size_t xi, size_t wi, int last, const sym_tval **xp,
                          const sym_tval **wp, int64_t *group, spatial *sp)
{
	const sym_tval *x = sym__rc_need_rank(rc, xi), *w;
	if (!x || !(w = sym__rc_need_rank(rc, wi)))
		return -1;
	if (x->rank < 3)
		return sym__rc_error(rc, "input X must have rank at least 3 (N, C and spatial dims), not %d",
		                     x->rank);
	if (w->rank != x->rank)
		return sym__rc_error(rc, "weight W has rank %d but X has rank %d", w->rank, x->rank);
	if (sym__rc_attr_int(rc, "group", 1, group) < 0)
		return -1;
	if (*group < 1)
		return sym__rc_error(rc, "attribute 'group' must be at least 1, not %lld", (long long)*group);
	if (read_spatial(rc, x->rank - 2, sp) < 0 || read_kernel(rc, sp, w, last ? 1 : 2) < 0)
		return -1;
	*xp = x, *wp = w;
	return 0;
}

static int conv_inputs(sym_rule_ctx *rc, const sym_tval **xp, const sym_tval **wp, int64_t *group,
                       spatial *sp)
{
	return conv_inputs_at(rc, 0, 1, 0, xp, wp, group, sp);
}

/* The optional bias B (input bi; none when bi < 0): rank 1, as long as
 * the output channels m. */
static int check_bias(sym_rule_ctx *rc, int bi, const sym_expr *m)
{
	const sym_tval *b = bi < 0 ? NULL : sym__rc_in(rc, (size_t)bi);
	if (!b || b->rank < 0)
		return 0;
	if (b->rank != 1)
		return sym__rc_error(rc, "bias B must have rank 1, not %d", b->rank);
	return sym__rc_require(rc, rel(rc, SYM_REL_EQ, b->dims[0], m), SYM_GUARD_ASSERT,
	                       "bias length must equal the output channels") < 0
	           ? -1
	           : 0;
}

/* Conv(X, W, B): [N, M, out...] with M = W.shape[0]; X, W and B are
 * inputs xi, wi and bi (bi < 0: no bias); dtype < 0 is X's type.  With
 * last, X is [N, in..., C], W [M, k..., C/group] and the output
 * [N, out..., M]. */
static int conv_at(sym_rule_ctx *rc, size_t xi, size_t wi, int bi, int dtype, int last)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x, *w;
	const sym_expr **dims, *cin, *m, *g;
	const char *reason;
	spatial sp;
	int64_t group;
	int n, i, c, s0;
	if (conv_inputs_at(rc, xi, wi, last, &x, &w, &group, &sp) < 0)
		return -1;
	n = x->rank - 2;
	c = last ? x->rank - 1 : 1, s0 = last ? 1 : 2;
	cin = x->dims[c], m = w->dims[0], g = sym__rc_num(rc, group);
	if (!(reason = sym__rc_text(rc, "input channels must equal group * W.shape[%d]", c)))
		return -1;
	if (sym__rc_require(rc, rel(rc, SYM_REL_EQ, cin, sym_expr_mul(ctx, g, w->dims[c])), SYM_GUARD_ASSERT,
	                    reason) < 0)
		return -1;
	if (group > 1 &&
	    sym__rc_require_divisible(rc, m, g, "output channels W.shape[0] must be divisible by group") < 0)
		return -1;
	if (check_bias(rc, bi, m) < 0)
		return -1;
	dims = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*dims));
	if (!dims)
		return -1;
	dims[0] = x->dims[0], dims[c] = m;
	for (i = 0; i < n; i++)
		if (!(dims[s0 + i] = window_out(rc, &sp, i, x->dims[s0 + i], 0)))
			return -1;
	if (sym__rc_set_shape(rc, 0, x->rank, dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dtype >= 0 ? dtype : x->dtype);
}

int sym__rc_conv(sym_rule_ctx *rc, int channels_last)
{
	return conv_at(rc, 0, 1, 2, -1, channels_last);
}

static int r_conv(sym_rule_ctx *rc)
{
	return conv_at(rc, 0, 1, 2, -1, 0);
}

/* ConvInteger(x, w, x_zero_point, w_zero_point): Conv's shape, int32. */
static int r_conv_integer(sym_rule_ctx *rc)
{
	return conv_at(rc, 0, 1, -1, SYM_DT_INT32, 0);
}

/* QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
 * y_zero_point, B): Conv's shape, the type of y_zero_point. */
static int r_qlinear_conv(sym_rule_ctx *rc)
{
	const sym_tval *yz = sym__rc_need(rc, 7);
	if (!yz)
		return -1;
	return conv_at(rc, 0, 3, 8, yz->dtype, 0);
}

/* ConvTranspose(X, W, B): [N, W.shape[1]*group, out...]. */
static int r_conv_transpose(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x, *w;
	const sym_expr **dims, *g;
	const int64_t *oshape;
	size_t noshape;
	int64_t group, *opad;
	spatial sp;
	int n, i, r;
	if (conv_inputs(rc, &x, &w, &group, &sp) < 0)
		return -1;
	n = x->rank - 2;
	opad = sym__rc_alloc(rc, (size_t)n * sizeof(*opad));
	if (!opad || ints_attr(rc, "output_padding", n, 0, 0, opad) < 0)
		return -1;
	if ((r = sym__rc_attr_ints(rc, "output_shape", &noshape, &oshape)) < 0)
		return -1;
	if (r && noshape != (size_t)n && noshape != (size_t)n + 2)
		return sym__rc_error(rc, "attribute 'output_shape' must have %d (or %d) values, not %zu", n,
		                     n + 2, noshape);
	if (r && noshape == (size_t)n + 2)
		oshape += 2;
	g = sym__rc_num(rc, group);
	for (i = 0; i < n; i++)
		if (opad[i] >= sp.strides[i] && opad[i] >= sp.dils[i])
			return sym__rc_error(
			    rc, "output_padding %lld must be smaller than its stride or dilation",
			    (long long)opad[i]);
	if (sym__rc_require(rc, rel(rc, SYM_REL_EQ, x->dims[1], w->dims[0]), SYM_GUARD_ASSERT,
	                    "input channels must equal W.shape[0]") < 0)
		return -1;
	if (group > 1 &&
	    sym__rc_require_divisible(rc, x->dims[1], g, "input channels must be divisible by group") < 0)
		return -1;
	dims = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*dims));
	if (!dims)
		return -1;
	dims[0] = x->dims[0], dims[1] = sym_expr_mul(ctx, w->dims[1], g);
	if (check_bias(rc, 2, dims[1]) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const sym_expr *in = x->dims[2 + i], *o;
		if (r) {
			if (oshape[i] < 0)
				return sym__rc_error(rc, "attribute 'output_shape' value %lld is negative",
				                     (long long)oshape[i]);
			o = sym__rc_num(rc, oshape[i]);
		} else if (sp.pad_mode == PAD_SAME_UPPER || sp.pad_mode == PAD_SAME_LOWER) {
			o = muli(rc, in, sp.strides[i]);
		} else {
			o = add(rc, muli(rc, addi(rc, in, -1), sp.strides[i]), eff_kernel(rc, &sp, i));
			o = addi(rc, addi(rc, addi(rc, o, opad[i]), -sp.pads[i]), -sp.pads[n + i]);
			if (sym__rc_require(rc, rel(rc, SYM_REL_GE, o, sym__one(ctx)), SYM_GUARD_ASSERT,
			                    "pads must leave a positive output size") < 0)
				return -1;
		}
		dims[2 + i] = o;
	}
	if (sym__rc_set_shape(rc, 0, x->rank, dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* MaxPool, AveragePool, LpPool: [N, C, out...]; MaxPool's Indices (int64)
 * has the same shape. */
static int r_pool(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr **dims;
	int64_t ceil_mode;
	spatial sp;
	int n, i;
	size_t o;
	if (!x)
		return -1;
	if (x->rank < 3)
		return sym__rc_error(rc, "input X must have rank at least 3 (N, C and spatial dims), not %d",
		                     x->rank);
	n = x->rank - 2;
	if (sym__rc_attr_int(rc, "ceil_mode", 0, &ceil_mode) < 0)
		return -1;
	if (ceil_mode != 0 && ceil_mode != 1)
		return sym__rc_error(rc, "attribute 'ceil_mode' must be 0 or 1, not %lld",
		                     (long long)ceil_mode);
	if (read_spatial(rc, n, &sp) < 0 || read_kernel(rc, &sp, NULL, 0) < 0)
		return -1;
	dims = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*dims));
	if (!dims)
		return -1;
	dims[0] = x->dims[0], dims[1] = x->dims[1];
	for (i = 0; i < n; i++)
		if (!(dims[2 + i] = window_out(rc, &sp, i, x->dims[2 + i], (int)ceil_mode)))
			return -1;
	for (o = 0; o < rc->nout && o < 2; o++) {
		if (sym__rc_set_shape(rc, o, x->rank, dims) < 0 ||
		    sym__rc_set_dtype(rc, o, o ? SYM_DT_INT64 : x->dtype) < 0)
			return -1;
	}
	return 0;
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, 1, ...]. */
static int r_global_pool(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr **dims;
	int i;
	if (!x)
		return -1;
	if (x->rank < 2)
		return sym__rc_error(rc, "input X must have rank at least 2, not %d", x->rank);
	dims = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*dims));
	if (!dims)
		return -1;
	for (i = 0; i < x->rank; i++)
		dims[i] = i < 2 ? x->dims[i] : sym__one(sym__rc_ctx(rc));
	if (sym__rc_set_shape(rc, 0, x->rank, dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

const sym_rule_entry sym__rules_conv[] = {
    {"Conv", "", r_conv, SYM_RULE_ANY_DOMAIN},
    {"ConvTranspose", "", r_conv_transpose, SYM_RULE_ANY_DOMAIN},
    {"ConvInteger", "", r_conv_integer, 0},
    {"QLinearConv", "", r_qlinear_conv, 0},
    {"MaxPool", "", r_pool, SYM_RULE_ANY_DOMAIN},
    {"AveragePool", "", r_pool, SYM_RULE_ANY_DOMAIN},
    {"LpPool", "", r_pool, 0},
    {"GlobalAveragePool", "", r_global_pool, SYM_RULE_ANY_DOMAIN},
    {"GlobalMaxPool", "", r_global_pool, SYM_RULE_ANY_DOMAIN},
    {"GlobalLpPool", "", r_global_pool, 0},
};
const size_t sym__rules_conv_count = sizeof(sym__rules_conv) / sizeof(sym__rules_conv[0]);
