/* Quantized operators of ONNX Runtime with ordered layouts
 * (rules/microsoft_quant.c). */
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

static sym_tval out[1];

/* The order attributes the kernel accepts: A and Y row-major (1), B
 * column-major (0). */
static size_t orders(rt *t, sym_attr *a)
{
	a[0] = rt_i(t, "order_A", 1);
	a[1] = rt_i(t, "order_B", 0);
	a[2] = rt_i(t, "order_Y", 1);
	return 3;
}

/* Runs QOrderedMatMul on A, B and the optional bias and C (NULL: absent;
 * the scales are scalars); returns the shape or the error message. */
static const char *run(rt *t, const char *a_shape, const char *b_shape, const char *bias, const char *c,
                       size_t na, const sym_attr *a)
{
	sym_tval in[8];
	size_t nin = 5;
	in[0] = rt_t(t, a_shape, "int8", NULL);
	in[1] = rt_t(t, "[]", NULL, NULL);
	in[2] = rt_t(t, b_shape, "int8", NULL);
	in[3] = rt_t(t, "[]", NULL, NULL);
	in[4] = rt_t(t, "[]", NULL, NULL);
	if (bias || c) {
		in[5] = bias ? rt_t(t, bias, NULL, NULL) : rt_absent();
		nin = 6;
	}
	if (c) {
		in[6] = rt_t(t, c, "int8", NULL);
		in[7] = rt_t(t, "[]", NULL, NULL);
		nin = 8;
	}
	if (rt_run(t, "QOrderedMatMul", MS, nin, in, na, a, 1, out) < 0) {
		const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		return m;
	}
	return rt_shape(t, &out[0]);
}

static void qordered_matmul_keeps_a_and_takes_b_columns(void **state)
{
	rt t;
	sym_attr a[3];
	size_t na;
	(void)state;
	rt_init(&t, 1);
	na = orders(&t, a);
	assert_string_equal(run(&t, "[b, s, 768]", "[768, 3072]", "[3072]", NULL, na, a), "[b, s, 3072]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_string_equal(rt_guards(&t), "");
	/* A's batch is kept as it is: a B of batch 1 does not broadcast it */
	assert_string_equal(run(&t, "[m, 64]", "[1, 64, 32]", NULL, NULL, na, a), "[m, 32]");
	assert_string_equal(run(&t, "[b, m, 64]", "[b, 64, 32]", NULL, "[1, m, 32]", na, a), "[b, m, 32]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
	rt_init(&t, 1);
	na = orders(&t, a);
	assert_string_equal(run(&t, "[b, m, k]", "[c, l, n]", "[z]", NULL, na, a), "[b, m, n]");
	assert_string_equal(rt_guards(&t), "assert b == c || c == 1; assert k == l; assert n == z");
	rt_free(&t);
}

static void qordered_matmul_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[3];
	size_t na;
	(void)state;
	rt_init(&t, 1);
	na = orders(&t, a);
	assert_non_null(
	    strstr(run(&t, "[b, s, 64]", "[32, 16]", NULL, NULL, na, a), "A's columns must equal B's rows"));
	assert_non_null(
	    strstr(run(&t, "[2, s, 64]", "[3, 64, 16]", NULL, NULL, na, a), "B's batch must be A's or 1"));
	assert_non_null(strstr(run(&t, "[1, 2, s, 64]", "[64, 16]", NULL, NULL, na, a),
	                       "input A must have rank 2 or 3, not 4"));
	assert_non_null(
	    strstr(run(&t, "[s, 64]", "[16]", NULL, NULL, na, a), "input B must have rank 2 or 3"));
	assert_non_null(
	    strstr(run(&t, "[s, 64]", "[64, 16]", "[8]", NULL, na, a), "bias length must equal B's columns"));
	assert_non_null(strstr(run(&t, "[s, 64]", "[64, 16]", "[1, 16]", NULL, na, a),
	                       "input bias must have rank 1, not 2"));
	assert_non_null(strstr(run(&t, "[2, s, 64]", "[64, 16]", NULL, "[2, s, 8]", na, a),
	                       "C's columns must equal B's"));
	assert_non_null(
	    strstr(run(&t, "[2, 4, 64]", "[64, 16]", NULL, "[2, 5, 16]", na, a), "C's rows must equal A's"));
	assert_non_null(strstr(run(&t, "[2, 4, 64]", "[64, 16]", NULL, "[3, 4, 16]", na, a),
	                       "C's batch must be A's or 1"));
	assert_non_null(strstr(run(&t, "*", "[64, 16]", NULL, NULL, na, a), "known rank"));
	/* the orders are required and fixed */
	assert_non_null(strstr(run(&t, "[s, 64]", "[64, 16]", NULL, NULL, 2, a), "'order_Y' is required"));
	a[1] = rt_i(&t, "order_B", 1);
	assert_non_null(strstr(run(&t, "[s, 64]", "[64, 16]", NULL, NULL, na, a),
	                       "attribute 'order_B' must be 0 (COL), not 1"));
	rt_free(&t);
}

static void qordered_matmul_without_scale_c_is_an_error(void **state)
{
	rt t;
	sym_attr a[3];
	sym_tval in[7];
	size_t na;
	int i;
	(void)state;
	rt_init(&t, 1);
	na = orders(&t, a);
	in[0] = rt_t(&t, "[4, 8]", "int8", NULL);
	in[2] = rt_t(&t, "[8, 2]", "int8", NULL);
	in[1] = in[3] = in[4] = rt_t(&t, "[]", NULL, NULL);
	in[5] = rt_absent();
	in[6] = rt_t(&t, "[4, 2]", "int8", NULL);
	i = rt_run(&t, "QOrderedMatMul", MS, 7, in, na, a, 1, out);
	assert_int_equal(i, -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "input C needs scale_C"));
	sym_ctx_clear_error(t.ctx);
	rt_free(&t);
}

/* A seeded generator (SYM_TEST_SEED) for the concrete checks. */
static uint64_t rng_state;

static long long rnd(long long lo, long long hi)
{
	return rt_rand(&rng_state, lo, hi);
}

/* The kernel's output, computed here: A's dims with B's column count
 * last, or NULL when the kernel refuses the shapes. */
static const char *kernel_shape(char *buf, size_t n, int ra, const long long *a, int rb, const long long *b)
{
	long long batch_a = ra == 3 ? a[0] : 1, batch_b = rb == 3 ? b[0] : 1;
	if (!(batch_a == batch_b || batch_b == 1) || a[ra - 1] != b[rb - 2])
		return NULL;
	if (ra == 3)
		snprintf(buf, n, "[%lld, %lld, %lld]", a[0], a[1], b[rb - 1]);
	else
		snprintf(buf, n, "[%lld, %lld]", a[0], b[rb - 1]);
	return buf;
}

static void qordered_matmul_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[3];
	char sa[64], sb[64], want[64];
	const char *got, *w;
	size_t na;
	int it;
	(void)state;
	rt_rand_seed(&rng_state);
	rt_init(&t, 1);
	na = orders(&t, a);
	for (it = 0; it < 300; it++) {
		int ra = (int)rnd(2, 3), rb = (int)rnd(2, 3), i;
		long long da[3], db[3];
		for (i = 0; i < 3; i++)
			da[i] = rnd(1, 4), db[i] = rnd(1, 4);
		if (ra == 3)
			snprintf(sa, sizeof(sa), "[%lld, %lld, %lld]", da[0], da[1], da[2]);
		else
			snprintf(sa, sizeof(sa), "[%lld, %lld]", da[0], da[1]);
		if (rb == 3)
			snprintf(sb, sizeof(sb), "[%lld, %lld, %lld]", db[0], db[1], db[2]);
		else
			snprintf(sb, sizeof(sb), "[%lld, %lld]", db[0], db[1]);
		got = run(&t, sa, sb, NULL, NULL, na, a);
		w = kernel_shape(want, sizeof(want), ra, da, rb, db);
		if (w)
			assert_string_equal(got, w);
		else
			assert_non_null(strstr(got, "must"));
	}
	rt_free(&t);
}

static void qordered_matmul_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[3];
	sym_tval in[8];
	size_t na;
	(void)state;
	rt_init(&t, 1);
	na = orders(&t, a);
	in[0] = rt_t(&t, "[b, m, k]", "int8", NULL);
	in[1] = in[3] = in[4] = in[7] = rt_t(&t, "[]", NULL, NULL);
	in[2] = rt_t(&t, "[c, l, n]", "int8", NULL);
	in[5] = rt_t(&t, "[e]", NULL, NULL);
	in[6] = rt_t(&t, "[f, g, h]", "int8", NULL);
	rt_property(&t, "QOrderedMatMul", MS, 8, in, na, a, 1, 300, 1, 4);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(qordered_matmul_keeps_a_and_takes_b_columns),
	    cmocka_unit_test(qordered_matmul_bad_inputs_are_errors),
	    cmocka_unit_test(qordered_matmul_without_scale_c_is_an_error),
	    cmocka_unit_test(qordered_matmul_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(qordered_matmul_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
