/* Gather, GatherElements, GatherND, ScatterND and ScatterElements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void gather_inserts_the_indices_shape_at_the_axis(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: data [3, 2], indices [2, 2], axis 0 -> [2, 2, 2] */
	in[0] = rt_t(&t, "[3, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 2]", "int64", "[0, 1, 1, 2]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2, 2]");
	/* data [3, 3], indices [1, 2], axis 1 -> [3, 1, 2] */
	in[0] = rt_t(&t, "[3, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[1, 2]", "int64", "[0, 2]");
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 1, 2]");
	/* symbolic dims, scalar indices drop the axis */
	in[0] = rt_t(&t, "[b, s, h]", NULL, NULL);
	in[1] = rt_t(&t, "[]", "int64", NULL);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, h]");
	in[1] = rt_t(&t, "[n, k]", "int64", NULL);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, n, k, h]");
	assert_string_equal(rt_guards(&t), "");
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	rt_free(&t);
}

static void shape_then_gather_gives_symbolic_dims(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", "int64", "[b, s, 768]");
	in[1] = rt_t(&t, "[]", "int64", "[-1]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[768]");
	in[1] = rt_t(&t, "[1]", "int64", "[0]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1]");
	assert_string_equal(rt_value(&t, &out[0]), "[b]");
	in[1] = rt_t(&t, "[2]", "int64", "[1, -3]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[s, b]");
	/* a 2-D value along axis 1 */
	in[0] = rt_t(&t, "[2, 2]", "int64", "[a, b, c, d]");
	in[1] = rt_t(&t, "[1]", "int64", "[1]");
	{
		sym_attr a[1];
		a[0] = rt_i(&t, "axis", 1);
		assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), 0);
	}
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 1]");
	assert_string_equal(rt_value(&t, &out[0]), "[b, d]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void gather_out_of_range_indices_are_errors_or_guards(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3]", "int64", "[b, s, h]");
	in[1] = rt_t(&t, "[]", "int64", "[3]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "index 3 is out of range"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[]", "int64", "[-4]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	/* a symbolic axis dim: an assert guard */
	in[0] = rt_t(&t, "[b, s]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[5, -7]");
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, 2]");
	assert_string_equal(rt_guards(&t), "assert s >= 7");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s]", NULL, NULL);
	in[1] = rt_t(&t, "[1]", "int64", "[i]");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_guards(&t), "assert i < b");
	rt_free(&t);
}

static void gather_bad_attributes_are_errors(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[3, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", NULL);
	a[0] = rt_i(&t, "axis", 2);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "axis 2 is out of range for rank 2"));
	sym_ctx_clear_error(t.ctx);
	a[0] = rt_s(&t, "axis", "one");
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "must be an integer"));
	sym_ctx_clear_error(t.ctx);
	in[0] = rt_t(&t, "[]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Gather", NULL, 2, in, 0, NULL, 1, out), -1);
	rt_free(&t);
}

static void gather_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b, c]", NULL, NULL);
	in[1] = rt_t(&t, "[i, j]", "int64", NULL);
	a[0] = rt_i(&t, "axis", -2);
	rt_property(&t, "Gather", NULL, 2, in, 1, a, 1, 200, 1, 4);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "int64", "[1, -3, 0]");
	a[0] = rt_i(&t, "axis", 1);
	rt_property(&t, "Gather", NULL, 2, in, 1, a, 1, 200, 1, 5);
	rt_free(&t);
	rt_init(&t, 0);
	in[0] = rt_t(&t, "[3]", "int64", "[a, b, c]");
	in[1] = rt_t(&t, "[2]", "int64", "[2, -3]");
	rt_property(&t, "Gather", NULL, 2, in, 0, NULL, 1, 200, 0, 5);
	rt_free(&t);
}

static void gather_elements_takes_the_indices_shape(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples: [2, 2] with [2, 2] on axis 1; [3, 3] with [2, 3] on axis 0 */
	in[0] = rt_t(&t, "[2, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 2]", "int64", "[0, 0, 1, 0]");
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "GatherElements", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2]");
	in[0] = rt_t(&t, "[3, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 3]", "int64", "[1, 2, 0, 2, 0, 0]");
	assert_int_equal(rt_run(&t, "GatherElements", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 3]");
	in[1] = rt_t(&t, "[2, 3]", "int64", "[1, 2, 0, 2, 3, 0]");
	assert_int_equal(rt_run(&t, "GatherElements", NULL, 2, in, 0, NULL, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	/* symbolic: indices dims outside the axis are bounded by the data's */
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	in[1] = rt_t(&t, "[c, d]", "int64", NULL);
	assert_int_equal(rt_run(&t, "GatherElements", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[c, d]");
	assert_string_equal(rt_guards(&t), "assert d <= b");
	in[1] = rt_t(&t, "[c]", "int64", NULL);
	assert_int_equal(rt_run(&t, "GatherElements", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "rank"));
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b, e]", NULL, NULL);
	in[1] = rt_t(&t, "[c, d, f]", "int64", NULL);
	a[0] = rt_i(&t, "axis", -2);
	rt_property(&t, "GatherElements", NULL, 2, in, 1, a, 1, 300, 1, 3);
	rt_free(&t);
}

static void gather_nd_follows_batch_dims(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX examples */
	in[0] = rt_t(&t, "[2, 2]", "int32", NULL);
	in[1] = rt_t(&t, "[2, 2]", "int64", "[0, 0, 1, 1]");
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2]");
	in[1] = rt_t(&t, "[2, 1]", "int64", "[1, 0]");
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2]");
	in[0] = rt_t(&t, "[2, 2, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 2]", "int64", "[0, 1, 1, 0]");
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2]");
	in[1] = rt_t(&t, "[2, 1, 2]", "int64", "[0, 1, 1, 0]");
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 1, 2]");
	a[0] = rt_i(&t, "batch_dims", 1);
	in[1] = rt_t(&t, "[2, 1]", "int64", "[1, 0]");
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 2]");
	/* symbolic */
	in[0] = rt_t(&t, "[n, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[m, k, 1]", "int64", NULL);
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[m, k, w]");
	assert_string_equal(rt_guards(&t), "assert m == n");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[x, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[y, 1]", "int64", NULL);
	a[0] = rt_i(&t, "batch_dims", 1);
	rt_property(&t, "GatherND", NULL, 2, in, 1, a, 1, 200, 1, 3);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[x, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[y, 2]", "int64", "[0, 1, 2, 3]");
	rt_property(&t, "GatherND", NULL, 2, in, 0, NULL, 1, 200, 1, 5);
	rt_free(&t);
}

static void gather_nd_bad_indices_are_errors(void **state)
{
	rt t;
	sym_tval in[2], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[2, k]", "int64", NULL);
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "known constant"));
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2, 3]", "int64", NULL);
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 0, NULL, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	in[1] = rt_t(&t, "[2, 1]", "int64", NULL);
	a[0] = rt_i(&t, "batch_dims", 2);
	assert_int_equal(rt_run(&t, "GatherND", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "batch_dims 2"));
	rt_free(&t);
}

static void scatter_keeps_the_data_shape_and_checks_updates(void **state)
{
	rt t;
	sym_tval in[3], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	/* ONNX ScatterND examples */
	in[0] = rt_t(&t, "[8]", NULL, NULL);
	in[1] = rt_t(&t, "[4, 1]", "int64", "[4, 3, 1, 7]");
	in[2] = rt_t(&t, "[4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "ScatterND", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[8]");
	in[0] = rt_t(&t, "[4, 4, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 1]", "int64", "[0, 2]");
	in[2] = rt_t(&t, "[2, 4, 4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "ScatterND", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[4, 4, 4]");
	in[2] = rt_t(&t, "[2, 4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "ScatterND", NULL, 3, in, 0, NULL, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	in[2] = rt_t(&t, "[2, 4, 4]", NULL, NULL);
	a[0] = rt_s(&t, "reduction", "avg");
	assert_int_equal(rt_run(&t, "ScatterND", NULL, 3, in, 1, a, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	/* ScatterElements: [3, 3] with [2, 3] indices and updates */
	in[0] = rt_t(&t, "[3, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 3]", "int64", "[1, 0, 2, 0, 2, 1]");
	in[2] = rt_t(&t, "[2, 3]", NULL, NULL);
	assert_int_equal(rt_run(&t, "ScatterElements", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 3]");
	in[2] = rt_t(&t, "[2, 2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "ScatterElements", NULL, 3, in, 0, NULL, 1, out), -1);
	sym_ctx_clear_error(t.ctx);
	in[2] = rt_t(&t, "[2, 3]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 3);
	assert_int_equal(rt_run(&t, "ScatterElements", NULL, 3, in, 1, a, 1, out), -1);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	in[1] = rt_t(&t, "[n, 1]", "int64", NULL);
	in[2] = rt_t(&t, "[m, c]", NULL, NULL);
	assert_int_equal(rt_run(&t, "ScatterND", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[a, b]");
	assert_string_equal(rt_guards(&t), "assert m == n; assert b == c");
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	in[1] = rt_t(&t, "[n, 1]", "int64", NULL);
	in[2] = rt_t(&t, "[m, c]", NULL, NULL);
	rt_property(&t, "ScatterND", NULL, 3, in, 0, NULL, 1, 200, 1, 3);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, b]", NULL, NULL);
	in[1] = rt_t(&t, "[c, d]", "int64", NULL);
	in[2] = rt_t(&t, "[e, f]", NULL, NULL);
	a[0] = rt_i(&t, "axis", 1);
	rt_property(&t, "ScatterElements", NULL, 3, in, 1, a, 1, 300, 1, 2);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(gather_inserts_the_indices_shape_at_the_axis),
	    cmocka_unit_test(shape_then_gather_gives_symbolic_dims),
	    cmocka_unit_test(gather_out_of_range_indices_are_errors_or_guards),
	    cmocka_unit_test(gather_bad_attributes_are_errors),
	    cmocka_unit_test(gather_property_holds_at_random_dims),
	    cmocka_unit_test(gather_elements_takes_the_indices_shape),
	    cmocka_unit_test(gather_nd_follows_batch_dims),
	    cmocka_unit_test(gather_nd_bad_indices_are_errors),
	    cmocka_unit_test(scatter_keeps_the_data_shape_and_checks_updates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
