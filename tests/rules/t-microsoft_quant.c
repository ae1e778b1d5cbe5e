/* Quantized operators of ONNX Runtime with ordered layouts
 * (rules/microsoft_quant.c): QOrderedMatMul, QOrderedLayerNormalization,
 * QOrderedGelu, QOrderedAttention, QOrderedLongformerAttention. */
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

/* Runs op on inputs of the given shapes ("" absent, NULL ends the list);
 * returns the shape of output 0 or the error message. */
static const char *run_list(rt *t, const char *op, const char *const *shapes, size_t na, const sym_attr *a)
{
	sym_tval in[24];
	return rt_outcome(t, op, MS, rt_shapes(t, shapes, in, 24), in, na, a, 1, out);
}

#define SHAPES RT_LIST

static void qordered_layer_norm_keeps_x_and_checks_columns(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run_list(&t, "QOrderedLayerNormalization",
	                             SHAPES("[b, s, 768]", "[]", "[768]", "[768]", "[]"), 0, a),
	                    "[b, s, 768]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_string_equal(rt_guards(&t), "");
	/* the orders are ROW by default and may be given so; axis 2 is -1 */
	a[0] = rt_i(&t, "order_X", 1);
	a[1] = rt_i(&t, "order_Y", 1);
	a[2] = rt_i(&t, "axis", 2);
	a[3] = rt_f(&t, "epsilon", 1e-12);
	assert_string_equal(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "", "[]"), 4, a),
	    "[b, s, 64]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
	rt_init(&t, 1);
	assert_string_equal(run_list(&t, "QOrderedLayerNormalization",
	                             SHAPES("[b, s, c]", "[]", "[g]", "[1, e]", "[]"), 0, a),
	                    "[b, s, c]");
	assert_string_equal(rt_guards(&t), "assert c % 4 == 0; assert c == g; assert c == e");
	rt_free(&t);
}

static void qordered_layer_norm_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[s, 64]", "[]", "[64]", "", "[]"), 0, a),
	    "input X must have rank 3, not 2"));
	assert_non_null(
	    strstr(run_list(&t, "QOrderedLayerNormalization", SHAPES("*", "[]", "[64]", "", "[]"), 0, a),
	           "unknown rank"));
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 66]", "[]", "[66]", "", "[]"), 0, a),
	    "X's columns must be a multiple of 4"));
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[32]", "", "[]"), 0, a),
	    "scale must hold one value per column of X"));
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "[8]", "[]"), 0, a),
	    "B must hold one value per column of X"));
	assert_non_null(
	    strstr(run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", ""), 0, a),
	           "input 4 is required"));
	assert_non_null(
	    strstr(run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "", "", "[]"), 0, a),
	           "input 2 is required"));
	a[0] = rt_i(&t, "axis", 1);
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "", "[]"), 1, a),
	    "attribute 'axis' must name the last axis (2 or -1), not 1"));
	a[0] = rt_i(&t, "axis", 3);
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "", "[]"), 1, a),
	    "axis"));
	a[0] = rt_i(&t, "order_X", 2);
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "", "[]"), 1, a),
	    "attribute 'order_X' must be 1 (ROW), not 2"));
	a[0] = rt_i(&t, "order_Y", 0);
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "", "[]"), 1, a),
	    "attribute 'order_Y' must be 1"));
	a[0] = rt_s(&t, "epsilon", "small");
	assert_non_null(strstr(
	    run_list(&t, "QOrderedLayerNormalization", SHAPES("[b, s, 64]", "[]", "[64]", "", "[]"), 1, a),
	    "epsilon"));
	rt_free(&t);
}

static void qordered_gelu_keeps_the_shape_of_x(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "order_X", 1);
	a[1] = rt_i(&t, "order_Y", 1);
	assert_string_equal(run_list(&t, "QOrderedGelu", SHAPES("[b, s, 3072]", "[]", "[]"), 2, a),
	                    "[b, s, 3072]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	/* no orders at all, any rank, unknown rank passed on */
	assert_string_equal(run_list(&t, "QOrderedGelu", SHAPES("[n]", "[]", "[]"), 0, a), "[n]");
	assert_string_equal(run_list(&t, "QOrderedGelu", SHAPES("*", "[]", "[]"), 0, a), "*");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_string_equal(rt_guards(&t), "");
	assert_non_null(
	    strstr(run_list(&t, "QOrderedGelu", SHAPES("[n]", "[]"), 0, a), "input 2 is required"));
	a[0] = rt_fs(&t, "order_X", "[1]");
	assert_non_null(strstr(run_list(&t, "QOrderedGelu", SHAPES("[n]", "[]", "[]"), 1, a), "order_X"));
	rt_free(&t);
}

/* QOrderedAttention's attributes: num_heads, qkv_hidden_sizes (text) and
 * the orders the kernel accepts. */
static size_t qa_attrs(rt *t, sym_attr *a, long long heads, const char *sizes)
{
	a[0] = rt_i(t, "num_heads", heads);
	a[1] = rt_is(t, "qkv_hidden_sizes", sizes);
	a[2] = rt_i(t, "order_input", 1);
	a[3] = rt_i(t, "order_weight", 0);
	a[4] = rt_i(t, "order_output", 1);
	return 5;
}

/* Runs QOrderedAttention on input x, the three weights w, weight scales
 * ws, biases b and mask m (every scale a scalar). */
static const char *run_qa(rt *t, const char *x, const char *w, const char *ws, const char *b, const char *m,
                          size_t na, const sym_attr *a)
{
	return run_list(t, "QOrderedAttention",
	                SHAPES(x, "[]", "[]", "[]", "[]", w, w, w, ws, ws, ws, b, b, b, "[]", "[]", "[]", m),
	                na, a);
}

static void qordered_attention_writes_the_hidden_size_last(void **state)
{
	rt t;
	sym_attr a[8];
	size_t na;
	(void)state;
	rt_init(&t, 1);
	na = qa_attrs(&t, a, 12, "[768, 768, 768]");
	assert_string_equal(run_qa(&t, "[b, s, 768]", "[768, 768]", "[]", "[768]", "[b, s]", na, a),
	                    "[b, s, 768]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_string_equal(rt_guards(&t), "assert s % 16 == 0");
	rt_free(&t);
	/* a pruned model: the input hidden size need not be the projected one */
	rt_init(&t, 1);
	na = qa_attrs(&t, a, 2, "[32, 32, 32]");
	assert_string_equal(run_qa(&t, "[b, 32, e]", "[f, 32]", "[32]", "[32]", "[c, t]", na, a),
	                    "[b, 32, 32]");
	assert_string_equal(rt_guards(&t), "assert e == f; assert b == c; assert t == 32");
	rt_free(&t);
	/* past and relative_position_bias are not read */
	rt_init(&t, 1);
	na = qa_attrs(&t, a, 1, "[16, 16, 16]");
	assert_string_equal(run_list(&t, "QOrderedAttention",
	                             SHAPES("[b, 16, 8]", "[]", "[]", "[]", "[]", "[8, 16]", "[8, 16]",
	                                    "[8, 16]", "[]", "[]", "[]", "[16]", "[16]", "[16]", "[]", "[]",
	                                    "[]", "[b, 16]", "[2, b, 1, p, 16]", "[b, 1, 16, 16]"),
	                             na, a),
	                    "[b, 16, 16]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void qordered_attention_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[8];
	size_t na;
	const char *x = "[2, 16, 64]", *w = "[64, 64]", *b = "[64]", *m = "[2, 16]";
	(void)state;
	rt_init(&t, 1);
	na = qa_attrs(&t, a, 4, "[64, 64, 64]");
	assert_string_equal(run_qa(&t, x, w, "[]", b, m, na, a), "[2, 16, 64]");
	assert_non_null(strstr(run_qa(&t, "[2, 20, 64]", w, "[]", b, "[2, 20]", na, a),
	                       "the sequence length must be a multiple of 16"));
	assert_non_null(strstr(run_qa(&t, "[2, 16, 32]", w, "[]", b, m, na, a),
	                       "the Q, K and V weights' rows must equal the input hidden size"));
	assert_non_null(strstr(run_qa(&t, x, "[64, 32]", "[]", b, m, na, a),
	                       "the Q, K and V weights' columns must equal qkv_hidden_sizes"));
	assert_non_null(
	    strstr(run_qa(&t, x, "[64]", "[]", b, m, na, a), "input Q_weight must have rank 2, not 1"));
	assert_non_null(strstr(run_qa(&t, x, w, "[32]", b, m, na, a),
	                       "a 1-D weight scale must hold qkv_hidden_sizes values"));
	assert_non_null(strstr(run_qa(&t, x, w, "[1, 64]", b, m, na, a),
	                       "input scale_Q_weight must be a scalar or 1-D, not of rank 2"));
	assert_non_null(strstr(run_qa(&t, x, w, "[]", "[32]", m, na, a),
	                       "the Q, K and V biases must hold qkv_hidden_sizes values"));
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", "[1, 64]", m, na, a), "input Q_bias must have rank 1, not 2"));
	/* the kernel reads the mask as [batch, sequence] and needs it */
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", b, "[2, 1]", na, a), "mask_index must be [batch, sequence]"));
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", b, "[2]", na, a), "input mask_index must have rank 2, not 1"));
	assert_non_null(strstr(run_qa(&t, x, w, "[]", b, "", na, a), "input 17 is required"));
	assert_non_null(strstr(
	    run_list(&t, "QOrderedAttention",
	             SHAPES(x, "[]", "[]", "[]", "[]", w, w, w, "[]", "[]", "[]", b, b, b, "[]", "", "[]", m),
	             na, a),
	    "input 15 is required"));
	assert_non_null(
	    strstr(run_qa(&t, "[16, 64]", w, "[]", b, m, na, a), "input input must have rank 3, not 2"));
	/* attributes */
	assert_non_null(strstr(run_qa(&t, x, w, "[]", b, m, 1, a), "'qkv_hidden_sizes' is required"));
	na = qa_attrs(&t, a, 4, "[64, 64, 32]");
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", b, m, na, a), "must have three equal values, not 64, 64, 32"));
	na = qa_attrs(&t, a, 4, "[64, 64]");
	assert_non_null(strstr(run_qa(&t, x, w, "[]", b, m, na, a), "must have 3 values, not 2"));
	na = qa_attrs(&t, a, 3, "[64, 64, 64]");
	assert_non_null(strstr(run_qa(&t, x, w, "[]", b, m, na, a),
	                       "value 64 is not a positive multiple of num_heads (3)"));
	na = qa_attrs(&t, a, 8, "[64, 64, 64]");
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", b, m, na, a),
	           "the head size qkv_hidden_sizes[0] / num_heads must be a multiple of 16, not 8"));
	na = qa_attrs(&t, a, 4, "[64, 64, 64]");
	a[3] = rt_i(&t, "order_weight", 1);
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", b, m, na, a), "attribute 'order_weight' must be 0 (COL), not 1"));
	a[3] = rt_i(&t, "order_weight", 0);
	a[2] = rt_i(&t, "order_input", 0);
	assert_non_null(
	    strstr(run_qa(&t, x, w, "[]", b, m, na, a), "attribute 'order_input' must be 1 (ROW), not 0"));
	a[2] = rt_i(&t, "order_input", 1);
	assert_non_null(strstr(run_qa(&t, x, w, "[]", b, m, 4, a), "attribute 'order_output' is required"));
	a[0] = rt_i(&t, "num_heads", 0);
	assert_non_null(strstr(run_qa(&t, x, w, "[]", b, m, na, a), "num_heads"));
	rt_free(&t);
}

/* Runs QOrderedLongformerAttention on input x, weight w, bias b, mask m,
 * global_weight gw, global_bias gb and global g (scales scalars). */
static const char *run_qla(rt *t, const char *x, const char *w, const char *b, const char *m, const char *gw,
                           const char *gb, const char *g, size_t na, const sym_attr *a)
{
	return run_list(t, "QOrderedLongformerAttention",
	                SHAPES(x, "[]", w, "[]", b, "[]", "[]", m, gw, "[]", gb, "[]", g, "[]"), na, a);
}

static size_t qla_attrs(rt *t, sym_attr *a, long long heads, long long window)
{
	a[0] = rt_i(t, "num_heads", heads);
	a[1] = rt_i(t, "window", window);
	a[2] = rt_i(t, "order_input", 1);
	a[3] = rt_i(t, "order_weight", 0);
	a[4] = rt_i(t, "order_global_weight", 0);
	a[5] = rt_i(t, "order_output", 1);
	return 6;
}

static void qordered_longformer_attention_keeps_the_input_shape(void **state)
{
	rt t;
	sym_attr a[6];
	size_t na;
	(void)state;
	rt_init(&t, 1);
	na = qla_attrs(&t, a, 12, 256);
	assert_string_equal(run_qla(&t, "[b, s, 768]", "[768, 2304]", "[2304]", "[b, s]", "[768, 2304]",
	                            "[2304]", "[b, s]", na, a),
	                    "[b, s, 768]");
	assert_int_equal(out[0].dtype, SYM_DT_INT8);
	assert_string_equal(rt_guards(&t), "assert s % 512 == 0");
	rt_free(&t);
	rt_init(&t, 1);
	na = qla_attrs(&t, a, 4, 2);
	assert_string_equal(
	    run_qla(&t, "[b, s, h]", "[p, q]", "[r]", "[c, t]", "[p, q]", "[r]", "[c, t]", na, a),
	    "[b, s, h]");
	assert_string_equal(rt_guards(&t),
	                    "assert s % 4 == 0; assert h % 4 == 0; assert h == p; assert 3*h == q; "
	                    "assert 3*h == r; assert b == c; assert s == t");
	rt_free(&t);
}

static void qordered_longformer_attention_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[6];
	size_t na;
	const char *x = "[2, 8, 16]", *w = "[16, 48]", *b = "[48]", *m = "[2, 8]";
	(void)state;
	rt_init(&t, 1);
	na = qla_attrs(&t, a, 2, 2);
	assert_string_equal(run_qla(&t, x, w, b, m, w, b, m, na, a), "[2, 8, 16]");
	assert_non_null(strstr(run_qla(&t, "[2, 6, 16]", w, b, "[2, 6]", w, b, "[2, 6]", na, a),
	                       "the sequence length must be a multiple of 2 * window"));
	assert_non_null(strstr(run_qla(&t, "[2, 8, 15]", "[15, 45]", "[45]", m, "[15, 45]", "[45]", m, na, a),
	                       "the hidden size must be a multiple of num_heads"));
	assert_non_null(
	    strstr(run_qla(&t, x, "[16, 32]", b, m, w, b, m, na, a), "weight must be [hidden, 3 * hidden]"));
	assert_non_null(strstr(run_qla(&t, x, w, b, m, "[8, 48]", b, m, na, a),
	                       "global_weight must be [hidden, 3 * hidden]"));
	assert_non_null(strstr(run_qla(&t, x, w, "[16]", m, w, b, m, na, a), "bias must be [3 * hidden]"));
	assert_non_null(
	    strstr(run_qla(&t, x, w, b, m, w, "[32]", m, na, a), "global_bias must be [3 * hidden]"));
	assert_non_null(
	    strstr(run_qla(&t, x, w, b, "[2, 4]", w, b, m, na, a), "mask must be [batch, sequence]"));
	assert_non_null(
	    strstr(run_qla(&t, x, w, b, m, w, b, "[1, 8]", na, a), "global must be [batch, sequence]"));
	assert_non_null(
	    strstr(run_qla(&t, x, w, b, "[2]", w, b, m, na, a), "input mask must have rank 2, not 1"));
	assert_non_null(strstr(run_qla(&t, x, "[16, 3, 16]", b, m, w, b, m, na, a),
	                       "input weight must have rank 2, not 3"));
	assert_non_null(
	    strstr(run_qla(&t, "[8, 16]", w, b, m, w, b, m, na, a), "input input must have rank 3, not 2"));
	assert_non_null(
	    strstr(run_list(&t, "QOrderedLongformerAttention",
	                    SHAPES(x, "[]", w, "[]", b, "", "[]", m, w, "[]", b, "[]", m, "[]"), na, a),
	           "input 5 is required"));
	a[5] = rt_i(&t, "order_output", 2);
	assert_non_null(strstr(run_qla(&t, x, w, b, m, w, b, m, na, a),
	                       "attribute 'order_output' must be 1 (ROW, as order_input), not 2"));
	a[4] = rt_i(&t, "order_global_weight", 1);
	assert_non_null(strstr(run_qla(&t, x, w, b, m, w, b, m, na, a),
	                       "attribute 'order_global_weight' must be 0 (COL), not 1"));
	a[2] = rt_i(&t, "order_input", 2);
	assert_non_null(strstr(run_qla(&t, x, w, b, m, w, b, m, na, a),
	                       "attribute 'order_input' must be 1 (ROW), not 2"));
	a[1] = rt_i(&t, "window", 0);
	assert_non_null(strstr(run_qla(&t, x, w, b, m, w, b, m, na, a), "window"));
	assert_non_null(strstr(run_qla(&t, x, w, b, m, w, b, m, 1, a), "window"));
	rt_free(&t);
}

/* A random case's outcome: the shape [d0, d1, d2] when the kernel runs
 * (ok), else an error that says what must hold. */
static void expect_3d_or_error(const char *got, int ok, long long d0, long long d1, long long d2)
{
	char want[96];
	if (!ok) {
		assert_non_null(strstr(got, "must"));
		return;
	}
	snprintf(want, sizeof(want), "[%lld, %lld, %lld]", d0, d1, d2);
	assert_string_equal(got, want);
}

/* The kernels' shapes at random concrete dims, computed here from the
 * checks the CUDA kernels make: QOrderedLayerNormalization on [B, R, C]
 * with a scale of L values runs when C % 4 == 0 and L == C. */
static void qordered_layer_norm_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[1];
	char x[64], g[32];
	const char *got;
	int it;
	(void)state;
	rt_rand_seed(&rng_state);
	rt_init(&t, 1);
	for (it = 0; it < 300; it++) {
		long long bb = rnd(1, 4), r = rnd(1, 5), c = rnd(1, 13), l = rnd(0, 1) ? c : rnd(1, 13);
		snprintf(x, sizeof(x), "[%lld, %lld, %lld]", bb, r, c);
		snprintf(g, sizeof(g), "[%lld]", l);
		got = run_list(&t, "QOrderedLayerNormalization", SHAPES(x, "[]", g, g, "[]"), 0, a);
		expect_3d_or_error(got, c % 4 == 0 && l == c, bb, r, c);
	}
	rt_free(&t);
}

/* QOrderedAttention on [B, S, E] with weights [F, H'] and mask [P, Q]
 * runs when S % 16 == 0, F == E, H' == H and [P, Q] == [B, S], and writes
 * [B, S, H]. */
static void qordered_attention_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[5];
	char x[64], w[64], bias[32], m[64], sizes[64];
	const char *got;
	size_t na;
	int it;
	(void)state;
	rt_rand_seed(&rng_state);
	rt_init(&t, 1);
	for (it = 0; it < 300; it++) {
		long long heads = rnd(1, 2), h = heads * 16 * rnd(1, 2), bb = rnd(1, 3), s = rnd(1, 40);
		long long e = rnd(1, 40), f = rnd(0, 3) ? e : rnd(1, 40), hw = rnd(0, 3) ? h : rnd(1, 64);
		long long p = rnd(0, 3) ? bb : rnd(1, 3), q = rnd(0, 3) ? s : rnd(1, 40);
		int ok = s % 16 == 0 && f == e && hw == h && p == bb && q == s;
		snprintf(sizes, sizeof(sizes), "[%lld, %lld, %lld]", h, h, h);
		na = qa_attrs(&t, a, heads, sizes);
		snprintf(x, sizeof(x), "[%lld, %lld, %lld]", bb, s, e);
		snprintf(w, sizeof(w), "[%lld, %lld]", f, hw);
		snprintf(bias, sizeof(bias), "[%lld]", h);
		snprintf(m, sizeof(m), "[%lld, %lld]", p, q);
		got = run_qa(&t, x, w, "[]", bias, m, na, a);
		expect_3d_or_error(got, ok, bb, s, h);
	}
	rt_free(&t);
}

/* QOrderedLongformerAttention on [B, S, H] with window W and N heads runs
 * when S % (2W) == 0, H % N == 0, the weights are [H, 3H], the biases
 * [3H] and both masks [B, S], and writes the input's shape. */
static void qordered_longformer_attention_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[6];
	char x[64], w[64], bias[32], m[64];
	const char *got;
	size_t na;
	int it;
	(void)state;
	rt_rand_seed(&rng_state);
	rt_init(&t, 1);
	for (it = 0; it < 300; it++) {
		long long heads = rnd(1, 3), win = rnd(1, 3), bb = rnd(1, 3), s = rnd(1, 24), h = rnd(1, 12);
		long long wc = rnd(0, 3) ? 3 * h : rnd(1, 36), bl = rnd(0, 3) ? 3 * h : rnd(1, 36);
		long long q = rnd(0, 3) ? s : rnd(1, 24);
		int ok = s % (2 * win) == 0 && h % heads == 0 && wc == 3 * h && bl == 3 * h && q == s;
		na = qla_attrs(&t, a, heads, win);
		snprintf(x, sizeof(x), "[%lld, %lld, %lld]", bb, s, h);
		snprintf(w, sizeof(w), "[%lld, %lld]", h, wc);
		snprintf(bias, sizeof(bias), "[%lld]", bl);
		snprintf(m, sizeof(m), "[%lld, %lld]", bb, q);
		got = run_qla(&t, x, w, bias, m, w, bias, m, na, a);
		expect_3d_or_error(got, ok, bb, s, h);
	}
	rt_free(&t);
}

static void qordered_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_attr a[6];
	sym_tval in[18];
	size_t na, i;
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, r, c]", "int8", NULL);
	in[1] = in[4] = rt_t(&t, "[]", NULL, NULL);
	in[2] = rt_t(&t, "[g]", NULL, NULL);
	in[3] = rt_t(&t, "[e]", NULL, NULL);
	rt_property(&t, "QOrderedLayerNormalization", MS, 5, in, 0, a, 1, 300, 1, 9);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s, e]", "int8", NULL);
	for (i = 1; i < 18; i++)
		in[i] = rt_t(&t, "[]", NULL, NULL);
	in[5] = in[6] = in[7] = rt_t(&t, "[e, 16]", "int8", NULL);
	in[8] = rt_t(&t, "[16]", NULL, NULL);
	in[11] = in[12] = in[13] = rt_t(&t, "[16]", NULL, NULL);
	in[17] = rt_t(&t, "[b, s]", "int32", NULL);
	na = qa_attrs(&t, a, 1, "[16, 16, 16]");
	rt_property(&t, "QOrderedAttention", MS, 18, in, na, a, 1, 300, 1, 33);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s, h]", "int8", NULL);
	for (i = 1; i < 14; i++)
		in[i] = rt_t(&t, "[]", NULL, NULL);
	in[2] = rt_t(&t, "[h, 3*h]", "int8", NULL);
	in[8] = rt_t(&t, "[h, 3*h]", "int8", NULL);
	in[4] = in[10] = rt_t(&t, "[3*h]", NULL, NULL);
	in[7] = rt_t(&t, "[b, s]", NULL, NULL);
	in[12] = rt_t(&t, "[b, t]", "int32", NULL);
	na = qla_attrs(&t, a, 2, 1);
	rt_property(&t, "QOrderedLongformerAttention", MS, 14, in, na, a, 1, 300, 1, 8);
	rt_free(&t);
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s]", "int8", NULL);
	in[1] = in[2] = rt_t(&t, "[]", NULL, NULL);
	rt_property(&t, "QOrderedGelu", MS, 3, in, 0, a, 1, 100, 1, 8);
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
	    cmocka_unit_test(qordered_layer_norm_keeps_x_and_checks_columns),
	    cmocka_unit_test(qordered_layer_norm_bad_inputs_are_errors),
	    cmocka_unit_test(qordered_gelu_keeps_the_shape_of_x),
	    cmocka_unit_test(qordered_attention_writes_the_hidden_size_last),
	    cmocka_unit_test(qordered_attention_bad_inputs_are_errors),
	    cmocka_unit_test(qordered_longformer_attention_keeps_the_input_shape),
	    cmocka_unit_test(qordered_longformer_attention_bad_inputs_are_errors),
	    cmocka_unit_test(qordered_layer_norm_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(qordered_attention_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(qordered_longformer_attention_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(qordered_rules_hold_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
