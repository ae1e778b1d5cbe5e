/* DFT, STFT, the window generators and MelWeightMatrix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void expect_error(rt *t, int r, const char *needle)
{
	assert_int_equal(r, -1);
	if (!strstr(sym_ctx_last_message(t->ctx), needle))
		fail_msg("message %s lacks %s", sym_ctx_last_message(t->ctx), needle);
	sym_ctx_clear_error(t->ctx);
}
static void dft_sets_the_axis_length_and_the_complex_dim(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	t.opset = 17;
	in[0] = rt_t(&t, "[b, n, 1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "DFT", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, n, 2]");
	in[1] = rt_t(&t, "[]", "int64", "[m]");
	a[0] = rt_i(&t, "onesided", 1);
	assert_int_equal(rt_run(&t, "DFT", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, m//2 + 1, 2]");
	a[1] = rt_i(&t, "axis", 2);
	expect_error(&t, rt_run(&t, "DFT", NULL, 1, in, 2, a, 1, out), "real/complex dim");
	in[0] = rt_t(&t, "[b, n, 3]", NULL, NULL);
	expect_error(&t, rt_run(&t, "DFT", NULL, 1, in, 0, NULL, 1, out), "1 (real) or 2 (complex)");
	/* from opset 20 the axis is input 2, -2 by default */
	t.opset = 20;
	in[0] = rt_t(&t, "[b, p, n, 2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "DFT", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, p, n, 2]");
	rt_free(&t);
}

static void stft_counts_frames_and_bins(void **state)
{
	rt t;
	sym_tval in[4], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, l, 1]", NULL, NULL);
	in[1] = rt_t(&t, "[]", "int64", "[8]");
	in[2] = rt_t(&t, "[16]", NULL, NULL);
	assert_int_equal(rt_run(&t, "STFT", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, l//8 - 1, 9, 2]");
	assert_string_equal(rt_guards(&t), "assert l >= 16");
	in[2] = rt_absent();
	in[3] = rt_t(&t, "[]", "int64", "[f]");
	a[0] = rt_i(&t, "onesided", 0);
	assert_int_equal(rt_run(&t, "STFT", NULL, 4, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, (l - f + 8)//8, f, 2]");
	expect_error(&t, rt_run(&t, "STFT", NULL, 2, in, 0, NULL, 1, out),
	             "frame_length (input 3) is required");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, l, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[]", "int64", "[8]");
	in[2] = rt_t(&t, "[w]", NULL, NULL);
	rt_property(&t, "STFT", NULL, 3, in, 0, NULL, 1, 200, 1, 40);
	rt_free(&t);
}

static void windows_and_mel_matrix_take_their_lengths_from_values(void **state)
{
	rt t;
	sym_tval in[5], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[]", "int32", "[n]");
	a[0] = rt_i(&t, "output_datatype", SYM_DT_FLOAT64);
	assert_int_equal(rt_run(&t, "HannWindow", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT64);
	in[1] = rt_t(&t, "[]", "int64", "[512]");
	in[2] = rt_t(&t, "[]", "int64", "[16000]");
	in[3] = rt_t(&t, "[]", NULL, NULL);
	in[4] = rt_t(&t, "[]", NULL, NULL);
	assert_int_equal(rt_run(&t, "MelWeightMatrix", NULL, 5, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[257, n]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	in[0] = rt_t(&t, "[]", "int32", NULL);
	expect_error(&t, rt_run(&t, "BlackmanWindow", NULL, 1, in, 0, NULL, 1, out), "must be known");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dft_sets_the_axis_length_and_the_complex_dim),
	    cmocka_unit_test(stft_counts_frames_and_bins),
	    cmocka_unit_test(windows_and_mel_matrix_take_their_lengths_from_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
