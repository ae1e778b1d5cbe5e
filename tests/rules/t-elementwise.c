/* Elementwise and broadcasting rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void unary_keeps_shape_and_unknown_rank(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[batch, 3, (h + 1)//2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Relu", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[batch, 3, (h + 1)//2]");
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "IsFinite", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	assert_int_equal(out[0].dtype, SYM_DT_BOOL);
	rt_free(&t);
}

static void broadcast_of_unrelated_dims_is_exact_with_an_assert_guard(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 1, 5]", NULL, NULL);
	in[1] = rt_t(&t, "[b, c, 1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Add", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[max(a, b), c, 5]");
	assert_string_equal(rt_guards(&t), "assert a == 1 || a == b || b == 1");
	rt_free(&t);
}

static void broadcast_with_hints_takes_a_branch_as_an_expect_guard(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	sym__infer_add_hint(&t.inf, sym_expr_symbol(t.ctx, "a"), 8);
	sym__infer_add_hint(&t.inf, sym_expr_symbol(t.ctx, "b"), 8);
	in[0] = rt_t(&t, "[a, 1, 5]", NULL, NULL);
	in[1] = rt_t(&t, "[b, c, 1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Add", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[a, c, 5]");
	assert_string_equal(rt_guards(&t), "expect a == b");
	rt_free(&t);
}

static void broadcast_allowing_empty_dims_stays_exact(void **state)
{
	rt t;
	sym_tval in[2];
	(void)state;
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a, 1]", NULL, NULL);
	in[1] = rt_t(&t, "[b, 4]", NULL, NULL);
	rt_property(&t, "Mul", NULL, 2, in, 0, NULL, 1, 300, 0, 3);
	rt_free(&t);
}

static void broadcast_of_dims_at_least_one_is_their_max(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	/* dims may be 0 here: a and b alone keep the exact product, a + 1
	 * and b + 1 are bounded below by 1 and broadcast to their max */
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a + 1, a]", NULL, NULL);
	in[1] = rt_t(&t, "[b + 1, b]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Add", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[max(a, b) + 1, min(1, a, b)*max(a, b)]");
	rt_free(&t);
	/* a session of its own: the guards of the run above would stand */
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a + 1, a]", NULL, NULL);
	in[1] = rt_t(&t, "[b + 1, b]", NULL, NULL);
	rt_property(&t, "Add", NULL, 2, in, 0, NULL, 1, 300, 0, 3);
	rt_free(&t);
}

static void broadcast_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[3];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 1, 5]", NULL, NULL);
	in[1] = rt_t(&t, "[b, c, 1]", NULL, NULL);
	rt_property(&t, "Add", NULL, 2, in, 0, NULL, 1, 300, 1, 3);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[x]", "bool", NULL);
	in[1] = rt_t(&t, "[y, 1]", NULL, NULL);
	in[2] = rt_t(&t, "[1]", NULL, NULL);
	rt_property(&t, "Where", NULL, 3, in, 0, NULL, 1, 300, 1, 3);
	rt_free(&t);
}

static void shape_arithmetic_keeps_symbolic_values(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2]", "int64", "[s0, s1]");
	in[1] = rt_t(&t, "[]", "int64", "[2]");
	assert_int_equal(rt_run(&t, "Mul", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[2*s0, 2*s1]");
	assert_int_equal(rt_run(&t, "Div", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[s0//2, s1//2]");
	rt_free(&t);
}

static void integer_div_of_possibly_negative_values_is_guarded(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1]", "int64", "[s0 - 5]");
	in[1] = rt_t(&t, "[1]", "int64", "[2]");
	assert_int_equal(rt_run(&t, "Div", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[(s0 - 5)//2]");
	assert_string_equal(rt_guards(&t), "assert s0 >= 5");
	rt_free(&t);
}

static void incompatible_constant_dims_are_an_error(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", NULL, NULL);
	in[1] = rt_t(&t, "[4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Add", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "node 'n0' (Add)"));
	rt_free(&t);
}

static void variadic_max_without_inputs_is_an_error(void **state)
{
	static const char *const ops[] = {"Max", "Min", "Sum", "Mean"};
	rt t;
	sym_tval out[1];
	size_t i;
	(void)state;
	rt_init(&t, 1);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		assert_int_equal(rt_run(&t, ops[i], NULL, 0, NULL, 0, NULL, 1, out), -1);
		assert_non_null(strstr(sym_ctx_last_message(t.ctx), "input 0 is required"));
		assert_non_null(strstr(sym_ctx_last_message(t.ctx), ops[i]));
		sym_ctx_clear_error(t.ctx);
	}
	rt_free(&t);
}

static void trigonometric_and_activation_ops_keep_shape_and_type(void **state)
{
	static const char *const ops[] = {"Tan",
	                                  "Asin",
	                                  "Acos",
	                                  "Atan",
	                                  "Sinh",
	                                  "Cosh",
	                                  "Asinh",
	                                  "Acosh",
	                                  "Atanh",
	                                  "Celu",
	                                  "ThresholdedRelu",
	                                  "Shrink"};
	rt t;
	sym_tval in[1], out[1];
	size_t i;
	(void)state;
	rt_init(&t, 1);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		in[0] = rt_t(&t, "[n, 3, h//2]", "float16", NULL);
		assert_int_equal(rt_run(&t, ops[i], NULL, 1, in, 0, NULL, 1, out), 0);
		assert_string_equal(rt_shape(&t, &out[0]), "[n, 3, h//2]");
		assert_int_equal(out[0].dtype, SYM_DT_FLOAT16);
		in[0] = rt_t(&t, "*", NULL, NULL);
		assert_int_equal(rt_run(&t, ops[i], NULL, 1, in, 0, NULL, 1, out), 0);
		assert_string_equal(rt_shape(&t, &out[0]), "*");
	}
	rt_free(&t);
}

static void cast_like_takes_the_shape_of_input_0_and_the_type_of_input_1(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, 7]", "float32", NULL);
	in[1] = rt_t(&t, "[1]", "int8", NULL);
	assert_int_equal(rt_run(&t, "CastLike", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, 7]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_int_equal(rt_run(&t, "CastLike", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "input 1"));
	rt_free(&t);
}

static void old_opsets_are_read_only_where_the_operator_did_not_change(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	t.opset = 1;
	in[0] = rt_t(&t, "[n, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[n, 4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Softsign", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 4]");
	/* opset 1-6 Add broadcasts by its 'broadcast' and 'axis' attributes */
	t.opset = 6;
	assert_int_equal(rt_run(&t, "Add", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_string_equal(sym_ctx_last_message(t.ctx),
	                    "node 'n0' (Add): unsupported opset 6 (Add is read from opset 7)");
	sym_ctx_clear_error(t.ctx);
	t.opset = 5;
	assert_int_equal(rt_run(&t, "Cast", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "Cast is read from opset 6"));
	sym_ctx_clear_error(t.ctx);
	t.opset = 7;
	assert_int_equal(rt_run(&t, "Add", NULL, 2, in, 0, NULL, 1, out), 0);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unary_keeps_shape_and_unknown_rank),
	    cmocka_unit_test(broadcast_of_unrelated_dims_is_exact_with_an_assert_guard),
	    cmocka_unit_test(broadcast_with_hints_takes_a_branch_as_an_expect_guard),
	    cmocka_unit_test(broadcast_allowing_empty_dims_stays_exact),
	    cmocka_unit_test(broadcast_of_dims_at_least_one_is_their_max),
	    cmocka_unit_test(broadcast_property_holds_at_random_dims),
	    cmocka_unit_test(shape_arithmetic_keeps_symbolic_values),
	    cmocka_unit_test(integer_div_of_possibly_negative_values_is_guarded),
	    cmocka_unit_test(incompatible_constant_dims_are_an_error),
	    cmocka_unit_test(variadic_max_without_inputs_is_an_error),
	    cmocka_unit_test(trigonometric_and_activation_ops_keep_shape_and_type),
	    cmocka_unit_test(cast_like_takes_the_shape_of_input_0_and_the_type_of_input_1),
	    cmocka_unit_test(old_opsets_are_read_only_where_the_operator_did_not_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
