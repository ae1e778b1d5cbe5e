/* Concat, Split, Pack and Unpack rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void concat_onnx_examples(void **state)
{
	static const struct {
		const char *a, *b;
		long long axis;
		const char *want;
	} v[] = {
	    {"[2]", "[2]", 0, "[4]"},
	    {"[2, 2]", "[2, 2]", 0, "[4, 2]"},
	    {"[2, 2]", "[2, 2]", 1, "[2, 4]"},
	    {"[2, 2, 2]", "[2, 2, 2]", 2, "[2, 2, 4]"},
	    {"[2, 2, 2]", "[2, 2, 2]", -1, "[2, 2, 4]"},
	    {"[2, 3]", "[2, 0]", 1, "[2, 3]"},
	    {"[s0, 8]", "[s1, 8]", 0, "[s0 + s1, 8]"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rt t;
		sym_tval in[2], out[1];
		sym_attr a[1];
		rt_init(&t, 0);
		in[0] = rt_t(&t, v[i].a, NULL, NULL);
		in[1] = rt_t(&t, v[i].b, NULL, NULL);
		a[0] = rt_i(&t, "axis", v[i].axis);
		assert_int_equal(rt_run(&t, "Concat", NULL, 2, in, 1, a, 1, out), 0);
		assert_string_equal(rt_shape(&t, &out[0]), v[i].want);
		assert_string_equal(rt_guards(&t), "");
		rt_free(&t);
	}
}

static void concat_off_axis_dims_are_guarded_equal(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[a, c, 4]", NULL, NULL);
	in[2] = rt_t(&t, "[d, 2, 4]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 2);
	assert_int_equal(rt_run(&t, "Concat", NULL, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[a, 2, 12]");
	assert_string_equal(rt_guards(&t), "assert b == c; assert a == d; assert b == 2");
	rt_free(&t);
}

static void concat_joins_symbolic_values(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[1]", "int64", "[s0]");
	in[1] = rt_t(&t, "[2]", "int64", "[s1//2, 3]");
	in[2] = rt_t(&t, "[1]", "int64", "[-1]");
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Concat", NULL, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[4]");
	assert_string_equal(rt_value(&t, &out[0]), "[s0, s1//2, 3, -1]");
	rt_free(&t);
}

static void concat_errors(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 4]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Concat", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "agree off the axis"));
	sym_ctx_clear_error(t.ctx);
	a[0] = rt_i(&t, "axis", 2);
	assert_int_equal(rt_run(&t, "Concat", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "out of range"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "Concat", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "'axis' is required"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Concat", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "rank"));
	rt_free(&t);
}

/* Split of shape along axis into nout outputs; attrs as given; want is the
 * outputs' shapes joined by spaces. */
static void check_split(const char *shape, const char *split, long long axis, long long num_outputs,
                        size_t nout, const char *want, const char *guards)
{
	rt t;
	sym_tval in[2], out[8];
	sym_attr a[2];
	size_t na = 0, nin = 1, i;
	char got[256] = "";
	rt_init(&t, 0);
	in[0] = rt_t(&t, shape, NULL, NULL);
	if (split) {
		in[1] = rt_t(&t, "[0]", "int64", split);
		in[1].dims[0] = sym_expr_from_si(t.ctx, (long long)in[1].nvalue);
		nin = 2;
	}
	a[na++] = rt_i(&t, "axis", axis);
	if (num_outputs)
		a[na++] = rt_i(&t, "num_outputs", num_outputs);
	if (rt_run(&t, "Split", NULL, nin, in, na, a, nout, out) < 0)
		fail_msg("Split %s: %s", shape, sym_ctx_last_message(t.ctx));
	for (i = 0; i < nout; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
		         rt_shape(&t, &out[i]));
	assert_string_equal(got, want);
	assert_string_equal(rt_guards(&t), guards);
	rt_free(&t);
}

static void split_onnx_examples(void **state)
{
	(void)state;
	check_split("[6]", NULL, 0, 0, 3, "[2] [2] [2]", "");
	check_split("[6]", "[2, 4]", 0, 0, 2, "[2] [4]", "");
	check_split("[2, 6]", NULL, 1, 0, 2, "[2, 3] [2, 3]", "");
	check_split("[2, 6]", "[2, 4]", 1, 0, 2, "[2, 2] [2, 4]", "");
	check_split("[2, 6]", "[2, 4]", -1, 0, 2, "[2, 2] [2, 4]", "");
	check_split("[7]", NULL, 0, 4, 4, "[2] [2] [2] [1]", "");
	check_split("[2, 8]", NULL, 1, 3, 3, "[2, 3] [2, 3] [2, 2]", "");
	check_split("[6]", NULL, 0, 3, 3, "[2] [2] [2]", "");
	check_split("[0]", "[0, 0, 0]", 0, 0, 3, "[0] [0] [0]", "");
}

static void split_symbolic_dims(void **state)
{
	(void)state;
	check_split("[s0, 4]", NULL, 0, 0, 2, "[s0/2, 4] [s0/2, 4]", "assert s0 % 2 == 0");
	check_split("[2*s0, 4]", NULL, 0, 0, 2, "[s0, 4] [s0, 4]", "");
	check_split("[s0, 4]", "[s1, 2]", 0, 0, 2, "[s1, 4] [2, 4]", "assert s0 == s1 + 2");
	check_split("[s0]", NULL, 0, 2, 2, "[(s0 + 1)//2] [s0//2]", "assert s0 >= 2");
}

static void split_errors(void **state)
{
	rt t;
	sym_tval in[2], out[3];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[7]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Split", NULL, 1, in, 0, NULL, 2, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "equal parts"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2]", "int64", "[3, 3]");
	assert_int_equal(rt_run(&t, "Split", NULL, 2, in, 0, NULL, 2, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "add up"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2]", "int64", "[8, -1]");
	assert_int_equal(rt_run(&t, "Split", NULL, 2, in, 0, NULL, 2, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "nonnegative"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "Split", NULL, 2, in, 0, NULL, 3, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "2 split sizes for 3 outputs"));
	sym_ctx_clear_error(t.ctx);
	a[0] = rt_i(&t, "num_outputs", 3);
	assert_int_equal(rt_run(&t, "Split", NULL, 1, in, 1, a, 2, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "num_outputs is 3"));
	sym_ctx_clear_error(t.ctx);
	/* 5 into 4: chunks of 2 leave nothing for the last */
	in[0] = rt_t(&t, "[5]", NULL, NULL);
	a[0] = rt_i(&t, "num_outputs", 3);
	a[1] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Split", NULL, 1, in, 2, a, 3, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "out of range"));
	sym_ctx_clear_error(t.ctx);
	in[0] = rt_t(&t, "[4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Split", NULL, 1, in, 1, a, 3, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "last chunk"));
	rt_free(&t);
}

static void split_cuts_symbolic_values(void **state)
{
	rt t;
	sym_tval in[2], out[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", "int64", "[s0, s1, 768]");
	in[1] = rt_t(&t, "[2]", "int64", "[2, 1]");
	assert_int_equal(rt_run(&t, "Split", NULL, 2, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[s0, s1]");
	assert_string_equal(rt_value(&t, &out[1]), "[768]");
	rt_free(&t);
}

static void pack_stacks_equal_shapes_on_a_new_axis(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[s0, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[s0, 3]", NULL, NULL);
	in[2] = rt_t(&t, "[s1, 3]", NULL, NULL);
	a[0] = rt_i(&t, "N", 3);
	a[1] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Pack", "cann", 3, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, 3, 3]");
	assert_string_equal(rt_guards(&t), "assert s0 == s1");
	a[1] = rt_i(&t, "axis", -1);
	assert_int_equal(rt_run(&t, "Pack", "cann", 3, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, 3, 3]");
	a[1] = rt_i(&t, "axis", 3);
	assert_int_equal(rt_run(&t, "Pack", "cann", 3, in, 2, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "out of range"));
	sym_ctx_clear_error(t.ctx);
	a[1] = rt_i(&t, "axis", 0);
	a[0] = rt_i(&t, "N", 2);
	assert_int_equal(rt_run(&t, "Pack", "cann", 3, in, 2, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "N is 2"));
	sym_ctx_clear_error(t.ctx);
	/* scalars with values stack into a vector */
	in[0] = rt_t(&t, "[]", "int64", "[s0]");
	in[1] = rt_t(&t, "[]", "int64", "[4]");
	assert_int_equal(rt_run(&t, "Pack", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2]");
	assert_string_equal(rt_value(&t, &out[0]), "[s0, 4]");
	rt_free(&t);
}

static void unpack_removes_the_axis(void **state)
{
	rt t;
	sym_tval in[1], out[3];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[s0, 3, s1]", NULL, NULL);
	a[0] = rt_i(&t, "num", 3);
	a[1] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Unpack", "cann", 1, in, 2, a, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, s1]");
	assert_string_equal(rt_shape(&t, &out[2]), "[s0, s1]");
	assert_string_equal(rt_guards(&t), "");
	a[1] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "Unpack", "cann", 1, in, 2, a, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[1]), "[3, s1]");
	assert_string_equal(rt_guards(&t), "assert s0 == 3");
	a[1] = rt_i(&t, "axis", 3);
	assert_int_equal(rt_run(&t, "Unpack", "cann", 1, in, 2, a, 3, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "out of range"));
	sym_ctx_clear_error(t.ctx);
	a[1] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Unpack", "cann", 1, in, 2, a, 2, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "num is 3"));
	sym_ctx_clear_error(t.ctx);
	in[0] = rt_t(&t, "[2]", "int64", "[u, 7]");
	assert_int_equal(rt_run(&t, "Unpack", NULL, 1, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[1]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[u]");
	assert_string_equal(rt_value(&t, &out[1]), "[7]");
	rt_free(&t);
}

static void concat_family_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[3];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	in[1] = rt_t(&t, "[c, 3]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 0);
	rt_property(&t, "Concat", NULL, 2, in, 1, a, 1, 200, 1, 4);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "axis", 0);
	in[0] = rt_t(&t, "[2]", "int64", "[a, b]");
	in[1] = rt_t(&t, "[1]", "int64", "[c]");
	rt_property(&t, "Concat", NULL, 2, in, 1, a, 1, 50, 1, 6);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "axis", 0);
	in[0] = rt_t(&t, "[a, 6]", NULL, NULL);
	rt_property(&t, "Split", NULL, 1, in, 1, a, 3, 200, 1, 9);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "axis", 0);
	in[0] = rt_t(&t, "[a, 6]", NULL, NULL);
	a[1] = rt_i(&t, "num_outputs", 3);
	rt_property(&t, "Split", NULL, 1, in, 2, a, 3, 200, 1, 12);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "axis", 0);
	in[0] = rt_t(&t, "[a, 6]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "int64", "[b, 2, c]");
	rt_property(&t, "Split", NULL, 2, in, 1, a, 3, 300, 1, 6);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[b, c]", NULL, NULL);
	a[0] = rt_i(&t, "axis", -1);
	rt_property(&t, "Pack", "cann", 2, in, 1, a, 1, 200, 1, 4);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 1);
	rt_property(&t, "Unpack", "cann", 1, in, 1, a, 3, 100, 1, 4);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(concat_onnx_examples),
	    cmocka_unit_test(concat_off_axis_dims_are_guarded_equal),
	    cmocka_unit_test(concat_joins_symbolic_values),
	    cmocka_unit_test(concat_errors),
	    cmocka_unit_test(split_onnx_examples),
	    cmocka_unit_test(split_symbolic_dims),
	    cmocka_unit_test(split_errors),
	    cmocka_unit_test(split_cuts_symbolic_values),
	    cmocka_unit_test(pack_stacks_equal_shapes_on_a_new_axis),
	    cmocka_unit_test(unpack_removes_the_axis),
	    cmocka_unit_test(concat_family_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
