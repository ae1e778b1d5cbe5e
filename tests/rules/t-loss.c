/* NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. */
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

static void loss_is_the_target_shape_without_reduction_else_a_scalar(void **state)
{
	rt t;
	sym_tval in[3], out[2];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, d]", "float16", NULL);
	in[1] = rt_t(&t, "[m, d]", "int64", NULL);
	in[2] = rt_t(&t, "[c]", "float16", NULL);
	a[0] = rt_s(&t, "reduction", "none");
	assert_int_equal(rt_run(&t, "NegativeLogLikelihoodLoss", NULL, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[m, d]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT16);
	assert_string_equal(rt_guards(&t), "assert m == n");
	assert_int_equal(rt_run(&t, "SoftmaxCrossEntropyLoss", NULL, 2, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_shape(&t, &out[1]), "[m, c, d]");
	rt_free(&t);
}

static void loss_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[3];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c, d]", NULL, NULL);
	in[1] = rt_t(&t, "[m, e]", "int64", NULL);
	in[2] = rt_t(&t, "[w]", NULL, NULL);
	a[0] = rt_s(&t, "reduction", "none");
	rt_property(&t, "SoftmaxCrossEntropyLoss", NULL, 3, in, 1, a, 2, 200, 1, 3);
	rt_free(&t);
}

static void loss_errors_name_the_problem(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, c]", NULL, NULL);
	in[1] = rt_t(&t, "[n, 3]", "int64", NULL);
	expect_error(&t, rt_run(&t, "NegativeLogLikelihoodLoss", NULL, 2, in, 0, NULL, 1, out),
	             "must have rank 1");
	in[1] = rt_t(&t, "[n]", "int64", NULL);
	a[0] = rt_s(&t, "reduction", "max");
	expect_error(&t, rt_run(&t, "NegativeLogLikelihoodLoss", NULL, 2, in, 1, a, 1, out),
	             "'reduction' must be none, mean or sum");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(loss_is_the_target_shape_without_reduction_else_a_scalar),
	    cmocka_unit_test(loss_property_holds_at_random_dims),
	    cmocka_unit_test(loss_errors_name_the_problem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
