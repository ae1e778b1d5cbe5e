/* Reduce*, ArgMax/ArgMin, TopK and CumSum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void reduce_keeps_or_drops_the_reduced_dims(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: data [3, 2, 2], axes [1] */
	in[0] = rt_t(&t, "[3, 2, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[1]");
	assert_int_equal(rt_run(&t, "ReduceSum", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 1, 2]");
	a[0] = rt_i(&t, "keepdims", 0);
	assert_int_equal(rt_run(&t, "ReduceMax", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 2]");
	/* no axes: every dim; noop_with_empty_axes: none */
	assert_int_equal(rt_run(&t, "ReduceL2", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 1, 1]");
	assert_int_equal(rt_run(&t, "ReduceLogSumExp", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	a[1] = rt_i(&t, "noop_with_empty_axes", 1);
	in[1] = rt_t(&t, "[0]", "int64", "[]");
	assert_int_equal(rt_run(&t, "ReduceSumSquare", NULL, 2, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 2, 2]");
	/* the axes attribute (before opset 18), negative axes */
	in[0] = rt_t(&t, "[b, s, h]", NULL, NULL);
	a[1] = rt_is(&t, "axes", "[0, -1]");
	assert_int_equal(rt_run(&t, "ReduceMean", NULL, 1, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[s]");
	assert_int_equal(rt_run(&t, "ReduceLogSum", NULL, 1, in, 1, &a[1], 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, s, 1]");
	assert_int_equal(rt_run(&t, "ReduceL1", NULL, 1, in, 1, &a[1], 1, out), 0);
	assert_string_equal(rt_guards(&t), "");
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "ReduceMin", NULL, 1, in, 1, &a[1], 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	rt_free(&t);
}

static void reduce_bad_axes_are_errors(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3, 2, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[1, -2]");
	assert_int_equal(rt_run(&t, "ReduceSum", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "repeated"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[1]", "int64", "[3]");
	assert_int_equal(rt_run(&t, "ReduceSum", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "axis 3 is out of range for rank 3"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[1]", "int64", NULL);
	assert_int_equal(rt_run(&t, "ReduceSum", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "must be known"));
	sym_ctx_clear_error(t.ctx);
	a[0] = rt_is(&t, "axes", "[-4]");
	assert_int_equal(rt_run(&t, "ReduceMean", NULL, 1, in, 1, a, 1, out), -1);
	rt_free(&t);
}

static void shape_then_reduce_prod_is_the_element_count(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", "int64", "[b, s, 768]");
	a[0] = rt_i(&t, "keepdims", 0);
	assert_int_equal(rt_run(&t, "ReduceProd", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[768*b*s]");
	assert_int_equal(rt_run(&t, "ReduceProd", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1]");
	assert_string_equal(rt_value(&t, &out[0]), "[768*b*s]");
	in[1] = rt_t(&t, "[1]", "int64", "[0]");
	assert_int_equal(rt_run(&t, "ReduceSum", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[b + s + 768]");
	assert_int_equal(rt_run(&t, "ReduceMax", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[max(768, b, s)]");
	assert_int_equal(rt_run(&t, "ReduceMin", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[min(768, b, s)]");
	assert_int_equal(rt_run(&t, "ReduceMean", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "none");
	/* empty products and sums */
	in[0] = rt_t(&t, "[0]", "int64", "[]");
	assert_int_equal(rt_run(&t, "ReduceProd", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[1]");
	assert_int_equal(rt_run(&t, "ReduceSum", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[0]");
	rt_free(&t);
}

static void reduce_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b, c]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[0, -1]");
	a[0] = rt_i(&t, "keepdims", 0);
	rt_property(&t, "ReduceSum", NULL, 2, in, 1, a, 1, 100, 1, 4);
	rt_property(&t, "ReduceMax", NULL, 2, in, 0, NULL, 1, 100, 1, 4);
	rt_free(&t);
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[3]", "int64", "[a, b, c]");
	a[0] = rt_i(&t, "keepdims", 0);
	rt_property(&t, "ReduceProd", NULL, 1, in, 1, a, 1, 100, 0, 4);
	rt_property(&t, "ReduceSum", NULL, 1, in, 0, NULL, 1, 100, 0, 4);
	rt_free(&t);
}

static void argmax_gives_int64_and_needs_a_nonempty_axis(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[3];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: [2, 2] on axis 1 */
	in[0] = rt_t(&t, "[2, 2]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "ArgMax", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 1]");
	assert_int_equal(out[0].dtype, SYM_DT_INT64);
	a[1] = rt_i(&t, "keepdims", 0);
	a[2] = rt_i(&t, "select_last_index", 1);
	assert_int_equal(rt_run(&t, "ArgMin", NULL, 1, in, 3, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2]");
	assert_int_equal(rt_run(&t, "ArgMin", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 2]");
	a[0] = rt_i(&t, "axis", -3);
	assert_int_equal(rt_run(&t, "ArgMax", NULL, 1, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "axis -3 is out of range"));
	sym_ctx_clear_error(t.ctx);
	in[0] = rt_t(&t, "[3, 0]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "ArgMax", NULL, 1, in, 1, a, 1, out), -1);
	rt_free(&t);
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 1);
	a[1] = rt_i(&t, "keepdims", 0);
	assert_int_equal(rt_run(&t, "ArgMax", NULL, 1, in, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[a]");
	assert_string_equal(rt_guards(&t), "assert b >= 1");
	rt_free(&t);
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 1);
	a[1] = rt_i(&t, "keepdims", 0);
	rt_property(&t, "ArgMax", NULL, 1, in, 2, a, 1, 100, 0, 3);
	rt_free(&t);
}

static void topk_takes_k_from_its_input(void **state)
{
	rt t;
	sym_tval in[2], out[2];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX example: X [3, 4], K = 3 */
	in[0] = rt_t(&t, "[3, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[3]");
	assert_int_equal(rt_run(&t, "TopK", NULL, 2, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 3]");
	assert_string_equal(rt_shape(&t, &out[1]), "[3, 3]");
	assert_int_equal(out[1].dtype, SYM_DT_INT64);
	in[1] = rt_t(&t, "[1]", "int64", "[5]");
	assert_int_equal(rt_run(&t, "TopK", NULL, 2, in, 0, NULL, 2, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "K <= the axis dim"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2]", "int64", "[1, 2]");
	assert_int_equal(rt_run(&t, "TopK", NULL, 2, in, 0, NULL, 2, out), -1);
	sym_ctx_clear_error(t.ctx);
	/* the opset-1 attribute */
	a[0] = rt_i(&t, "k", 2);
	assert_int_equal(rt_run(&t, "TopK", NULL, 1, in, 1, a, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 2]");
	assert_int_equal(rt_run(&t, "TopK", NULL, 1, in, 0, NULL, 2, out), -1);
	sym_ctx_clear_error(t.ctx);
	/* a symbolic K: guarded by the axis dim */
	in[0] = rt_t(&t, "[b, w]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[k]");
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "TopK", NULL, 2, in, 1, a, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, k]");
	assert_string_equal(rt_guards(&t), "assert k <= w");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, w]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[k]");
	rt_property(&t, "TopK", NULL, 2, in, 0, NULL, 2, 200, 1, 4);
	rt_free(&t);
}

static void topk_with_a_runtime_k_gets_a_ranged_fresh_symbol(void **state)
{
	rt t;
	sym_tval in[2], out[2];
	const sym_expr *u, *w;
	(void)state;
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[b, w]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", NULL);
	assert_int_equal(rt_run(&t, "TopK", NULL, 2, in, 0, NULL, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, u0]");
	assert_string_equal(rt_shape(&t, &out[1]), "[b, u0]");
	assert_string_equal(rt_guards(&t), "");
	u = sym_expr_symbol(t.ctx, "u0");
	w = sym_expr_symbol(t.ctx, "w");
	assert_int_equal(sym_prove(t.ctx, t.facts, sym_expr_rel(t.ctx, SYM_REL_LE, u, w)), SYM_TRUE);
	assert_int_equal(
	    sym_prove(t.ctx, t.facts, sym_expr_rel(t.ctx, SYM_REL_GE, u, sym_expr_from_si(t.ctx, 0))),
	    SYM_TRUE);
	assert_int_equal(
	    sym_prove(t.ctx, t.facts, sym_expr_rel(t.ctx, SYM_REL_GE, u, sym_expr_from_si(t.ctx, 1))),
	    SYM_UNKNOWN);
	rt_free(&t);
}

static void cumsum_keeps_the_shape(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, 5]", NULL, NULL);
	in[1] = rt_t(&t, "[]", "int32", "[-1]");
	assert_int_equal(rt_run(&t, "CumSum", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, 5]");
	in[1] = rt_t(&t, "[]", "int32", NULL);
	assert_int_equal(rt_run(&t, "CumSum", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, 5]");
	in[1] = rt_t(&t, "[]", "int32", "[2]");
	assert_int_equal(rt_run(&t, "CumSum", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "axis 2 is out of range"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[]", "int32", "[0]");
	rt_property(&t, "CumSum", NULL, 2, in, 0, NULL, 1, 50, 1, 4);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reduce_keeps_or_drops_the_reduced_dims),
	    cmocka_unit_test(reduce_bad_axes_are_errors),
	    cmocka_unit_test(shape_then_reduce_prod_is_the_element_count),
	    cmocka_unit_test(reduce_property_holds_at_random_dims),
	    cmocka_unit_test(argmax_gives_int64_and_needs_a_nonempty_axis),
	    cmocka_unit_test(topk_takes_k_from_its_input),
	    cmocka_unit_test(topk_with_a_runtime_k_gets_a_ranged_fresh_symbol),
	    cmocka_unit_test(cumsum_keeps_the_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
