/* MatMul and Gemm rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

/* Runs op on inputs of the given shapes (NULL ends the list) and returns the
 * output shape or the error message. */
static const char *run(rt *t, const char *op, const char *domain, const char *a, const char *b, const char *c,
                       size_t na, const sym_attr *at)
{
	sym_tval in[3], out[1];
	size_t nin = c ? 3 : 2;
	in[0] = rt_t(t, a, NULL, NULL);
	in[1] = rt_t(t, b, NULL, NULL);
	if (c)
		in[2] = rt_t(t, c, NULL, NULL);
	if (rt_run(t, op, domain, nin, in, na, at, 1, out) < 0) {
		const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		return m;
	}
	return rt_shape(t, &out[0]);
}

static void matmul_matches_the_onnx_examples(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "MatMul", NULL, "[3, 4]", "[4, 3]", NULL, 0, NULL), "[3, 3]");
	assert_string_equal(run(&t, "MatMul", NULL, "[2, 3, 4]", "[2, 4, 3]", NULL, 0, NULL), "[2, 3, 3]");
	assert_string_equal(run(&t, "MatMul", NULL, "[1, 2, 3, 4]", "[1, 2, 4, 3]", NULL, 0, NULL),
	                    "[1, 2, 3, 3]");
	assert_string_equal(run(&t, "MatMul", NULL, "[5, 1, 3, 4]", "[2, 4, 6]", NULL, 0, NULL),
	                    "[5, 2, 3, 6]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void matmul_promotes_and_drops_1d_operands(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "MatMul", NULL, "[4]", "[4]", NULL, 0, NULL), "[]");
	assert_string_equal(run(&t, "MatMul", NULL, "[3, 4]", "[4]", NULL, 0, NULL), "[3]");
	assert_string_equal(run(&t, "MatMul", NULL, "[4]", "[4, 3]", NULL, 0, NULL), "[3]");
	assert_string_equal(run(&t, "MatMul", NULL, "[2, 3, 4]", "[4]", NULL, 0, NULL), "[2, 3]");
	assert_string_equal(run(&t, "MatMul", NULL, "[4]", "[7, 4, 3]", NULL, 0, NULL), "[7, 3]");
	assert_non_null(strstr(run(&t, "MatMul", NULL, "[4]", "[3]", NULL, 0, NULL), "contracted dims"));
	assert_non_null(strstr(run(&t, "MatMul", NULL, "[]", "[3]", NULL, 0, NULL), "rank at least 1"));
	assert_string_equal(run(&t, "MatMul", NULL, "*", "[3]", NULL, 0, NULL), "*");
	rt_free(&t);
}

static void symbolic_matmul_guards_contraction_and_batch(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "MatMul", NULL, "[b, s, 768]", "[768, h]", NULL, 0, NULL), "[b, s, h]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "MatMul", NULL, "[a, 1, n, k]", "[b, k2, m]", NULL, 0, NULL),
	                    "[a, b, n, m]");
	assert_string_equal(rt_guards(&t), "assert k == k2");
	rt_free(&t);
	rt_init(&t, 1);
	assert_string_equal(run(&t, "MatMul", NULL, "[a, n, k]", "[b, k, m]", NULL, 0, NULL),
	                    "[max(a, b), n, m]");
	assert_string_equal(rt_guards(&t), "assert a == 1 || a == b || b == 1");
	rt_free(&t);
}

static void cann_matmul_transposes_operands(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "adj_x1", 1);
	a[1] = rt_i(&t, "adj_x2", 1);
	assert_string_equal(run(&t, "BatchMatMulV2", "cann", "[b, k, n]", "[m, k]", NULL, 2, a), "[b, n, m]");
	a[0] = rt_i(&t, "transpose_x2", 1);
	assert_string_equal(run(&t, "MatMul", "cann", "[n, k]", "[m, k]", "[m]", 1, a), "[n, m]");
	assert_non_null(strstr(run(&t, "MatMulV2", "cann", "[n, 4]", "[5, 4]", "[3]", 1, a), "bias"));
	rt_free(&t);
}

static void gemm_matches_the_onnx_examples(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", "[1, 4]", 0, a), "[3, 4]");
	assert_string_equal(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", "[3, 4]", 0, a), "[3, 4]");
	assert_string_equal(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", "[]", 0, a), "[3, 4]");
	assert_string_equal(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", "[3, 1]", 0, a), "[3, 4]");
	assert_string_equal(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", NULL, 0, a), "[3, 4]");
	a[0] = rt_i(&t, "transA", 1);
	assert_string_equal(run(&t, "Gemm", NULL, "[6, 3]", "[6, 4]", "[4]", 1, a), "[3, 4]");
	a[1] = rt_i(&t, "transB", 1);
	assert_string_equal(run(&t, "Gemm", NULL, "[6, 3]", "[4, 6]", "[1, 4]", 2, a), "[3, 4]");
	assert_string_equal(run(&t, "Gemm", NULL, "[k, m]", "[n, k]", "[n]", 2, a), "[m, n]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "Gemm", NULL, "[k, m]", "[n, k]", "[c]", 2, a), "[m, n]");
	assert_string_equal(rt_guards(&t), "assert c == 1 || c == n");
	rt_free(&t);
}

static void gemm_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_non_null(strstr(run(&t, "Gemm", NULL, "[3, 5]", "[6, 4]", NULL, 0, a), "contracted dims"));
	assert_non_null(strstr(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", "[2, 4]", 0, a), "C dims"));
	assert_non_null(strstr(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", "[1, 3, 4]", 0, a), "rank"));
	assert_non_null(strstr(run(&t, "Gemm", NULL, "[2, 3, 5]", "[5, 4]", NULL, 0, a), "rank 2"));
	a[0] = rt_i(&t, "transA", 2);
	assert_non_null(strstr(run(&t, "Gemm", NULL, "[3, 5]", "[5, 4]", NULL, 1, a), "'transA'"));
	rt_free(&t);
}

static void prop(const char *op, const char *domain, const char *a, const char *b, const char *c, size_t na,
                 const sym_attr *at)
{
	rt t;
	sym_tval in[3];
	rt_init(&t, 1);
	in[0] = rt_t(&t, a, NULL, NULL);
	in[1] = rt_t(&t, b, NULL, NULL);
	if (c)
		in[2] = rt_t(&t, c, NULL, NULL);
	rt_property(&t, op, domain, c ? 3 : 2, in, na, at, 1, 300, 1, 3);
	rt_free(&t);
}

static void matmul_and_gemm_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	prop("MatMul", NULL, "[a, n, k]", "[b, 1, k2, m]", NULL, 0, a);
	prop("MatMul", NULL, "[k]", "[b, k2, m]", NULL, 0, a);
	prop("MatMul", NULL, "[a, n, k]", "[k2]", NULL, 0, a);
	prop("MatMul", NULL, "[k]", "[k2]", NULL, 0, a);
	prop("MatMulInteger", NULL, "[a, 2, k]", "[b, k2, 3]", NULL, 0, a);
	prop("Gemm", NULL, "[m, k]", "[k2, n]", "[p, q]", 0, a);
	a[0] = rt_i(&t, "transA", 1);
	a[1] = rt_i(&t, "transB", 1);
	prop("Gemm", NULL, "[k, m]", "[n, k2]", "[q]", 2, a);
	a[0] = rt_i(&t, "adj_x1", 1);
	prop("BatchMatMul", "cann", "[a, k, n]", "[b, k2, m]", "[q]", 1, a);
	rt_free(&t);
}

static void quantized_matmul_and_det(void **state)
{
	rt t;
	sym_tval in[8], out[1];
	size_t i;
	(void)state;
	rt_init(&t, 1);
	for (i = 0; i < 8; i++)
		in[i] = rt_t(&t, "[]", i == 7 ? "uint8" : NULL, NULL);
	in[0] = rt_t(&t, "[b, m, k]", "uint8", NULL);
	in[3] = rt_t(&t, "[k, 5]", "uint8", NULL);
	assert_int_equal(rt_run(&t, "QLinearMatMul", NULL, 8, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, m, 5]");
	assert_int_equal(out[0].dtype, SYM_DT_UINT8);
	in[0] = rt_t(&t, "[b, m, n]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Det", NULL, 1, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b]");
	assert_string_equal(rt_guards(&t), "assert m == n");
	in[0] = rt_t(&t, "[3, 4]", NULL, NULL);
	assert_int_equal(rt_run(&t, "Det", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "square"));
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(quantized_matmul_and_det),
	    cmocka_unit_test(matmul_matches_the_onnx_examples),
	    cmocka_unit_test(matmul_promotes_and_drops_1d_operands),
	    cmocka_unit_test(symbolic_matmul_guards_contraction_and_batch),
	    cmocka_unit_test(cann_matmul_transposes_operands),
	    cmocka_unit_test(gemm_matches_the_onnx_examples),
	    cmocka_unit_test(gemm_bad_inputs_are_errors),
	    cmocka_unit_test(matmul_and_gemm_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
