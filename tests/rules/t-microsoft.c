/* com.microsoft activations and matrix products (rules/microsoft.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define MS "com.microsoft"

static sym_tval out[5];

/* Runs op (com.microsoft) on inputs of the given shapes ("" absent, NULL
 * ends the list); returns the shapes of the outputs joined by " " or the
 * error message. */
static const char *run(rt *t, const char *op, const char *const *shapes, size_t na, const sym_attr *a,
                       size_t nout)
{
	sym_tval in[12];
	return rt_outcome(t, op, MS, rt_shapes(t, shapes, in, 12), in, na, a, nout, out);
}

/* The property check of op on the given shapes (same conventions). */
static void prop(rt *t, const char *op, const char *const *shapes, size_t na, const sym_attr *a, size_t nout)
{
	sym_tval in[12];
	rt_property(t, op, MS, rt_shapes(t, shapes, in, 12), in, na, a, nout, 200, 1, 6);
}

#define SHAPES RT_LIST

static void gelus_keep_the_input_shape_and_check_the_bias(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "Gelu", SHAPES("[b, s, 64]"), 0, a, 1), "[b, s, 64]");
	assert_string_equal(run(&t, "Gelu", SHAPES("*"), 0, a, 1), "*");
	a[0] = rt_f(&t, "alpha", 1.5);
	assert_string_equal(run(&t, "QuickGelu", SHAPES("[b, 7]"), 1, a, 1), "[b, 7]");
	assert_string_equal(run(&t, "FastGelu", SHAPES("[b, s, 64]"), 0, a, 1), "[b, s, 64]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "FastGelu", SHAPES("[b, s, h]", "[k]"), 0, a, 1), "[b, s, h]");
	assert_string_equal(rt_guards(&t), "assert h == k");
	assert_string_equal(run(&t, "BiasGelu", SHAPES("[b, s, 256]", "[256]"), 0, a, 1), "[b, s, 256]");
	assert_non_null(strstr(run(&t, "BiasGelu", SHAPES("[b, s, 256]", "[128]"), 0, a, 1), "bias length"));
	assert_non_null(strstr(run(&t, "BiasGelu", SHAPES("[b, s, 256]", "[1, 256]"), 0, a, 1), "rank 1"));
	assert_non_null(strstr(run(&t, "BiasGelu", SHAPES("[b, s, 256]"), 0, a, 1), "input 1"));
	a[0] = rt_s(&t, "alpha", "x");
	assert_non_null(strstr(run(&t, "QuickGelu", SHAPES("[b, 7]"), 1, a, 1), "alpha"));
	rt_free(&t);
}

static void bias_add_and_split_gelu_follow_n_s_c(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "BiasAdd", SHAPES("[n, s, 320]", "[320]", "[n, s, 320]"), 0, a, 1),
	                    "[n, s, 320]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "BiasAdd", SHAPES("[n1, s, c]", "[c]", "[m1, s, c]"), 0, a, 1),
	                    "[m1, s, c]");
	assert_string_equal(rt_guards(&t), "assert m1 == n1");
	assert_non_null(
	    strstr(run(&t, "BiasAdd", SHAPES("[n, 320]", "[320]", "[n, 320]"), 0, a, 1), "rank 3"));
	assert_string_equal(run(&t, "BiasSplitGelu", SHAPES("[n, s, 2560]", "[2560]"), 0, a, 1),
	                    "[n, s, 1280]");
	assert_string_equal(run(&t, "BiasSplitGelu", SHAPES("[n, s, d]", "[d]"), 0, a, 1), "[n, s, d/2]");
	assert_non_null(strstr(rt_guards(&t), "d % 2 == 0"));
	assert_non_null(strstr(run(&t, "BiasSplitGelu", SHAPES("[n, s, 7]", "[7]"), 0, a, 1), "even"));
	rt_free(&t);
}

static void fused_matmul_transposes_then_multiplies(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[b, 3, 4]", "[b, 4, 5]"), 0, a, 1), "[b, 3, 5]");
	a[0] = rt_i(&t, "transB", 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[b, h, s, 16]", "[b, h, s, 16]"), 1, a, 1),
	                    "[b, h, s, s]");
	a[1] = rt_i(&t, "transA", 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[4, 3]", "[5, 4]"), 2, a, 1), "[3, 5]");
	/* transBatchA: [2, 3, 4, 5] is read as batch [3, 4] of [2, 5] matrices */
	a[0] = rt_i(&t, "transBatchA", 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[2, 3, 4, 5]", "[3, 4, 5, 6]"), 1, a, 1),
	                    "[3, 4, 2, 6]");
	a[1] = rt_i(&t, "transA", 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[2, 3, 4, 5]", "[3, 4, 2, 6]"), 2, a, 1),
	                    "[3, 4, 5, 6]");
	assert_non_null(
	    strstr(run(&t, "FusedMatMul", SHAPES("[2, 3, 4, 5]", "[2, 6]"), 2, a, 1), "one rank"));
	a[0] = rt_i(&t, "transBatchB", 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[3, 4, 5]", "[5, 3, 6]"), 1, a, 1), "[3, 4, 6]");
	assert_non_null(strstr(run(&t, "FusedMatMul", SHAPES("[4, 5]", "[5, 6]"), 1, a, 1), "at least 3"));
	/* vectors ignore the transposes */
	a[0] = rt_i(&t, "transA", 1);
	assert_string_equal(run(&t, "FusedMatMul", SHAPES("[4]", "[4, 6]"), 1, a, 1), "[6]");
	a[0] = rt_i(&t, "transB", 2);
	assert_non_null(strstr(run(&t, "FusedMatMul", SHAPES("[3, 4]", "[4, 5]"), 1, a, 1), "'transB'"));
	assert_non_null(strstr(run(&t, "FusedMatMul", SHAPES("[3, 4]", "[5, 6]"), 0, a, 1), "contracted"));
	rt_free(&t);
}

static void gemm_fast_gelu_and_matmul_nbits(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "GemmFastGelu", SHAPES("[b, s, 64]", "[64, 256]", "[256]"), 0, a, 1),
	                    "[b, s, 256]");
	assert_non_null(strstr(run(&t, "GemmFastGelu", SHAPES("[b, s, 64]", "[64, 256]", "[64]"), 0, a, 1),
	                       "bias length"));
	a[0] = rt_i(&t, "K", 64);
	a[1] = rt_i(&t, "N", 192);
	a[2] = rt_i(&t, "block_size", 32);
	a[3] = rt_i(&t, "bits", 4);
	assert_string_equal(run(&t, "MatMulNBits", SHAPES("[b, s, 64]", "[192, 2, 16]", "[384]"), 4, a, 1),
	                    "[b, s, 192]");
	assert_string_equal(run(&t, "MatMulNBits", SHAPES("[b, s, k]", "[192, 2, 16]", "[384]"), 4, a, 1),
	                    "[b, s, 192]");
	assert_string_equal(rt_guards(&t), "assert k == 64");
	assert_non_null(strstr(run(&t, "MatMulNBits", SHAPES("[b, s, 63]", "[192, 2, 16]", "[384]"), 4, a, 1),
	                       "attribute K"));
	assert_non_null(strstr(run(&t, "MatMulNBits", SHAPES("[b, s, 64]", "[192, 2, 16]", "[384]"), 2, a, 1),
	                       "'block_size' is required"));
	a[3] = rt_i(&t, "bits", 0);
	assert_non_null(
	    strstr(run(&t, "MatMulNBits", SHAPES("[b, s, 64]", "[192, 2, 16]", "[384]"), 4, a, 1), "'bits'"));
	rt_free(&t);
}

static void quantized_matmuls_fused_gemm_and_matrix_ops(void **state)
{
	rt t;
	sym_attr a[2];
	sym_tval in[7];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, s, 16]", "uint8", NULL);
	in[1] = rt_t(&t, "[16, 5]", "int8", NULL);
	in[2] = rt_t(&t, "[]", "float32", NULL);
	in[3] = rt_t(&t, "[]", "float32", NULL);
	in[4] = rt_t(&t, "[]", "uint8", NULL);
	in[5] = rt_t(&t, "[]", "int8", NULL);
	in[6] = rt_t(&t, "[5]", "float32", NULL);
	assert_int_equal(rt_run(&t, "MatMulIntegerToFloat", MS, 7, in, 0, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, s, 5]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	in[0] = rt_t(&t, "[b, s, 16]", NULL, NULL);
	in[3] = in[5];
	in[4] = rt_t(&t, "[4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "DynamicQuantizeMatMul", MS, 5, in, 0, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "bias length"));
	sym_ctx_clear_error(t.ctx);
	assert_string_equal(run(&t, "DynamicQuantizeMatMul", SHAPES("[b, s, 16]", "[16, 5]", "[]"), 0, a, 1),
	                    "[b, s, 5]");
	a[0] = rt_i(&t, "transB", 1);
	assert_string_equal(run(&t, "FusedGemm", SHAPES("[m, 8]", "[5, 8]", "[5]"), 1, a, 1), "[m, 5]");
	assert_non_null(strstr(run(&t, "FusedGemm", SHAPES("[m, 8]", "[5, 8]", "[3]"), 1, a, 1), "C dims"));
	assert_non_null(strstr(run(&t, "FusedGemm", SHAPES("[b, m, 8]", "[5, 8]"), 1, a, 1), "rank 2"));
	assert_string_equal(run(&t, "Inverse", SHAPES("[b, n, n]"), 0, a, 1), "[b, n, n]");
	assert_string_equal(run(&t, "Inverse", SHAPES("[b, n, k]"), 0, a, 1), "[b, k, k]");
	assert_string_equal(rt_guards(&t), "assert k == n");
	assert_non_null(strstr(run(&t, "Inverse", SHAPES("[4]"), 0, a, 1), "rank at least 2"));
	assert_string_equal(run(&t, "Trilu", SHAPES("[b, s, l]"), 0, a, 1), "[b, s, l]");
	assert_string_equal(run(&t, "BiasSoftmax", SHAPES("[b, h, s, s]", "[b, 1, 1, s]"), 0, a, 1),
	                    "[b, h, s, s]");
	rt_free(&t);
}

static void ms_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	prop(&t, "FastGelu", SHAPES("[b, s, h]", "[k]"), 0, a, 1);
	rt_free(&t);
	rt_init(&t, 1);
	prop(&t, "BiasAdd", SHAPES("[n, s, c]", "[k]", "[m, s, c]"), 0, a, 1);
	rt_free(&t);
	rt_init(&t, 1);
	prop(&t, "BiasSplitGelu", SHAPES("[n, s, d]", "[k]"), 0, a, 1);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "transB", 1);
	a[1] = rt_i(&t, "transBatchA", 1);
	prop(&t, "FusedMatMul", SHAPES("[p, b, m, k]", "[c, e, n, q]"), 2, a, 1);
	rt_free(&t);
}

static void ms_ops_are_found_only_under_their_domain(void **state)
{
	rt t;
	sym_tval in[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[2, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", NULL, NULL);
	assert_int_equal(rt_run(&t, "BiasGelu", "", 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "unsupported operator"));
	sym_ctx_clear_error(t.ctx);
	/* ONNX rules that CANN may name are not found under com.microsoft */
	assert_int_equal(rt_run(&t, "Gemm", MS, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "unsupported operator 'com.microsoft::Gemm'"));
	sym_ctx_clear_error(t.ctx);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(gelus_keep_the_input_shape_and_check_the_bias),
	    cmocka_unit_test(bias_add_and_split_gelu_follow_n_s_c),
	    cmocka_unit_test(fused_matmul_transposes_then_multiplies),
	    cmocka_unit_test(gemm_fast_gelu_and_matmul_nbits),
	    cmocka_unit_test(quantized_matmuls_fused_gemm_and_matrix_ops),
	    cmocka_unit_test(ms_rules_hold_at_random_dims),
	    cmocka_unit_test(ms_ops_are_found_only_under_their_domain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
