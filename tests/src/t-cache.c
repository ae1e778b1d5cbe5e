/* The guard cache and its dispatch program (src/runtime/cache.c,
 * src/runtime/cache_dispatch.c): every answer of a lookup (hit and which
 * variant, recompile, invalid and the reason's words), the labels and the
 * size are compared with a reference cache kept here, which runs each
 * variant's whole program in turn in most-recently-used order, the
 * validity program last (docs/guards.md "The guard cache and its
 * answers").  Seeded from SYM_TEST_SEED: random hints give variants with
 * different guards, random dims (inside and outside the ranges, and large
 * enough to overflow) every answer; add and evict sequences run over
 * random capacities.  Then the sharing itself, the bound on what evicted
 * variants leave behind, and allocation failures of the cache's own
 * blocks. */
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
#include "cache_private.h"
#include "../counting_alloc.h"

/* ---- the models and their variants -------------------------------------- */

/* Two broadcasts and a flatten: hints choose each broadcast's branch, the
 * flattened size overflows int64 for large dims. */
static const char bcast_json[] =
    "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"a\", \"b\"]},"
    " {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [\"c\", \"d\"]}],"
    " \"nodes\": [{\"name\": \"s\", \"op\": \"Add\", \"inputs\": [\"x\", \"y\"], \"outputs\": [\"t\"]},"
    " {\"name\": \"f\", \"op\": \"Flatten\", \"inputs\": [\"t\"], \"outputs\": [\"u\"], \"attrs\": "
    "{\"axis\": 0}}],"
    " \"outputs\": [\"u\"]}";

typedef struct model_fx {
	sym_ctx *ctx;
	sym_model *m;
	const char *const *names; /* the hinted symbols: two broadcast pairs */
	size_t nnames;
	size_t ndims;
} model_fx;

static const char *const tf_names[] = {"batch", "mbatch", "seq", "mseq"};
static const char *const bc_names[] = {"a", "c", "b", "d"};

static void open_model(model_fx *fx, int transformer)
{
	fx->ctx = sym_ctx_new();
	assert_non_null(fx->ctx);
	if (transformer) {
		size_t len;
		char *text = read_text("examples/transformer.json", &len);
		fx->m = sym_model_from_json(fx->ctx, text, len);
		free(text);
		fx->names = tf_names, fx->nnames = 4, fx->ndims = 7;
	} else {
		fx->m = sym_model_from_json(fx->ctx, bcast_json, strlen(bcast_json));
		fx->names = bc_names, fx->nnames = 4, fx->ndims = 4;
	}
	if (!fx->m)
		fail_msg("%s", sym_ctx_last_message(fx->ctx));
}

static void close_model(model_fx *fx)
{
	sym_model_free(fx->m);
	sym_ctx_free(fx->ctx);
}

/* Compiles the model with the hints vals (n of them; 0: none), or NULL
 * when the hints contradict the model. */
static sym_model_program *compile(model_fx *fx, size_t n, const long long *vals)
{
	sym_infer_options opt;
	sym_graph_result *r;
	sym_model_program *mp = NULL;
	memset(&opt, 0, sizeof(opt));
	opt.nhints = n, opt.hint_names = fx->names, opt.hint_values = vals;
	r = sym_model_infer(fx->ctx, fx->m, &opt);
	if (r)
		mp = sym_graph_compile(fx->ctx, r, 0);
	sym_graph_result_free(r);
	if (!mp)
		sym_ctx_clear_error(fx->ctx);
	return mp;
}

/* Random hints that some input fits: each pair of broadcast dims equal,
 * or one of them 1 (the hints choose the branches). */
static void random_hints(long long *vals)
{
	size_t i;
	for (i = 0; i < 4; i += 2) {
		long long v = rng_range(2, 4);
		switch (rng_range(0, 3)) {
		case 0:
			vals[i] = vals[i + 1] = v;
			break;
		case 1:
			vals[i] = 1, vals[i + 1] = v;
			break;
		case 2:
			vals[i] = v, vals[i + 1] = 1;
			break;
		default:
			vals[i] = vals[i + 1] = 1;
			break;
		}
	}
}

/* Random dims of the model: mostly small (the hinted range), sometimes
 * out of range (0, -1), contradicting a declared dim, or huge. */
static void random_dims(const model_fx *fx, int64_t *dims)
{
	size_t i;
	for (i = 0; i < fx->ndims; i++) {
		long long k = rng_range(0, 99);
		dims[i] = rng_range(1, 4);
		if (k < 3)
			dims[i] = 0;
		else if (k < 5)
			dims[i] = -1;
		else if (k < 9)
			dims[i] = (int64_t)1 << rng_range(31, 62);
	}
	if (fx->ndims == 7) {
		/* x [batch, seq, 768], mask [mbatch, 1, 1, mseq] */
		dims[2] = rng_range(0, 19) ? 768 : 767;
		dims[4] = rng_range(0, 19) ? 1 : 2;
		dims[5] = 1;
	}
}

/* ---- the reference: each variant's whole program in turn ----------------- */

#define REF_MAX 160

typedef struct ref_cache {
	long ids[REF_MAX];
	sym_model_program *mp[REF_MAX]; /* [0] most recently used */
	char labels[REF_MAX][48];
	size_t n, cap;
	long next_id;
	sym_model_program *validity;
	int64_t out[256];
	char reason[400];
} ref_cache;

static void ref_init(ref_cache *rc, size_t cap)
{
	memset(rc, 0, sizeof(*rc));
	rc->cap = cap;
}

static void ref_free(ref_cache *rc)
{
	size_t i;
	for (i = 0; i < rc->n; i++)
		sym_model_program_free(rc->mp[i]);
	sym_model_program_free(rc->validity);
}

static long ref_add(ref_cache *rc, sym_model_program *mp, const char *label)
{
	if (rc->n == rc->cap)
		sym_model_program_free(rc->mp[--rc->n]);
	memmove(rc->ids + 1, rc->ids, rc->n * sizeof(rc->ids[0]));
	memmove(rc->mp + 1, rc->mp, rc->n * sizeof(rc->mp[0]));
	memmove(rc->labels + 1, rc->labels, rc->n * sizeof(rc->labels[0]));
	rc->ids[0] = rc->next_id++;
	rc->mp[0] = mp;
	snprintf(rc->labels[0], sizeof(rc->labels[0]), "%s", label);
	rc->n++;
	return rc->ids[0];
}

static sym_cache_answer ref_invalid(ref_cache *rc, const sym_model_run *res, const char **reason)
{
	if (res->status == SYM_EGUARD)
		snprintf(rc->reason, sizeof(rc->reason), "guard %s failed (node %s)", res->message,
		         res->node);
	else
		snprintf(rc->reason, sizeof(rc->reason), "%s", res->message);
	*reason = rc->reason;
	return SYM_CACHE_INVALID;
}

static sym_cache_answer ref_lookup(ref_cache *rc, const int64_t *dims, long *id, const char **reason)
{
	size_t i;
	sym_model_run res;
	*reason = NULL;
	for (i = 0; i < rc->n; i++) {
		sym_model_program_run(rc->mp[i], dims, rc->out, &res);
		if (res.status == SYM_EOK) {
			long hid = rc->ids[i];
			sym_model_program *hmp = rc->mp[i];
			char hl[48];
			memcpy(hl, rc->labels[i], sizeof(hl));
			memmove(rc->ids + 1, rc->ids, i * sizeof(rc->ids[0]));
			memmove(rc->mp + 1, rc->mp, i * sizeof(rc->mp[0]));
			memmove(rc->labels + 1, rc->labels, i * sizeof(rc->labels[0]));
			rc->ids[0] = hid, rc->mp[0] = hmp;
			memcpy(rc->labels[0], hl, sizeof(hl));
			*id = hid;
			return SYM_CACHE_HIT;
		}
		if (res.status == SYM_EGUARD && !strcmp(res.kind, "expect"))
			continue;
		if (rc->validity && res.status != SYM_EINPUT)
			continue;
		return ref_invalid(rc, &res, reason);
	}
	if (rc->validity) {
		sym_model_program_run(rc->validity, dims, rc->out, &res);
		if (res.status != SYM_EOK)
			return ref_invalid(rc, &res, reason);
	}
	return SYM_CACHE_RECOMPILE;
}

/* Looks dims up in both and compares every answer; returns the answer. */
static sym_cache_answer lookup_both(sym_guard_cache *c, ref_cache *rc, const int64_t *dims)
{
	long id = -7, rid = -7;
	const char *reason = "unset", *rreason;
	sym_cache_answer a = sym_guard_cache_lookup(c, dims, &id, &reason);
	sym_cache_answer ra = ref_lookup(rc, dims, &rid, &rreason);
	assert_int_equal(a, ra);
	if (a == SYM_CACHE_HIT)
		assert_int_equal(id, rid);
	if (a == SYM_CACHE_INVALID) {
		assert_non_null(reason);
		assert_string_equal(reason, rreason);
	} else {
		assert_null(reason);
	}
	return a;
}

/* Compares the held variants: the size and every label by id. */
static void same_variants(const sym_guard_cache *c, const ref_cache *rc)
{
	size_t i;
	long id;
	assert_int_equal(sym_guard_cache_size(c), rc->n);
	for (i = 0; i < rc->n; i++) {
		const char *l = sym_guard_cache_label(c, rc->ids[i]);
		assert_non_null(l);
		assert_string_equal(l, rc->labels[i]);
	}
	for (id = 0; id < rc->next_id; id++) {
		int held = 0;
		for (i = 0; i < rc->n; i++)
			held |= rc->ids[i] == id;
		if (!held)
			assert_null(sym_guard_cache_label(c, id));
	}
}

/* Adds a variant of random hints to both (each its own compilation);
 * returns 0 when the hints contradict the model. */
static int add_both(model_fx *fx, sym_guard_cache *c, ref_cache *rc)
{
	long long vals[4];
	char label[48];
	sym_model_program *a, *b;
	random_hints(vals);
	a = compile(fx, 4, vals);
	if (!a)
		return 0;
	b = compile(fx, 4, vals);
	assert_non_null(b);
	snprintf(label, sizeof(label), "%lld,%lld,%lld,%lld", vals[0], vals[1], vals[2], vals[3]);
	assert_int_equal(sym_guard_cache_add(c, a, label), ref_add(rc, b, label));
	return 1;
}

/* One random session: capacity, validity or not, adds and lookups. */
static void random_session(model_fx *fx, size_t cap, int with_validity, size_t nadds, size_t nlookups,
                           size_t counts[3])
{
	sym_guard_cache *c = sym_guard_cache_new(cap);
	ref_cache *rc = malloc(sizeof(*rc));
	int64_t dims[8];
	size_t i, k;
	assert_non_null(c);
	assert_non_null(rc);
	/* every other session rebuilds the dispatch program at any garbage */
	if (rng_range(0, 1))
		sym__guard_cache_set_eager_rebuild(c, 1);
	ref_init(rc, cap);
	if (with_validity) {
		assert_int_equal(sym_guard_cache_set_validity(c, compile(fx, 0, NULL)), 0);
		rc->validity = compile(fx, 0, NULL);
	}
	for (i = 0; i < nadds; i++) {
		add_both(fx, c, rc);
		same_variants(c, rc);
		for (k = 0; k < nlookups; k++) {
			random_dims(fx, dims);
			counts[lookup_both(c, rc, dims)]++;
		}
		same_variants(c, rc);
	}
	sym_guard_cache_free(c);
	ref_free(rc);
	free(rc);
}

static void lookup_answers_as_the_sequential_lookup_at_random_dims(void **state)
{
	model_fx fx;
	size_t counts[3] = {0, 0, 0}, round;
	int transformer;
	(void)state;
	rng_seed(seed_from_env());
	for (transformer = 0; transformer < 2; transformer++) {
		open_model(&fx, transformer);
		for (round = 0; round < 4; round++)
			random_session(&fx, (size_t)rng_range(1, 70), (int)(round & 1), 72, 12, counts);
		close_model(&fx);
	}
	/* every answer was met, so each was compared */
	assert_true(counts[SYM_CACHE_HIT] > 50);
	assert_true(counts[SYM_CACHE_RECOMPILE] > 50);
	assert_true(counts[SYM_CACHE_INVALID] > 50);
}

static void add_and_evict_sequences_answer_as_the_sequential_lookup(void **state)
{
	model_fx fx;
	size_t counts[3] = {0, 0, 0}, round;
	(void)state;
	rng_seed(seed_from_env() + 1);
	open_model(&fx, 0);
	/* small capacities: every add past them evicts */
	for (round = 0; round < 12; round++)
		random_session(&fx, (size_t)rng_range(1, 4), (int)(round % 3 == 0), 40, 4, counts);
	close_model(&fx);
	assert_true(counts[SYM_CACHE_HIT] > 0 && counts[SYM_CACHE_RECOMPILE] > 0 &&
	            counts[SYM_CACHE_INVALID] > 0);
}

/* A validity program over the first two dims only: the dispatch program
 * takes it first, so the variants (four dims) are run on their own. */
static const char two_dims_json[] =
    "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"a\", \"b\"]}],"
    " \"nodes\": [{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}],"
    " \"outputs\": [\"y\"]}";

static void programs_outside_the_dispatch_answer_as_the_sequential_lookup(void **state)
{
	model_fx fx, two;
	sym_guard_cache *c = sym_guard_cache_new(8);
	ref_cache *rc = malloc(sizeof(*rc));
	int64_t dims[8];
	size_t i, k, counts[3] = {0, 0, 0};
	(void)state;
	assert_non_null(rc);
	rng_seed(seed_from_env() + 4);
	open_model(&fx, 0);
	two.ctx = sym_ctx_new();
	two.m = sym_model_from_json(two.ctx, two_dims_json, strlen(two_dims_json));
	assert_non_null(two.m);
	two.names = bc_names, two.nnames = 0, two.ndims = 2;
	ref_init(rc, 8);
	assert_int_equal(sym_guard_cache_set_validity(c, compile(&two, 0, NULL)), 0);
	rc->validity = compile(&two, 0, NULL);
	for (i = 0; i < 12; i++) {
		add_both(&fx, c, rc);
		for (k = 0; k < 20; k++) {
			random_dims(&fx, dims);
			counts[lookup_both(c, rc, dims)]++;
		}
	}
	assert_int_equal(sym__guard_cache_dispatch(c)->ndims, 2);
	assert_true(counts[SYM_CACHE_HIT] > 0 && counts[SYM_CACHE_RECOMPILE] > 0 &&
	            counts[SYM_CACHE_INVALID] > 0);
	sym_guard_cache_free(c);
	ref_free(rc);
	free(rc);
	close_model(&two);
	close_model(&fx);
}

/* ---- the dispatch program -------------------------------------------------- */

static const sym__dispatch *dispatch_of(sym_guard_cache *c)
{
	return sym__guard_cache_dispatch(c);
}

static void identical_variants_share_every_instruction_and_guard(void **state)
{
	model_fx fx;
	const long long vals[4] = {2, 2, 128, 128};
	sym_guard_cache *c = sym_guard_cache_new(64);
	const int64_t fits[7] = {2, 64, 768, 2, 1, 1, 64};
	size_t one_insns = 0, one_ents = 0, one_seg = 0, i;
	long id = -1;
	(void)state;
	open_model(&fx, 1);
	for (i = 0; i < 64; i++) {
		assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, vals), "same"), (long)i);
		if (i == 0) {
			one_insns = dispatch_of(c)->ninsns, one_ents = dispatch_of(c)->nent;
			one_seg = dispatch_of(c)->nseg;
			assert_true(one_insns > 0 && one_ents > 0);
		}
	}
	/* 64 copies: the shared code and the entries of one, 64 segments */
	assert_int_equal(dispatch_of(c)->ninsns, one_insns);
	assert_int_equal(dispatch_of(c)->nent, one_ents);
	assert_int_equal(dispatch_of(c)->nseg, 64 * one_seg);
	/* the pass computes (no fallback) and the most recent copy fits */
	assert_int_equal(sym__dispatch_pass((sym__dispatch *)dispatch_of(c), fits, 1), 0);
	assert_int_equal(sym_guard_cache_lookup(c, fits, &id, NULL), SYM_CACHE_HIT);
	assert_int_equal(id, 63);
	sym_guard_cache_free(c);
	close_model(&fx);
}

static void variants_of_other_hints_add_only_their_own_guards(void **state)
{
	model_fx fx;
	const long long eq[4] = {2, 2, 128, 128}, one[4] = {2, 1, 128, 1};
	sym_guard_cache *c = sym_guard_cache_new(8);
	size_t ents;
	(void)state;
	open_model(&fx, 1);
	assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, eq), "eq"), 0);
	ents = dispatch_of(c)->nent;
	assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, one), "one"), 1);
	/* the checks and asserts are shared: only the two expects are new */
	assert_int_equal(dispatch_of(c)->nent, ents + 2);
	sym_guard_cache_free(c);
	close_model(&fx);
}

static void evictions_leave_a_bounded_dispatch_program(void **state)
{
	model_fx fx;
	sym_guard_cache *c = sym_guard_cache_new(3);
	size_t i, most = 0;
	int64_t dims[4];
	(void)state;
	rng_seed(seed_from_env() + 2);
	open_model(&fx, 0);
	for (i = 0; i < 300; i++) {
		long long vals[4];
		const sym__dispatch *d;
		size_t dead, live;
		random_hints(vals);
		sym_guard_cache_add(c, compile(&fx, 4, vals), "v");
		d = dispatch_of(c);
		dead = sym__dispatch_garbage(d);
		live = sym__dispatch_live(d);
		assert_true(dead <= live || dead <= 64);
		if (d->ninsns > most)
			most = d->ninsns;
		random_dims(&fx, dims);
		sym_guard_cache_lookup(c, dims, NULL, NULL);
	}
	/* three variants held: the code never grew with the 300 added */
	assert_true(most < 200);
	sym_guard_cache_free(c);
	close_model(&fx);
}

static void capacity_evicts_the_least_recently_used(void **state)
{
	model_fx fx;
	/* hints a, c, b, d: c taken as 1, d taken as 1 */
	const long long eq[4] = {2, 2, 2, 2}, b1[4] = {2, 1, 2, 2}, d1[4] = {2, 2, 2, 1};
	sym_guard_cache *c = sym_guard_cache_new(2);
	const int64_t fits_eq[4] = {3, 3, 3, 3}, fits_b1[4] = {3, 3, 1, 3};
	long id = -1;
	(void)state;
	open_model(&fx, 0);
	assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, eq), "eq"), 0);
	assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, b1), "b1"), 1);
	/* a hit makes eq the most recently used: b1 is evicted next */
	assert_int_equal(sym_guard_cache_lookup(c, fits_eq, &id, NULL), SYM_CACHE_HIT);
	assert_int_equal(id, 0);
	assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, d1), "d1"), 2);
	assert_int_equal(sym_guard_cache_size(c), 2);
	assert_null(sym_guard_cache_label(c, 1));
	assert_string_equal(sym_guard_cache_label(c, 0), "eq");
	assert_int_equal(sym_guard_cache_lookup(c, fits_b1, &id, NULL), SYM_CACHE_RECOMPILE);
	assert_int_equal(sym_guard_cache_lookup(c, fits_eq, &id, NULL), SYM_CACHE_HIT);
	assert_int_equal(id, 0);
	sym_guard_cache_free(c);
	close_model(&fx);
}

static void overflowing_dims_answer_as_the_sequential_lookup(void **state)
{
	model_fx fx;
	sym_guard_cache *c = sym_guard_cache_new(4);
	ref_cache *rc = malloc(sizeof(*rc));
	const long long eq[4] = {2, 2, 2, 2};
	/* the flattened size a*b overflows: not a hit, the words of the
	 * sequential lookup */
	const int64_t big[4] = {(int64_t)1 << 40, (int64_t)1 << 40, (int64_t)1 << 40, (int64_t)1 << 40};
	(void)state;
	assert_non_null(rc);
	open_model(&fx, 0);
	ref_init(rc, 4);
	assert_int_equal(sym_guard_cache_add(c, compile(&fx, 4, eq), "eq"),
	                 ref_add(rc, compile(&fx, 4, eq), "eq"));
	assert_int_equal(lookup_both(c, rc, big), SYM_CACHE_INVALID);
	assert_int_equal(sym_guard_cache_set_validity(c, compile(&fx, 0, NULL)), 0);
	rc->validity = compile(&fx, 0, NULL);
	assert_int_equal(lookup_both(c, rc, big), SYM_CACHE_INVALID);
	sym_guard_cache_free(c);
	ref_free(rc);
	free(rc);
	close_model(&fx);
}

/* ---- allocation failures ------------------------------------------------------- */

/* The reason of an invalid answer is the whole guard text, however long:
 * dims named with 250 letters make a broadcast guard of over 900. */
static void invalid_answers_give_the_whole_guard_text(void **state)
{
	char a[301], b[301], *json, want[2048];
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *mp;
	sym_guard_cache *c;
	const int64_t dims[2] = {2, 3};
	const char *reason = NULL;
	sym_infer_options opt;
	long id;
	(void)state;
	memset(a, 'a', 250), a[250] = 0;
	memset(b, 'b', 250), b[250] = 0;
	assert_non_null(json = malloc(2048));
	snprintf(json, 2048,
	         "{\"inputs\": [{\"name\": \"x\", \"shape\": [\"%s\"]}, {\"name\": \"y\", \"shape\": "
	         "[\"%s\"]}],"
	         " \"nodes\": [{\"name\": \"s\", \"op\": \"Add\", \"inputs\": [\"x\", \"y\"], "
	         "\"outputs\": [\"t\"]}], \"outputs\": [\"t\"]}",
	         a, b);
	assert_non_null(ctx = sym_ctx_new());
	assert_non_null(m = sym_model_from_json(ctx, json, strlen(json)));
	memset(&opt, 0, sizeof(opt));
	if (!(r = sym_model_infer(ctx, m, &opt)))
		fail_msg("%s", sym_ctx_last_message(ctx));
	assert_non_null(mp = sym_graph_compile(ctx, r, 0));
	assert_non_null(c = sym_guard_cache_new(4));
	assert_true(sym_guard_cache_add(c, mp, "general") >= 0);
	assert_int_equal(sym_guard_cache_lookup(c, dims, &id, &reason), SYM_CACHE_INVALID);
	snprintf(want, sizeof(want), "guard %s == 1 || %s == %s || %s == 1 failed (node s)", a, a, b, b);
	assert_non_null(reason);
	assert_true(strlen(want) > 900);
	assert_string_equal(reason, want);
	sym_guard_cache_free(c);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	free(json);
}

/* A workload on a cache of the failing allocator: every failed call must
 * leave a cache whose answers are those of the reference holding what was
 * accepted.  Returns whether a call of the cache failed (a failed
 * rebuild of the dispatch program is no failure: the old one stays). */
static int failing_workload(model_fx *fx, counting *cnt)
{
	sym_allocator a = {counting_realloc, cnt};
	sym_guard_cache *c = sym__guard_cache_new_with_allocator(3, &a);
	ref_cache *rc;
	int64_t dims[8];
	size_t i, k;
	int failed = 0;
	if (!c)
		return 1;
	sym__guard_cache_set_eager_rebuild(c, 1); /* rebuilds fail too */
	rc = malloc(sizeof(*rc));
	assert_non_null(rc);
	ref_init(rc, 3);
	if (sym_guard_cache_set_validity(c, compile(fx, 0, NULL)) == 0)
		rc->validity = compile(fx, 0, NULL);
	else
		failed = 1;
	for (i = 0; i < 8; i++) {
		long long vals[4];
		char label[8];
		sym_model_program *mp;
		long id;
		vals[0] = 2, vals[1] = 1 + (long long)(i % 2), vals[2] = 2, vals[3] = i % 3 ? 2 : 1;
		snprintf(label, sizeof(label), "v%zu", i);
		mp = compile(fx, 4, vals);
		assert_non_null(mp);
		id = sym_guard_cache_add(c, mp, label);
		if (id < 0) {
			failed = 1; /* the cache took mp and spent no id */
			continue;
		}
		assert_int_equal(ref_add(rc, compile(fx, 4, vals), label), id);
		same_variants(c, rc);
		for (k = 0; k < 6; k++) {
			random_dims(fx, dims);
			lookup_both(c, rc, dims);
		}
	}
	sym_guard_cache_free(c);
	ref_free(rc);
	free(rc);
	return failed;
}

static void allocation_failures_leave_a_cache_that_answers_exactly(void **state)
{
	model_fx fx;
	counting cnt;
	long n, total, calls_failed = 0;
	(void)state;
	open_model(&fx, 0);
	memset(&cnt, 0, sizeof(cnt));
	rng_seed(seed_from_env() + 3);
	assert_int_equal(failing_workload(&fx, &cnt), 0);
	total = cnt.calls;
	assert_true(total > 10);
	assert_int_equal(cnt.live, 0);
	for (n = 1; n <= total; n++) {
		memset(&cnt, 0, sizeof(cnt));
		cnt.fail_at = n;
		rng_seed(seed_from_env() + 3);
		calls_failed += failing_workload(&fx, &cnt);
		assert_int_equal(cnt.live, 0);
		assert_int_equal(cnt.bytes, 0);
		assert_int_equal(cnt.bad_sizes, 0);
	}
	/* failures in set_validity and add fail the call (the others are
	 * the eager rebuilds', which keep the old program) */
	assert_true(calls_failed > 8);
	close_model(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lookup_answers_as_the_sequential_lookup_at_random_dims),
	    cmocka_unit_test(add_and_evict_sequences_answer_as_the_sequential_lookup),
	    cmocka_unit_test(programs_outside_the_dispatch_answer_as_the_sequential_lookup),
	    cmocka_unit_test(identical_variants_share_every_instruction_and_guard),
	    cmocka_unit_test(variants_of_other_hints_add_only_their_own_guards),
	    cmocka_unit_test(evictions_leave_a_bounded_dispatch_program),
	    cmocka_unit_test(capacity_evicts_the_least_recently_used),
	    cmocka_unit_test(overflowing_dims_answer_as_the_sequential_lookup),
	    cmocka_unit_test(allocation_failures_leave_a_cache_that_answers_exactly),
	    cmocka_unit_test(invalid_answers_give_the_whole_guard_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
