/* DecoderAttention, SparseAttention and MoE (rules/microsoft_moe.c). */
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

static sym_tval out[3];

/* An input from text: "" absent, "shape" a float tensor, "shape=value" an
 * integer (int32) tensor with that value, "shape:bool=value" a bool one. */
static sym_tval input(rt *t, const char *spec)
{
	char shape[128];
	const char *eqp = strchr(spec, '='), *colon = strchr(spec, ':');
	size_t n;
	if (!*spec)
		return rt_absent();
	if (!eqp && !colon)
		return rt_t(t, spec, NULL, NULL);
	n = (size_t)((colon ? colon : eqp) - spec);
	memcpy(shape, spec, n);
	shape[n] = 0;
	return rt_t(t, shape, colon ? "bool" : "int32", eqp && eqp[1] ? eqp + 1 : NULL);
}

/* Runs op on the inputs (NULL ends the list); returns the output shapes
 * joined by " " or the error message. */
static const char *run(rt *t, const char *op, const char *const *specs, size_t na, const sym_attr *a,
                       size_t nout)
{
	sym_tval in[12];
	size_t nin = 0;
	for (; specs[nin]; nin++)
		in[nin] = input(t, specs[nin]);
	return rt_outcome(t, op, MS, nin, in, na, a, nout, out);
}

static void prop(rt *t, const char *op, const char *const *specs, size_t na, const sym_attr *a, size_t nout)
{
	sym_tval in[12];
	size_t nin = 0;
	for (; specs[nin]; nin++)
		in[nin] = input(t, specs[nin]);
	rt_property(t, op, MS, nin, in, na, a, nout, 300, 1, 6);
}

#define SPECS RT_LIST

/* A seeded generator (SYM_TEST_SEED) for the concrete checks. */
static uint64_t rng_state;

static long long rnd(long long lo, long long hi)
{
	return rt_rand(&rng_state, lo, hi);
}

static void seed_rng(void)
{
	rt_rand_seed(&rng_state);
}

/* ---- DecoderAttention ---------------------------------------------------- */

/* The flags static_kv, use_past, has_layer_state, has_key_padding_mask. */
static const char *flag_spec(int v)
{
	return v < 0 ? "[]:bool" : v ? "[]:bool=[1]" : "[]:bool=[0]";
}

static const char *decoder(rt *t, const char *q, const char *k, const char *mask, const char *kc, int st,
                           int past, int layer, int hasmask, size_t na, const sym_attr *a)
{
	char hd[32], w2[48], b3[32];
	const char *h = strrchr(q, ',') + 2;
	size_t n = strlen(h) - 1;
	snprintf(hd, sizeof(hd), "[%.*s, %.*s]", (int)n, h, (int)n, h);
	snprintf(w2, sizeof(w2), "[%.*s, 2*%.*s]", (int)n, h, (int)n, h);
	snprintf(b3, sizeof(b3), "[3*%.*s]", (int)n, h);
	return run(t, "DecoderAttention",
	           SPECS(q, k, hd, w2, b3, mask, kc, kc, flag_spec(st), flag_spec(past), flag_spec(layer),
	                 flag_spec(hasmask)),
	           na, a, 3);
}

static void decoder_attention_cache_length_follows_the_flags(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 12);
	/* self-attention without cache: the query's length */
	assert_string_equal(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "", 0, 0, 0, 0, 1, a),
	                    "[s, b, 768] [b, 12, s, 64] [b, 12, s, 64]");
	/* cross-attention without cache: the key's */
	assert_string_equal(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "", 1, 1, 0, 0, 1, a),
	                    "[s, b, 768] [b, 12, l, 64] [b, 12, l, 64]");
	/* with a cache: self-attention grows it, cross-attention keeps it */
	assert_string_equal(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "[b, 12, c, 64]", 0, 1, 1, 0, 1, a),
	                    "[s, b, 768] [b, 12, c + s, 64] [b, 12, c + s, 64]");
	assert_string_equal(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "[b, 12, c, 64]", 1, 1, 1, 0, 1, a),
	                    "[s, b, 768] [b, 12, c, 64] [b, 12, c, 64]");
	assert_string_equal(rt_guards(&t), "");
	/* the mask covers the generated key: S + L with a cache, no static_kv */
	assert_string_equal(
	    decoder(&t, "[s, b, 768]", "[l, b, 768]", "[b, m]:bool", "[b, 12, c, 64]", 0, 1, 1, 1, 1, a),
	    "[s, b, 768] [b, 12, c + s, 64] [b, 12, c + s, 64]");
	assert_string_equal(rt_guards(&t), "assert l + s == m");
	rt_free(&t);
}

static void decoder_attention_unknown_flags_bind_the_length_at_run_time(void **state)
{
	rt t;
	sym_attr a[1];
	const char *r;
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 12);
	r = decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "[b, 12, c, 64]", 0, -1, 1, 0, 1, a);
	assert_true(!strncmp(r, "[s, b, 768] [b, 12, ", 20));
	assert_int_equal(out[1].rank, 4);
	/* one fresh dim, for both caches, none of the inputs' */
	assert_ptr_equal(out[1].dims[2], out[2].dims[2]);
	assert_string_not_equal(rt_shape(&t, &out[1]), "[b, 12, c, 64]");
	assert_string_not_equal(rt_shape(&t, &out[1]), "[b, 12, c + s, 64]");
	assert_string_not_equal(rt_shape(&t, &out[1]), "[b, 12, s, 64]");
	/* cache checks need the flags: none made here */
	assert_string_equal(rt_guards(&t), "");
	/* the head size is the kernel's hidden // heads */
	assert_string_equal(decoder(&t, "[s, b, 100]", "[l, b, 100]", "", "", 0, 0, 0, 0, 1, a),
	                    "[s, b, 100] [b, 12, s, 8] [b, 12, s, 8]");
	rt_free(&t);
}

static void decoder_attention_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 12);
	assert_non_null(strstr(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "", 0, 0, 0, 0, 0, a),
	                       "attribute 'num_heads' is required"));
	assert_non_null(strstr(decoder(&t, "[b, 768]", "[l, b, 768]", "", "", 0, 0, 0, 0, 1, a),
	                       "input query must have rank 3, not 2"));
	assert_non_null(strstr(decoder(&t, "[s, 2, 768]", "[l, 3, 768]", "", "", 0, 0, 0, 0, 1, a),
	                       "query and key must have the same batch size"));
	assert_non_null(strstr(decoder(&t, "[s, b, 768]", "[l, b, 512]", "", "", 0, 0, 0, 0, 1, a),
	                       "the same hidden size"));
	assert_non_null(strstr(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "", 0, 1, 1, 0, 1, a),
	                       "need key_cache and value_cache"));
	assert_non_null(
	    strstr(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "[b, 12, c, 32]", 0, 1, 1, 0, 1, a),
	           "the caches must be [batch, heads, length, hidden / heads]"));
	assert_non_null(strstr(decoder(&t, "[s, b, 768]", "[l, b, 768]", "", "[b, 12, c]", 0, 1, 1, 0, 1, a),
	                       "input key_cache must have rank 4, not 3"));
	assert_non_null(strstr(decoder(&t, "[4, b, 768]", "[l, b, 768]", "[b, 5]:bool", "", 0, 0, 0, 1, 1, a),
	                       "key_padding_mask must have the generated key's length"));
	assert_non_null(strstr(run(&t, "DecoderAttention",
	                           SPECS("[s, b, 8]", "[l, b, 8]", "[8, 8]", "[8, 8]", "[24]", "", "", "",
	                                 flag_spec(0), flag_spec(0), flag_spec(0), flag_spec(0)),
	                           1, a, 1),
	                       "kv_weight must be [hidden, 2 * hidden]"));
	assert_non_null(strstr(run(&t, "DecoderAttention",
	                           SPECS("[s, b, 8]", "[l, b, 8]", "[8, 8]", "[8, 16]", "[16]", "", "", "",
	                                 flag_spec(0), flag_spec(0), flag_spec(0), flag_spec(0)),
	                           1, a, 1),
	                       "bias must be [3 * hidden]"));
	assert_non_null(strstr(run(&t, "DecoderAttention",
	                           SPECS("[s, b, 8]", "[l, b, 8]", "[8, 8]", "[8, 16]", "[24]"), 1, a, 1),
	                       "input 8"));
	rt_free(&t);
}

/* The kernel's cache length, computed here: L or S without a used cache,
 * C or C + S with one. */
static long long decoder_kv(int st, int past, int layer, long long s, long long l, long long c)
{
	if (!(past && layer))
		return st ? l : s;
	return st ? c : c + s;
}

static void decoder_attention_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[1];
	char q[48], k[48], kc[64], want[160];
	int it;
	(void)state;
	seed_rng();
	rt_init(&t, 1);
	for (it = 0; it < 200; it++) {
		long long s = rnd(1, 9), b = rnd(1, 4), l = rnd(1, 9), c = rnd(1, 9), n = rnd(1, 4),
		          h = rnd(1, 5);
		int st = (int)rnd(0, 1), past = (int)rnd(0, 1), layer = (int)rnd(0, 1);
		long long kv = decoder_kv(st, past, layer, s, l, c);
		a[0] = rt_i(&t, "num_heads", n);
		snprintf(q, sizeof(q), "[%lld, %lld, %lld]", s, b, n * h);
		snprintf(k, sizeof(k), "[%lld, %lld, %lld]", l, b, n * h);
		snprintf(kc, sizeof(kc), "[%lld, %lld, %lld, %lld]", b, n, c, h);
		snprintf(want, sizeof(want), "%s [%lld, %lld, %lld, %lld] [%lld, %lld, %lld, %lld]", q, b, n,
		         kv, h, b, n, kv, h);
		assert_string_equal(decoder(&t, q, k, "", kc, st, past, layer, 0, 1, a), want);
	}
	rt_free(&t);
}

/* ---- SparseAttention ----------------------------------------------------- */

static void sparse_attention_presents_are_the_past_buffers(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 32);
	a[1] = rt_i(&t, "kv_num_heads", 8);
	a[2] = rt_i(&t, "sparse_block_size", 64);
	assert_string_equal(run(&t, "SparseAttention",
	                        SPECS("[b, s, 4096]", "[b, s, 1024]", "[b, s, 1024]", "[b, 8, 8192, 128]",
	                              "[b, 8, 8192, 128]", "[1, 129]=", "[1, 200]=", "[1]", "[b]="),
	                        3, a, 3),
	                    "[b, s, 4096] [b, 8, 8192, 128] [b, 8, 8192, 128]");
	assert_string_equal(rt_guards(&t), "");
	/* packed QKV: (N + 2K) heads in the query */
	assert_string_equal(run(&t, "SparseAttention",
	                        SPECS("[b, s, 6144]", "", "", "[b, 8, m, 128]", "[b, 8, m, 128]",
	                              "[4, 129]=", "[4, 200]=", "[]=[100]", "[b]="),
	                        3, a, 3),
	                    "[b, s, 4096] [b, 8, m, 128] [b, 8, m, 128]");
	/* the total length is known: the buffers must cover it */
	assert_string_equal(rt_guards(&t), "assert 99 < m");
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 32);
	a[1] = rt_i(&t, "kv_num_heads", 8);
	a[2] = rt_i(&t, "sparse_block_size", 64);
	a[3] = rt_i(&t, "do_rotary", 1);
	assert_string_equal(
	    run(&t, "SparseAttention",
	        SPECS("[b, s, 4096]", "[b, s, 1024]", "[b, s, 1024]", "[b, 8, m, 128]", "[b, 8, m, 128]",
	              "[1, r]=", "[1, z]=", "[1]", "[b]=", "[p, 64]", "[p, 64]"),
	        4, a, 3),
	    "[b, s, 4096] [b, 8, m, 128] [b, 8, m, 128]");
	assert_string_equal(rt_guards(&t), "assert r >= 2; assert 2*r + z <= r**2 + 1");
	rt_free(&t);
}

static void sparse_attention_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 32);
	a[1] = rt_i(&t, "kv_num_heads", 8);
	a[2] = rt_i(&t, "sparse_block_size", 64);
	a[3] = rt_i(&t, "do_rotary", 1);
#define SA(q, k, v, pk, rows, cols, tl)                                                                      \
	run(&t, "SparseAttention", SPECS(q, k, v, pk, pk, rows, cols, tl, "[2]="), 4, a, 3)
	assert_non_null(
	    strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "", "[2, 8, 64, 128]", "[1, 3]=", "[1, 4]=", "[1]"),
	           "key and value must both be present"));
	assert_non_null(strstr(SA("[2, 4, 4000]", "", "", "[2, 8, 64, 128]", "[1, 3]=", "[1, 4]=", "[1]"),
	                       "multiple of num_heads + 2 * kv_num_heads"));
	assert_non_null(strstr(
	    SA("[2, 4, 3200]", "[2, 4, 800]", "[2, 4, 800]", "[2, 8, 64, 100]", "[1, 3]=", "[1, 4]=", "[1]"),
	    "head size must be a multiple of 8"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 5, 1024]", "[2, 5, 1024]", "[2, 8, 64, 128]",
	                          "[1, 3]=", "[1, 4]=", "[1]"),
	                       "same sequence length"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 8, 64, 128]",
	                          "[3, 3]=", "[3, 4]=", "[1]"),
	                       "num_heads must be a multiple of num_layout"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 8, 64, 128]",
	                          "[1, 3]=", "[1, 5]=", "[1]"),
	                       "at most max_blocks^2 columns"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 8, 64, 128]",
	                          "[1, 3]=", "[1, 4]=", "[]=[200]"),
	                       "max_blocks * sparse_block_size must cover total_sequence_length"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 4, 64, 128]",
	                          "[1, 3]=", "[1, 4]=", "[1]"),
	                       "past_key dim 1 must be kv_num_heads"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 8, 64, 128]",
	                          "[1, 3]=", "[1, 4]=", "[2]"),
	                       "total_sequence_length must have one element"));
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 8, 64, 128]",
	                          "[1, 3]=", "[1, 4]=", "[1]"),
	                       "do_rotary needs cos_cache and sin_cache"));
	a[1] = rt_i(&t, "kv_num_heads", 5);
	assert_non_null(strstr(SA("[2, 4, 4096]", "[2, 4, 1024]", "[2, 4, 1024]", "[2, 8, 64, 128]",
	                          "[1, 3]=", "[1, 4]=", "[1]"),
	                       "num_heads (32) must be a multiple of kv_num_heads (5)"));
	assert_non_null(strstr(run(&t, "SparseAttention", SPECS("[2, 4, 4096]"), 2, a, 1),
	                       "attribute 'sparse_block_size' is required"));
#undef SA
	rt_free(&t);
}

static void sparse_attention_rotary_caches_are_checked(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 4);
	a[1] = rt_i(&t, "kv_num_heads", 2);
	a[2] = rt_i(&t, "sparse_block_size", 16);
	a[3] = rt_i(&t, "do_rotary", 1);
#define SR(q, cos, sin)                                                                                      \
	run(&t, "SparseAttention",                                                                           \
	    SPECS(q, "", "", "[1, 2, 64, 16]", "[1, 2, 64, 16]", "[1, 5]=", "[1, 16]=", "[]=[40]",           \
	          "[1]=", cos, sin),                                                                         \
	    4, a, 3)
	assert_string_equal(SR("[1, s, 128]", "[64, 8]", "[64, 8]"),
	                    "[1, s, 64] [1, 2, 64, 16] [1, 2, 64, 16]");
	assert_string_equal(SR("[1, s, 128]", "[p, w]", "[p, w]"),
	                    "[1, s, 64] [1, 2, 64, 16] [1, 2, 64, 16]");
	assert_string_equal(rt_guards(&t), "assert w % 8 == 0; assert w <= 8; assert p >= 40");
	assert_non_null(
	    strstr(SR("[1, s, 128]", "[64, 16]", "[64, 16]"), "width must be at most head size / 2"));
	assert_non_null(strstr(SR("[1, s, 128]", "[64, 8]", "[32, 8]"), "must have the same length"));
	assert_non_null(strstr(SR("[1, s, 128]", "[30, 8]", "[30, 8]"), "must cover total_sequence_length"));
	/* head size 8 (packed 64 / 8): rotary needs a multiple of 16 */
	assert_non_null(strstr(run(&t, "SparseAttention",
	                           SPECS("[1, s, 64]", "", "", "[1, 2, 64, 8]", "[1, 2, 64, 8]",
	                                 "[1, 5]=", "[1, 16]=", "[]=[40]", "[1]=", "[64, 8]", "[64, 8]"),
	                           4, a, 3),
	                       "multiple of 16"));
#undef SR
	rt_free(&t);
}

static void sparse_attention_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[3];
	char q[48], k[48], pk[64], rows[32], want[160];
	int it;
	(void)state;
	seed_rng();
	rt_init(&t, 1);
	for (it = 0; it < 200; it++) {
		long long b = rnd(1, 3), s = rnd(1, 9), kvh = rnd(1, 3), n = kvh * rnd(1, 3),
		          h = 8 * rnd(1, 3);
		long long m = rnd(1, 40), blocks = rnd(1, 4);
		int packed = (int)rnd(0, 1);
		const char *r;
		a[0] = rt_i(&t, "num_heads", n);
		a[1] = rt_i(&t, "kv_num_heads", kvh);
		a[2] = rt_i(&t, "sparse_block_size", 16);
		snprintf(q, sizeof(q), "[%lld, %lld, %lld]", b, s, (packed ? n + 2 * kvh : n) * h);
		snprintf(k, sizeof(k), "[%lld, %lld, %lld]", b, s, kvh * h);
		snprintf(pk, sizeof(pk), "[%lld, %lld, %lld, %lld]", b, kvh, m, h);
		snprintf(rows, sizeof(rows), "[1, %lld]=", blocks + 1);
		r = run(&t, "SparseAttention",
		        SPECS(q, packed ? "" : k, packed ? "" : k, pk, pk, rows, "[1, 1]=", "[1]", "[1]="), 3,
		        a, 3);
		snprintf(want, sizeof(want), "[%lld, %lld, %lld] %s %s", b, s, n * h, pk, pk);
		assert_string_equal(r, want);
	}
	rt_free(&t);
}

/* ---- MoE ----------------------------------------------------------------- */

static void moe_keeps_the_input_shape(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "k", 2);
	/* both weight layouts: [E, inter, hidden] and the legacy [E, hidden, inter] */
	assert_string_equal(run(&t, "MoE",
	                        SPECS("[b, s, 4096]", "[b*s, 8]", "[8, 14336, 4096]", "", "[8, 4096, 14336]",
	                              "[8, 4096]", "[8, 14336, 4096]"),
	                        1, a, 1),
	                    "[b, s, 4096]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(
	    run(&t, "MoE", SPECS("[t0, 64]", "[t0, 4]", "[4, 64, 256]", "[4, 256]", "[4, 256, 64]"), 1, a, 1),
	    "[t0, 64]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "MoE", SPECS("[r, h]", "[t2, e]", "[f, i, j]", "", "[g, k, l]"), 1, a, 1),
	                    "[r, h]");
	assert_string_equal(rt_guards(&t), "assert r == t2; assert e == f; assert h == i || h == j; "
	                                   "assert e == g; assert h == k || h == l");
	rt_free(&t);
}

static void moe_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "k", 2);
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[64]", "[1, 4]", "[4, 64, 256]", "", "[4, 256, 64]"), 1, a, 1),
	           "input input must have rank 2 or 3, not 1"));
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[9, 64]", "[8, 4]", "[4, 64, 256]", "", "[4, 256, 64]"), 1, a, 1),
	           "router_probs must have a row per token"));
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[2, 64, 256]", "", "[4, 256, 64]"), 1, a, 1),
	           "fc1_experts_weights must have num_experts"));
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[4, 64, 256]", "", "[4, 256, 32]"), 1, a, 1),
	           "fc2_experts_weights must have the hidden size"));
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[4, 64, 256]", "", "[4, 256, 64]", "[4, 32]"),
	               1, a, 1),
	           "fc2_experts_bias must be [num_experts, hidden]"));
	assert_non_null(strstr(
	    run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[4, 64, 256]", "", "[4, 256, 64]", "", "", "[4, 256]"),
	        1, a, 1),
	    "fc3_experts_bias needs fc3_experts_weights"));
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[4, 64]", "", "[4, 256, 64]"), 1, a, 1),
	           "input fc1_experts_weights must have rank 3, not 2"));
	a[0] = rt_s(&t, "activation_type", "tanh");
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[4, 64, 256]", "", "[4, 256, 64]"), 1, a, 1),
	           "attribute 'activation_type' has the unknown value 'tanh'"));
	a[0] = rt_i(&t, "k", 0);
	assert_non_null(
	    strstr(run(&t, "MoE", SPECS("[8, 64]", "[8, 4]", "[4, 64, 256]", "", "[4, 256, 64]"), 1, a, 1),
	           "attribute 'k' must be at least 1, not 0"));
	rt_free(&t);
}

static void moe_matches_the_kernel_at_random_dims(void **state)
{
	rt t;
	sym_attr a[1];
	char x[48], router[48], w1[64], w2[64], want[48];
	int it;
	(void)state;
	seed_rng();
	rt_init(&t, 1);
	a[0] = rt_i(&t, "k", 1);
	for (it = 0; it < 200; it++) {
		long long b = rnd(1, 3), s = rnd(1, 5), h = rnd(1, 9), e = rnd(1, 4), inter = rnd(1, 9);
		int rank3 = (int)rnd(0, 1), legacy = (int)rnd(0, 1);
		if (rank3)
			snprintf(x, sizeof(x), "[%lld, %lld, %lld]", b, s, h);
		else
			snprintf(x, sizeof(x), "[%lld, %lld]", b * s, h);
		snprintf(router, sizeof(router), "[%lld, %lld]", b * s, e);
		snprintf(w1, sizeof(w1), "[%lld, %lld, %lld]", e, legacy ? h : inter, legacy ? inter : h);
		snprintf(w2, sizeof(w2), "[%lld, %lld, %lld]", e, legacy ? inter : h, legacy ? h : inter);
		/* the kernel writes the input's shape */
		snprintf(want, sizeof(want), "%s", x);
		assert_string_equal(run(&t, "MoE", SPECS(x, router, w1, "", w2), 1, a, 1), want);
	}
	rt_free(&t);
}

static void ms_moe_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_attr a[4];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 2);
	prop(&t, "DecoderAttention",
	     SPECS("[s, b, h]", "[l, c, k]", "[p, q]", "[r, w]", "[z]", "", "[e, 2, f, g]", "[e, 2, f, g]",
	           flag_spec(0), flag_spec(1), flag_spec(1), flag_spec(0)),
	     1, a, 3);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 2);
	a[1] = rt_i(&t, "kv_num_heads", 1);
	a[2] = rt_i(&t, "sparse_block_size", 2);
	prop(&t, "SparseAttention",
	     SPECS("[b, s, h]", "", "", "[c, d, m, e]", "[c, d, m, e]", "[n, r]=", "[n2, z]=", "[]=[3]",
	           "[b]="),
	     3, a, 3);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "k", 1);
	prop(&t, "MoE", SPECS("[b, s, h]", "[q, e]", "[f, i, j]", "[f, x]", "[g, k, l]", "[g, y]"), 1, a, 1);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(decoder_attention_cache_length_follows_the_flags),
	    cmocka_unit_test(decoder_attention_unknown_flags_bind_the_length_at_run_time),
	    cmocka_unit_test(decoder_attention_bad_inputs_are_errors),
	    cmocka_unit_test(decoder_attention_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(sparse_attention_presents_are_the_past_buffers),
	    cmocka_unit_test(sparse_attention_bad_inputs_are_errors),
	    cmocka_unit_test(sparse_attention_rotary_caches_are_checked),
	    cmocka_unit_test(sparse_attention_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(moe_keeps_the_input_shape),
	    cmocka_unit_test(moe_bad_inputs_are_errors),
	    cmocka_unit_test(moe_matches_the_kernel_at_random_dims),
	    cmocka_unit_test(ms_moe_rules_hold_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
