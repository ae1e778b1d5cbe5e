/* RoiAlign, MaxRoiPool, GridSample, MaxUnpool, Col2Im, CenterCropPad. */
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

static void roi_align_takes_rois_channels_and_output_size(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, 256, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[r, 4]", NULL, NULL);
	in[2] = rt_t(&t, "[k]", "int64", NULL);
	a[0] = rt_i(&t, "output_height", 7);
	a[1] = rt_i(&t, "output_width", 5);
	assert_int_equal(rt_run(&t, "RoiAlign", NULL, 3, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[k, 256, 7, 5]");
	assert_string_equal(rt_guards(&t), "assert k == r");
	/* the output size defaults to 1 x 1 */
	assert_int_equal(rt_run(&t, "RoiAlign", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[k, 256, 1, 1]");
	in[1] = rt_t(&t, "[r, 5]", NULL, NULL);
	expect_error(&t, rt_run(&t, "RoiAlign", NULL, 3, in, 0, NULL, 1, out), "rois must be [num_rois, 4]");
	rt_free(&t);
}

static void max_roi_pool_takes_rois_channels_and_pooled_shape(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[r, 5]", NULL, NULL);
	expect_error(&t, rt_run(&t, "MaxRoiPool", NULL, 2, in, 0, NULL, 1, out), "'pooled_shape'");
	a[0] = rt_is(&t, "pooled_shape", "[3, 2]");
	assert_int_equal(rt_run(&t, "MaxRoiPool", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[r, c, 3, 2]");
	rt_free(&t);
}

static void roi_align_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[3];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[r, f]", NULL, NULL);
	in[2] = rt_t(&t, "[k]", "int64", NULL);
	rt_property(&t, "RoiAlign", NULL, 3, in, 0, NULL, 1, 300, 1, 5);
	rt_free(&t);
}

static void grid_sample_takes_the_grid_spatial_dims(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[m, p, q, 2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "GridSample", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[m, c, p, q]");
	assert_string_equal(rt_guards(&t), "assert m == n");
	in[1] = rt_t(&t, "[m, p, q, 3]", NULL, NULL);
	expect_error(&t, rt_run(&t, "GridSample", NULL, 2, in, 0, NULL, 1, out), "last dim of grid");
	rt_free(&t);
}

static void max_unpool_inverts_the_pooling_window(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[3];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[n, c, h, w]", "int64", NULL);
	a[0] = rt_is(&t, "kernel_shape", "[2, 3]");
	a[1] = rt_is(&t, "strides", "[2, 2]");
	a[2] = rt_is(&t, "pads", "[0, 1, 0, 1]");
	assert_int_equal(rt_run(&t, "MaxUnpool", NULL, 2, in, 3, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c, 2*h, 2*w - 1]");
	in[2] = rt_t(&t, "[4]", "int64", "[1, 1, 9, 8]");
	assert_int_equal(rt_run(&t, "MaxUnpool", NULL, 3, in, 3, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 9, 8]");
	expect_error(&t, rt_run(&t, "MaxUnpool", NULL, 2, in, 0, NULL, 1, out), "'kernel_shape' is required");
	rt_property(&t, "MaxUnpool", NULL, 2, in, 3, a, 1, 100, 1, 6);
	rt_free(&t);
}

static void col2im_folds_blocks_into_the_image(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, 6*c, 12]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[4, 5]");
	in[2] = rt_t(&t, "[2]", "int64", "[2, 3]");
	/* (4 - 2 + 1) * (5 - 3 + 1) = 9 blocks, not 12 */
	expect_error(&t, rt_run(&t, "Col2Im", NULL, 3, in, 0, NULL, 1, out), "number of blocks");
	in[0] = rt_t(&t, "[n, 6*c, 9]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Col2Im", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, c, 4, 5]");
	in[0] = rt_t(&t, "[n, k, l]", NULL, NULL);
	rt_property(&t, "Col2Im", NULL, 3, in, 0, NULL, 1, 300, 1, 13);
	rt_free(&t);
}

static void center_crop_pad_sets_the_dims_of_its_axes(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, h, w, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[10, s]");
	a[0] = rt_is(&t, "axes", "[1, -2]");
	assert_int_equal(rt_run(&t, "CenterCropPad", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 10, s, 3]");
	expect_error(&t, rt_run(&t, "CenterCropPad", NULL, 2, in, 0, NULL, 1, out), "one value per axis");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(roi_align_takes_rois_channels_and_output_size),
	    cmocka_unit_test(roi_align_property_holds_at_random_dims),
	    cmocka_unit_test(max_roi_pool_takes_rois_channels_and_pooled_shape),
	    cmocka_unit_test(grid_sample_takes_the_grid_spatial_dims),
	    cmocka_unit_test(max_unpool_inverts_the_pooling_window),
	    cmocka_unit_test(col2im_folds_blocks_into_the_image),
	    cmocka_unit_test(center_crop_pad_sets_the_dims_of_its_axes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
