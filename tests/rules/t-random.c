/* RandomNormal, RandomUniform, the *Like generators, Bernoulli, EyeLike,
 * Multinomial. */
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
static void generators_take_the_shape_attribute_or_the_input_shape(void **state)
{
	rt t;
	sym_tval in[1], out[1];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "shape", "[2, 0, 5]");
	a[1] = rt_i(&t, "dtype", SYM_DT_FLOAT64);
	assert_int_equal(rt_run(&t, "RandomUniform", NULL, 0, NULL, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[2, 0, 5]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT64);
	expect_error(&t, rt_run(&t, "RandomNormal", NULL, 0, NULL, 0, NULL, 1, out), "'shape' is required");
	in[0] = rt_t(&t, "[n, m]", "float16", NULL);
	assert_int_equal(rt_run(&t, "RandomNormalLike", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, m]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT16);
	assert_int_equal(rt_run(&t, "EyeLike", NULL, 1, in, 1, a + 1, 1, out), 0);
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT64);
	assert_int_equal(rt_run(&t, "Bernoulli", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, m]");
	a[0] = rt_i(&t, "sample_size", 4);
	assert_int_equal(rt_run(&t, "Multinomial", NULL, 1, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[n, 4]");
	assert_int_equal(out[0].dtype, SYM_DT_INT32);
	in[0] = rt_t(&t, "[n]", NULL, NULL);
	expect_error(&t, rt_run(&t, "EyeLike", NULL, 1, in, 0, NULL, 1, out), "rank 2");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(generators_take_the_shape_attribute_or_the_input_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
