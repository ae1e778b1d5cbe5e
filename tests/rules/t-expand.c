/* Expand and Tile rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void run2(rt *t, const char *op, const char *shape, const char *value, sym_tval *out)
{
	sym_tval in[2];
	in[0] = rt_t(t, shape, NULL, NULL);
	in[1] = rt_t(t, "[0]", "int64", value);
	in[1].dims[0] = sym_expr_from_si(t->ctx, (long long)in[1].nvalue);
	if (rt_run(t, op, NULL, 2, in, 0, NULL, 1, out) < 0)
		fail_msg("%s %s with %s: %s", op, shape, value, sym_ctx_last_message(t->ctx));
}

static void expand_onnx_examples(void **state)
{
	rt t;
	sym_tval out[1];
	(void)state;
	rt_init(&t, 1);
	run2(&t, "Expand", "[3, 1]", "[2, 1, 6]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 3, 6]");
	run2(&t, "Expand", "[3, 1]", "[3, 4]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 4]");
	/* a shape smaller than the input keeps the input's dims */
	run2(&t, "Expand", "[3, 4]", "[1]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 4]");
	run2(&t, "Expand", "[s0, 1]", "[s0, 1, 5]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, s0, 5]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void expand_of_unrelated_dims_is_exact_with_a_guard(void **state)
{
	rt t;
	sym_tval out[1], in[2];
	(void)state;
	rt_init(&t, 1);
	run2(&t, "Expand", "[a, 1]", "[b, c]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[max(a, b), c]");
	assert_string_equal(rt_guards(&t), "assert a == 1 || a == b || b == 1");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[4]");
	assert_int_equal(rt_run(&t, "Expand", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "broadcast"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[1]", "int64", NULL);
	assert_int_equal(rt_run(&t, "Expand", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "must be known"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[1]", "int64", "[-3]");
	assert_int_equal(rt_run(&t, "Expand", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "nonnegative"));
	rt_free(&t);
}

static void expand_and_tile_values(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1]", "int64", "[s0]");
	in[1] = rt_t(&t, "[1]", "int64", "[3]");
	assert_int_equal(rt_run(&t, "Expand", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[s0, s0, s0]");
	in[0] = rt_t(&t, "[2]", "int64", "[s0, 4]");
	in[1] = rt_t(&t, "[1]", "int64", "[2]");
	assert_int_equal(rt_run(&t, "Tile", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[4]");
	assert_string_equal(rt_value(&t, &out[0]), "[s0, 4, s0, 4]");
	in[0] = rt_t(&t, "[2, 1]", "int64", "[a, b]");
	in[1] = rt_t(&t, "[2]", "int64", "[2, 3]");
	assert_int_equal(rt_run(&t, "Expand", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 3]");
	assert_string_equal(rt_value(&t, &out[0]), "[a, a, a, b, b, b]");
	in[1] = rt_t(&t, "[2]", "int64", "[s1, 1]");
	assert_int_equal(rt_run(&t, "Tile", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2*s1, 1]");
	assert_string_equal(rt_value(&t, &out[0]), "none");
	rt_free(&t);
}

static void tile_onnx_examples_and_errors(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	run2(&t, "Tile", "[2, 2]", "[1, 2]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 4]");
	run2(&t, "Tile", "[2, 3, 4, 5]", "[7, 6, 4, 2]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[14, 18, 16, 10]");
	run2(&t, "Tile", "[s0, 3]", "[2, s1]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[2*s0, 3*s1]");
	run2(&t, "Tile", "[s0, 3]", "[0, 1]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[0, 3]");
	in[0] = rt_t(&t, "[2, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[2]");
	assert_int_equal(rt_run(&t, "Tile", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "1 repeats for rank 2"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2]", "int64", "[2, -1]");
	assert_int_equal(rt_run(&t, "Tile", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "nonnegative"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "Tile", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "required"));
	rt_free(&t);
}

static void expand_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 1, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[4]", "int64", "[2, b, c, 1]");
	rt_property(&t, "Expand", NULL, 2, in, 0, NULL, 1, 300, 1, 3);
	rt_free(&t);
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a, 1]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[b, c]");
	rt_property(&t, "Expand", NULL, 2, in, 0, NULL, 1, 300, 0, 3);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[b, c - 2]");
	rt_property(&t, "Tile", NULL, 2, in, 0, NULL, 1, 300, 1, 5);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2]", "int64", "[a, b]");
	in[1] = rt_t(&t, "[1]", "int64", "[3]");
	rt_property(&t, "Tile", NULL, 2, in, 0, NULL, 1, 50, 1, 5);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(expand_onnx_examples),
	    cmocka_unit_test(expand_of_unrelated_dims_is_exact_with_a_guard),
	    cmocka_unit_test(expand_and_tile_values),
	    cmocka_unit_test(tile_onnx_examples_and_errors),
	    cmocka_unit_test(expand_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
