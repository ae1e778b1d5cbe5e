/* Convolutions of ONNX Runtime (com.microsoft): FusedConv, a Conv with an
 * activation and an optional sum input; NhwcConv, the channels-last
 * Conv that the transformer optimizer writes for diffusion models (it
 * transposes the weight to [M, kH, kW, C/group] as well, and the kernel
 * reads it that way); and NhwcFusedConv, the channels-last FusedConv that
 * ONNX Runtime's NHWC transformer writes, whose weight keeps Conv's
 * [M, C/group, kH, kW] (its kernel reads it so). */
#include "rules_private.h"

#include <string.h>

#define MS "com.microsoft"

/* The activation of FusedConv and the number of activation_params it
 * takes; an unknown name or a wrong count is an error, as ONNX Runtime's
 * kernel refuses them. */
static int fused_activation(sym_rule_ctx *rc)
{
	static const struct {
		const char *name;
		size_t nparams;
	} acts[] = {{"Relu", 0},      {"Tanh", 0}, {"Sigmoid", 0},
	            {"LeakyRelu", 1}, {"Clip", 2}, {"HardSigmoid", 2}};
	const char *s;
	const double *p;
	size_t n = 0, i;
	int r;
	if (!sym__rc_attr(rc, "activation"))
		return 0;
	if (sym__rc_attr_string(rc, "activation", "", &s) < 0 ||
	    (r = sym__rc_attr_floats(rc, "activation_params", &n, &p)) < 0)
		return -1;
	if (!r)
		n = 0;
	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		if (strcmp(s, acts[i].name))
			continue;
		if (acts[i].nparams && n != acts[i].nparams)
			return sym__rc_error(rc, "activation '%s' needs %zu activation_params, not %zu", s,
			                     acts[i].nparams, n);
		return 0;
	}
	return sym__rc_error(rc, "attribute 'activation' has the unknown value '%s'", s);
}

/* The optional sum Z (input 3) has the shape of output 0. */
static int sum_matches_output(sym_rule_ctx *rc)
{
	const sym_tval *z = sym__rc_in(rc, 3);
	const sym_tval *y = &rc->out[0];
	int k;
	if (!z || z->rank < 0)
		return 0;
	if (z->rank != y->rank)
		return sym__rc_error(rc, "input Z must have the output's rank %d, not %d", y->rank, z->rank);
	for (k = 0; k < z->rank; k++)
		if (sym__rc_require(rc, sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, z->dims[k], y->dims[k]),
		                    SYM_GUARD_ASSERT, "input Z must have the output's shape") < 0)
			return -1;
	return 0;
}

/* FusedConv(X, W, B, Z): Conv's output; Z, when present, has its shape. */
static int r_fused_conv(sym_rule_ctx *rc)
{
	if (fused_activation(rc) < 0 || sym__rc_conv(rc, 0) < 0)
		return -1;
	return sum_matches_output(rc);
}

/* NhwcConv(X [N, in..., C], W [M, k..., C/group], B [M]) -> [N, out..., M]. */
static int r_nhwc_conv(sym_rule_ctx *rc)
{
	return sym__rc_conv(rc, 1);
}

/* NhwcFusedConv(X [N, in..., C], W [M, C/group, k...], B [M], Z) ->
 * [N, out..., M]: Conv run on X with its channels moved to dim 1 (the
 * weight keeps Conv's layout, which the kernel reads), the output's
 * channels moved last; Z, when present, has the output's shape. */
static int r_nhwc_fused_conv(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_tval *y = &rc->out[0];
	const sym_expr **d;
	sym_rule_ctx nchw;
	sym_tval *in;
	int r, k;
	if (!x || fused_activation(rc) < 0)
		return -1;
	r = x->rank;
	if (!(in = sym__rc_alloc(rc, rc->nin * sizeof(*in))) ||
	    !(d = sym__rc_alloc(rc, (size_t)(r > 0 ? r : 1) * sizeof(*d))))
		return -1;
	for (k = 0; k < (int)rc->nin; k++)
		in[k] = rc->in[k];
	if (r >= 3) {
		/* [N, in..., C] -> [N, C, in...] */
		d[0] = x->dims[0], d[1] = x->dims[r - 1];
		for (k = 1; k < r - 1; k++)
			d[k + 1] = x->dims[k];
		in[0].dims = d, in[0].has_value = 0, in[0].nvalue = 0, in[0].value = NULL, in[0].fmeta = NULL;
	}
	nchw = *rc;
	nchw.in = in;
	if (sym__rc_conv(&nchw, 0) < 0)
		return -1;
	/* [N, M, out...] -> [N, out..., M] */
	if (!(d = sym__rc_alloc(rc, (size_t)r * sizeof(*d))))
		return -1;
	d[0] = y->dims[0], d[r - 1] = y->dims[1];
	for (k = 2; k < r; k++)
		d[k - 1] = y->dims[k];
	if (sym__rc_set_shape(rc, 0, r, d) < 0)
		return -1;
	return sum_matches_output(rc);
}

const sym_rule_entry sym__rules_microsoft_conv[] = {
    {"FusedConv", MS, r_fused_conv, 0},
    {"NhwcConv", MS, r_nhwc_conv, 0},
    {"NhwcFusedConv", MS, r_nhwc_fused_conv, 0},
};
const size_t sym__rules_microsoft_conv_count =
    sizeof(sym__rules_microsoft_conv) / sizeof(sym__rules_microsoft_conv[0]);
