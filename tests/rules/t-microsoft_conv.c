/* Convolutions of ONNX Runtime: FusedConv, NhwcConv and NhwcFusedConv
 * (rules/microsoft_conv.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define MS "com.microsoft"

static sym_tval out[2];

/* Runs op on inputs of the given shapes ("" absent, NULL ends the list);
 * returns the shape of output 0 or the error message. */
static const char *run(rt *t, const char *op, const char *domain, const char *const *shapes, size_t na,
                       const sym_attr *a)
{
	sym_tval in[8];
	return rt_outcome(t, op, domain, rt_shapes(t, shapes, in, 8), in, na, a, 1, out);
}

#define SHAPES RT_LIST

static void fused_conv_has_the_conv_shape_and_checks_the_sum(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_s(&t, "activation", "Relu");
	a[1] = rt_is(&t, "pads", "[1, 1, 1, 1]");
	assert_string_equal(run(&t, "FusedConv", MS, SHAPES("[n, 3, h, w]", "[16, 3, 3, 3]", "[16]"), 2, a),
	                    "[n, 16, h, w]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	assert_string_equal(rt_guards(&t), "");
	/* the sum input Z has the output's shape */
	assert_string_equal(
	    run(&t, "FusedConv", MS, SHAPES("[n, 3, h, w]", "[16, 3, 3, 3]", "", "[n, 16, h, w]"), 2, a),
	    "[n, 16, h, w]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(
	    run(&t, "FusedConv", MS, SHAPES("[n, 3, h, w]", "[16, 3, 3, 3]", "", "[n, 16, p, q]"), 2, a),
	    "[n, 16, h, w]");
	assert_string_equal(rt_guards(&t), "assert h == p; assert q == w");
	assert_non_null(strstr(
	    run(&t, "FusedConv", MS, SHAPES("[n, 3, h, w]", "[16, 3, 3, 3]", "", "[n, 8, h, w]"), 2, a),
	    "input Z must have the output's shape"));
	assert_non_null(
	    strstr(run(&t, "FusedConv", MS, SHAPES("[n, 3, h, w]", "[16, 3, 3, 3]", "", "[n, 16, h]"), 2, a),
	           "input Z must have the output's rank 4, not 3"));
	/* no activation at all is the identity */
	assert_string_equal(run(&t, "FusedConv", MS, SHAPES("[n, 3, y, x]", "[16, 3, 3, 3]"), 1, a + 1),
	                    "[n, 16, y, x]");
	rt_free(&t);
}

static void fused_conv_activations_are_checked(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_s(&t, "activation", "LeakyRelu");
	a[1] = rt_fs(&t, "activation_params", "[0.1]");
	assert_string_equal(run(&t, "FusedConv", MS, SHAPES("[n, 3, 8, 8]", "[4, 3, 3, 3]"), 2, a),
	                    "[n, 4, 6, 6]");
	assert_non_null(strstr(run(&t, "FusedConv", MS, SHAPES("[n, 3, 8, 8]", "[4, 3, 3, 3]"), 1, a),
	                       "activation 'LeakyRelu' needs 1 activation_params, not 0"));
	a[0] = rt_s(&t, "activation", "Clip");
	assert_non_null(strstr(run(&t, "FusedConv", MS, SHAPES("[n, 3, 8, 8]", "[4, 3, 3, 3]"), 2, a),
	                       "activation 'Clip' needs 2 activation_params, not 1"));
	a[1] = rt_fs(&t, "activation_params", "[0, 6]");
	assert_string_equal(run(&t, "FusedConv", MS, SHAPES("[n, 3, 8, 8]", "[4, 3, 3, 3]"), 2, a),
	                    "[n, 4, 6, 6]");
	a[0] = rt_s(&t, "activation", "Gelu");
	assert_non_null(strstr(run(&t, "FusedConv", MS, SHAPES("[n, 3, 8, 8]", "[4, 3, 3, 3]"), 1, a),
	                       "'activation' has the unknown value 'Gelu'"));
	/* Conv's own checks apply */
	a[0] = rt_s(&t, "activation", "Sigmoid");
	assert_non_null(strstr(run(&t, "FusedConv", MS, SHAPES("[n, 4, 8, 8]", "[4, 3, 3, 3]"), 1, a),
	                       "input channels must equal group * W.shape[1]"));
	/* FusedConv is ONNX Runtime's, not ONNX's */
	assert_non_null(strstr(run(&t, "FusedConv", "", SHAPES("[n, 3, 8, 8]", "[4, 3, 3, 3]"), 1, a),
	                       "unsupported operator"));
	rt_free(&t);
}

static void nhwc_conv_reads_channels_last_input_and_weight(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "kernel_shape", "[3, 3]");
	a[1] = rt_is(&t, "pads", "[1, 1, 1, 1]");
	a[2] = rt_is(&t, "strides", "[2, 2]");
	assert_string_equal(run(&t, "NhwcConv", MS, SHAPES("[n, h, w, 4]", "[320, 3, 3, 4]", "[320]"), 3, a),
	                    "[n, (h + 1)//2, (w + 1)//2, 320]");
	assert_string_equal(rt_guards(&t), "");
	/* kernel from W's middle dims, channels from its last */
	assert_string_equal(run(&t, "NhwcConv", MS, SHAPES("[n, h, w, c]", "[m, 1, 1, k]"), 0, a),
	                    "[n, h, w, m]");
	assert_string_equal(rt_guards(&t), "assert c == k");
	rt_free(&t);
	rt_init(&t, 1);
	a[3] = rt_i(&t, "group", 2);
	assert_string_equal(run(&t, "NhwcConv", MS, SHAPES("[n, h, w, 8]", "[m, 1, 1, 4]"), 1, a + 3),
	                    "[n, h, w, m]");
	assert_string_equal(rt_guards(&t), "assert m % 2 == 0");
	a[0] = rt_is(&t, "kernel_shape", "[3, 3]");
	assert_non_null(strstr(run(&t, "NhwcConv", MS, SHAPES("[n, h, w, 8]", "[16, 1, 1, 4]"), 0, a),
	                       "input channels must equal group * W.shape[3]"));
	/* kernel_shape against W's NHWC kernel dims */
	assert_non_null(strstr(run(&t, "NhwcConv", MS, SHAPES("[n, h, w, 4]", "[16, 4, 3, 3]"), 1, a),
	                       "kernel_shape must match the weight dims"));
	assert_non_null(strstr(run(&t, "NhwcConv", MS, SHAPES("[n, h, w, 4]", "[16, 3, 3, 4]", "[8]"), 1, a),
	                       "bias length must equal the output channels"));
	assert_non_null(strstr(run(&t, "NhwcConv", MS, SHAPES("[n, 4, 4, 4]", "[16, 3, 3, 4, 1]"), 1, a),
	                       "weight W has rank 5 but X has rank 4"));
	assert_non_null(strstr(run(&t, "NhwcConv", MS, SHAPES("[n, 2, 8, 4]", "[16, 3, 3, 4]"), 1, a),
	                       "input must cover the dilated kernel"));
	rt_free(&t);
}

/* NhwcConv on [N, H, W, C] is Conv on [N, C, H, W] with the output's
 * channels moved last. */
static void nhwc_conv_is_conv_transposed(void **state)
{
	rt t;
	sym_attr a[4];
	const char *conv, *nhwc;
	char want[256];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[2, 3]");
	a[1] = rt_is(&t, "pads", "[1, 0, 2, 1]");
	a[2] = rt_is(&t, "dilations", "[2, 1]");
	a[3] = rt_s(&t, "auto_pad", "NOTSET");
	conv = run(&t, "Conv", "", SHAPES("[n, c, h, w]", "[m, c, p, q]"), 4, a);
	nhwc = run(&t, "NhwcConv", MS, SHAPES("[n, h, w, c]", "[m, p, q, c]"), 4, a);
	/* "[n, m, H, W]" -> "[n, H, W, m]" */
	assert_true(!strncmp(conv, "[n, m, ", 7));
	snprintf(want, sizeof(want), "[n, %.*s, m]", (int)(strlen(conv) - 8), conv + 7);
	assert_string_equal(nhwc, want);
	rt_free(&t);
}

static void nhwc_fused_conv_reads_channels_last_input_and_conv_weight(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_s(&t, "activation", "Relu");
	a[1] = rt_is(&t, "pads", "[1, 1, 1, 1]");
	a[2] = rt_is(&t, "strides", "[2, 2]");
	/* X [N, H, W, C], W [M, C/group, kH, kW] as Conv's */
	assert_string_equal(
	    run(&t, "NhwcFusedConv", MS, SHAPES("[n, h, w, 4]", "[320, 4, 3, 3]", "[320]"), 3, a),
	    "[n, (h + 1)//2, (w + 1)//2, 320]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	assert_string_equal(rt_guards(&t), "");
	/* the sum Z has the output's (channels-last) shape */
	assert_string_equal(run(&t, "NhwcFusedConv", MS,
	                        SHAPES("[n, h, w, 4]", "[8, 4, 3, 3]", "", "[n, (h + 1)//2, (w + 1)//2, 8]"),
	                        3, a),
	                    "[n, (h + 1)//2, (w + 1)//2, 8]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "NhwcFusedConv", MS, SHAPES("[n, h, w, c]", "[m, k, 1, 1]", "", "[p, q, r, s]"), 0, a),
	    "[n, h, w, m]");
	assert_string_equal(rt_guards(&t),
	                    "assert c == k; assert n == p; assert h == q; assert r == w; assert m == s");
	rt_free(&t);
	rt_init(&t, 1);
	/* 1-D and 3-D convolutions, grouped */
	a[0] = rt_i(&t, "group", 2);
	assert_string_equal(run(&t, "NhwcFusedConv", MS, SHAPES("[n, l, 8]", "[m, 4, 3]"), 1, a),
	                    "[n, l - 2, m]");
	assert_string_equal(rt_guards(&t), "assert m % 2 == 0; assert l >= 3");
	rt_free(&t);
	rt_init(&t, 1);
	assert_string_equal(run(&t, "NhwcFusedConv", MS, SHAPES("[2, 5, 6, 7, 3]", "[4, 3, 1, 2, 3]"), 0, a),
	                    "[2, 5, 5, 5, 4]");
	rt_free(&t);
}

static void nhwc_fused_conv_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_s(&t, "activation", "Clip");
	a[1] = rt_fs(&t, "activation_params", "[0, 6]");
	/* the channel count is W.shape[1] (Conv's weight layout) */
	assert_non_null(strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 3, 3, 4]"), 2, a),
	                       "input channels must equal group * W.shape[1]"));
	assert_non_null(
	    strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3, 3]", "[8]"), 2, a),
	           "bias length must equal the output channels"));
	assert_non_null(strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 2, 8, 4]", "[16, 4, 3, 3]"), 2, a),
	                       "input must cover the dilated kernel"));
	assert_non_null(strstr(
	    run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3, 3]", "", "[n, 6, 6, 8]"), 2, a),
	    "input Z must have the output's shape"));
	assert_non_null(strstr(
	    run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3, 3]", "", "[n, 16, 6, 6]"), 2, a),
	    "input Z must have the output's shape"));
	assert_non_null(strstr(
	    run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3, 3]", "", "[n, 6, 6]"), 2, a),
	    "input Z must have the output's rank 4, not 3"));
	assert_non_null(strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 4]", "[16, 4]"), 2, a),
	                       "input X must have rank at least 3"));
	assert_non_null(
	    strstr(run(&t, "NhwcFusedConv", MS, SHAPES("*", "[16, 4, 3, 3]"), 2, a), "unknown rank"));
	assert_non_null(strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3]"), 2, a),
	                       "weight W has rank 3 but X has rank 4"));
	assert_non_null(strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3, 3]"), 1, a),
	                       "activation 'Clip' needs 2 activation_params, not 0"));
	a[0] = rt_s(&t, "activation", "Gelu");
	assert_non_null(strstr(run(&t, "NhwcFusedConv", MS, SHAPES("[n, 8, 8, 4]", "[16, 4, 3, 3]"), 1, a),
	                       "'activation' has the unknown value 'Gelu'"));
	rt_free(&t);
}

/* NhwcFusedConv on [N, H, W, C] is Conv on [N, C, H, W] with the output's
 * channels moved last, for the same weight. */
static void nhwc_fused_conv_is_conv_transposed(void **state)
{
	rt t;
	sym_attr a[5];
	const char *conv, *nhwc;
	char want[256];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[2, 3]");
	a[1] = rt_is(&t, "pads", "[1, 0, 2, 1]");
	a[2] = rt_is(&t, "dilations", "[2, 1]");
	a[3] = rt_s(&t, "auto_pad", "NOTSET");
	a[4] = rt_s(&t, "activation", "Tanh");
	conv = run(&t, "Conv", "", SHAPES("[n, c, h, w]", "[m, c, p, q]"), 4, a);
	nhwc = run(&t, "NhwcFusedConv", MS, SHAPES("[n, h, w, c]", "[m, c, p, q]"), 5, a);
	assert_true(!strncmp(conv, "[n, m, ", 7));
	snprintf(want, sizeof(want), "[n, %.*s, m]", (int)(strlen(conv) - 8), conv + 7);
	assert_string_equal(nhwc, want);
	a[0] = rt_s(&t, "auto_pad", "SAME_UPPER");
	a[1] = rt_is(&t, "strides", "[3, 2]");
	conv = run(&t, "Conv", "", SHAPES("[n, c, h, w]", "[m, c, 3, 3]"), 2, a);
	nhwc = run(&t, "NhwcFusedConv", MS, SHAPES("[n, h, w, c]", "[m, c, 3, 3]"), 2, a);
	snprintf(want, sizeof(want), "[n, %.*s, m]", (int)(strlen(conv) - 8), conv + 7);
	assert_string_equal(nhwc, want);
	rt_free(&t);
}

/* A seeded generator (SYM_TEST_SEED) for the concrete checks. */
static uint64_t rng_state;

static long long rnd(long long lo, long long hi)
{
	return rt_rand(&rng_state, lo, hi);
}

static void seed_rng(void)
{
	rt_rand_seed(&rng_state);
}

/* The convolution output size, computed here independently of the rule. */
static long long conv_out(long long in, long long k, long long s, long long d, long long pb, long long pe)
{
	long long span = in + pb + pe - ((k - 1) * d + 1);
	return span < 0 ? -1 : span / s + 1;
}

static void nhwc_conv_matches_the_conv_formula_at_random_dims(void **state)
{
	rt t;
	sym_attr a[4];
	char x[64], w[64], want[64], s_attr[32], d_attr[32], p_attr[48];
	int it;
	(void)state;
	seed_rng();
	rt_init(&t, 1);
	for (it = 0; it < 300; it++) {
		long long n = rnd(1, 4), h = rnd(1, 12), wd = rnd(1, 12), g = rnd(1, 3), c = g * rnd(1, 3);
		long long m = g * rnd(1, 3), kh = rnd(1, 4), kw = rnd(1, 4), sh = rnd(1, 3), sw = rnd(1, 3);
		long long dh = rnd(1, 2), dw = rnd(1, 2), p[4], oh, ow;
		const char *got;
		int i;
		for (i = 0; i < 4; i++)
			p[i] = rnd(0, 2);
		snprintf(x, sizeof(x), "[%lld, %lld, %lld, %lld]", n, h, wd, c);
		snprintf(w, sizeof(w), "[%lld, %lld, %lld, %lld]", m, kh, kw, c / g);
		snprintf(s_attr, sizeof(s_attr), "[%lld, %lld]", sh, sw);
		snprintf(d_attr, sizeof(d_attr), "[%lld, %lld]", dh, dw);
		snprintf(p_attr, sizeof(p_attr), "[%lld, %lld, %lld, %lld]", p[0], p[1], p[2], p[3]);
		a[0] = rt_is(&t, "strides", s_attr);
		a[1] = rt_is(&t, "dilations", d_attr);
		a[2] = rt_is(&t, "pads", p_attr);
		a[3] = rt_i(&t, "group", g);
		oh = conv_out(h, kh, sh, dh, p[0], p[2]);
		ow = conv_out(wd, kw, sw, dw, p[1], p[3]);
		got = run(&t, "NhwcConv", MS, SHAPES(x, w), 4, a);
		if (oh < 1 || ow < 1) {
			assert_non_null(strstr(got, "input must cover the dilated kernel"));
			continue;
		}
		snprintf(want, sizeof(want), "[%lld, %lld, %lld, %lld]", n, oh, ow, m);
		assert_string_equal(got, want);
	}
	rt_free(&t);
}

static void nhwc_fused_conv_matches_the_conv_formula_at_random_dims(void **state)
{
	rt t;
	sym_attr a[5];
	char x[64], w[64], z[64], want[64], s_attr[32], d_attr[32], p_attr[48];
	int it;
	(void)state;
	seed_rng();
	rt_init(&t, 1);
	a[4] = rt_s(&t, "activation", "Sigmoid");
	for (it = 0; it < 300; it++) {
		long long n = rnd(1, 4), h = rnd(1, 12), wd = rnd(1, 12), g = rnd(1, 3), c = g * rnd(1, 3);
		long long m = g * rnd(1, 3), kh = rnd(1, 4), kw = rnd(1, 4), sh = rnd(1, 3), sw = rnd(1, 3);
		long long dh = rnd(1, 2), dw = rnd(1, 2), p[4], oh, ow, zm;
		const char *got;
		int i;
		for (i = 0; i < 4; i++)
			p[i] = rnd(0, 2);
		oh = conv_out(h, kh, sh, dh, p[0], p[2]);
		ow = conv_out(wd, kw, sw, dw, p[1], p[3]);
		zm = rnd(0, 3) ? m : m + 1;
		snprintf(x, sizeof(x), "[%lld, %lld, %lld, %lld]", n, h, wd, c);
		snprintf(w, sizeof(w), "[%lld, %lld, %lld, %lld]", m, c / g, kh, kw);
		snprintf(z, sizeof(z), "[%lld, %lld, %lld, %lld]", n, oh < 1 ? 1 : oh, ow < 1 ? 1 : ow, zm);
		snprintf(s_attr, sizeof(s_attr), "[%lld, %lld]", sh, sw);
		snprintf(d_attr, sizeof(d_attr), "[%lld, %lld]", dh, dw);
		snprintf(p_attr, sizeof(p_attr), "[%lld, %lld, %lld, %lld]", p[0], p[1], p[2], p[3]);
		a[0] = rt_is(&t, "strides", s_attr);
		a[1] = rt_is(&t, "dilations", d_attr);
		a[2] = rt_is(&t, "pads", p_attr);
		a[3] = rt_i(&t, "group", g);
		got = run(&t, "NhwcFusedConv", MS, SHAPES(x, w, "", z), 5, a);
		if (oh < 1 || ow < 1) {
			assert_non_null(strstr(got, "input must cover the dilated kernel"));
			continue;
		}
		if (zm != m) {
			assert_non_null(strstr(got, "input Z must have the output's shape"));
			continue;
		}
		snprintf(want, sizeof(want), "[%lld, %lld, %lld, %lld]", n, oh, ow, m);
		assert_string_equal(got, want);
	}
	rt_free(&t);
}

static void ms_conv_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_tval in[4];
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[2, 1]");
	a[1] = rt_is(&t, "pads", "[1, 0, 0, 1]");
	a[2] = rt_i(&t, "group", 2);
	in[0] = rt_t(&t, "[n, h, w, c]", NULL, NULL);
	in[1] = rt_t(&t, "[m, p, q, k]", NULL, NULL);
	in[2] = rt_t(&t, "[b]", NULL, NULL);
	rt_property(&t, "NhwcConv", MS, 3, in, 3, a, 1, 300, 1, 8);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_s(&t, "activation", "Relu");
	a[1] = rt_is(&t, "dilations", "[2, 1]");
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[m, k, 3, q]", NULL, NULL);
	in[2] = rt_absent();
	in[3] = rt_t(&t, "[e, f, g, r]", NULL, NULL);
	rt_property(&t, "FusedConv", MS, 4, in, 2, a, 1, 300, 1, 8);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_s(&t, "activation", "LeakyRelu");
	a[1] = rt_fs(&t, "activation_params", "[0.01]");
	a[2] = rt_is(&t, "strides", "[1, 2]");
	a[3] = rt_is(&t, "pads", "[0, 1, 1, 0]");
	in[0] = rt_t(&t, "[n, h, w, c]", NULL, NULL);
	in[1] = rt_t(&t, "[m, k, p, 2]", NULL, NULL);
	in[2] = rt_t(&t, "[b]", NULL, NULL);
	in[3] = rt_t(&t, "[n, f, g, m]", NULL, NULL);
	rt_property(&t, "NhwcFusedConv", MS, 4, in, 4, a, 1, 300, 1, 6);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fused_conv_has_the_conv_shape_and_checks_the_sum),
	    cmocka_unit_test(fused_conv_activations_are_checked),
	    cmocka_unit_test(nhwc_conv_reads_channels_last_input_and_weight),
	    cmocka_unit_test(nhwc_conv_is_conv_transposed),
	    cmocka_unit_test(nhwc_conv_matches_the_conv_formula_at_random_dims),
	    cmocka_unit_test(nhwc_fused_conv_reads_channels_last_input_and_conv_weight),
	    cmocka_unit_test(nhwc_fused_conv_bad_inputs_are_errors),
	    cmocka_unit_test(nhwc_fused_conv_is_conv_transposed),
	    cmocka_unit_test(nhwc_fused_conv_matches_the_conv_formula_at_random_dims),
	    cmocka_unit_test(ms_conv_rules_hold_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
