/* Reshape and Flatten rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

/* Reshape of a concrete or symbolic input to a target value; checks the
 * shape and the guards. */
static void check_reshape(const char *shape, const char *target, long long allowzero, const char *want,
                          const char *guards)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	rt_init(&t, 1);
	in[0] = rt_t(&t, shape, NULL, NULL);
	in[1] = rt_t(&t, "[0]", "int64", target);
	in[1].dims[0] = sym_expr_from_si(t.ctx, (long long)in[1].nvalue);
	a[0] = rt_i(&t, "allowzero", allowzero);
	if (rt_run(&t, "Reshape", NULL, 2, in, 1, a, 1, out) < 0)
		fail_msg("Reshape %s to %s: %s", shape, target, sym_ctx_last_message(t.ctx));
	assert_string_equal(rt_shape(&t, &out[0]), want);
	assert_string_equal(rt_guards(&t), guards);
	rt_free(&t);
}

static void reshape_onnx_examples(void **state)
{
	(void)state;
	check_reshape("[2, 3, 4]", "[4, 2, 3]", 0, "[4, 2, 3]", "");
	check_reshape("[2, 3, 4]", "[2, 4, 3]", 0, "[2, 4, 3]", "");
	check_reshape("[2, 3, 4]", "[2, 12]", 0, "[2, 12]", "");
	check_reshape("[2, 3, 4]", "[2, 3, 2, 2]", 0, "[2, 3, 2, 2]", "");
	check_reshape("[2, 3, 4]", "[24]", 0, "[24]", "");
	check_reshape("[2, 3, 4]", "[2, -1, 2]", 0, "[2, 6, 2]", "");
	check_reshape("[2, 3, 4]", "[-1, 2, 3, 4]", 0, "[1, 2, 3, 4]", "");
	check_reshape("[2, 3, 4]", "[2, 0, 4, 1]", 0, "[2, 3, 4, 1]", "");
	check_reshape("[2, 3, 4]", "[2, 0, 1, -1]", 0, "[2, 3, 1, 4]", "");
	check_reshape("[2, 3, 4]", "[4, 0, -1]", 0, "[4, 3, 2]", "");
	check_reshape("[1, 1]", "[]", 0, "[]", "");
}

static void reshape_allowzero_keeps_a_zero_dim(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[0, 3, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "int64", "[3, 4, 0]");
	a[0] = rt_i(&t, "allowzero", 1);
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 4, 0]");
	/* without allowzero the 0 copies the input dim: 3 elements != 0 */
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "element count"));
	rt_free(&t);
}

static void reshape_of_a_transformer_head_split_is_exact(void **state)
{
	(void)state;
	check_reshape("[s0, s1, 768]", "[0, 0, 12, -1]", 0, "[s0, s1, 12, 64]", "");
	check_reshape("[s0, s1, 768]", "[-1, 64]", 0, "[12*s0*s1, 64]", "");
	check_reshape("[s0, 7]", "[-1, 2]", 0, "[7*s0/2, 2]", "assert s0 % 2 == 0");
}

static void reshape_divisibility_is_guarded_only_when_not_provable(void **state)
{
	(void)state;
	check_reshape("[s0, 6]", "[-1, 4]", 0, "[3*s0/2, 4]", "assert s0 % 2 == 0");
	check_reshape("[2*s0, 6]", "[-1, 4]", 0, "[3*s0, 4]", "");
	check_reshape("[s0, s1]", "[-1, 3]", 0, "[s0*s1/3, 3]", "assert s0*s1 % 3 == 0");
	check_reshape("[s0, s1, 4]", "[s1, -1]", 0, "[s1, 4*s0]", "");
	check_reshape("[s0, s1]", "[s1, s0]", 0, "[s1, s0]", "");
	check_reshape("[s0, s1]", "[s1, 2]", 0, "[s1, 2]", "assert s0 == 2");
}

/* A symbolic target dim that is the input's own dim at that position is
 * that dim whether the runtime reads it as 0 (copy) or as a size, so it
 * needs no guard even where dims may be 0; another symbolic dim is taken
 * as a size (an expect guard). */
static void reshape_target_equal_to_the_input_dim_needs_no_size_guard(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a, b, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "int64", "[a, b, 4]");
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[a, b, 4]");
	assert_string_equal(rt_guards(&t), "");
	in[1] = rt_t(&t, "[3]", "int64", "[b, a, 4]");
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, a, 4]");
	assert_string_equal(rt_guards(&t), "expect b >= 1; expect a >= 1");
	rt_free(&t);
}

static void reshape_symbolic_target_from_a_shape_chain(void **state)
{
	rt t;
	sym_tval x, s[1], c[2], r[2], out[1], cat[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	x = rt_t(&t, "[s0, s1, 768]", NULL, NULL);
	/* Shape(end=2) gives [s0, s1] */
	a[0] = rt_i(&t, "end", 2);
	assert_int_equal(rt_run(&t, "Shape", NULL, 1, &x, 1, a, 1, s), 0);
	assert_string_equal(rt_value(&t, &s[0]), "[s0, s1]");
	/* Concat with the constant [12, 64] */
	c[0] = s[0];
	c[1] = rt_t(&t, "[2]", "int64", "[12, 64]");
	a[1] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Concat", NULL, 2, c, 1, &a[1], 1, cat), 0);
	assert_string_equal(rt_shape(&t, &cat[0]), "[4]");
	assert_string_equal(rt_value(&t, &cat[0]), "[s0, s1, 12, 64]");
	r[0] = x;
	r[1] = cat[0];
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, r, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, s1, 12, 64]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void reshape_shape_attribute_before_opset_5(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[s0, 4]", NULL, NULL);
	a[0] = rt_is(&t, "shape", "[2, -1]");
	assert_int_equal(sym__rule_run(&t.inf, "", "Reshape", "n0", 4, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2*s0]");
	rt_free(&t);
}

static void reshape_values_pass_through(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2]", "int64", "[s0, s1]");
	in[1] = rt_t(&t, "[2]", "int64", "[1, 2]");
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 2]");
	assert_string_equal(rt_value(&t, &out[0]), "[s0, s1]");
	rt_free(&t);
}

static void expect_error(const char *shape, const char *target, const char *msg)
{
	rt t;
	sym_tval in[2], out[1];
	rt_init(&t, 1);
	in[0] = rt_t(&t, shape, NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", target);
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), -1);
	if (!strstr(sym_ctx_last_message(t.ctx), msg))
		fail_msg("Reshape %s to %s: '%s' lacks '%s'", shape, target, sym_ctx_last_message(t.ctx),
		         msg);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "node 'n0' (Reshape)"));
	rt_free(&t);
}

static void reshape_bad_targets_are_errors(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	expect_error("[2, 3, 4]", "[-1, -1]", "two -1");
	expect_error("[2, 3, 4]", "[5, -1]", "divisible");
	expect_error("[2, 3, 4]", "[5, 5]", "element count");
	expect_error("[2, 3, 4]", "[-2, 12]", "only -1");
	expect_error("[2, 3]", "[1, 2, 0, 3]", "copy");
	expect_error("*", "[0, 4]", "unknown rank");
	expect_error("[s0, 7]", "[-1, 2, 0]", "copy");
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 3]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Reshape", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "required"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2]", "int64", NULL);
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "must be known"));
	rt_free(&t);
}

static void reshape_of_unknown_rank_with_a_plain_target(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "*", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[s0, 4]");
	assert_int_equal(rt_run(&t, "Reshape", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, 4]");
	rt_free(&t);
}

static void property(const char *shape, const char *target, long long allowzero, long long dim_min)
{
	rt t;
	sym_tval in[2];
	sym_attr a[1];
	rt_init(&t, dim_min);
	in[0] = rt_t(&t, shape, NULL, NULL);
	in[1] = rt_t(&t, "[0]", "int64", target);
	in[1].dims[0] = sym_expr_from_si(t.ctx, (long long)in[1].nvalue);
	a[0] = rt_i(&t, "allowzero", allowzero);
	rt_property(&t, "Reshape", NULL, 2, in, 1, a, 1, 300, dim_min, 6);
	rt_free(&t);
}

static void reshape_property_holds_at_random_dims(void **state)
{
	(void)state;
	property("[s0, 7]", "[-1, 2]", 0, 1);
	property("[s0, s1, 6]", "[0, -1, 4]", 0, 1);
	property("[s0, s1]", "[-1, 3]", 0, 1);
	property("[s0, s1]", "[s1, 2, -1]", 0, 1);
	property("[s0, s1, s2]", "[s1, 6]", 0, 1);
	property("[s0, 4]", "[2, 0, -1]", 0, 1);
	property("[s0, s1]", "[0, -1]", 0, 0);
	property("[s0, s1]", "[s1, s0]", 1, 0);
}

static void flatten_onnx_examples(void **state)
{
	static const char *const want[] = {"[1, 120]", "[2, 60]", "[6, 20]", "[24, 5]", "[120, 1]"};
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[1];
	int k;
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 3, 4, 5]", NULL, NULL);
	for (k = 0; k <= 4; k++) {
		a[0] = rt_i(&t, "axis", k);
		assert_int_equal(rt_run(&t, "Flatten", NULL, 1, in, 1, a, 1, out), 0);
		assert_string_equal(rt_shape(&t, &out[0]), want[k]);
		if (k == 4)
			continue;
		a[0] = rt_i(&t, "axis", k - 4);
		assert_int_equal(rt_run(&t, "Flatten", NULL, 1, in, 1, a, 1, out), 0);
		assert_string_equal(rt_shape(&t, &out[0]), want[k]);
	}
	assert_int_equal(rt_run(&t, "Flatten", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 60]");
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 2);
	assert_int_equal(rt_run(&t, "Flatten", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[c*n, h*w]");
	a[0] = rt_i(&t, "axis", 5);
	assert_int_equal(rt_run(&t, "Flatten", NULL, 1, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "out of range"));
	rt_free(&t);
}

static void flatten_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3, b]", NULL, NULL);
	a[0] = rt_i(&t, "axis", -1);
	rt_property(&t, "Flatten", NULL, 1, in, 1, a, 1, 100, 1, 6);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reshape_onnx_examples),
	    cmocka_unit_test(reshape_allowzero_keeps_a_zero_dim),
	    cmocka_unit_test(reshape_of_a_transformer_head_split_is_exact),
	    cmocka_unit_test(reshape_divisibility_is_guarded_only_when_not_provable),
	    cmocka_unit_test(reshape_symbolic_target_from_a_shape_chain),
	    cmocka_unit_test(reshape_target_equal_to_the_input_dim_needs_no_size_guard),
	    cmocka_unit_test(reshape_shape_attribute_before_opset_5),
	    cmocka_unit_test(reshape_values_pass_through),
	    cmocka_unit_test(reshape_bad_targets_are_errors),
	    cmocka_unit_test(reshape_of_unknown_rank_with_a_plain_target),
	    cmocka_unit_test(reshape_property_holds_at_random_dims),
	    cmocka_unit_test(flatten_onnx_examples),
	    cmocka_unit_test(flatten_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
