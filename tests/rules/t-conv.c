/* Conv, ConvTranspose and pooling rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

/* Runs op on inputs of the given shapes (NULL: absent) and returns the
 * shape of output `which`, or the error message prefixed with "error: ". */
static const char *run(rt *t, const char *op, const char *x, const char *w, size_t na, const sym_attr *a,
                       size_t which)
{
	sym_tval in[2], out[2];
	size_t nin = w ? 2 : 1;
	in[0] = rt_t(t, x, NULL, NULL);
	if (w)
		in[1] = rt_t(t, w, NULL, NULL);
	if (rt_run(t, op, NULL, nin, in, na, a, 2, out) < 0) {
		const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		return m;
	}
	return rt_shape(t, &out[which]);
}

static void conv_stride_2_pad_3_simplifies_without_a_guard(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[2, 2]");
	a[1] = rt_is(&t, "pads", "[3, 3, 3, 3]");
	assert_string_equal(run(&t, "Conv", "[N, 3, H, W]", "[C, 3, 7, 7]", 2, a, 0),
	                    "[N, C, (H + 1)//2, (W + 1)//2]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void conv_without_padding_guards_the_input_size(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[2, 2]");
	assert_string_equal(run(&t, "Conv", "[N, 3, H, W]", "[C, 3, 7, 7]", 1, a, 0),
	                    "[N, C, (H - 5)//2, (W - 5)//2]");
	assert_string_equal(rt_guards(&t), "assert H >= 7; assert W >= 7");
	rt_free(&t);
}

static void conv_matches_the_onnx_examples(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "pads", "[1, 1, 1, 1]");
	assert_string_equal(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 1, a, 0), "[1, 1, 5, 5]");
	assert_string_equal(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 0, a, 0), "[1, 1, 3, 3]");
	a[1] = rt_is(&t, "strides", "[2, 2]");
	assert_string_equal(run(&t, "Conv", "[1, 1, 7, 5]", "[1, 1, 3, 3]", 2, a, 0), "[1, 1, 4, 3]");
	assert_string_equal(run(&t, "Conv", "[1, 1, 7, 5]", "[1, 1, 3, 3]", 1, a + 1, 0), "[1, 1, 3, 2]");
	a[0] = rt_is(&t, "pads", "[1, 0, 1, 0]");
	assert_string_equal(run(&t, "Conv", "[1, 1, 7, 5]", "[1, 1, 3, 3]", 2, a, 0), "[1, 1, 4, 2]");
	a[0] = rt_s(&t, "auto_pad", "SAME_LOWER");
	a[2] = rt_is(&t, "kernel_shape", "[3, 3]");
	assert_string_equal(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 3, a, 0), "[1, 1, 3, 3]");
	a[0] = rt_s(&t, "auto_pad", "VALID");
	assert_string_equal(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 2, a, 0), "[1, 1, 2, 2]");
	/* 1-D and 3-D, dilations, groups */
	a[0] = rt_is(&t, "dilations", "[2]");
	assert_string_equal(run(&t, "Conv", "[2, 4, 10]", "[6, 4, 3]", 1, a, 0), "[2, 6, 6]");
	assert_string_equal(run(&t, "Conv", "[1, 2, 4, 5, 6]", "[3, 2, 2, 2, 2]", 0, a, 0),
	                    "[1, 3, 3, 4, 5]");
	a[0] = rt_i(&t, "group", 2);
	assert_string_equal(run(&t, "Conv", "[1, 4, 5, 5]", "[6, 2, 3, 3]", 1, a, 0), "[1, 6, 3, 3]");
	rt_free(&t);
}

static void conv_with_symbolic_channels_and_groups_guards_them(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "group", 2);
	assert_string_equal(run(&t, "Conv", "[n, c, h]", "[m, k, 1]", 1, a, 0), "[n, m, h]");
	assert_string_equal(rt_guards(&t), "assert c == 2*k; assert m % 2 == 0");
	rt_free(&t);
}

static void same_padding_gives_ceil_of_input_over_stride(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_s(&t, "auto_pad", "SAME_UPPER");
	a[1] = rt_is(&t, "strides", "[3, 1]");
	assert_string_equal(run(&t, "Conv", "[n, 3, h, w]", "[8, 3, 5, 5]", 2, a, 0),
	                    "[n, 8, (h + 2)//3, w]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void conv_bad_attributes_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[0, 1]");
	assert_non_null(strstr(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 1, a, 0), "'strides'"));
	a[0] = rt_is(&t, "pads", "[1, 1, 1]");
	assert_non_null(
	    strstr(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 1, a, 0), "'pads' must have 4 values"));
	a[0] = rt_i(&t, "group", 3);
	assert_non_null(
	    strstr(run(&t, "Conv", "[1, 3, 5, 5]", "[4, 1, 3, 3]", 1, a, 0), "divisible by group"));
	a[0] = rt_i(&t, "group", 0);
	assert_non_null(strstr(run(&t, "Conv", "[1, 3, 5, 5]", "[4, 1, 3, 3]", 1, a, 0), "'group'"));
	a[0] = rt_s(&t, "auto_pad", "SAME");
	assert_non_null(strstr(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 1, a, 0), "'auto_pad'"));
	a[0] = rt_is(&t, "kernel_shape", "[3, 2]");
	assert_non_null(strstr(run(&t, "Conv", "[1, 1, 5, 5]", "[1, 1, 3, 3]", 1, a, 0), "kernel_shape"));
	assert_non_null(
	    strstr(run(&t, "Conv", "[1, 2, 5, 5]", "[1, 1, 3, 3]", 0, a, 0), "group * W.shape[1]"));
	assert_non_null(
	    strstr(run(&t, "Conv", "[1, 1, 2, 5]", "[1, 1, 3, 3]", 0, a, 0), "cover the dilated kernel"));
	assert_non_null(strstr(run(&t, "Conv", "[1, 1, 5]", "[1, 1, 3, 3]", 0, a, 0), "rank"));
	assert_non_null(strstr(run(&t, "Conv", "*", "[1, 1, 3, 3]", 0, a, 0), "unknown rank"));
	rt_free(&t);
}

/* A kernel dim 0 in W is rejected as in kernel_shape; a symbolic one gets
 * an assert guard. */
static void weight_kernel_dims_must_be_at_least_1(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 0);
	assert_non_null(strstr(run(&t, "Conv", "[1, 4, 5, 5]", "[8, 4, 0, 3]", 0, NULL, 0),
	                       "the weight's kernel dim 0 (W dim 2) is 0, must be at least 1"));
	assert_non_null(strstr(run(&t, "ConvTranspose", "[1, 8, 5, 5]", "[8, 4, 3, 0]", 0, NULL, 0),
	                       "the weight's kernel dim 1 (W dim 3) is 0, must be at least 1"));
	assert_string_equal(run(&t, "Conv", "[1, 4, 5, 5]", "[8, 4, k, 1]", 0, NULL, 0), "[1, 8, 6 - k, 5]");
	assert_non_null(strstr(rt_guards(&t), "assert k >= 1"));
	rt_free(&t);
}

static void conv_transpose_matches_the_onnx_examples(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 0, a, 0),
	                    "[1, 2, 5, 5]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3]", "[1, 2, 3]", 0, a, 0), "[1, 2, 5]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 4, 5]", "[1, 2, 3, 3, 3]", 0, a, 0),
	                    "[1, 2, 5, 6, 7]");
	a[0] = rt_is(&t, "strides", "[3, 2]");
	a[1] = rt_is(&t, "output_shape", "[10, 8]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 2, a, 0),
	                    "[1, 2, 10, 8]");
	a[1] = rt_is(&t, "output_padding", "[1, 1]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 2, a, 0),
	                    "[1, 2, 10, 8]");
	a[2] = rt_is(&t, "kernel_shape", "[3, 3]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 3, a, 0),
	                    "[1, 2, 10, 8]");
	a[1] = rt_is(&t, "pads", "[1, 2, 1, 2]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 2, a, 0),
	                    "[1, 2, 7, 3]");
	a[0] = rt_is(&t, "dilations", "[2, 2]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 1, 2, 2]", 1, a, 0),
	                    "[1, 1, 5, 5]");
	a[0] = rt_s(&t, "auto_pad", "SAME_UPPER");
	a[1] = rt_is(&t, "strides", "[2, 2]");
	assert_string_equal(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 2, a, 0),
	                    "[1, 2, 6, 6]");
	a[0] = rt_i(&t, "group", 2);
	assert_string_equal(run(&t, "ConvTranspose", "[1, 2, 3, 3]", "[2, 1, 3, 3]", 1, a, 0),
	                    "[1, 2, 5, 5]");
	/* symbolic input */
	a[0] = rt_is(&t, "strides", "[2, 2]");
	a[1] = rt_is(&t, "pads", "[1, 1, 1, 1]");
	a[2] = rt_is(&t, "output_padding", "[1, 0]");
	assert_string_equal(run(&t, "ConvTranspose", "[n, c, h, w]", "[c, 4, 3, 3]", 3, a, 0),
	                    "[n, 4, 2*h, 2*w - 1]");
	assert_string_equal(rt_guards(&t), "");
	a[0] = rt_is(&t, "output_shape", "[1, 2, 3]");
	assert_non_null(
	    strstr(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 1, a, 0), "'output_shape'"));
	a[0] = rt_is(&t, "pads", "[3, 3, 3, 3]");
	assert_non_null(
	    strstr(run(&t, "ConvTranspose", "[1, 1, 1, 1]", "[1, 2, 3, 3]", 1, a, 0), "positive output"));
	a[0] = rt_is(&t, "output_padding", "[1, 1]");
	assert_non_null(
	    strstr(run(&t, "ConvTranspose", "[1, 1, 3, 3]", "[1, 2, 3, 3]", 1, a, 0), "output_padding 1"));
	rt_free(&t);
}

static void pooling_matches_the_onnx_examples(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "kernel_shape", "[2, 2]");
	assert_string_equal(run(&t, "MaxPool", "[1, 3, 32, 32]", NULL, 1, a, 0), "[1, 3, 31, 31]");
	assert_string_equal(run(&t, "AveragePool", "[1, 3, 32, 32]", NULL, 1, a, 0), "[1, 3, 31, 31]");
	a[1] = rt_s(&t, "auto_pad", "SAME_UPPER");
	assert_string_equal(run(&t, "MaxPool", "[1, 3, 32, 32]", NULL, 2, a, 0), "[1, 3, 32, 32]");
	a[1] = rt_s(&t, "auto_pad", "SAME_LOWER");
	assert_string_equal(run(&t, "AveragePool", "[1, 3, 32, 32]", NULL, 2, a, 0), "[1, 3, 32, 32]");
	a[1] = rt_is(&t, "strides", "[2, 2]");
	assert_string_equal(run(&t, "MaxPool", "[1, 1, 5, 5]", NULL, 2, a, 0), "[1, 1, 2, 2]");
	a[1] = rt_is(&t, "dilations", "[2, 2]");
	assert_string_equal(run(&t, "MaxPool", "[1, 1, 4, 4]", NULL, 2, a, 0), "[1, 1, 2, 2]");
	a[0] = rt_is(&t, "kernel_shape", "[3, 3]");
	a[1] = rt_is(&t, "pads", "[2, 2, 2, 2]");
	assert_string_equal(run(&t, "MaxPool", "[1, 3, 28, 28]", NULL, 2, a, 0), "[1, 3, 30, 30]");
	a[0] = rt_is(&t, "kernel_shape", "[5, 5]");
	a[1] = rt_is(&t, "strides", "[3, 3]");
	assert_string_equal(run(&t, "AveragePool", "[1, 3, 32, 32]", NULL, 2, a, 0), "[1, 3, 10, 10]");
	a[0] = rt_is(&t, "kernel_shape", "[2]");
	assert_string_equal(run(&t, "MaxPool", "[1, 3, 32]", NULL, 1, a, 0), "[1, 3, 31]");
	/* MaxPool's Indices */
	a[0] = rt_is(&t, "kernel_shape", "[5, 5]");
	a[1] = rt_is(&t, "pads", "[2, 2, 2, 2]");
	assert_string_equal(run(&t, "MaxPool", "[1, 1, 5, 5]", NULL, 2, a, 1), "[1, 1, 5, 5]");
	rt_free(&t);
}

static void ceil_mode_drops_a_last_window_starting_in_the_padding(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "kernel_shape", "[3, 3]");
	a[1] = rt_is(&t, "strides", "[2, 2]");
	a[2] = rt_i(&t, "ceil_mode", 1);
	assert_string_equal(run(&t, "MaxPool", "[1, 1, 4, 4]", NULL, 3, a, 0), "[1, 1, 2, 2]");
	assert_string_equal(run(&t, "AveragePool", "[1, 1, 4, 4]", NULL, 3, a, 0), "[1, 1, 2, 2]");
	a[0] = rt_is(&t, "kernel_shape", "[1, 1]");
	assert_string_equal(run(&t, "MaxPool", "[1, 1, 2, 2]", NULL, 3, a, 0), "[1, 1, 1, 1]");
	a[0] = rt_is(&t, "kernel_shape", "[2, 2, 2]");
	a[1] = rt_is(&t, "dilations", "[2, 2, 2]");
	assert_string_equal(run(&t, "AveragePool", "[1, 1, 4, 4, 4]", NULL, 3, a, 0), "[1, 1, 2, 2, 2]");
	/* symbolic: the window count with and without the drop */
	a[0] = rt_is(&t, "kernel_shape", "[3]");
	a[1] = rt_is(&t, "strides", "[2]");
	assert_string_equal(run(&t, "MaxPool", "[n, c, h]", NULL, 3, a, 0), "[n, c, h//2]");
	assert_string_equal(rt_guards(&t), "assert h >= 2");
	a[3] = rt_is(&t, "pads", "[1, 1]");
	assert_string_equal(run(&t, "MaxPool", "[n, c, w]", NULL, 4, a, 0), "[n, c, w//2 + 1]");
	rt_free(&t);
}

static void global_pooling_keeps_batch_and_channels(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "GlobalAveragePool", "[n, c, h, w]", NULL, 0, NULL, 0), "[n, c, 1, 1]");
	assert_string_equal(run(&t, "GlobalMaxPool", "[1, 3, 5]", NULL, 0, NULL, 0), "[1, 3, 1]");
	assert_non_null(strstr(run(&t, "GlobalMaxPool", "[3]", NULL, 0, NULL, 0), "rank"));
	rt_free(&t);
}

static void pooling_bad_attributes_are_errors(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	assert_non_null(
	    strstr(run(&t, "MaxPool", "[1, 1, 4, 4]", NULL, 0, a, 0), "'kernel_shape' is required"));
	a[0] = rt_is(&t, "kernel_shape", "[3]");
	assert_non_null(
	    strstr(run(&t, "MaxPool", "[1, 1, 4, 4]", NULL, 1, a, 0), "'kernel_shape' must have 2"));
	a[0] = rt_is(&t, "kernel_shape", "[3, 3]");
	a[1] = rt_i(&t, "ceil_mode", 2);
	assert_non_null(strstr(run(&t, "MaxPool", "[1, 1, 4, 4]", NULL, 2, a, 0), "'ceil_mode'"));
	a[1] = rt_is(&t, "pads", "[1, 1, -1, 1]");
	assert_non_null(strstr(run(&t, "MaxPool", "[1, 1, 4, 4]", NULL, 2, a, 0), "'pads'"));
	a[1] = rt_is(&t, "dilations", "[1, 0]");
	assert_non_null(strstr(run(&t, "AveragePool", "[1, 1, 4, 4]", NULL, 2, a, 0), "'dilations'"));
	rt_free(&t);
}

/* Property runs: symbolic dims against the same rule on random concrete dims. */
static void prop(const char *op, const char *x, const char *w, size_t na, const sym_attr *a_in, int nout,
                 long long hi)
{
	rt t;
	sym_tval in[2];
	(void)a_in;
	rt_init(&t, 1);
	in[0] = rt_t(&t, x, NULL, NULL);
	if (w)
		in[1] = rt_t(&t, w, NULL, NULL);
	rt_property(&t, op, NULL, w ? 2 : 1, in, na, a_in, (size_t)nout, 300, 1, hi);
	rt_free(&t);
}

static void conv_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[6];
	(void)state;
	rt_init(&t, 1);
	prop("Conv", "[n, 3, h, w]", "[c, 3, 7, 7]", 0, a, 1, 12);
	a[0] = rt_is(&t, "strides", "[2, 3]");
	a[1] = rt_is(&t, "pads", "[1, 0, 2, 1]");
	a[2] = rt_is(&t, "dilations", "[2, 1]");
	prop("Conv", "[n, c, h, w]", "[m, k, 3, 2]", 3, a, 1, 9);
	a[3] = rt_i(&t, "group", 2);
	prop("Conv", "[n, c, h, w]", "[m, k, p, q]", 4, a, 1, 6);
	a[0] = rt_s(&t, "auto_pad", "SAME_LOWER");
	prop("Conv", "[n, c, h, w]", "[m, c, p, q]", 1, a, 1, 9);
	a[0] = rt_s(&t, "auto_pad", "VALID");
	a[1] = rt_is(&t, "strides", "[2]");
	prop("Conv", "[n, c, h]", "[m, c, p]", 2, a, 1, 9);
	rt_free(&t);
}

static void conv_transpose_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[6];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "strides", "[2, 3]");
	a[1] = rt_is(&t, "pads", "[1, 0, 2, 1]");
	a[2] = rt_is(&t, "dilations", "[2, 1]");
	a[3] = rt_is(&t, "output_padding", "[1, 2]");
	prop("ConvTranspose", "[n, c, h, w]", "[k, m, p, q]", 4, a, 1, 6);
	a[4] = rt_i(&t, "group", 3);
	prop("ConvTranspose", "[n, c, h, w]", "[k, m, 3, 3]", 5, a, 1, 7);
	a[0] = rt_s(&t, "auto_pad", "SAME_UPPER");
	prop("ConvTranspose", "[n, c, h, w]", "[c, m, 3, 3]", 1, a, 1, 7);
	rt_free(&t);
}

static void pooling_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[6];
	static const char *const pads[] = {"[0, 0]", "[1, 1]", "[2, 0]", "[0, 2]", "[3, 4]"};
	size_t i;
	long long s;
	(void)state;
	rt_init(&t, 1);
	for (s = 1; s <= 3; s++) {
		for (i = 0; i < sizeof(pads) / sizeof(pads[0]); i++) {
			a[0] = rt_is(&t, "kernel_shape", "[3]");
			a[1] = rt_is(&t, "strides", s == 1 ? "[1]" : s == 2 ? "[2]" : "[3]");
			a[2] = rt_is(&t, "pads", pads[i]);
			a[3] = rt_i(&t, "ceil_mode", 1);
			a[4] = rt_is(&t, "dilations", "[2]");
			prop("MaxPool", "[n, c, h]", NULL, 5, a, 2, 14);
			prop("AveragePool", "[n, c, h]", NULL, 4, a, 1, 14);
			a[3] = rt_i(&t, "ceil_mode", 0);
			prop("LpPool", "[n, c, h]", NULL, 4, a, 1, 14);
		}
	}
	a[0] = rt_is(&t, "kernel_shape", "[2, 3]");
	a[1] = rt_s(&t, "auto_pad", "SAME_UPPER");
	a[2] = rt_is(&t, "strides", "[2, 3]");
	prop("MaxPool", "[n, c, h, w]", NULL, 3, a, 2, 9);
	a[1] = rt_s(&t, "auto_pad", "VALID");
	a[3] = rt_i(&t, "ceil_mode", 1);
	prop("AveragePool", "[n, c, h, w]", NULL, 4, a, 1, 9);
	prop("GlobalAveragePool", "[n, c, h, w]", NULL, 0, a, 1, 9);
	rt_free(&t);
}

static void integer_and_quantized_conv_keep_the_conv_shape(void **state)
{
	rt t;
	sym_tval in[9], out[1];
	size_t i;
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, 3, h, w]", "uint8", NULL);
	in[1] = rt_t(&t, "[8, 3, 3, 3]", "uint8", NULL);
	/* ConvInteger's input 2 is x's zero point, not a bias */
	in[2] = rt_t(&t, "[]", "uint8", NULL);
	assert_int_equal(rt_run(&t, "ConvInteger", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 8, h - 2, w - 2]");
	assert_int_equal(out[0].dtype, SYM_DT_INT32);
	for (i = 1; i < 8; i++)
		in[i] = rt_t(&t, "[]", i == 7 ? "int8" : NULL, NULL);
	in[3] = rt_t(&t, "[8, 3, 3, 3]", "uint8", NULL);
	in[8] = rt_t(&t, "[b]", "int32", NULL);
	assert_int_equal(rt_run(&t, "QLinearConv", NULL, 9, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 8, h - 2, w - 2]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_string_equal(rt_guards(&t), "assert h >= 3; assert w >= 3; assert b == 8");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(integer_and_quantized_conv_keep_the_conv_shape),
	    cmocka_unit_test(conv_stride_2_pad_3_simplifies_without_a_guard),
	    cmocka_unit_test(conv_without_padding_guards_the_input_size),
	    cmocka_unit_test(conv_matches_the_onnx_examples),
	    cmocka_unit_test(conv_with_symbolic_channels_and_groups_guards_them),
	    cmocka_unit_test(same_padding_gives_ceil_of_input_over_stride),
	    cmocka_unit_test(conv_bad_attributes_are_errors),
	    cmocka_unit_test(weight_kernel_dims_must_be_at_least_1),
	    cmocka_unit_test(conv_transpose_matches_the_onnx_examples),
	    cmocka_unit_test(pooling_matches_the_onnx_examples),
	    cmocka_unit_test(ceil_mode_drops_a_last_window_starting_in_the_padding),
	    cmocka_unit_test(global_pooling_keeps_batch_and_channels),
	    cmocka_unit_test(pooling_bad_attributes_are_errors),
	    cmocka_unit_test(conv_property_holds_at_random_dims),
	    cmocka_unit_test(conv_transpose_property_holds_at_random_dims),
	    cmocka_unit_test(pooling_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
