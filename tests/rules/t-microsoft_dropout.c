/* BiasDropout and BitmaskBiasDropout (rules/microsoft_dropout.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define MS "com.microsoft"

static sym_tval out[2];

/* Runs op on inputs of the given shapes ("" absent, NULL ends the list);
 * returns the output shapes joined by " " or the error message. */
static const char *run(rt *t, const char *op, const char *const *shapes, size_t nout)
{
	sym_tval in[5];
	return rt_outcome(t, op, MS, rt_shapes(t, shapes, in, 5), in, 0, NULL, nout, out);
}

#define SHAPES RT_LIST

static void bias_dropout_keeps_the_shape_and_masks_it(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "BiasDropout", SHAPES("[b, s, 768]", "[768]", "[b, s, 768]", "[]", "[]"), 2),
	    "[b, s, 768] [b, s, 768]");
	assert_int_equal(out[1].dtype, SYM_DT_BOOL);
	assert_string_equal(rt_guards(&t), "");
	/* a bias of data's shape */
	assert_string_equal(run(&t, "BiasDropout", SHAPES("[b, s, 768]", "[b, s, 768]"), 1), "[b, s, 768]");
	assert_string_equal(run(&t, "BiasDropout", SHAPES("[n, h]", "[k]", "[p, q]"), 1), "[n, h]");
	assert_string_equal(rt_guards(&t), "assert h == k; assert n == p; assert h == q");
	rt_free(&t);
}

static void bitmask_bias_dropout_packs_the_mask_in_words(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "BitmaskBiasDropout", SHAPES("[b, s, 768]", "[768]"), 2),
	                    "[b, s, 768] [24*b*s]");
	assert_int_equal(out[1].dtype, SYM_DT_UINT32);
	assert_string_equal(run(&t, "BitmaskBiasDropout", SHAPES("[3, 11]", "[11]"), 2), "[3, 11] [2]");
	assert_string_equal(run(&t, "BitmaskBiasDropout", SHAPES("[n]", "[n]"), 2), "[n] [(n + 31)//32]");
	assert_string_equal(run(&t, "BitmaskBiasDropout", SHAPES("*", "[8]"), 2), "* *");
	rt_free(&t);
}

static void bias_dropout_bad_inputs_are_errors(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[b, s, 768]", "[512]"), 1),
	                       "bias length must equal data's last dim"));
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[b, s, 768]", "[s, 768]"), 1),
	                       "input bias must have rank 1 or data's rank 3, not 2"));
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[b, 4, 768]", "[b, 5, 768]"), 1),
	                       "bias must have the shape of data"));
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[b, s, 768]", "[768]", "[b, 768]"), 1),
	                       "input residual must have the shape of data (rank 3), not rank 2"));
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[b, 4, 768]", "[768]", "[b, 5, 768]"), 1),
	                       "residual must have the shape of data"));
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[]", "[]"), 1), "rank at least 1"));
	assert_non_null(strstr(run(&t, "BiasDropout", SHAPES("[b, 8]"), 1), "input 1"));
	rt_free(&t);
}

/* A seeded generator (SYM_TEST_SEED) for the concrete checks. */
static uint64_t rng_state;

static long long rnd(long long lo, long long hi)
{
	return rt_rand(&rng_state, lo, hi);
}

static void bitmask_words_match_the_kernel_at_random_dims(void **state)
{
	rt t;
	char x[48], bias[24], want[96];
	int it;
	(void)state;
	rt_rand_seed(&rng_state);
	rt_init(&t, 1);
	for (it = 0; it < 200; it++) {
		long long a = rnd(1, 9), b = rnd(1, 40), c = rnd(1, 70);
		snprintf(x, sizeof(x), "[%lld, %lld, %lld]", a, b, c);
		snprintf(bias, sizeof(bias), "[%lld]", c);
		/* the kernel's words: ceil(numel / 32) */
		snprintf(want, sizeof(want), "%s [%lld]", x, (a * b * c + 31) / 32);
		assert_string_equal(run(&t, "BitmaskBiasDropout", SHAPES(x, bias), 2), want);
	}
	rt_free(&t);
}

static void ms_dropout_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_tval in[3];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, h]", NULL, NULL);
	in[1] = rt_t(&t, "[k]", NULL, NULL);
	in[2] = rt_t(&t, "[p, q]", NULL, NULL);
	rt_property(&t, "BitmaskBiasDropout", MS, 3, in, 0, NULL, 2, 300, 1, 40);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[n, h, w]", NULL, NULL);
	in[1] = rt_t(&t, "[a, b, c]", NULL, NULL);
	rt_property(&t, "BiasDropout", MS, 2, in, 0, NULL, 2, 300, 1, 4);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bias_dropout_keeps_the_shape_and_masks_it),
	    cmocka_unit_test(bitmask_bias_dropout_packs_the_mask_in_words),
	    cmocka_unit_test(bias_dropout_bad_inputs_are_errors),
	    cmocka_unit_test(bitmask_words_match_the_kernel_at_random_dims),
	    cmocka_unit_test(ms_dropout_rules_hold_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
