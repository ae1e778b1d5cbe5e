/* Thread safety (SPEC §8): contexts used by one thread each, and one
 * compiled model program shared by several threads.
 *
 * Two threads each infer the example models and simplify expressions in
 * their own context, and their printed results must equal those of the
 * same work done first on the main thread.  Then four threads run one
 * compiled program of the transformer example concurrently, each at every
 * point of a list in its own order, and every run must give the status and
 * the dims of the single-threaded run at that point.  The test checks the
 * answers in any build; under ThreadSanitizer (the CI's build-tsan) it also
 * checks that no data race happens on the way. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/symshape.h"
#include "test_util.h"

static const char *const models[] = {"examples/transformer.json", "examples/cnn.json",
                                     "tests/models/conv_pool.json", "tests/models/reshape_chain.json"};

static const char *const exprs[] = {
    "x % 8",
    "(x // 2) // 4",
    "(4*x + 3) // 4",
    "x - (x // n)*n",
    "min(a, b) + max(a, b)",
    "(a + b)**3 - a**3",
    "ceil(x / 4) * 4 - x",
    "(h + 2*p - k) // s + 1",
};

/* A growable text: what a thread computed, compared as a whole. */
typedef struct text {
	char *s;
	size_t n, cap;
	int failed;
} text;

static void append(text *t, const char *s)
{
	size_t k = strlen(s);
	if (t->failed)
		return;
	if (t->n + k + 2 > t->cap) {
		size_t nc = (t->n + k + 2) * 2;
		char *ns = realloc(t->s, nc);
		if (!ns) {
			t->failed = 1;
			return;
		}
		t->s = ns, t->cap = nc;
	}
	memcpy(t->s + t->n, s, k);
	t->n += k;
	t->s[t->n++] = '\n';
	t->s[t->n] = 0;
}

static void append_expr(text *t, sym_ctx *ctx, const sym_expr *e)
{
	char *s = e ? sym_expr_to_str(ctx, e) : NULL;
	append(t, s ? s : "(error)");
	sym_str_free(ctx, s);
}

/* Reads a file of the source tree without cmocka (it may run off the main
 * thread); NULL when it cannot. */
static char *slurp(const char *rel, size_t *len)
{
	char path[1024];
	FILE *f;
	long n;
	char *buf;
	snprintf(path, sizeof(path), "%s/%s", SYM_TEST_ROOT, rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(buf = malloc((size_t)n + 1))) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Infers every model and simplifies every expression in a context of its
 * own; returns the printed results (caller frees), NULL on failure. */
static void *own_context_work(void *arg)
{
	text t = {0};
	sym_ctx *ctx = sym_ctx_new();
	sym_facts *f;
	size_t i, j;
	(void)arg;
	if (!ctx)
		return NULL;
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		size_t len = 0;
		char *json = slurp(models[i], &len);
		sym_model *m = json ? sym_model_from_json(ctx, json, len) : NULL;
		sym_graph_result *r = m ? sym_model_infer(ctx, m, NULL) : NULL;
		free(json);
		append(&t, models[i]);
		if (!r) {
			append(&t, sym_ctx_last_message(ctx));
			sym_ctx_clear_error(ctx);
			sym_model_free(m);
			continue;
		}
		for (j = 0; j < sym_graph_num_tensors(r); j++) {
			int rank, d;
			const sym_expr *const *dims;
			append(&t, sym_graph_tensor(r, j, &rank, &dims, NULL));
			for (d = 0; d < rank; d++)
				append_expr(&t, ctx, dims[d]);
		}
		for (j = 0; j < sym_graph_num_guards(r); j++)
			append_expr(&t, ctx, sym_graph_guard(r, j, NULL, NULL, NULL));
		sym_graph_result_free(r);
		sym_model_free(m);
	}
	f = sym_facts_new(ctx);
	if (f && sym_facts_set_default_min(f, 1) == SYM_EOK &&
	    sym_facts_assume(f, sym_expr_from_str(ctx, "x < 8")) == SYM_EOK)
		for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++)
			append_expr(&t, ctx, sym_simplify(ctx, f, sym_expr_from_str(ctx, exprs[i])));
	sym_facts_free(f);
	sym_ctx_free(ctx);
	if (t.failed) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

static void contexts_on_two_threads_give_the_single_threaded_results(void **state)
{
	pthread_t th[2];
	void *got[2];
	char *want = own_context_work(NULL);
	int i;
	(void)state;
	assert_non_null(want);
	assert_non_null(strstr(want, "examples/cnn.json"));
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, own_context_work, NULL), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], &got[i]), 0);
	for (i = 0; i < 2; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want);
		free(got[i]);
	}
	free(want);
}

/* ---- one program, several threads -------------------------------------- */

#define NPOINTS 64
#define NTHREADS 4
#define ROUNDS 50

typedef struct shared {
	const sym_model_program *mp;
	size_t nd, no;
	int64_t dims[NPOINTS][64];
	int64_t want[NPOINTS][256];
	sym_status want_status[NPOINTS];
	size_t want_failed[NPOINTS];
} shared;

typedef struct worker {
	shared *sh;
	unsigned stride; /* the order of the points: k * stride mod NPOINTS */
	size_t mismatches;
} worker;

static void *run_points(void *arg)
{
	worker *w = arg;
	const shared *sh = w->sh;
	int64_t out[256];
	unsigned round, k;
	for (round = 0; round < ROUNDS; round++)
		for (k = 0; k < NPOINTS; k++) {
			unsigned i = (k * w->stride + round) % NPOINTS;
			sym_model_run res;
			memset(out, 0, sizeof(out));
			sym_model_program_run(sh->mp, sh->dims[i], out, &res);
			if (res.status != sh->want_status[i] ||
			    (res.status == SYM_EGUARD && res.failed != sh->want_failed[i]) ||
			    (res.status == SYM_EOK && memcmp(out, sh->want[i], sh->no * sizeof(out[0])) != 0))
				w->mismatches++;
		}
	return NULL;
}

static void threads_sharing_one_program_give_the_single_threaded_answers(void **state)
{
	static shared sh;
	static const unsigned strides[NTHREADS] = {1, 7, 13, 31};
	pthread_t th[NTHREADS];
	worker w[NTHREADS];
	size_t len, ns, i, j, ok = 0;
	char *json = read_text("examples/transformer.json", &len);
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_from_json(ctx, json, len);
	sym_graph_result *r;
	sym_model_program *mp;
	(void)state;
	assert_non_null(m);
	r = sym_model_infer(ctx, m, NULL);
	assert_non_null(r);
	mp = sym_graph_compile(ctx, r, 1);
	assert_non_null(mp);
	sh.mp = mp;
	sh.nd = sym_model_program_num_dims(mp);
	sh.no = sym_model_program_num_out_dims(mp);
	assert_true(sh.nd <= 64 && sh.no <= 256);
	ns = sym_graph_num_symbols(r);
	assert_true(ns <= 16);
	rng_seed(seed_from_env());
	/* points: the input dims at random symbol values, drawn again until
	 * every guard holds; every fourth one then has a dim changed so that
	 * the binding or a guard may fail */
	for (i = 0; i < NPOINTS; i++) {
		sym_model_run res;
		int tries = 0;
		do {
			const sym_expr *syms[16];
			long long vals[16];
			size_t p = 0, in;
			for (j = 0; j < ns; j++) {
				syms[j] = sym_graph_symbol(r, j, NULL, NULL, NULL);
				vals[j] = rng_range(1, 16);
			}
			for (in = 0; in < sym_model_num_inputs(m); in++) {
				int rank, d;
				const sym_expr *const *td;
				sym_graph_tensor(r, sym_graph_find_tensor(r, sym_model_input_name(m, in)),
				                 &rank, &td, NULL);
				for (d = 0; d < rank; d++, p++) {
					long long v = 0;
					const sym_expr *e = sym_expr_eval_si(ctx, td[d], ns, syms, vals);
					assert_non_null(e);
					assert_int_equal(sym_expr_get_si(e, &v), 1);
					sh.dims[i][p] = v;
				}
			}
			assert_int_equal(p, sh.nd);
			sym_model_program_run(mp, sh.dims[i], sh.want[i], &res);
		} while (res.status != SYM_EOK && ++tries < 1000);
		assert_int_equal(res.status, SYM_EOK);
		if (i % 4 == 3) {
			sh.dims[i][rng_range(0, (long long)sh.nd - 1)] = rng_range(1, 9);
			sym_model_program_run(mp, sh.dims[i], sh.want[i], &res);
		}
		sh.want_status[i] = res.status;
		sh.want_failed[i] = res.failed;
		ok += res.status == SYM_EOK;
	}
	assert_true(ok >= NPOINTS / 2);
	for (i = 0; i < NTHREADS; i++) {
		w[i].sh = &sh;
		w[i].stride = strides[i];
		w[i].mismatches = 0;
		assert_int_equal(pthread_create(&th[i], NULL, run_points, &w[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(w[i].mismatches, 0);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(contexts_on_two_threads_give_the_single_threaded_results),
	    cmocka_unit_test(threads_sharing_one_program_give_the_single_threaded_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
