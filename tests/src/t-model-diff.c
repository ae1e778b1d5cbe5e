/* sym_graph_diff (symshape/diff.h) on the pairs of tests/models/diff: the
 * three answers, every witness checked here by running both model programs
 * on its own, the pairing by name and by map, the pairing errors, and
 * allocation failures in the comparison (each allocation of sym_graph_diff
 * failed in turn: a clean NULL with an error, every byte given back, the
 * same answer after sym_ctx_clear_error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/symshape.h"
#include "../counting_alloc.h"

#define MODEL(name) SYM_TEST_ROOT "/tests/models/diff/" name

/* Two models inferred in one context. */
typedef struct pair {
	sym_ctx *ctx;
	sym_model *m[2];
	sym_graph_result *r[2];
} pair;

static void pair_load(pair *p, sym_ctx *ctx, const char *a, const char *b, const sym_infer_options *opt)
{
	const char *files[2] = {a, b};
	int s;
	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	for (s = 0; s < 2; s++) {
		p->m[s] = sym_model_load(ctx, files[s]);
		if (!p->m[s])
			fail_msg("%s: %s", files[s], sym_ctx_last_message(ctx));
		p->r[s] = sym_model_infer(ctx, p->m[s], opt);
		if (!p->r[s])
			fail_msg("%s: %s", files[s], sym_ctx_last_message(ctx));
	}
}

static void pair_free(pair *p)
{
	int s;
	for (s = 0; s < 2; s++)
		sym_graph_result_free(p->r[s]), sym_model_free(p->m[s]);
}

/* Runs the program of result s at the witness (renamed by map for B).
 * Returns whether it accepts, with the output dims in out. */
static int run_at(pair *p, int s, const sym_model_diff *d, const char *const *map, int64_t *out)
{
	sym_model_program *mp = sym_graph_compile(p->ctx, p->r[s], 0);
	int64_t dims[64];
	size_t j, off = 0, k;
	sym_model_run res;
	assert_non_null(mp);
	for (j = 0; j < sym_model_num_inputs(p->m[s]); j++) {
		const char *name = sym_model_input_name(p->m[s], j);
		int found = 0;
		for (k = 0; k < sym_model_diff_num_inputs(d); k++) {
			int rank, q;
			const int64_t *v;
			const char *wn = sym_model_diff_input(d, k, &rank, &v);
			if (strcmp(s && map ? map[1] : wn, name) && strcmp(wn, name))
				continue;
			for (q = 0; q < rank; q++)
				dims[off++] = v[q];
			found = 1;
		}
		assert_true(found);
	}
	assert_int_equal(off, sym_model_program_num_dims(mp));
	sym_model_program_run(mp, dims, out, &res);
	sym_model_program_free(mp);
	assert_true(res.status == SYM_EOK || res.status == SYM_EGUARD || res.status == SYM_EINPUT);
	return res.status == SYM_EOK;
}

/* The witness separates the models: one accepts and the other rejects, or
 * an output dim differs (both models have one output here). */
static void assert_witness_separates(pair *p, const sym_model_diff *d)
{
	int64_t oa[16], ob[16];
	int ok_a, ok_b;
	assert_int_equal(sym_model_diff_answer(d), SYM_FALSE);
	assert_true(sym_model_diff_num_inputs(d) > 0);
	ok_a = run_at(p, 0, d, NULL, oa);
	ok_b = run_at(p, 1, d, NULL, ob);
	if (ok_a == ok_b) {
		sym_model_program *mp = sym_graph_compile(p->ctx, p->r[0], 0);
		size_t n = sym_model_program_num_out_dims(mp);
		sym_model_program_free(mp);
		assert_true(ok_a);
		assert_true(memcmp(oa, ob, n * sizeof(int64_t)) != 0);
	}
}

static sym_truth answer_of(const char *a, const char *b, const sym_diff_options *dopt,
                           const sym_infer_options *opt, char *reason, size_t cap)
{
	sym_ctx *ctx = sym_ctx_new();
	pair p;
	sym_model_diff *d;
	sym_truth t;
	pair_load(&p, ctx, a, b, opt);
	d = sym_graph_diff(ctx, p.r[0], p.r[1], dopt);
	if (!d)
		fail_msg("diff: %s", sym_ctx_last_message(ctx));
	t = sym_model_diff_answer(d);
	if (t == SYM_FALSE)
		assert_witness_separates(&p, d);
	else
		assert_int_equal(sym_model_diff_num_inputs(d), 0);
	if (reason)
		snprintf(reason, cap, "%s", sym_model_diff_reason(d));
	sym_model_diff_free(d);
	pair_free(&p);
	sym_ctx_free(ctx);
	return t;
}

static void model_against_itself_is_same(void **state)
{
	char reason[256];
	(void)state;
	assert_int_equal(answer_of(MODEL("conv_reshape.json"), MODEL("conv_reshape.json"), NULL, NULL, reason,
	                           sizeof(reason)),
	                 SYM_TRUE);
	assert_string_equal(reason, "");
	assert_int_equal(answer_of(SYM_TEST_ROOT "/examples/transformer.json",
	                           SYM_TEST_ROOT "/examples/transformer.json", NULL, NULL, NULL, 0),
	                 SYM_TRUE);
}

static void reshape_to_minus_one_and_flatten_are_same(void **state)
{
	(void)state;
	assert_int_equal(
	    answer_of(MODEL("conv_reshape.json"), MODEL("conv_flatten.json"), NULL, NULL, NULL, 0), SYM_TRUE);
	assert_int_equal(answer_of(MODEL("export_flatten.onnx"), MODEL("flatten.onnx"), NULL, NULL, NULL, 0),
	                 SYM_TRUE);
}

static void changed_pad_is_different_with_a_separating_witness(void **state)
{
	(void)state;
	assert_int_equal(answer_of(MODEL("conv_flatten.json"), MODEL("conv_pad0.json"), NULL, NULL, NULL, 0),
	                 SYM_FALSE);
	assert_int_equal(answer_of(MODEL("pool_pad1.onnx"), MODEL("pool_pad0.onnx"), NULL, NULL, NULL, 0),
	                 SYM_FALSE);
}

static void guard_of_one_side_is_found_both_ways(void **state)
{
	char reason[256];
	(void)state;
	assert_int_equal(answer_of(MODEL("identity.json"), MODEL("reshape_pairs.json"), NULL, NULL, reason,
	                           sizeof(reason)),
	                 SYM_FALSE);
	assert_non_null(strstr(reason, "B rejects it"));
	assert_int_equal(answer_of(MODEL("reshape_pairs.json"), MODEL("identity.json"), NULL, NULL, reason,
	                           sizeof(reason)),
	                 SYM_FALSE);
	assert_non_null(strstr(reason, "A rejects it"));
}

static void slice_end_is_the_identity_within_the_range(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const char *names[1] = {"n"};
	const sym_expr *lo[1], *hi[1];
	sym_infer_options opt;
	pair p;
	sym_model_diff *d;
	(void)state;
	assert_int_equal(answer_of(MODEL("slice64.json"), MODEL("vector.json"), NULL, NULL, NULL, 0),
	                 SYM_FALSE);
	memset(&opt, 0, sizeof(opt));
	lo[0] = sym_expr_from_si(ctx, 1), hi[0] = sym_expr_from_si(ctx, 64);
	opt.nranges = 1, opt.range_names = names, opt.range_lo = lo, opt.range_hi = hi;
	pair_load(&p, ctx, MODEL("slice64.json"), MODEL("vector.json"), &opt);
	d = sym_graph_diff(ctx, p.r[0], p.r[1], NULL);
	assert_non_null(d);
	assert_int_equal(sym_model_diff_answer(d), SYM_TRUE);
	sym_model_diff_free(d);
	pair_free(&p);
	sym_ctx_free(ctx);
}

static void map_pairs_renamed_inputs_and_outputs(void **state)
{
	static const char *const a[] = {"x", "y"}, *const b[] = {"input", "output"};
	sym_diff_options dopt = {2, a, b};
	sym_ctx *ctx = sym_ctx_new();
	pair p;
	(void)state;
	assert_int_equal(answer_of(MODEL("identity.json"), MODEL("renamed.json"), &dopt, NULL, NULL, 0),
	                 SYM_TRUE);
	pair_load(&p, ctx, MODEL("identity.json"), MODEL("renamed.json"), NULL);
	assert_null(sym_graph_diff(ctx, p.r[0], p.r[1], NULL));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "input 'x' of A has no partner in B"));
	sym_ctx_clear_error(ctx);
	dopt.nmap = 1; /* the outputs still differ in name */
	assert_null(sym_graph_diff(ctx, p.r[0], p.r[1], &dopt));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "output 'y' of A has no partner in B"));
	pair_free(&p);
	sym_ctx_free(ctx);
}

static void differing_input_rank_is_different_and_other_contexts_an_error(void **state)
{
	sym_ctx *ctx = sym_ctx_new(), *other = sym_ctx_new();
	sym_model *m = sym_model_load(other, MODEL("identity.json"));
	sym_graph_result *r = sym_model_infer(other, m, NULL);
	pair p;
	(void)state;
	pair_load(&p, ctx, MODEL("identity.json"), MODEL("vector.json"), NULL);
	{
		/* every shape of rank 2 B rejects: a witness A's program accepts */
		sym_model_diff *d = sym_graph_diff(ctx, p.r[0], p.r[1], NULL);
		sym_model_program *mp = sym_graph_compile(ctx, p.r[0], 0);
		const int64_t *dims;
		int64_t out[4];
		int rank;
		sym_model_run res;
		assert_non_null(d);
		assert_int_equal(sym_model_diff_answer(d), SYM_FALSE);
		assert_non_null(strstr(sym_model_diff_reason(d), "rank 2 in A and 'x' rank 1 in B"));
		assert_string_equal(sym_model_diff_input(d, 0, &rank, &dims), "x");
		assert_int_equal(rank, 2);
		sym_model_program_run(mp, dims, out, &res);
		assert_int_equal(res.status, SYM_EOK);
		sym_model_program_free(mp);
		sym_model_diff_free(d);
	}
	assert_null(sym_graph_diff(ctx, p.r[0], r, NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EMISUSE);
	assert_int_equal(sym_model_diff_answer(NULL), SYM_ERROR);
	pair_free(&p);
	sym_graph_result_free(r), sym_model_free(m);
	sym_ctx_free(ctx), sym_ctx_free(other);
}

static void data_dependent_output_dim_is_unknown(void **state)
{
	char reason[256];
	(void)state;
	assert_int_equal(answer_of(SYM_TEST_ROOT "/tests/models/storage_ranges/nonzero.json",
	                           SYM_TEST_ROOT "/tests/models/storage_ranges/nonzero.json", NULL, NULL,
	                           reason, sizeof(reason)),
	                 SYM_UNKNOWN);
	assert_non_null(strstr(reason, "data-dependent"));
	assert_int_equal(answer_of(MODEL("nonzero_side.json"), MODEL("nonzero_side.json"), NULL, NULL, reason,
	                           sizeof(reason)),
	                 SYM_UNKNOWN);
}

static void incomplete_inference_is_unknown(void **state)
{
	char reason[256];
	(void)state;
	assert_int_equal(
	    answer_of(MODEL("unsupported.json"), MODEL("vector.json"), NULL, NULL, reason, sizeof(reason)),
	    SYM_UNKNOWN);
	assert_non_null(strstr(reason, "A is not inferred completely: node 'mystery'"));
	assert_int_equal(
	    answer_of(MODEL("vector.json"), MODEL("unsupported.json"), NULL, NULL, reason, sizeof(reason)),
	    SYM_UNKNOWN);
	assert_non_null(strstr(reason, "B is not inferred completely"));
}

/* ---- allocation failures ------------------------------------------------- */

/* Fails the k-th allocation of sym_graph_diff for every k until one run
 * needs no more, for pairs with witnesses: every step runs (the proofs,
 * the compilation, the search, the witness kept; for inputs whose ranks
 * differ, the search of each side alone). */
static void allocation_failures_give_clean_errors(void **state)
{
	static const char *const pairs[][2] = {{MODEL("conv_flatten.json"), MODEL("conv_pad0.json")},
	                                       {MODEL("identity.json"), MODEL("reshape_pairs.json")},
	                                       {MODEL("nonzero_rows.json"), MODEL("vector.json")}};
	size_t q;
	(void)state;
	for (q = 0; q < sizeof(pairs) / sizeof(pairs[0]); q++) {
		sym_truth want = SYM_ERROR;
		long k;
		for (k = 1;; k++) {
			counting c = {0};
			sym_allocator al = {counting_realloc, &c};
			sym_ctx *ctx = sym_ctx_new_with_allocator(&al);
			pair p;
			sym_model_diff *d;
			long before;
			int reached;
			pair_load(&p, ctx, pairs[q][0], pairs[q][1], NULL);
			before = c.calls;
			c.fail_at = before + k;
			d = sym_graph_diff(ctx, p.r[0], p.r[1], NULL);
			reached = c.calls >= c.fail_at;
			if (d) {
				if (want == SYM_ERROR)
					want = sym_model_diff_answer(d);
				assert_int_equal(sym_model_diff_answer(d), want);
				sym_model_diff_free(d);
			} else {
				assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
				sym_ctx_clear_error(ctx);
				c.fail_at = 0;
				d = sym_graph_diff(ctx, p.r[0], p.r[1], NULL);
				assert_non_null(d);
				if (want == SYM_ERROR)
					want = sym_model_diff_answer(d);
				assert_int_equal(sym_model_diff_answer(d), want);
				sym_model_diff_free(d);
			}
			pair_free(&p);
			sym_ctx_free(ctx);
			assert_int_equal(c.bad_sizes, 0);
			assert_int_equal(c.live, 0);
			assert_int_equal(c.bytes, 0);
			if (!reached) /* the failing call was never reached */
				break;
		}
		assert_true(k > 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(model_against_itself_is_same),
	    cmocka_unit_test(reshape_to_minus_one_and_flatten_are_same),
	    cmocka_unit_test(changed_pad_is_different_with_a_separating_witness),
	    cmocka_unit_test(guard_of_one_side_is_found_both_ways),
	    cmocka_unit_test(slice_end_is_the_identity_within_the_range),
	    cmocka_unit_test(map_pairs_renamed_inputs_and_outputs),
	    cmocka_unit_test(differing_input_rank_is_different_and_other_contexts_an_error),
	    cmocka_unit_test(data_dependent_output_dim_is_unknown),
	    cmocka_unit_test(incomplete_inference_is_unknown),
	    cmocka_unit_test(allocation_failures_give_clean_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
