/* QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear. */
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
static void quantize_linear_types_follow_the_zero_point(void **state)
{
	rt t;
	sym_tval in[3], out[3];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[]", NULL, NULL);
	assert_int_equal(rt_run(&t, "QuantizeLinear", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 3]");
	assert_int_equal(out[0].dtype, SYM_DT_UINT8);
	in[2] = rt_t(&t, "[]", "int8", NULL);
	assert_int_equal(rt_run(&t, "QuantizeLinear", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	in[0] = rt_t(&t, "[n, 3]", "int8", NULL);
	in[1] = rt_t(&t, "[]", "float16", NULL);
	assert_int_equal(rt_run(&t, "DequantizeLinear", NULL, 3, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 3]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT16);
	assert_int_equal(rt_run(&t, "DynamicQuantizeLinear", NULL, 1, in, 0, NULL, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 3]");
	assert_string_equal(rt_shape(&t, &out[1]), "[]");
	assert_string_equal(rt_shape(&t, &out[2]), "[]");
	assert_int_equal(out[1].dtype, SYM_DT_FLOAT32);
	assert_int_equal(out[2].dtype, SYM_DT_UINT8);
	expect_error(&t, rt_run(&t, "QuantizeLinear", NULL, 1, in, 0, NULL, 1, out), "input 1");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(quantize_linear_types_follow_the_zero_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
