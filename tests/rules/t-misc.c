/* Pad, Resize/Upsample, OneHot, Trilu, DepthToSpace, SpaceToDepth, Dropout,
 * Einsum, and the data-dependent NonZero, Unique, Compress and
 * NonMaxSuppression. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static sym_truth prove_text(rt *t, const char *pred)
{
	const sym_expr *p = sym_expr_from_str(t->ctx, pred);
	assert_non_null(p);
	return sym_prove(t->ctx, t->facts, p);
}

static void expect_error(rt *t, int r, const char *needle)
{
	assert_int_equal(r, -1);
	if (!strstr(sym_ctx_last_message(t->ctx), needle))
		fail_msg("message '%s' lacks '%s'", sym_ctx_last_message(t->ctx), needle);
	sym_ctx_clear_error(t->ctx);
}

/* ---- Pad ---------------------------------------------------------------- */

static void pad_adds_begin_and_end_pads(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: constant_pad and constant_pad_axes */
	in[0] = rt_t(&t, "[1, 3, 4, 5]", NULL, NULL);
	in[1] = rt_t(&t, "[8]", "int64", "[0, 0, 1, 3, 0, 0, 2, 4]");
	in[2] = rt_t(&t, "[]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Pad", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 3, 7, 12]");
	in[1] = rt_t(&t, "[4]", "int64", "[0, 3, 0, 4]");
	in[3] = rt_t(&t, "[2]", "int64", "[1, 3]");
	assert_int_equal(rt_run(&t, "Pad", NULL, 4, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 3, 4, 12]");
	/* the attribute of opset 2, with reflect mode */
	in[0] = rt_t(&t, "[b, s]", NULL, NULL);
	{
		sym_attr pa[2];
		pa[0] = rt_is(&t, "pads", "[0, 2, 0, 2]");
		pa[1] = rt_s(&t, "mode", "reflect");
		assert_int_equal(rt_run(&t, "Pad", NULL, 1, in, 2, pa, 1, out), 0);
		assert_string_equal(rt_shape(&t, &out[0]), "[b, s + 4]");
	}
	/* symbolic pads from a shape computation */
	in[1] = rt_t(&t, "[4]", "int64", "[0, p, 0, q]");
	assert_int_equal(rt_run(&t, "Pad", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, p + q + s]");
	assert_string_equal(rt_guards(&t), "");
	/* negative pads crop: the result must not be negative */
	in[1] = rt_t(&t, "[4]", "int64", "[0, -1, 0, -2]");
	assert_int_equal(rt_run(&t, "Pad", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, s - 3]");
	assert_string_equal(rt_guards(&t), "assert s >= 3");
	in[0] = rt_t(&t, "[2, 2]", NULL, NULL);
	expect_error(&t, rt_run(&t, "Pad", NULL, 2, in, 0, NULL, 1, out), "padded dims must not be negative");
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "Pad", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	(void)a;
	rt_free(&t);
}

static void pad_bad_attributes_are_errors(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "int64", "[0, 1, 2]");
	expect_error(&t, rt_run(&t, "Pad", NULL, 2, in, 0, NULL, 1, out), "pads has 3 entries, expected 4");
	in[1] = rt_t(&t, "[4]", "int64", "[0, 1, 2, 3]");
	a[0] = rt_s(&t, "mode", "mirror");
	expect_error(&t, rt_run(&t, "Pad", NULL, 2, in, 1, a, 1, out), "mode 'mirror'");
	in[2] = rt_absent();
	in[3] = rt_t(&t, "[2]", "int64", "[1, -1]");
	expect_error(&t, rt_run(&t, "Pad", NULL, 4, in, 0, NULL, 1, out), "repeated");
	in[3] = rt_t(&t, "[2]", "int64", "[0, 2]");
	expect_error(&t, rt_run(&t, "Pad", NULL, 4, in, 0, NULL, 1, out), "axis 2 is out of range");
	expect_error(&t, rt_run(&t, "Pad", NULL, 1, in, 0, NULL, 1, out), "pads are required");
	in[1] = rt_t(&t, "[4]", "int64", NULL);
	expect_error(&t, rt_run(&t, "Pad", NULL, 2, in, 0, NULL, 1, out), "must be known");
	rt_free(&t);
}

static void pad_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	(void)state;
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a, b, c]", NULL, NULL);
	in[1] = rt_t(&t, "[6]", "int64", "[1, -2, 0, 0, -1, 3]");
	rt_property(&t, "Pad", NULL, 2, in, 0, NULL, 1, 200, 0, 4);
	rt_free(&t);
}

/* ---- Resize ------------------------------------------------------------- */

static void resize_with_scales_rounds_down_exactly(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: upsample and downsample with scales */
	in[0] = rt_t(&t, "[1, 1, 2, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[0]", NULL, "[]");
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 2, 3]");
	assert_int_equal(rt_run(&t, "Resize", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 4, 6]");
	in[0] = rt_t(&t, "[1, 1, 2, 4]", NULL, NULL);
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 3/5, 3/5]");
	assert_int_equal(rt_run(&t, "Resize", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 1, 2]");
	/* attribute scales are float32 numbers; the runtime multiplies in float32 */
	a[0] = rt_fs(&t, "scales", "[1.0, 1.0, 0.6, 0.6]");
	assert_int_equal(rt_run(&t, "Upsample", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 1, 2]");
	/* 0.1f is slightly above 1/10 and float32 rounds 10*0.1f to 1 */
	in[0] = rt_t(&t, "[10]", NULL, NULL);
	a[0] = rt_fs(&t, "scales", "[0.1]");
	assert_int_equal(rt_run(&t, "Upsample", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1]");
	/* symbolic dims */
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 3/2, 1/2]");
	assert_int_equal(rt_run(&t, "Resize", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c, 3*h//2, w//2]");
	a[0] = rt_fs(&t, "scales", "[1.0, 1.0, 2.0, 0.25]");
	assert_int_equal(rt_run(&t, "Upsample", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c, 2*h, w//4]");
	/* opset 10: X, scales */
	assert_int_equal(rt_run(&t, "Resize", NULL, 2, (sym_tval[]){in[0], in[2]}, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c, 3*h//2, w//2]");
	/* float32 holds dim*scale exactly only up to 2**24 */
	assert_string_equal(rt_guards(&t), "expect n <= 16777216; expect c <= 16777216; expect h <= 5592405; "
	                                   "expect w <= 16777216");
	rt_free(&t);
}

static void resize_with_sizes_and_aspect_policies(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 1, 2, 2]", NULL, NULL);
	in[1] = rt_absent();
	in[2] = rt_t(&t, "[0]", NULL, "[]");
	in[3] = rt_t(&t, "[4]", "int64", "[1, 1, 7, 8]");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 7, 8]");
	in[2] = rt_absent();
	in[3] = rt_t(&t, "[2]", "int64", "[7, 8]");
	a[0] = rt_is(&t, "axes", "[2, 3]");
	a[1] = rt_s(&t, "keep_aspect_ratio_policy", "not_larger");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 7, 7]");
	a[1] = rt_s(&t, "keep_aspect_ratio_policy", "not_smaller");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 8, 8]");
	/* sizes from a shape computation */
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[3] = rt_t(&t, "[2]", "int64", "[2*h, 2*w]");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c, 2*h, 2*w]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

/* Sizes computed from tensor data (no value, a known length): the resized
 * dims are data-dependent symbols, the others the input's; a policy other
 * than stretch still needs the value. */
static void resize_with_sizes_from_data_gets_data_dependent_dims(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[2];
	const char *sh;
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[1] = rt_absent();
	in[2] = rt_absent();
	in[3] = rt_t(&t, "[4]", "int64", NULL);
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 0, NULL, 1, out), 0);
	sh = rt_shape(&t, &out[0]);
	if (strstr(sh, "n") || strstr(sh, "h") || strstr(sh, "w") || strstr(sh, "c,"))
		fail_msg("every dim should be data-dependent, got %s", sh);
	assert_int_equal(out[0].rank, 4);
	in[3] = rt_t(&t, "[2]", "int64", NULL);
	a[0] = rt_is(&t, "axes", "[2, 3]");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 1, a, 1, out), 0);
	sh = rt_shape(&t, &out[0]);
	if (strncmp(sh, "[n, c, ", 7) || strstr(sh + 7, "h") || strstr(sh + 7, "w"))
		fail_msg("dims 2 and 3 should be data-dependent, got %s", sh);
	in[3] = rt_t(&t, "[3]", "int64", NULL);
	expect_error(&t, rt_run(&t, "Resize", NULL, 4, in, 1, a, 1, out), "sizes has 3 entries for 2 axes");
	in[3] = rt_t(&t, "[2]", "int64", NULL);
	a[1] = rt_s(&t, "keep_aspect_ratio_policy", "not_larger");
	expect_error(&t, rt_run(&t, "Resize", NULL, 4, in, 2, a, 1, out), "must be known");
	rt_free(&t);
}

static void resize_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 1, 2, 2]", NULL, NULL);
	in[1] = rt_absent();
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 2, 2]");
	in[3] = rt_t(&t, "[4]", "int64", "[1, 1, 4, 4]");
	expect_error(&t, rt_run(&t, "Resize", NULL, 4, in, 0, NULL, 1, out), "only one of scales and sizes");
	in[2] = rt_absent();
	in[3] = rt_absent();
	expect_error(&t, rt_run(&t, "Resize", NULL, 4, in, 0, NULL, 1, out), "scales or sizes are required");
	in[2] = rt_t(&t, "[3]", NULL, "[1, 2, 2]");
	expect_error(&t, rt_run(&t, "Resize", NULL, 3, in, 0, NULL, 1, out),
	             "scales has 3 entries for 4 axes");
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 0, 2]");
	expect_error(&t, rt_run(&t, "Resize", NULL, 3, in, 0, NULL, 1, out), "scales must be positive");
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 2, 2]");
	a[0] = rt_s(&t, "keep_aspect_ratio_policy", "fit");
	expect_error(&t, rt_run(&t, "Resize", NULL, 3, in, 1, a, 1, out), "keep_aspect_ratio_policy 'fit'");
	a[0] = rt_s(&t, "coordinate_transformation_mode", "tf_crop_and_resize");
	expect_error(&t, rt_run(&t, "Resize", NULL, 3, in, 1, a, 1, out), "needs roi");
	rt_free(&t);
}

static void resize_crop_uses_the_roi(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX tf_crop_and_resize: [1, 1, 4, 4], roi [0, 0, .4, .6, 1, 1, .6, .8], sizes [1, 1, 3, 3];
	 * with scales [1, 1, 3/4 ... ]: floor(dim * (end - start) * scale) */
	in[0] = rt_t(&t, "[1, 1, 4, h]", NULL, NULL);
	in[1] = rt_t(&t, "[8]", NULL, "[0, 0, 2/5, 0, 1, 1, 3/5, 1/2]");
	in[2] = rt_t(&t, "[4]", NULL, "[1, 1, 5, 2]");
	a[0] = rt_s(&t, "coordinate_transformation_mode", "tf_crop_and_resize");
	assert_int_equal(rt_run(&t, "Resize", NULL, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 4, h]");
	rt_free(&t);
}

static void resize_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[4];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, h, w]", NULL, NULL);
	in[1] = rt_absent();
	in[2] = rt_t(&t, "[3]", NULL, "[1, 3/2, 3/4]");
	rt_property(&t, "Resize", NULL, 3, in, 0, NULL, 1, 200, 1, 9);
	rt_free(&t);
}

/* The aspect-ratio policies as ONNX Runtime computes them: the scale
 * min/max(float(size)/float(dim)) in float32 and std::round(scale * dim),
 * which is not always the exact floor(scale*dim + 1/2): [6, 27] to fit
 * [7, 40] gives 27*7/6 = 31.5 exactly, 31.499998 in float32, so 31. */
static float round_away(float v)
{
	return v >= 0 ? floorf(v + 0.5f) : ceilf(v - 0.5f);
}

static void resize_aspect_policies_round_as_float32_does(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[2];
	char shape[64], want[64];
	int h, w, pol;
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 1, 6, 27]", NULL, NULL);
	in[1] = rt_absent(), in[2] = rt_absent();
	in[3] = rt_t(&t, "[2]", "int64", "[7, 40]");
	a[0] = rt_is(&t, "axes", "[2, 3]");
	a[1] = rt_s(&t, "keep_aspect_ratio_policy", "not_larger");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 7, 31]");
	for (pol = 0; pol < 2; pol++) {
		a[1] = rt_s(&t, "keep_aspect_ratio_policy", pol ? "not_smaller" : "not_larger");
		for (h = 1; h <= 30; h++)
			for (w = 1; w <= 30; w += 7) {
				volatile float r0 = 7.0f / (float)h, r1 = 40.0f / (float)w;
				float sc = pol ? (r0 > r1 ? r0 : r1) : (r0 < r1 ? r0 : r1);
				volatile float p0 = sc * (float)h, p1 = sc * (float)w;
				snprintf(shape, sizeof(shape), "[1, 1, %d, %d]", h, w);
				in[0] = rt_t(&t, shape, NULL, NULL);
				assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 2, a, 1, out), 0);
				snprintf(want, sizeof(want), "[1, 1, %lld, %lld]", (long long)round_away(p0),
				         (long long)round_away(p1));
				assert_string_equal(rt_shape(&t, &out[0]), want);
			}
	}
	rt_free(&t);
	/* symbolic dims: the exact round forms under expect guards that the
	 * float32 rounding does not move them; where the guards hold the dims
	 * are float32's, and at the tie above a guard fails */
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 1, h, w]", NULL, NULL);
	in[1] = rt_absent(), in[2] = rt_absent();
	in[3] = rt_t(&t, "[2]", "int64", "[7, 40]");
	a[0] = rt_is(&t, "axes", "[2, 3]");
	a[1] = rt_s(&t, "keep_aspect_ratio_policy", "not_larger");
	assert_int_equal(rt_run(&t, "Resize", NULL, 4, in, 2, a, 1, out), 0);
	{
		const sym_expr *syms[2];
		long long vals[2], c;
		size_t g;
		int held = 0, tie_fails = 0;
		syms[0] = sym_expr_symbol(t.ctx, "h"), syms[1] = sym_expr_symbol(t.ctx, "w");
		for (h = 1; h <= 30; h++)
			for (w = 1; w <= 60; w++) {
				volatile float r0 = 7.0f / (float)h, r1 = 40.0f / (float)w;
				float sc = r0 < r1 ? r0 : r1;
				volatile float p0 = sc * (float)h, p1 = sc * (float)w;
				int ok = 1, k;
				vals[0] = h, vals[1] = w;
				for (g = 0; g < t.inf.nguards && ok; g++)
					ok = sym_expr_eval_si(t.ctx, t.inf.guards[g].pred, 2, syms, vals) ==
					     sym_expr_bool(t.ctx, 1);
				if (h == 6 && w == 27)
					tie_fails = !ok;
				if (!ok)
					continue;
				for (k = 2; k < 4; k++) {
					const sym_expr *e =
					    sym_expr_eval_si(t.ctx, out[0].dims[k], 2, syms, vals);
					assert_int_equal(sym_expr_get_si(e, &c), 1);
					assert_int_equal(c, (long long)round_away(k == 2 ? p0 : p1));
				}
				held++;
			}
		assert_true(tie_fails);
		assert_true(held > 1000);
	}
	rt_free(&t);
}

/* ---- OneHot, Trilu, Dropout, DepthToSpace, SpaceToDepth ----------------- */

static void onehot_inserts_depth_at_the_axis(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: indices [2, 2], depth 10, axis 1 -> [2, 10, 2] */
	in[0] = rt_t(&t, "[2, 2]", "int64", "[1, 9, 2, 4]");
	in[1] = rt_t(&t, "[1]", "int64", "[10]");
	in[2] = rt_t(&t, "[2]", "float32", NULL);
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "OneHot", NULL, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 10, 2]");
	in[0] = rt_t(&t, "[3]", "int64", NULL);
	assert_int_equal(rt_run(&t, "OneHot", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 10]");
	/* a symbolic depth */
	in[0] = rt_t(&t, "[b, s]", "int64", NULL);
	in[1] = rt_t(&t, "[]", "int64", "[v]");
	a[0] = rt_i(&t, "axis", -3);
	assert_int_equal(rt_run(&t, "OneHot", NULL, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[v, b, s]");
	a[0] = rt_i(&t, "axis", 3);
	expect_error(&t, rt_run(&t, "OneHot", NULL, 3, in, 1, a, 1, out),
	             "axis 3 is out of range for rank 3");
	in[1] = rt_t(&t, "[]", "int64", "[0]");
	expect_error(&t, rt_run(&t, "OneHot", NULL, 3, in, 0, NULL, 1, out), "depth must be positive");
	in[1] = rt_t(&t, "[]", "int64", NULL);
	expect_error(&t, rt_run(&t, "OneHot", NULL, 3, in, 0, NULL, 1, out), "must be known");
	rt_free(&t);
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[b, s]", "int64", NULL);
	in[1] = rt_t(&t, "[]", "int64", "[v]");
	in[2] = rt_t(&t, "[2]", "float32", NULL);
	a[0] = rt_i(&t, "axis", 1);
	rt_property(&t, "OneHot", NULL, 3, in, 1, a, 1, 100, 0, 3);
	rt_free(&t);
}

static void same_shape_operators_keep_the_shape(void **state)
{
	rt t;
	sym_tval in[2], out[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, n, n]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Trilu", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, n, n]");
	in[1] = rt_t(&t, "[]", "int64", "[-1]");
	assert_int_equal(rt_run(&t, "Trilu", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, n, n]");
	assert_int_equal(rt_run(&t, "Dropout", NULL, 1, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, n, n]");
	assert_string_equal(rt_shape(&t, &out[1]), "[b, n, n]");
	assert_int_equal(out[1].dtype, SYM_DT_BOOL);
	/* before opset 10 the mask has the data's type */
	t.opset = 9;
	assert_int_equal(rt_run(&t, "Dropout", NULL, 1, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[1]), "[b, n, n]");
	assert_int_equal(out[1].dtype, SYM_DT_FLOAT32);
	t.opset = 18;
	in[0] = rt_t(&t, "[n]", NULL, NULL);
	expect_error(&t, rt_run(&t, "Trilu", NULL, 1, in, 0, NULL, 1, out), "rank >= 2");
	rt_property(&t, "Dropout", NULL, 1, in, 0, NULL, 2, 20, 1, 5);
	rt_free(&t);
}

static void depth_to_space_and_back_guard_divisibility(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: [1, 8, 2, 3], blocksize 2 -> [1, 2, 4, 6]; and back */
	in[0] = rt_t(&t, "[1, 8, 2, 3]", NULL, NULL);
	a[0] = rt_i(&t, "blocksize", 2);
	a[1] = rt_s(&t, "mode", "CRD");
	assert_int_equal(rt_run(&t, "DepthToSpace", NULL, 1, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 2, 4, 6]");
	in[0] = rt_t(&t, "[1, 2, 4, 6]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SpaceToDepth", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 8, 2, 3]");
	in[0] = rt_t(&t, "[1, 2, 3, 6]", NULL, NULL);
	expect_error(&t, rt_run(&t, "SpaceToDepth", NULL, 1, in, 1, a, 1, out), "divisible by blocksize");
	in[0] = rt_t(&t, "[1, 6, 2, 3]", NULL, NULL);
	expect_error(&t, rt_run(&t, "DepthToSpace", NULL, 1, in, 1, a, 1, out), "divisible by blocksize**2");
	/* symbolic */
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	assert_int_equal(rt_run(&t, "DepthToSpace", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c/4, 2*h, 2*w]");
	assert_string_equal(rt_guards(&t), "assert c % 4 == 0");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	a[0] = rt_i(&t, "blocksize", 3);
	assert_int_equal(rt_run(&t, "SpaceToDepth", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 9*c, h/3, w/3]");
	assert_string_equal(rt_guards(&t), "assert h % 3 == 0; assert w % 3 == 0");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	a[0] = rt_i(&t, "blocksize", 2);
	rt_property(&t, "DepthToSpace", NULL, 1, in, 1, a, 1, 200, 1, 9);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	a[0] = rt_i(&t, "blocksize", 2);
	a[1] = rt_s(&t, "mode", "CRD");
	rt_property(&t, "SpaceToDepth", NULL, 1, in, 1, a, 1, 200, 1, 9);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 8, 2, 3]", NULL, NULL);
	expect_error(&t, rt_run(&t, "DepthToSpace", NULL, 1, in, 0, NULL, 1, out), "'blocksize' is required");
	a[0] = rt_i(&t, "blocksize", 0);
	expect_error(&t, rt_run(&t, "DepthToSpace", NULL, 1, in, 1, a, 1, out),
	             "blocksize 0 must be positive");
	a[0] = rt_i(&t, "blocksize", 2);
	a[1] = rt_s(&t, "mode", "XYZ");
	expect_error(&t, rt_run(&t, "DepthToSpace", NULL, 1, in, 2, a, 1, out), "mode 'XYZ'");
	in[0] = rt_t(&t, "[8, 2, 3]", NULL, NULL);
	expect_error(&t, rt_run(&t, "DepthToSpace", NULL, 1, in, 1, a, 1, out), "rank 4");
	rt_free(&t);
}

/* ---- Einsum ------------------------------------------------------------- */

static const char *einsum(rt *t, const char *eq, size_t n, const char *s0, const char *s1)
{
	sym_tval in[2], out[1];
	sym_attr a[1];
	in[0] = rt_t(t, s0, NULL, NULL);
	if (n > 1)
		in[1] = rt_t(t, s1, NULL, NULL);
	a[0] = rt_s(t, "equation", eq);
	if (rt_run(t, "Einsum", NULL, n, in, 1, a, 1, out) < 0)
		return NULL;
	return rt_shape(t, &out[0]);
}

static void einsum_follows_the_equation(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples */
	assert_string_equal(einsum(&t, "ij->ji", 1, "[3, 4]", NULL), "[4, 3]");
	assert_string_equal(einsum(&t, "ij->i", 1, "[3, 4]", NULL), "[3]");
	assert_string_equal(einsum(&t, "bij, bjk -> bik", 2, "[5, 2, 3]", "[5, 3, 4]"), "[5, 2, 4]");
	assert_string_equal(einsum(&t, "ii", 1, "[3, 3]", NULL), "[]");
	assert_string_equal(einsum(&t, "i,i", 2, "[5]", "[5]"), "[]");
	assert_string_equal(einsum(&t, "...ii->...i", 1, "[3, 5, 5]", NULL), "[3, 5]");
	/* implicit output: the "..." dims, then labels seen once in ASCII order */
	assert_string_equal(einsum(&t, "ji,k", 2, "[2, 3]", "[4]"), "[3, 2, 4]");
	assert_string_equal(einsum(&t, "...j,jk", 2, "[a, b, m]", "[m, n]"), "[a, b, n]");
	assert_string_equal(einsum(&t, "Ba,b", 2, "[2, 3]", "[4]"), "[2, 3, 4]");
	/* "..." dims broadcast */
	assert_string_equal(einsum(&t, "...ij,...jk->...ik", 2, "[a, 1, m, k]", "[c, k, n]"), "[a, c, m, n]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
	rt_init(&t, 1);
	assert_string_equal(einsum(&t, "bij,bjk->bik", 2, "[b, m, k]", "[c, l, n]"), "[b, m, n]");
	assert_string_equal(rt_guards(&t), "assert b == c; assert k == l");
	rt_free(&t);
}

static void einsum_bad_equations_are_errors(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_null(einsum(&t, "ij->j1", 1, "[3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "'1' is not a letter"));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "ij,jk->ik", 1, "[3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "2 input terms for 1 inputs"));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "ijk->i", 1, "[3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "rank 2"));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "ij->k", 1, "[3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "'k' is not in the inputs"));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "ij->ii", 1, "[3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "repeated"));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "...ij->ij", 1, "[2, 3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "no '...'"));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "i..j->ij", 1, "[3, 4]", NULL));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "ij-ji", 1, "[3, 4]", NULL));
	sym_ctx_clear_error(t.ctx);
	assert_null(einsum(&t, "ii->i", 1, "[3, 4]", NULL));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "same label"));
	sym_ctx_clear_error(t.ctx);
	{
		sym_tval in[1], out[1];
		in[0] = rt_t(&t, "[3]", NULL, NULL);
		assert_int_equal(rt_run(&t, "Einsum", NULL, 1, in, 0, NULL, 1, out), -1);
		assert_non_null(strstr(sym_ctx_last_message(t.ctx), "'equation' is required"));
	}
	rt_free(&t);
}

static void einsum_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, m, k]", NULL, NULL);
	in[1] = rt_t(&t, "[c, l, n]", NULL, NULL);
	a[0] = rt_s(&t, "equation", "bij,bjk->bik");
	rt_property(&t, "Einsum", NULL, 2, in, 1, a, 1, 300, 1, 2);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, d, m, k]", NULL, NULL);
	in[1] = rt_t(&t, "[c, l, n]", NULL, NULL);
	a[0] = rt_s(&t, "equation", "...ij,...jk");
	rt_property(&t, "Einsum", NULL, 2, in, 1, a, 1, 300, 1, 2);
	rt_free(&t);
}

/* ---- data-dependent dims ------------------------------------------------ */

static void nonzero_gives_a_fresh_count_up_to_numel(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 0);
	/* ONNX example: [2, 2] -> [2, u] */
	in[0] = rt_t(&t, "[2, 2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "NonZero", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, u0]");
	assert_int_equal(out[0].dtype, SYM_DT_INT64);
	assert_int_equal(prove_text(&t, "u0 <= 4"), SYM_TRUE);
	assert_int_equal(prove_text(&t, "u0 >= 0"), SYM_TRUE);
	assert_int_equal(prove_text(&t, "u0 >= 1"), SYM_UNKNOWN);
	in[0] = rt_t(&t, "[a, b, c]", NULL, NULL);
	assert_int_equal(rt_run(&t, "NonZero", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, u1]");
	assert_int_equal(prove_text(&t, "u1 <= a*b*c"), SYM_TRUE);
	assert_string_equal(rt_guards(&t), "");
	in[0] = rt_t(&t, "[]", NULL, NULL);
	assert_int_equal(rt_run(&t, "NonZero", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, u2]");
	assert_int_equal(prove_text(&t, "u2 <= 1"), SYM_TRUE);
	in[0] = rt_t(&t, "*", NULL, NULL);
	expect_error(&t, rt_run(&t, "NonZero", NULL, 1, in, 0, NULL, 1, out), "unknown rank");
	/* a fresh name skips the symbols of the inputs */
	in[0] = rt_t(&t, "[u3, u4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "NonZero", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, u5]");
	rt_free(&t);
}

static void unique_counts_are_fresh_and_at_least_one(void **state)
{
	rt t;
	sym_tval in[1], out[4];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 0);
	/* ONNX example: [6] -> Y [u], indices [u], inverse_indices [6], counts [u] */
	in[0] = rt_t(&t, "[6]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Unique", NULL, 1, in, 0, NULL, 4, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u0]");
	assert_string_equal(rt_shape(&t, &out[1]), "[u0]");
	assert_string_equal(rt_shape(&t, &out[2]), "[6]");
	assert_string_equal(rt_shape(&t, &out[3]), "[u0]");
	assert_int_equal(out[3].dtype, SYM_DT_INT64);
	assert_int_equal(prove_text(&t, "u0 >= 1 && u0 <= 6"), SYM_TRUE);
	/* with an axis: [3, 3] along 0 -> Y [u, 3] */
	in[0] = rt_t(&t, "[n, 3]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Unique", NULL, 1, in, 1, a, 4, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u1, 3]");
	assert_string_equal(rt_shape(&t, &out[2]), "[n]");
	assert_int_equal(prove_text(&t, "u1 <= n"), SYM_TRUE);
	assert_int_equal(prove_text(&t, "u1 >= min(n, 1)"), SYM_TRUE);
	a[0] = rt_i(&t, "axis", 2);
	expect_error(&t, rt_run(&t, "Unique", NULL, 1, in, 1, a, 4, out), "axis 2 is out of range");
	rt_free(&t);
}

static void compress_counts_a_known_condition(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 0);
	/* ONNX examples: [3, 2] with [0, 1, 1] on axis 0, [0, 1] on axis 1 */
	in[0] = rt_t(&t, "[3, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "bool", "[0, 1, 1]");
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Compress", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2]");
	in[1] = rt_t(&t, "[2]", "bool", "[0, 1]");
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Compress", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 1]");
	in[1] = rt_t(&t, "[5]", "bool", "[0, 1, 0, 0, 1]");
	assert_int_equal(rt_run(&t, "Compress", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2]");
	/* a runtime condition: a fresh symbol */
	in[0] = rt_t(&t, "[n, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[c]", "bool", NULL);
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Compress", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u0, 2]");
	assert_int_equal(prove_text(&t, "u0 <= n && u0 <= c && u0 >= 0"), SYM_TRUE);
	assert_int_equal(rt_run(&t, "Compress", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u1]");
	assert_int_equal(prove_text(&t, "u1 <= 2*n && u1 <= c"), SYM_TRUE);
	in[1] = rt_t(&t, "[2, 2]", "bool", NULL);
	expect_error(&t, rt_run(&t, "Compress", NULL, 2, in, 0, NULL, 1, out), "condition must be 1-D");
	a[0] = rt_i(&t, "axis", -3);
	in[1] = rt_t(&t, "[c]", "bool", NULL);
	expect_error(&t, rt_run(&t, "Compress", NULL, 2, in, 1, a, 1, out), "axis -3 is out of range");
	rt_free(&t);
}

static void nms_selects_a_fresh_count_of_triples(void **state)
{
	rt t;
	sym_tval in[5], out[1];
	(void)state;
	rt_init(&t, 0);
	/* ONNX examples: boxes [1, 6, 4], scores [1, 1, 6], max 3 */
	in[0] = rt_t(&t, "[1, 6, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[1, 1, 6]", NULL, NULL);
	in[2] = rt_t(&t, "[1]", "int64", "[3]");
	in[3] = rt_t(&t, "[1]", NULL, NULL);
	in[4] = rt_t(&t, "[1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "NonMaxSuppression", NULL, 5, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u0, 3]");
	assert_int_equal(out[0].dtype, SYM_DT_INT64);
	assert_int_equal(prove_text(&t, "u0 <= 3 && u0 >= 0"), SYM_TRUE);
	/* no max_output_boxes_per_class selects nothing */
	assert_int_equal(rt_run(&t, "NonMaxSuppression", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[0, 3]");
	/* symbolic: batches, classes, boxes */
	in[0] = rt_t(&t, "[b, n, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[b, c, n]", NULL, NULL);
	in[2] = rt_t(&t, "[1]", "int64", NULL);
	assert_int_equal(rt_run(&t, "NonMaxSuppression", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u1, 3]");
	assert_int_equal(prove_text(&t, "u1 <= b*c*n"), SYM_TRUE);
	in[2] = rt_t(&t, "[1]", "int64", "[10]");
	assert_int_equal(rt_run(&t, "NonMaxSuppression", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u2, 3]");
	assert_int_equal(prove_text(&t, "u2 <= b*c*min(n, 10)"), SYM_TRUE);
	assert_string_equal(rt_guards(&t), "");
	in[1] = rt_t(&t, "[d, c, m]", NULL, NULL);
	assert_int_equal(rt_run(&t, "NonMaxSuppression", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_guards(&t), "assert b == d; assert m == n");
	in[0] = rt_t(&t, "[1, 6, 5]", NULL, NULL);
	expect_error(&t, rt_run(&t, "NonMaxSuppression", NULL, 3, in, 0, NULL, 1, out), "4 coordinates");
	in[0] = rt_t(&t, "[6, 4]", NULL, NULL);
	expect_error(&t, rt_run(&t, "NonMaxSuppression", NULL, 3, in, 0, NULL, 1, out), "rank 3");
	rt_free(&t);
}

/* Every registered rule, run with no inputs, with only omitted inputs or
 * without outputs (or with input 0 alone), fails with a message naming the
 * node or succeeds; it
 * never reads an input or an output that is not there. */
static void every_rule_without_inputs_fails_cleanly(void **state)
{
	const sym_rule_entry *e;
	size_t i, k, nin, nout;
	(void)state;
	for (i = 0; (e = sym__rule_at(i)); i++) {
		for (nin = 0; nin <= 4; nin++) {
			for (nout = 0; nout <= 1; nout++) {
				/* exactly sized (NULL when empty): a read past them faults */
				sym_tval *in = nin ? malloc(nin * sizeof(*in)) : NULL;
				sym_tval *out = nout ? malloc(nout * sizeof(*out)) : NULL;
				rt t;
				rt_init(&t, 1);
				for (k = 0; k < nin; k++)
					in[k] = rt_absent();
				if (nin % 2) /* input 0 given, the others omitted */
					in[0] = rt_t(&t, "[2, 3]", "int64", "[1, 2, 3, 4, 5, 6]");
				if (rt_run(&t, e->name, e->domain, nin, in, 0, NULL, nout, out) < 0) {
					const char *msg = sym_ctx_last_message(t.ctx);
					if (!strstr(msg, "node 'n0'"))
						fail_msg("%s with %zu inputs, %zu outputs: '%s'", e->name,
						         nin, nout, msg);
				}
				rt_free(&t);
				free(in);
				free(out);
			}
		}
	}
}

static void reverse_sequence_keeps_the_shape_with_one_length_per_batch_entry(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[n]", "int64", NULL);
	a[0] = rt_i(&t, "batch_axis", 0);
	a[1] = rt_i(&t, "time_axis", 1);
	assert_int_equal(rt_run(&t, "ReverseSequence", NULL, 2, in, 2, a, 1, out), 0);
	assert_string_equal(rt_guards(&t), "assert b == n");
	expect_error(&t, rt_run(&t, "ReverseSequence", NULL, 2, in, 1, a, 1, out), "0 and 1 in some order");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[n]", "int64", NULL);
	a[0] = rt_i(&t, "batch_axis", 0);
	a[1] = rt_i(&t, "time_axis", 1);
	rt_property(&t, "ReverseSequence", NULL, 2, in, 2, a, 1, 100, 1, 3);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reverse_sequence_keeps_the_shape_with_one_length_per_batch_entry),
	    cmocka_unit_test(pad_adds_begin_and_end_pads),
	    cmocka_unit_test(pad_bad_attributes_are_errors),
	    cmocka_unit_test(pad_property_holds_at_random_dims),
	    cmocka_unit_test(resize_with_scales_rounds_down_exactly),
	    cmocka_unit_test(resize_with_sizes_and_aspect_policies),
	    cmocka_unit_test(resize_with_sizes_from_data_gets_data_dependent_dims),
	    cmocka_unit_test(resize_bad_inputs_are_errors),
	    cmocka_unit_test(resize_crop_uses_the_roi),
	    cmocka_unit_test(resize_property_holds_at_random_dims),
	    cmocka_unit_test(resize_aspect_policies_round_as_float32_does),
	    cmocka_unit_test(onehot_inserts_depth_at_the_axis),
	    cmocka_unit_test(same_shape_operators_keep_the_shape),
	    cmocka_unit_test(depth_to_space_and_back_guard_divisibility),
	    cmocka_unit_test(einsum_follows_the_equation),
	    cmocka_unit_test(einsum_bad_equations_are_errors),
	    cmocka_unit_test(einsum_property_holds_at_random_dims),
	    cmocka_unit_test(nonzero_gives_a_fresh_count_up_to_numel),
	    cmocka_unit_test(unique_counts_are_fresh_and_at_least_one),
	    cmocka_unit_test(compress_counts_a_known_condition),
	    cmocka_unit_test(nms_selects_a_fresh_count_of_triples),
	    cmocka_unit_test(every_rule_without_inputs_fails_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
