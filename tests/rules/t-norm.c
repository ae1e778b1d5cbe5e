/* Normalization rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static sym_tval out[5];

/* Runs op on inputs of the given shapes ("" absent, NULL ends the list);
 * returns the shapes of the outputs joined by " " or the error message. */
static const char *run(rt *t, const char *op, const char *domain, const char *const *shapes, size_t na,
                       const sym_attr *a, size_t nout)
{
	sym_tval in[5];
	size_t nin = 0, i;
	char buf[512] = "";
	for (; shapes[nin]; nin++)
		in[nin] = *shapes[nin] ? rt_t(t, shapes[nin], NULL, NULL) : rt_absent();
	if (rt_run(t, op, domain, nin, in, na, a, nout, out) < 0) {
		const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		return m;
	}
	for (i = 0; i < nout; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, rt_shape(t, &out[i]));
	}
	return sym__infer_strdup(&t->inf, buf);
}

#define SHAPES(...) ((const char *const[]){__VA_ARGS__, NULL})

static void layer_normalization_statistics_keep_dims_before_axis(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "LayerNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[5]", "[5]"), 0, a, 3),
	    "[2, 3, 4, 5] [2, 3, 4, 1] [2, 3, 4, 1]");
	a[0] = rt_i(&t, "axis", 1);
	assert_string_equal(run(&t, "LayerNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[3, 4, 5]"), 1, a, 3),
	                    "[2, 3, 4, 5] [2, 1, 1, 1] [2, 1, 1, 1]");
	a[0] = rt_i(&t, "axis", 0);
	assert_string_equal(
	    run(&t, "LayerNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[2, 3, 4, 5]"), 1, a, 2),
	    "[2, 3, 4, 5] [1, 1, 1, 1]");
	a[0] = rt_i(&t, "axis", -2);
	assert_string_equal(
	    run(&t, "LayerNormalization", NULL, SHAPES("[b, s, h, d]", "[h, d]", "[d]"), 1, a, 3),
	    "[b, s, h, d] [b, s, 1, 1] [b, s, 1, 1]");
	assert_int_equal(out[1].dtype, SYM_DT_FLOAT32);
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "LayerNormalization", NULL, SHAPES("[b, s, h]", "[k]"), 0, a, 1),
	                    "[b, s, h]");
	assert_string_equal(rt_guards(&t), "assert h == k || k == 1");
	rt_free(&t);
}

static void layer_normalization_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "axis", 4);
	assert_non_null(strstr(run(&t, "LayerNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[5]"), 1, a, 1),
	                       "out of range"));
	a[0] = rt_i(&t, "axis", -1);
	assert_non_null(
	    strstr(run(&t, "LayerNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[4]"), 1, a, 1), "Scale"));
	assert_non_null(
	    strstr(run(&t, "LayerNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[4, 5]"), 1, a, 1), "rank"));
	assert_non_null(strstr(run(&t, "LayerNormalization", NULL, SHAPES("[2, 5]"), 1, a, 1), "input 1"));
	rt_free(&t);
}

static void cann_layer_norm_gives_mean_and_variance(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "begin_norm_axis", -1);
	a[1] = rt_i(&t, "begin_params_axis", -1);
	assert_string_equal(run(&t, "LayerNorm", NULL, SHAPES("[b, s, 768]", "[768]", "[768]"), 2, a, 3),
	                    "[b, s, 768] [b, s, 1] [b, s, 1]");
	assert_string_equal(run(&t, "LayerNorm", "cann", SHAPES("[b, s, 768]", "[768]", "[768]"), 2, a, 3),
	                    "[b, s, 768] [b, s, 1] [b, s, 1]");
	a[0] = rt_i(&t, "begin_norm_axis", 1);
	a[1] = rt_i(&t, "begin_params_axis", 1);
	assert_string_equal(run(&t, "LayerNorm", NULL, SHAPES("[4, 5, 6]", "[5, 6]", "[5, 6]"), 2, a, 3),
	                    "[4, 5, 6] [4, 1, 1] [4, 1, 1]");
	a[0] = rt_i(&t, "begin_norm_axis", 3);
	assert_non_null(strstr(run(&t, "LayerNorm", NULL, SHAPES("[4, 5, 6]", "[5, 6]", "[5, 6]"), 2, a, 3),
	                       "begin_norm_axis"));
	rt_free(&t);
}

static void batch_normalization_checks_per_channel_inputs(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "BatchNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[3]", "[3]", "[3]", "[3]"), 0, a, 1),
	    "[2, 3, 4, 5]");
	a[0] = rt_i(&t, "training_mode", 1);
	assert_string_equal(
	    run(&t, "BatchNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[3]", "[3]", "[3]", "[3]"), 1, a, 3),
	    "[2, 3, 4, 5] [3] [3]");
	assert_string_equal(
	    run(&t, "BatchNormalization", NULL, SHAPES("[n, c, l]", "[k]", "[c]", "[c]", "[c]"), 1, a, 5),
	    "[n, c, l] [c] [c] [c] [c]");
	assert_string_equal(rt_guards(&t), "assert c == k");
	assert_non_null(strstr(
	    run(&t, "BatchNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[4]", "[3]", "[3]", "[3]"), 0, a, 1),
	    "scale"));
	assert_non_null(strstr(run(&t, "BatchNormalization", NULL,
	                           SHAPES("[2, 3, 4, 5]", "[3, 1]", "[3]", "[3]", "[3]"), 0, a, 1),
	                       "rank 1"));
	a[0] = rt_i(&t, "training_mode", 2);
	assert_non_null(strstr(
	    run(&t, "BatchNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[3]", "[3]", "[3]", "[3]"), 1, a, 1),
	    "training_mode"));
	rt_free(&t);
}

static void instance_group_lp_lrn_and_mvn_keep_the_shape(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "InstanceNormalization", NULL, SHAPES("[2, 3, 4, 5]", "[3]", "[3]"), 0, a, 1),
	    "[2, 3, 4, 5]");
	assert_non_null(
	    strstr(run(&t, "InstanceNormalization", NULL, SHAPES("[2, 3]", "[3]", "[3]"), 0, a, 1), "rank"));
	a[0] = rt_i(&t, "num_groups", 2);
	assert_string_equal(
	    run(&t, "GroupNormalization", NULL, SHAPES("[3, 4, 2, 2]", "[2]", "[2]"), 1, a, 1),
	    "[3, 4, 2, 2]");
	assert_string_equal(run(&t, "GroupNormalization", NULL, SHAPES("[n, c, h]", "[2]", "[2]"), 1, a, 1),
	                    "[n, c, h]");
	assert_string_equal(rt_guards(&t), "assert c % 2 == 0");
	a[0] = rt_i(&t, "num_groups", 3);
	assert_non_null(
	    strstr(run(&t, "GroupNormalization", NULL, SHAPES("[3, 4, 2, 2]", "[3]", "[3]"), 1, a, 1),
	           "divisible by num_groups"));
	assert_non_null(
	    strstr(run(&t, "GroupNormalization", NULL, SHAPES("[3, 4, 2, 2]", "[3]", "[3]"), 0, a, 1),
	           "'num_groups' is required"));
	a[0] = rt_i(&t, "size", 3);
	assert_string_equal(run(&t, "LRN", NULL, SHAPES("[5, 5, 5, 5]"), 1, a, 1), "[5, 5, 5, 5]");
	assert_non_null(strstr(run(&t, "LRN", NULL, SHAPES("[5, 5, 5, 5]"), 0, a, 1), "'size' is required"));
	a[0] = rt_i(&t, "size", 0);
	assert_non_null(strstr(run(&t, "LRN", NULL, SHAPES("[5, 5, 5, 5]"), 1, a, 1), "'size'"));
	assert_string_equal(run(&t, "MeanVarianceNormalization", NULL, SHAPES("[3, 3, 3, 1]"), 0, a, 1),
	                    "[3, 3, 3, 1]");
	assert_non_null(
	    strstr(run(&t, "MeanVarianceNormalization", NULL, SHAPES("[3, 3, 3]"), 0, a, 1), "out of range"));
	a[0] = rt_is(&t, "axes", "[1, -2]");
	assert_non_null(
	    strstr(run(&t, "MeanVarianceNormalization", NULL, SHAPES("[3, 3, 3]"), 1, a, 1), "repeats"));
	a[0] = rt_i(&t, "p", 3);
	assert_non_null(strstr(run(&t, "LpNormalization", NULL, SHAPES("[3, 3]"), 1, a, 1), "'p'"));
	a[0] = rt_i(&t, "axis", 1);
	assert_string_equal(run(&t, "LpNormalization", NULL, SHAPES("[a, b]"), 1, a, 1), "[a, b]");
	assert_string_equal(run(&t, "RMSNormalization", NULL, SHAPES("[a, b]", "[b]"), 1, a, 1), "[a, b]");
	rt_free(&t);
}

static void prop(const char *op, const char *domain, const char *const *shapes, size_t na, const sym_attr *a,
                 size_t nout)
{
	rt t;
	sym_tval in[5];
	size_t nin = 0;
	rt_init(&t, 1);
	for (; shapes[nin]; nin++)
		in[nin] = *shapes[nin] ? rt_t(&t, shapes[nin], NULL, NULL) : rt_absent();
	rt_property(&t, op, domain, nin, in, na, a, nout, 300, 1, 4);
	rt_free(&t);
}

static void norm_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	prop("LayerNormalization", NULL, SHAPES("[a, b, c]", "[d]", "[e]"), 0, a, 3);
	a[0] = rt_i(&t, "axis", 1);
	prop("LayerNormalization", NULL, SHAPES("[a, b, c]", "[d, e]", ""), 1, a, 3);
	prop("RMSNormalization", NULL, SHAPES("[a, b, c]", "[d, 1]"), 1, a, 1);
	a[0] = rt_i(&t, "begin_norm_axis", 1);
	a[1] = rt_i(&t, "begin_params_axis", 2);
	prop("LayerNorm", "cann", SHAPES("[a, b, c]", "[d]", "[e]"), 2, a, 3);
	a[0] = rt_i(&t, "training_mode", 1);
	prop("BatchNormalization", NULL, SHAPES("[a, b, c]", "[d]", "[e]", "[b]", "[f]"), 1, a, 3);
	prop("InstanceNormalization", NULL, SHAPES("[a, b, c]", "[d]", "[e]"), 0, a, 1);
	a[0] = rt_i(&t, "num_groups", 2);
	prop("GroupNormalization", NULL, SHAPES("[a, b, c]", "[d]", "[e]"), 1, a, 1);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(layer_normalization_statistics_keep_dims_before_axis),
	    cmocka_unit_test(layer_normalization_bad_inputs_are_errors),
	    cmocka_unit_test(cann_layer_norm_gives_mean_and_variance),
	    cmocka_unit_test(batch_normalization_checks_per_channel_inputs),
	    cmocka_unit_test(instance_group_lp_lrn_and_mvn_keep_the_shape),
	    cmocka_unit_test(norm_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
