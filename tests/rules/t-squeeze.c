/* Squeeze and Unsqueeze rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

/* Runs op on shape with axes as an input (opset 13) and as an attribute
 * (opset 11); both must give want. */
static void check(const char *op, const char *shape, const char *axes, const char *want)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	rt_init(&t, 1);
	in[0] = rt_t(&t, shape, NULL, NULL);
	in[1] = rt_t(&t, "[0]", "int64", axes);
	in[1].dims[0] = sym_expr_from_si(t.ctx, (long long)in[1].nvalue);
	if (sym__rule_run(&t.inf, "", op, "n0", 13, 2, in, 0, NULL, 1, out) < 0)
		fail_msg("%s %s axes %s: %s", op, shape, axes, sym_ctx_last_message(t.ctx));
	assert_string_equal(rt_shape(&t, &out[0]), want);
	a[0] = rt_is(&t, "axes", axes);
	if (sym__rule_run(&t.inf, "", op, "n0", 11, 1, in, 1, a, 1, out) < 0)
		fail_msg("%s %s axes %s (attribute): %s", op, shape, axes, sym_ctx_last_message(t.ctx));
	assert_string_equal(rt_shape(&t, &out[0]), want);
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void check_error(const char *op, const char *shape, const char *axes, const char *msg)
{
	rt t;
	sym_tval in[2], out[1];
	rt_init(&t, 1);
	in[0] = rt_t(&t, shape, NULL, NULL);
	in[1] = rt_t(&t, "[0]", "int64", axes);
	in[1].dims[0] = sym_expr_from_si(t.ctx, (long long)in[1].nvalue);
	assert_int_equal(rt_run(&t, op, NULL, 2, in, 0, NULL, 1, out), -1);
	if (!strstr(sym_ctx_last_message(t.ctx), msg))
		fail_msg("%s %s axes %s: '%s' lacks '%s'", op, shape, axes, sym_ctx_last_message(t.ctx), msg);
	rt_free(&t);
}

static void squeeze_onnx_examples(void **state)
{
	(void)state;
	check("Squeeze", "[1, 3, 4, 5]", "[0]", "[3, 4, 5]");
	check("Squeeze", "[1, 3, 1, 5]", "[-2]", "[1, 3, 5]");
	check("Squeeze", "[1, s0, 1]", "[0, 2]", "[s0]");
	check("Squeeze", "[1]", "[0]", "[]");
	check("Squeeze", "[1, 3, 1]", "[]", "[1, 3, 1]");
}

static void unsqueeze_onnx_examples(void **state)
{
	(void)state;
	check("Unsqueeze", "[3, 4, 5]", "[0]", "[1, 3, 4, 5]");
	check("Unsqueeze", "[3, 4, 5]", "[2, 4]", "[3, 4, 1, 5, 1]");
	check("Unsqueeze", "[3, 4, 5]", "[0, 4]", "[1, 3, 4, 5, 1]");
	check("Unsqueeze", "[3, 4, 5]", "[5, 4, 2]", "[3, 4, 1, 5, 1, 1]");
	check("Unsqueeze", "[1, 3, 1, 5]", "[-2]", "[1, 3, 1, 1, 5]");
	check("Unsqueeze", "[]", "[0]", "[1]");
	check("Unsqueeze", "[s0, s1]", "[-1, 1]", "[s0, 1, s1, 1]");
}

static void squeeze_without_axes_removes_every_dim_equal_to_1(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 3, 1, 5]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Squeeze", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 5]");
	in[0] = rt_t(&t, "[1, s0 + 1, s1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Squeeze", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "cannot tell whether dim s1 is 1"));
	rt_free(&t);
	/* a hint decides, recorded as an expect guard */
	rt_init(&t, 1);
	sym__infer_add_hint(&t.inf, sym_expr_symbol(t.ctx, "s1"), 1);
	sym__infer_add_hint(&t.inf, sym_expr_symbol(t.ctx, "s2"), 4);
	in[0] = rt_t(&t, "[1, s2, s1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Squeeze", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s2]");
	assert_string_equal(rt_guards(&t), "expect s2 != 1; expect s1 == 1");
	rt_free(&t);
}

static void squeezing_a_symbolic_dim_is_guarded(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[s0, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[0]");
	assert_int_equal(rt_run(&t, "Squeeze", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3]");
	assert_string_equal(rt_guards(&t), "assert s0 == 1");
	rt_free(&t);
}

static void squeeze_and_unsqueeze_errors(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	check_error("Squeeze", "[1, 3]", "[1]", "must be 1");
	check_error("Squeeze", "[1, 3]", "[2]", "out of range");
	check_error("Squeeze", "[1, 1]", "[0, -2]", "repeated");
	check_error("Unsqueeze", "[3, 4]", "[3]", "out of range");
	check_error("Unsqueeze", "[3, 4]", "[1, 1]", "repeated");
	check_error("Unsqueeze", "[3, 4]", "[-4]", "out of range");
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Unsqueeze", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "axes"));
	rt_free(&t);
}

static void values_propagate_through_squeeze_and_unsqueeze(void **state)
{
	rt t;
	sym_tval in[2], out[1], mid[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[]", "int64", "[s0]");
	in[1] = rt_t(&t, "[1]", "int64", "[0]");
	assert_int_equal(rt_run(&t, "Unsqueeze", NULL, 2, in, 0, NULL, 1, mid), 0);
	assert_string_equal(rt_shape(&t, &mid[0]), "[1]");
	assert_string_equal(rt_value(&t, &mid[0]), "[s0]");
	assert_int_equal(mid[0].dtype, SYM_DT_INT64);
	in[0] = mid[0];
	assert_int_equal(rt_run(&t, "Squeeze", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[s0]");
	/* unknown rank passes through */
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "Unsqueeze", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	rt_free(&t);
}

static void squeeze_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3, b, 1]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[0, -2]");
	rt_property(&t, "Squeeze", NULL, 2, in, 0, NULL, 1, 200, 1, 3);
	rt_free(&t);
	/* a fresh session: the guards above are facts of the old one */
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3, b, 1]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[-1, 1]");
	rt_property(&t, "Unsqueeze", NULL, 2, in, 0, NULL, 1, 50, 1, 6);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1, 3, 1]", NULL, NULL);
	rt_property(&t, "Squeeze", NULL, 1, in, 0, NULL, 1, 10, 1, 6);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(squeeze_onnx_examples),
	    cmocka_unit_test(unsqueeze_onnx_examples),
	    cmocka_unit_test(squeeze_without_axes_removes_every_dim_equal_to_1),
	    cmocka_unit_test(squeezing_a_symbolic_dim_is_guarded),
	    cmocka_unit_test(squeeze_and_unsqueeze_errors),
	    cmocka_unit_test(values_propagate_through_squeeze_and_unsqueeze),
	    cmocka_unit_test(squeeze_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
