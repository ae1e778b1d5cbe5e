/* Shape, Size, Constant, ConstantOfShape and Range rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void shape_gives_the_dims_as_its_value(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[batch, 3, (h + 1)//2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Shape", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3]");
	assert_string_equal(rt_value(&t, &out[0]), "[batch, 3, (h + 1)//2]");
	assert_int_equal(out[0].dtype, SYM_DT_INT64);
	rt_free(&t);
}

/* ONNX's Shape examples on a [3, 4, 5] input with start/end. */
static void shape_start_end_onnx_examples(void **state)
{
	static const struct {
		long long start, end;
		int has_start, has_end;
		const char *want;
	} v[] = {
	    {1, 0, 1, 0, "[4, 5]"},  {0, 1, 0, 1, "[3]"},         {-1, 0, 1, 0, "[5]"},
	    {0, -1, 0, 1, "[3, 4]"}, {-10, 0, 1, 0, "[3, 4, 5]"}, {0, 10, 0, 1, "[3, 4, 5]"},
	    {10, 0, 1, 0, "[]"},     {2, 1, 1, 1, "[]"},          {1, 2, 1, 1, "[4]"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rt t;
		sym_tval in[1], out[1];
		sym_attr a[2];
		size_t na = 0;
		rt_init(&t, 1);
		in[0] = rt_t(&t, "[3, 4, 5]", NULL, NULL);
		if (v[i].has_start)
			a[na++] = rt_i(&t, "start", v[i].start);
		if (v[i].has_end)
			a[na++] = rt_i(&t, "end", v[i].end);
		assert_int_equal(rt_run(&t, "Shape", NULL, 1, in, na, a, 1, out), 0);
		assert_string_equal(rt_value(&t, &out[0]), v[i].want);
		rt_free(&t);
	}
}

static void shape_and_size_of_unknown_rank(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "Shape", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "unknown rank"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "Size", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "none");
	rt_free(&t);
}

static void size_is_the_element_count(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3, 4, 5]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Size", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[60]");
	in[0] = rt_t(&t, "[s0, 4, s1]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Size", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[4*s0*s1]");
	rt_free(&t);
}

static sym_attr tensor_attr(rt *t, const char *name, const char *shape, const char *dtype, const char *value)
{
	sym_attr a;
	sym_tval *v = sym__infer_alloc(&t->inf, sizeof(*v));
	*v = rt_t(t, shape, dtype, value);
	memset(&a, 0, sizeof(a));
	a.name = name, a.type = SYM_ATTR_TENSOR, a.n = 1, a.tensor = v;
	return a;
}

static void constant_carries_its_integer_and_float_data(void **state)
{
	rt t;
	sym_tval out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = tensor_attr(&t, "value", "[2, 2]", "int64", "[1, 2, 3, 4]");
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2]");
	assert_string_equal(rt_value(&t, &out[0]), "[1, 2, 3, 4]");
	assert_int_equal(out[0].dtype, SYM_DT_INT64);
	a[0] = tensor_attr(&t, "value", "[5, 5]", "float32", NULL);
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[5, 5]");
	assert_string_equal(rt_value(&t, &out[0]), "none");
	a[0] = rt_i(&t, "value_int", 7);
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[7]");
	a[0] = rt_is(&t, "value_ints", "[0, -1, 64]");
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3]");
	assert_string_equal(rt_value(&t, &out[0]), "[0, -1, 64]");
	a[0] = rt_fs(&t, "value_floats", "[0.5, 1.5]");
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	/* float numbers are carried exactly, as the float32 numbers they are */
	assert_string_equal(rt_value(&t, &out[0]), "[1/2, 3/2]");
	a[0] = rt_f(&t, "value_float", 0.1);
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[13421773/134217728]");
	/* exactly one value attribute */
	a[1] = rt_i(&t, "value_int", 1);
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 2, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "exactly one"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 0, NULL, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	a[0] = tensor_attr(&t, "value", "[3]", "int64", "[1, 2]");
	assert_int_equal(rt_run(&t, "Constant", NULL, 0, NULL, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "elements"));
	rt_free(&t);
}

static void constant_of_shape_takes_the_input_value(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX example: shape [4, 3, 2], float zeros */
	in[0] = rt_t(&t, "[3]", "int64", "[4, 3, 2]");
	assert_int_equal(rt_run(&t, "ConstantOfShape", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[4, 3, 2]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	assert_string_equal(rt_value(&t, &out[0]), "none");
	/* int32 ones: the value is known when small */
	a[0] = tensor_attr(&t, "value", "[1]", "int32", "[1]");
	in[0] = rt_t(&t, "[2]", "int64", "[2, 3]");
	assert_int_equal(rt_run(&t, "ConstantOfShape", NULL, 1, in, 1, a, 1, out), 0);
	assert_int_equal(out[0].dtype, SYM_DT_INT32);
	assert_string_equal(rt_value(&t, &out[0]), "[1, 1, 1, 1, 1, 1]");
	/* symbolic dims */
	in[0] = rt_t(&t, "[2]", "int64", "[s0, 2*s1]");
	assert_int_equal(rt_run(&t, "ConstantOfShape", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0, 2*s1]");
	assert_string_equal(rt_value(&t, &out[0]), "none");
	/* an empty shape gives a scalar */
	in[0] = rt_t(&t, "[0]", "int64", "[]");
	assert_int_equal(rt_run(&t, "ConstantOfShape", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[1]");
	/* unknown value, negative dims */
	in[0] = rt_t(&t, "[2]", "int64", NULL);
	assert_int_equal(rt_run(&t, "ConstantOfShape", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "must be known"));
	sym_ctx_clear_error(t.ctx);
	in[0] = rt_t(&t, "[2]", "int64", "[2, -3]");
	assert_int_equal(rt_run(&t, "ConstantOfShape", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "nonnegative"));
	rt_free(&t);
}

static void run_range(rt *t, const char *start, const char *limit, const char *delta, sym_tval *out)
{
	sym_tval in[3];
	in[0] = rt_t(t, "[]", "int64", start);
	in[1] = rt_t(t, "[]", "int64", limit);
	in[2] = rt_t(t, "[]", "int64", delta);
	if (rt_run(t, "Range", NULL, 3, in, 0, NULL, 1, out) < 0)
		fail_msg("Range: %s", sym_ctx_last_message(t->ctx));
}

static void range_onnx_examples_and_symbolic_lengths(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	(void)state;
	rt_init(&t, 1);
	run_range(&t, "[3]", "[9]", "[3]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[2]");
	assert_string_equal(rt_value(&t, &out[0]), "[3, 6]");
	run_range(&t, "[10]", "[4]", "[-2]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[3]");
	assert_string_equal(rt_value(&t, &out[0]), "[10, 8, 6]");
	run_range(&t, "[10]", "[4]", "[2]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[0]");
	assert_string_equal(rt_value(&t, &out[0]), "[]");
	run_range(&t, "[0]", "[s0]", "[1]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[s0]");
	assert_string_equal(rt_value(&t, &out[0]), "none");
	run_range(&t, "[s0]", "[s0 + 3]", "[1]", out);
	assert_string_equal(rt_value(&t, &out[0]), "[s0, s0 + 1, s0 + 2]");
	run_range(&t, "[0]", "[s0]", "[2]", out);
	assert_string_equal(rt_shape(&t, &out[0]), "[(s0 + 1)//2]");
	assert_string_equal(rt_guards(&t), "");
	/* float ranges need known values; delta 0 is an error */
	in[0] = rt_t(&t, "[]", "float32", NULL);
	in[1] = rt_t(&t, "[]", "float32", NULL);
	in[2] = rt_t(&t, "[]", "float32", NULL);
	assert_int_equal(rt_run(&t, "Range", NULL, 3, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "must be known"));
	sym_ctx_clear_error(t.ctx);
	in[0] = rt_t(&t, "[]", "int64", "[1]");
	in[1] = rt_t(&t, "[]", "int64", "[5]");
	in[2] = rt_t(&t, "[]", "int64", "[0]");
	assert_int_equal(rt_run(&t, "Range", NULL, 3, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "zero"));
	sym_ctx_clear_error(t.ctx);
	in[2] = rt_t(&t, "[2]", "int64", "[1, 1]");
	assert_int_equal(rt_run(&t, "Range", NULL, 3, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "scalar"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "Range", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "required"));
	rt_free(&t);
}

static void range_with_a_symbolic_delta_guards_it_nonzero(void **state)
{
	rt t;
	sym_tval out[1];
	(void)state;
	rt_init(&t, 1);
	run_range(&t, "[0]", "[10]", "[s0 - 3]", out);
	assert_string_equal(rt_guards(&t), "assert s0 != 3");
	rt_free(&t);
}

static void property_range(const char *start, const char *limit, const char *delta, long long lo,
                           long long hi)
{
	rt t;
	sym_tval in[3];
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[]", "int64", start);
	in[1] = rt_t(&t, "[]", "int64", limit);
	in[2] = rt_t(&t, "[]", "int64", delta);
	rt_property(&t, "Range", NULL, 3, in, 0, NULL, 1, 300, lo, hi);
	rt_free(&t);
}

static void shapeops_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[1];
	sym_attr a[2];
	(void)state;
	property_range("[s0]", "[s1]", "[2]", 1, 9);
	property_range("[s0]", "[s1]", "[-3]", 1, 9);
	property_range("[s0]", "[s1]", "[s2]", 1, 6);
	property_range("[s0]", "[10]", "[s1 - 3]", 1, 6);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3, b, c]", NULL, NULL);
	a[0] = rt_i(&t, "start", 1);
	a[1] = rt_i(&t, "end", -1);
	rt_property(&t, "Shape", NULL, 1, in, 2, a, 1, 50, 1, 6);
	rt_property(&t, "Size", NULL, 1, in, 0, NULL, 1, 50, 1, 6);
	in[0] = rt_t(&t, "[2]", "int64", "[a, b]");
	a[0] = tensor_attr(&t, "value", "[1]", "int64", "[5]");
	rt_property(&t, "ConstantOfShape", NULL, 1, in, 1, a, 1, 100, 1, 6);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shape_gives_the_dims_as_its_value),
	    cmocka_unit_test(shape_start_end_onnx_examples),
	    cmocka_unit_test(shape_and_size_of_unknown_rank),
	    cmocka_unit_test(size_is_the_element_count),
	    cmocka_unit_test(constant_carries_its_integer_and_float_data),
	    cmocka_unit_test(constant_of_shape_takes_the_input_value),
	    cmocka_unit_test(range_onnx_examples_and_symbolic_lengths),
	    cmocka_unit_test(range_with_a_symbolic_delta_guards_it_nonzero),
	    cmocka_unit_test(shapeops_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
