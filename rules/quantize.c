/* Quantization operators: QuantizeLinear, DequantizeLinear and
 * DynamicQuantizeLinear keep the input's shape and set the element type. */
#include "rules_private.h"

/* QuantizeLinear(x, y_scale, y_zero_point): x's shape; the type is
 * 'output_dtype' (opset 21) when set, else y_zero_point's, else uint8. */
static int r_quantize_linear(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0), *zp = sym__rc_in(rc, 2);
	int64_t dt;
	if (!x || !sym__rc_need(rc, 1) || sym__rc_attr_int(rc, "output_dtype", 0, &dt) < 0)
		return -1;
	if (dt < 0 || dt >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'output_dtype' (%lld) is not a known element type",
		                     (long long)dt);
	if (!dt)
		dt = zp && zp->dtype != SYM_DT_UNDEFINED ? zp->dtype : SYM_DT_UINT8;
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, (int)dt);
}

/* DequantizeLinear(x, x_scale, x_zero_point): x's shape, x_scale's type
 * (float32 when unknown: the only type before opset 19). */
static int r_dequantize_linear(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0), *scale = sym__rc_need(rc, 1);
	if (!x || !scale || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, scale->dtype != SYM_DT_UNDEFINED ? scale->dtype : SYM_DT_FLOAT32);
}

/* DynamicQuantizeLinear(x): y (uint8, x's shape), y_scale (float32 scalar),
 * y_zero_point (uint8 scalar). */
static int r_dynamic_quantize_linear(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x || sym__rc_copy_shape(rc, 0, x) < 0 || sym__rc_set_dtype(rc, 0, SYM_DT_UINT8) < 0)
		return -1;
	if (rc->nout > 1 &&
	    (sym__rc_set_shape(rc, 1, 0, NULL) < 0 || sym__rc_set_dtype(rc, 1, SYM_DT_FLOAT32) < 0))
		return -1;
	if (rc->nout > 2 &&
	    (sym__rc_set_shape(rc, 2, 0, NULL) < 0 || sym__rc_set_dtype(rc, 2, SYM_DT_UINT8) < 0))
		return -1;
	return 0;
}

const sym_rule_entry sym__rules_quantize[] = {
    {"QuantizeLinear", "", r_quantize_linear, 0},
    {"DequantizeLinear", "", r_dequantize_linear, 0},
    {"DynamicQuantizeLinear", "", r_dynamic_quantize_linear, 0},
};
const size_t sym__rules_quantize_count = sizeof(sym__rules_quantize) / sizeof(sym__rules_quantize[0]);
