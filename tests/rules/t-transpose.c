/* Transpose rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void transpose_onnx_examples(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 3, 4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[4, 3, 2]");
	a[0] = rt_is(&t, "perm", "[1, 0, 2]");
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 2, 4]");
	a[0] = rt_is(&t, "perm", "[2, 0, 1]");
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[4, 2, 3]");
	in[0] = rt_t(&t, "[n, c, h, w]", NULL, NULL);
	a[0] = rt_is(&t, "perm", "[0, 2, 3, 1]");
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, h, w, c]");
	in[0] = rt_t(&t, "[]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	rt_free(&t);
}

static void transpose_bad_perms_are_errors(void **state)
{
	static const struct {
		const char *perm, *msg;
	} v[] = {
	    {"[0, 0, 1]", "not a permutation"},
	    {"[0, 1, 3]", "out of range"},
	    {"[0, -1, 1]", "out of range"},
	    {"[1, 0]", "perm has 2 entries for rank 3"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rt t;
		sym_tval in[1], out[1];
		sym_attr a[1];
		rt_init(&t, 1);
		in[0] = rt_t(&t, "[2, 3, 4]", NULL, NULL);
		a[0] = rt_is(&t, "perm", v[i].perm);
		assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 1, a, 1, out), -1);
		if (!strstr(sym_ctx_last_message(t.ctx), v[i].msg))
			fail_msg("perm %s: '%s' lacks '%s'", v[i].perm, sym_ctx_last_message(t.ctx),
			         v[i].msg);
		rt_free(&t);
	}
}

static void transpose_of_unknown_rank(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "*", NULL, NULL);
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	a[0] = rt_is(&t, "perm", "[1, 0]");
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "unknown rank"));
	rt_free(&t);
}

static void transpose_permutes_small_values(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 3]", "int64", "[a, b, c, 4, 5, 6]");
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, 2]");
	assert_string_equal(rt_value(&t, &out[0]), "[a, 4, b, 5, c, 6]");
	in[0] = rt_t(&t, "[3]", "int64", "[a, b, c]");
	assert_int_equal(rt_run(&t, "Transpose", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[a, b, c]");
	rt_free(&t);
}

static void transpose_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[1];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[a, 3, b, c]", NULL, NULL);
	a[0] = rt_is(&t, "perm", "[3, 1, 0, 2]");
	rt_property(&t, "Transpose", NULL, 1, in, 1, a, 1, 50, 1, 6);
	rt_property(&t, "Transpose", NULL, 1, in, 0, NULL, 1, 50, 1, 6);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(transpose_onnx_examples),
	    cmocka_unit_test(transpose_bad_perms_are_errors),
	    cmocka_unit_test(transpose_of_unknown_rank),
	    cmocka_unit_test(transpose_permutes_small_values),
	    cmocka_unit_test(transpose_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
