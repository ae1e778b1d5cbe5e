/* Whole-model integration tests: the example models and one hand-written
 * model per operator family (tests/models/) give the expected symbolic
 * shapes, guards, merge keys and symbols; malformed models give an error
 * naming the node or field; and at random concrete dims the runtime program
 * agrees with inference run again on the model with those dims written in
 * (seeded from SYM_TEST_SEED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "symshape/symshape.h"
#include "guard_check.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------ */

/* A loaded and inferred model. */
typedef struct fixture {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	char *text;
	const char *name;
} fixture;

static void open_model(fixture *fx, const char *rel)
{
	size_t len;
	memset(fx, 0, sizeof(*fx));
	fx->name = rel;
	fx->ctx = sym_ctx_new();
	assert_non_null(fx->ctx);
	fx->text = read_text(rel, &len);
	fx->m = sym_model_from_json(fx->ctx, fx->text, len);
	if (!fx->m)
		fail_msg("%s: %s", rel, sym_ctx_last_message(fx->ctx));
	fx->r = sym_model_infer(fx->ctx, fx->m, NULL);
	if (!fx->r)
		fail_msg("%s: %s", rel, sym_ctx_last_message(fx->ctx));
	if (sym_graph_num_errors(fx->r)) {
		const char *node, *msg = sym_graph_error(fx->r, 0, &node);
		fail_msg("%s: node %s: %s", rel, node, msg);
	}
}

static void close_model(fixture *fx)
{
	sym_graph_result_free(fx->r);
	sym_model_free(fx->m);
	sym_ctx_free(fx->ctx);
	free(fx->text);
}

/* The printed shape of tensor i: "[a, b + 1]", "(unknown rank)" or
 * "(not inferred)". */
static void shape_text(sym_ctx *ctx, const sym_graph_result *r, size_t i, char *buf, size_t cap)
{
	int rank, d;
	const sym_expr *const *dims;
	size_t n = 0;
	sym_graph_tensor(r, i, &rank, &dims, NULL);
	if (rank < 0) {
		snprintf(buf, cap, "%s", rank == -1 ? "(unknown rank)" : "(not inferred)");
		return;
	}
	n += (size_t)snprintf(buf + n, cap - n, "[");
	for (d = 0; d < rank && n < cap; d++) {
		char *t = sym_expr_to_str(ctx, dims[d]);
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", d ? ", " : "", t ? t : "?");
		sym_str_free(ctx, t);
	}
	if (n < cap)
		snprintf(buf + n, cap - n, "]");
}

/* Each entry "tensor: [d0, d1]". */
static void expect_shapes(fixture *fx, const char *const *want)
{
	for (; *want; want++) {
		char name[128], got[1024];
		const char *colon = strchr(*want, ':');
		size_t i;
		assert_non_null(colon);
		snprintf(name, sizeof(name), "%.*s", (int)(colon - *want), *want);
		i = sym_graph_find_tensor(fx->r, name);
		if (i == (size_t)-1)
			fail_msg("%s: no tensor '%s'", fx->name, name);
		shape_text(fx->ctx, fx->r, i, got, sizeof(got));
		if (strcmp(got, colon + 2))
			fail_msg("%s: tensor %s is %s, expected %s", fx->name, name, got, colon + 2);
	}
}

/* The guards, all of them in order: "expr | kind | node". */
static void expect_guards(fixture *fx, const char *const *want)
{
	check_guard_list(fx->ctx, fx->r, fx->name, want);
}

/* Each entry "node1, node2, ..." is exactly the node list of one merge key;
 * every key is given. */
static void expect_merge_groups(fixture *fx, const char *const *want)
{
	size_t i, n = 0, k;
	while (want[n])
		n++;
	assert_int_equal(sym_graph_num_merge_keys(fx->r), n);
	for (k = 0; k < n; k++) {
		int found = 0;
		for (i = 0; i < sym_graph_num_merge_keys(fx->r) && !found; i++) {
			size_t nn, j, len = 0;
			const char *const *nodes;
			char got[1024];
			sym_graph_merge_key(fx->r, i, &nn, &nodes);
			got[0] = 0;
			for (j = 0; j < nn; j++)
				len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s", j ? ", " : "",
				                        nodes[j]);
			found = !strcmp(got, want[k]);
		}
		if (!found)
			fail_msg("%s: no merge key groups exactly %s", fx->name, want[k]);
	}
}

static void expect_merge_key(fixture *fx, const char *key, const char *first_node)
{
	size_t i, nn;
	const char *const *nodes;
	for (i = 0; i < sym_graph_num_merge_keys(fx->r); i++)
		if (!strcmp(sym_graph_merge_key(fx->r, i, &nn, &nodes), key)) {
			assert_true(nn >= 1);
			assert_string_equal(nodes[0], first_node);
			return;
		}
	fail_msg("%s: no merge key %s", fx->name, key);
}

/* Each entry "name | source | min | max" (max "inf" when open). */
static void expect_symbols(fixture *fx, const char *const *want)
{
	size_t i, n = 0;
	while (want[n])
		n++;
	assert_int_equal(sym_graph_num_symbols(fx->r), n);
	for (i = 0; i < n; i++) {
		const char *src;
		const sym_expr *lo, *hi, *s = sym_graph_symbol(fx->r, i, &src, &lo, &hi);
		char *l = lo ? sym_expr_to_str(fx->ctx, lo) : NULL,
		     *h = hi ? sym_expr_to_str(fx->ctx, hi) : NULL;
		char got[512];
		snprintf(got, sizeof(got), "%s | %s | %s | %s", sym_expr_symbol_name(s), src, l ? l : "-inf",
		         h ? h : "inf");
		sym_str_free(fx->ctx, l);
		sym_str_free(fx->ctx, h);
		if (strcmp(got, want[i]))
			fail_msg("%s: symbol %zu is '%s', expected '%s'", fx->name, i, got, want[i]);
	}
}

/* ---- the example models -------------------------------------------------- */

static void transformer_gets_symbolic_shapes_guards_and_merge_keys(void **state)
{
	static const char *const syms[] = {"batch | x.shape[0] | 1 | inf", "seq | x.shape[1] | 1 | inf",
	                                   "mbatch | mask.shape[0] | 1 | inf",
	                                   "mseq | mask.shape[3] | 1 | inf", NULL};
	static const char *const shapes[] = {
	    "x: [batch, seq, 768]", "qkv: [batch, seq, 2304]", "x_shape: [3]", "batch_v: []",
	    "qkv_shape: [5]", "qkv_5d: [batch, seq, 3, 12, 64]", "qkv_t: [3, batch, 12, seq, 64]",
	    "q5: [1, batch, 12, seq, 64]", "q: [batch, 12, seq, 64]", "kt: [batch, 12, 64, seq]",
	    "scores: [batch, 12, seq, seq]",
	    /* under the guards mseq <= seq and mbatch <= batch */
	    "scores_masked: [batch, 12, seq, seq]", "probs: [batch, 12, seq, seq]",
	    "ctx_t: [batch, seq, 12, 64]", "ctx_r: [batch, seq, 768]", "h1_act: [batch, seq, 3072]",
	    "y: [batch, seq, 768]", NULL};
	static const char *const guards[] = {
	    "batch == 1 || batch == mbatch || mbatch == 1 | assert | add_mask",
	    "mseq == 1 || mseq == seq || seq == 1 | assert | add_mask", "mseq <= seq | assert | context",
	    "mbatch <= batch | assert | merge_heads", NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "examples/transformer.json");
	expect_symbols(&fx, syms);
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_merge_key(&fx, "[batch, seq, 768]", "ln1");
	expect_merge_key(&fx, "[1, batch, 12, seq, 64][1, batch, 12, seq, 64][1, batch, 12, seq, 64]",
	                 "qkv_split");
	{
		static const char *const groups[] = {
		    "batch_1d, seq_1d",
		    "qkv_split",
		    "shape_x, ctx_shape",
		    "qkv_perm",
		    "qkv_shape",
		    "get_batch, get_seq",
		    "k_t",
		    "q_sq, k_sq, v_sq, context",
		    "scores, scale_scores, add_mask, softmax",
		    "ctx_perm",
		    "qkv_proj, qkv_bias",
		    "qkv_split_heads",
		    "fc1, gelu",
		    "ln1, merge_heads, out_proj, residual1, ln2, fc2, residual2",
		    NULL};
		expect_merge_groups(&fx, groups);
	}
	close_model(&fx);
}

static void cnn_gets_conv_and_pool_formulas(void **state)
{
	static const char *const syms[] = {"N | x.shape[0] | 1 | inf", "H | x.shape[2] | 9 | inf",
	                                   "W | x.shape[3] | 9 | inf", NULL};
	static const char *const shapes[] = {"c1: [N, 64, (H + 1)//2, (W + 1)//2]",
	                                     "p1: [N, 64, (H + 3)//4, (W + 3)//4]",
	                                     "c2: [N, 128, (H + 3)//4, (W + 3)//4]",
	                                     "c3: [N, 128, (H - 1)//8, (W - 1)//8]",
	                                     "p2: [N, 128, (H + 7)//16, (W + 7)//16]",
	                                     "g: [N, 128, 1, 1]",
	                                     "f: [N, 128]",
	                                     "logits: [N, 10]",
	                                     NULL};
	static const char *const guards[] = {"H >= 9 | assert | conv3", "W >= 9 | assert | conv3", NULL};
	static const char *const groups[] = {"fc",  "flatten",      "conv2, relu2", "pool2", "conv3, relu3",
	                                     "gap", "conv1, relu1", "pool1",        NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "examples/cnn.json");
	expect_symbols(&fx, syms);
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_merge_groups(&fx, groups);
	expect_merge_key(&fx, "[N, 128, (H + 7)//16, (W + 7)//16]", "pool2");
	close_model(&fx);
}

/* ---- one model per operator family --------------------------------------- */

static void elementwise_broadcasts_with_guards(void **state)
{
	static const char *const shapes[] = {"ab: [n, c]",         "r2: [n, c]",
	                                     "xy: [max(p, q), 4]", "s: [max(p, q), 4]",
	                                     "cond: [1, cond_1]",  "w: [max(p, q), max(4, cond_1)]",
	                                     "lt: [n, c]",         NULL};
	static const char *const guards[] = {"p == 1 || p == q || q == 1 | assert | add_xy",
	                                     "q == 1 || max(p, q) == 1 || p <= q | assert | pick",
	                                     "cond_1 == 4 || cond_1 == 1 | assert | pick", NULL};
	static const char *const syms[] = {"n | a.shape[0] | 1 | inf",         "c | a.shape[1] | 1 | inf",
	                                   "p | x.shape[0] | 1 | inf",         "q | y.shape[0] | 1 | inf",
	                                   "cond_1 | cond.shape[1] | 1 | inf", NULL};
	static const char *const groups[] = {"add_xy, sig", "pick", "add_ab, relu, scale, cmp", NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/elementwise.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_symbols(&fx, syms);
	expect_merge_groups(&fx, groups);
	{
		const char *dt;
		sym_graph_tensor(fx.r, sym_graph_find_tensor(fx.r, "lt"), NULL, NULL, &dt);
		assert_string_equal(dt, "bool");
	}
	close_model(&fx);
}

static void reshape_follows_shape_gather_unsqueeze_concat_chains(void **state)
{
	static const char *const shapes[] = {
	    "sh: [3]",  "bv: []",        "b1: [1]",       "t4: [4]",       "x4: [b, s, 4, 16]",
	    "bs1: [1]", "x2: [b*s, 64]", "xb: [b, 64*s]", "xf: [b*s, 64]", NULL};
	static const char *const guards[] = {NULL};
	static const char *const groups[] = {"b_1d, s_1d, bs", "flat_shape",   "shape",
	                                     "split_shape",    "get_b, get_s", "flat_rows, flatten",
	                                     "keep_batch",     "split_heads",  NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/reshape_chain.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_merge_groups(&fx, groups);
	close_model(&fx);
}

static void concat_and_split_add_and_divide_dims(void **state)
{
	static const char *const shapes[] = {
	    "ab: [n, k + 3]",      "ac: [m + n, k]", "x4: [n, 4]", "x8: [n, 8]",
	    "z0: [n, (w + 1)//2]", "z1: [n, w//2]",  "zz: [n, w]", NULL};
	static const char *const guards[] = {"k == k2 | assert | cat_rows", "w >= 2 | assert | split_even",
	                                     NULL};
	static const char *const groups[] = {"cat_rows", "split_even", "split_fixed",
	                                     "cat_cols", "cat_back",   NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/concat_split.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_merge_groups(&fx, groups);
	expect_merge_key(&fx, "[n, (w + 1)//2][n, w//2]", "split_even");
	close_model(&fx);
}

static void slice_clamps_int64_ends_and_symbolic_ends(void **state)
{
	static const char *const shapes[] = {"a: [n, L - 1]",
	                                     "b: [n, L - 1]",
	                                     "r: [n, L]",
	                                     "e: [n, (L + 1)//2]",
	                                     "Lm2: []",
	                                     "m: [n, max(0, min(L, 3*L - L*min(2, L) - 2) - 1)]",
	                                     "rr: [max(0, min(n, L - n*min(2, L) + 2*n - 2) - 1), L]",
	                                     NULL};
	static const char *const guards[] = {NULL};
	fixture fx;
	long long v;
	(void)state;
	open_model(&fx, "tests/models/slice.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_merge_key(&fx, "[n, L - 1]", "drop_first");
	{
		/* the big initializer values are exact */
		int rank;
		size_t i = sym_graph_find_tensor(fx.r, "big");
		assert_true(i != (size_t)-1);
		sym_graph_tensor(fx.r, i, &rank, NULL, NULL);
		assert_int_equal(rank, 1);
	}
	/* the symbolic end at concrete L is the concrete slice length */
	{
		const sym_expr *const *dims;
		int rank;
		const sym_expr *L = sym_expr_symbol(fx.ctx, "L");
		long long vals[] = {1, 2, 3, 4, 10};
		long long want[] = {0, 0, 0, 1, 7};
		size_t k;
		sym_graph_tensor(fx.r, sym_graph_find_tensor(fx.r, "m"), &rank, &dims, NULL);
		for (k = 0; k < 5; k++) {
			const sym_expr *e = sym_expr_eval_si(fx.ctx, dims[1], 1, &L, &vals[k]);
			assert_non_null(e);
			assert_int_equal(sym_expr_get_si(e, &v), 1);
			assert_int_equal(v, want[k]);
		}
	}
	close_model(&fx);
}

static void conv_and_pool_follow_ceil_mode_dilation_and_auto_pad(void **state)
{
	static const char *const shapes[] = {
	    "c: [N, 8, (H + 1)//2, (W + 1)//2]", "p: [N, 8, (H + 5)//4, (W + 5)//4]",
	    "q: [N, 8, (H + 1)//4, (W + 1)//4]", "d: [N, 8, (H - 11)//4, (W - 11)//4]",
	    "s: [N, 8, (H + 2)//3, (W + 2)//3]", NULL};
	static const char *const guards[] = {"H >= 15 | assert | dilated", "W >= 15 | assert | dilated",
	                                     NULL};
	static const char *const syms[] = {"N | x.shape[0] | 1 | inf", "H | x.shape[2] | 15 | inf",
	                                   "W | x.shape[3] | 15 | inf", NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/conv_pool.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_symbols(&fx, syms);
	close_model(&fx);
}

static void matmul_and_gemm_broadcast_batches_and_check_contraction(void **state)
{
	static const char *const shapes[] = {
	    "o4: [b, h, m, 5]", "av: [b, m]", "xy: [k, 4]", /* the guard k == r */
	    "g: [k, 4]",        "ww: [7, 7]", NULL};
	static const char *const guards[] = {"k1 == k2 | assert | mm_check", "k == r | assert | gemm", NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/matmul_gemm.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	close_model(&fx);
}

static void layer_norm_gives_mean_and_variance_shapes(void **state)
{
	static const char *const shapes[] = {
	    "y: [b, s, 32]",  "mean: [b, s, 1]",  "istd: [b, s, 1]", "y1: [b, s, 32]",    "mean1: [b, 1, 1]",
	    "y2: [b, s, 32]", "mean2: [b, s, 1]", "var2: [b, s, 1]", "ib: [n, 16, h, w]", NULL};
	static const char *const guards[] = {NULL};
	static const char *const groups[] = {"ln_from1", "ln_last, cann_ln", "bn", NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/layernorm.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	expect_merge_groups(&fx, groups);
	close_model(&fx);
}

static void reduce_keeps_or_drops_axes(void **state)
{
	static const char *const shapes[] = {"a: [b, 1, d]",    "m: [b]",     "all: []",
	                                     "same: [b, s, d]", "am: [b, s]", NULL};
	static const char *const guards[] = {NULL};
	fixture fx;
	const char *dt;
	(void)state;
	open_model(&fx, "tests/models/reduce.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	sym_graph_tensor(fx.r, sym_graph_find_tensor(fx.r, "am"), NULL, NULL, &dt);
	assert_string_equal(dt, "int64");
	close_model(&fx);
}

static void transpose_expand_and_tile_permute_and_multiply(void **state)
{
	static const char *const shapes[] = {"xt: [5, n, c]",     "xr: [5, c, n]",  "grid: [a, b2]",
	                                     "xt3: [2*n, c, 15]", "gt: [a, b2**2]", NULL};
	static const char *const guards[] = {NULL};
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/transpose_expand_tile.json");
	expect_shapes(&fx, shapes);
	expect_guards(&fx, guards);
	close_model(&fx);
}

/* Merge keys do not depend on the order nodes are listed in. */
static void merge_keys_do_not_depend_on_node_order(void **state)
{
	fixture fx;
	cJSON *root, *nodes;
	char *text, *keys1 = NULL, *keys2 = NULL;
	size_t len1 = 0, len2 = 0, i;
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	(void)state;
	open_model(&fx, "examples/transformer.json");
	for (i = 0; i < sym_graph_num_merge_keys(fx.r); i++) {
		const char *k = sym_graph_merge_key(fx.r, i, NULL, NULL);
		keys1 = realloc(keys1, len1 + strlen(k) + 2);
		len1 += (size_t)sprintf(keys1 + len1, "%s\n", k);
	}
	root = cJSON_Parse(fx.text);
	nodes = cJSON_GetObjectItem(root, "nodes");
	{
		/* reverse the node list: the graph is ordered topologically anyway */
		cJSON *rev = cJSON_CreateArray();
		while (cJSON_GetArraySize(nodes))
			cJSON_AddItemToArray(rev,
			                     cJSON_DetachItemFromArray(nodes, cJSON_GetArraySize(nodes) - 1));
		cJSON_ReplaceItemInObject(root, "nodes", rev);
	}
	text = cJSON_PrintUnformatted(root);
	ctx = sym_ctx_new();
	m = sym_model_from_json(ctx, text, strlen(text));
	assert_non_null(m);
	r = sym_model_infer(ctx, m, NULL);
	assert_non_null(r);
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		const char *k = sym_graph_merge_key(r, i, NULL, NULL);
		keys2 = realloc(keys2, len2 + strlen(k) + 2);
		len2 += (size_t)sprintf(keys2 + len2, "%s\n", k);
	}
	assert_string_equal(keys1, keys2);
	assert_int_equal(sym_graph_num_guards(r), sym_graph_num_guards(fx.r));
	free(keys1), free(keys2), free(text);
	cJSON_Delete(root);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	close_model(&fx);
}

/* Shapes that would print alike if dims were joined by a separator that
 * can occur inside a name ("a_b") or by a different rank get different
 * merge keys. */
static void merge_keys_of_different_shapes_differ(void **state)
{
	static const char *json =
	    "{\"inputs\": [{\"name\": \"p\", \"shape\": [\"a_b\", \"c\"]}, {\"name\": \"q\", \"shape\": "
	    "[\"a\", \"b_c\"]},"
	    " {\"name\": \"u\", \"shape\": [\"x\", 1]}, {\"name\": \"v\", \"shape\": [\"x_1\"]}],"
	    " \"nodes\": [{\"name\": \"relu_p\", \"op\": \"Relu\", \"inputs\": [\"p\"], \"outputs\": "
	    "[\"p2\"]},"
	    " {\"name\": \"relu_q\", \"op\": \"Relu\", \"inputs\": [\"q\"], \"outputs\": [\"q2\"]},"
	    " {\"name\": \"relu_u\", \"op\": \"Relu\", \"inputs\": [\"u\"], \"outputs\": [\"u2\"]},"
	    " {\"name\": \"relu_v\", \"op\": \"Relu\", \"inputs\": [\"v\"], \"outputs\": [\"v2\"]}],"
	    " \"outputs\": [\"p2\", \"q2\", \"u2\", \"v2\"]}";
	static const struct {
		const char *key, *node;
	} want[] = {
	    {"[a_b, c]", "relu_p"}, {"[a, b_c]", "relu_q"}, {"[x, 1]", "relu_u"}, {"[x_1]", "relu_v"}};
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	size_t i, k;
	(void)state;
	assert_non_null(ctx);
	m = sym_model_from_json(ctx, json, strlen(json));
	if (!m)
		fail_msg("%s", sym_ctx_last_message(ctx));
	r = sym_model_infer(ctx, m, NULL);
	if (!r)
		fail_msg("%s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_graph_num_merge_keys(r), 4);
	for (k = 0; k < 4; k++) {
		for (i = 0; i < 4 && strcmp(sym_graph_merge_key(r, i, NULL, NULL), want[k].key); i++)
			;
		if (i == 4)
			fail_msg("no merge key %s", want[k].key);
		{
			size_t nn;
			const char *const *nodes;
			sym_graph_merge_key(r, i, &nn, &nodes);
			assert_int_equal(nn, 1);
			assert_string_equal(nodes[0], want[k].node);
		}
	}
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* A node with several outputs has one bracket per output, in order. */
static void merge_key_has_one_bracket_per_output(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "examples/transformer.json");
	expect_merge_key(&fx, "[1, batch, 12, seq, 64][1, batch, 12, seq, 64][1, batch, 12, seq, 64]",
	                 "qkv_split");
	close_model(&fx);
}

/* A chain of NK Concats grows [N, 1] by one each (c<k>: [N, k + 1]), each
 * followed by a Relu of the same shape (r<k>): NK keys of two nodes, met in
 * an order unlike their text's ("[N, 10]" sorts before "[N, 2]"). */
#define NK 150

static void merge_keys_of_many_shapes_are_sorted_with_their_nodes_in_model_order(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	size_t cap = 200 * NK + 256, n = 0, i;
	char *text = malloc(cap), want[64], prev[16] = "x";
	sym_model *m;
	sym_graph_result *r;
	int k;
	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n,
	                      "{\"inputs\": [{\"name\": \"x\", \"shape\": [\"N\", 1]}], \"nodes\": [");
	for (k = 1; k <= NK; k++) {
		n +=
		    (size_t)snprintf(text + n, cap - n,
		                     "%s{\"name\": \"c%d\", \"op\": \"Concat\", \"inputs\": [\"%s\", \"x\"], "
		                     "\"outputs\": [\"t%d\"], \"attrs\": {\"axis\": 1}}, {\"name\": \"r%d\", "
		                     "\"op\": \"Relu\", \"inputs\": [\"t%d\"], \"outputs\": [\"u%d\"]}",
		                     k > 1 ? ", " : "", k, prev, k, k, k, k);
		snprintf(prev, sizeof(prev), "u%d", k);
	}
	assert_true(n < cap);
	snprintf(text + n, cap - n, "], \"outputs\": [\"u%d\"]}", NK);
	m = sym_model_from_json(ctx, text, strlen(text));
	if (!m)
		fail_msg("the model does not load: %s", sym_ctx_last_message(ctx));
	r = sym_model_infer(ctx, m, NULL);
	assert_non_null(r);
	assert_int_equal(sym_graph_num_errors(r), 0);
	assert_int_equal(sym_graph_num_merge_keys(r), NK);
	for (i = 0; i < NK; i++) {
		size_t nn, j;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		if (i && strcmp(sym_graph_merge_key(r, i - 1, &j, &nodes), key) >= 0)
			fail_msg("merge key %zu '%s' does not sort after '%s'", i, key,
			         sym_graph_merge_key(r, i - 1, &j, &nodes));
		sym_graph_merge_key(r, i, &nn, &nodes);
		assert_int_equal(sscanf(key, "[N, %d]", &k), 1);
		snprintf(want, sizeof(want), "[N, %d]", k);
		assert_string_equal(key, want);
		assert_int_equal(nn, 2);
		snprintf(want, sizeof(want), "c%d", k - 1);
		assert_string_equal(nodes[0], want);
		snprintf(want, sizeof(want), "r%d", k - 1);
		assert_string_equal(nodes[1], want);
	}
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	free(text);
}

/* ---- malformed models ------------------------------------------------------ */

typedef struct bad_case {
	const char *name;
	const char *json;
	const char *want;  /* substring of the error */
	const char *want2; /* a second substring, or NULL */
} bad_case;

static const bad_case bad_cases[] = {
    {"invalid_json", "{\"inputs\": [ {\"name\": \"x\", \"shape\": [1,2]} ], \"nodes\": [}", "invalid JSON",
     "byte 56"},
    {"dangling_tensor",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"r\",\"op\":\"Relu\","
     "\"inputs\":[\"nope\"],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'r'", "'nope'"},
    {"cycle",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Add\","
     "\"inputs\":[\"x\",\"c\"],\"outputs\":[\"b\"]},{\"name\":\"b2\",\"op\":\"Relu\",\"inputs\":[\"b\"],"
     "\"outputs\":[\"c\"]}],\"outputs\":[\"b\"]}",
     "cycle", "node 'a'"},
    {"duplicate_output",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\","
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"]},{\"name\":\"b\",\"op\":\"Relu\",\"inputs\":[\"x\"],"
     "\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "'y' is defined twice", "node 'b'"},
    {"output_redefines_input",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\","
     "\"inputs\":[\"x\"],\"outputs\":[\"x\"]}],\"outputs\":[\"x\"]}",
     "'x' is defined twice", "node 'a'"},
    {"missing_graph_output",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[],\"outputs\":[\"q\"]}", "output 'q'",
     NULL},
    {"shape_not_a_list", "{\"inputs\":[{\"name\":\"x\",\"shape\":\"n\"}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "tensor 'x'", "\"shape\""},
    {"inputs_not_a_list",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\","
     "\"inputs\":\"x\",\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'a'", "\"inputs\""},
    {"op_not_a_string",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":7,"
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'a'", "\"op\""},
    {"attrs_not_an_object",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\","
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":[1]}],\"outputs\":[\"y\"]}",
     "node 'a'", "\"attrs\""},
    {"unknown_dtype",
     "{\"inputs\":[{\"name\":\"x\",\"dtype\":\"float7\",\"shape\":[1]}],\"nodes\":[],"
     "\"outputs\":[\"x\"]}",
     "tensor 'x'", "dtype"},
    {"dim_not_an_integer",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", 1.5]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "tensor 'x' dim 1", "not an exact integer"},
    {"data_not_an_integer",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int64\","
     "\"shape\":[2],\"data\":[2, 1.5]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's' data[1]", "not an exact integer"},
    {"int64_max_as_a_json_number",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int64\","
     "\"shape\":[1],\"data\":[9223372036854775807]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's' data[0]", "strings"},
    {"decimal_string_beyond_int64",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int64\","
     "\"shape\":[1],\"data\":[\"9223372036854775808\"]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's' data[0]", "64-bit"},
    {"int8_data_past_its_type",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int8\","
     "\"shape\":[2],\"data\":[-128, 128]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's' data[1]", "not a value of int8"},
    {"uint8_data_below_zero",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"uint8\","
     "\"shape\":[2],\"data\":[255, -1]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's' data[1]", "not a value of uint8"},
    {"data_count_differs_from_shape",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int64\","
     "\"shape\":[3],\"data\":[1, 2]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's'", "elements"},
    {"negative_dim", "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", -3]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "tensor 'x' dim 1", "negative"},
    {"top_level_not_an_object", "[1, 2]", "top level", NULL},
    {"bad_domain",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\","
     "\"domain\":\"com.example\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'a'", "domain"},
    {"guard_proven_false",
     "{\"inputs\":[{\"name\":\"a\",\"shape\":[3]},{\"name\":\"b\",\"shape\":[4]}],\"nodes\":[{\"name\":"
     "\"bad_add\",\"op\":\"Add\",\"inputs\":[\"a\",\"b\"],\"outputs\":[\"c\"]}],\"outputs\":[\"c\"]}",
     "node 'bad_add'", "never holds"},
    {"dim_beyond_2_53_as_a_json_number",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", 9007199254740993]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "tensor 'x' dim 1: 9007199254740993", "decimal strings"},
    {"data_beyond_2_53_as_a_json_number",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int64\",\"shape\":[2],\"data\":[1, -9007199254740993]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "initializer 's' data[1]: -9007199254740993", "decimal strings"},
    {"attribute_beyond_2_53_as_a_json_number",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"nodes\":[{\"name\":\"s\",\"op\":\"Softmax\","
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"axis\":9007199254740993}}],\"outputs\":[\"y\"]}",
     "node 's' attribute 'axis': 9007199254740993", "decimal strings"},
    {"attribute_list_beyond_2_53_as_a_json_number",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",3]}],\"nodes\":[{\"name\":\"t\",\"op\":\"Transpose\","
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"perm\":[1, "
     "9007199254740993]}}],\"outputs\":[\"y\"]}",
     "node 't' attribute 'perm': 9007199254740993", "decimal strings"},
    {"integer_that_rounds_to_an_integer",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", 3.0000000000000001]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "tensor 'x' dim 1: 3.0000000000000001", "not an exact integer"},
    {"input_name_with_a_newline",
     "{\"inputs\":[{\"name\":\"x\\ny\",\"shape\":[1]}],\"nodes\":[],\"outputs\":[\"x\\ny\"]}", "inputs[0]",
     "a name contains a control character"},
    {"initializer_name_with_a_tab",
     "{\"inputs\":[],\"initializers\":[{\"name\":\"w\\t\",\"shape\":[1]}],\"nodes\":[],\"outputs\":[\"w\\t\"]"
     "}",
     "initializers[0]", "a name contains a control character"},
    {"node_name_with_a_newline",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[1]}],\"nodes\":[{\"name\":\"r\\n\",\"op\":\"Relu\",\"inputs\":["
     "\"x\"],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "nodes[0]", "a name contains a control character"},
    {"node_input_with_a_newline",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[1]}],\"nodes\":[{\"name\":\"r\",\"op\":\"Relu\",\"inputs\":["
     "\"x\\n\"],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'r' \"inputs\"[0]", "a name contains a control character"},
    {"node_output_with_an_escape",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[1]}],\"nodes\":[{\"name\":\"r\",\"op\":\"Relu\",\"inputs\":["
     "\"x\"],\"outputs\":[\"y\\u001b[31m\"]}],\"outputs\":[\"y\"]}",
     "node 'r' \"outputs\"[0]", "a name contains a control character"},
    {"graph_output_with_a_delete",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[1]}],\"nodes\":[],\"outputs\":[\"x\\u007f\"]}",
     "\"outputs\"[0]", "a name contains a control character"},
    {"attribute_name_with_a_newline",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[1]}],\"nodes\":[{\"name\":\"r\",\"op\":\"Relu\",\"inputs\":["
     "\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"a\\nb\":1}}],\"outputs\":[\"y\"]}",
     "node 'r' attribute 0", "a name contains a control character"},
    {"format_name_with_a_newline",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[1]}],\"nodes\":[],\"outputs\":[\"x\"],\"formats\":{\"x\\n\":{"
     "\"format\":\"ND\"}}}",
     "\"formats\" entry 0", "a name contains a control character"},
    {"variadic_max_without_inputs",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"mx\",\"op\":\"Max\","
     "\"inputs\":[],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'mx' (Max)", "input 0 is required"},
    {"reshape_count_proven_false",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", 3]}],\"initializers\":[{\"name\":\"s\",\"dtype\":"
     "\"int64\",\"shape\":[2],\"data\":[0, 4]}],\"nodes\":[{\"name\":\"rs\",\"op\":\"Reshape\",\"inputs\":"
     "[\"x\",\"s\"],\"outputs\":[\"y\"]}],\"outputs\":[\"y\"]}",
     "node 'rs'", NULL},
    /* the nodes are read one entry at a time: a syntax error in a later
     * entry still comes before what an earlier entry gets wrong */
    {"syntax_error_after_a_bad_node",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":7,"
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"]},{\"name\":\"b\" \"op\":\"Relu\"}],\"outputs\":[\"y\"]}",
     "invalid JSON", NULL},
    {"trailing_comma_in_nodes",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\","
     "\"inputs\":[\"x\"],\"outputs\":[\"y\"]},],\"outputs\":[\"y\"]}",
     "invalid JSON", NULL},
    {"inexact_attribute_in_a_node",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", 4]}],\"nodes\":[{\"name\":\"f\",\"op\":"
     "\"Flatten\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"axis\":9007199254740993}}],"
     "\"outputs\":[\"y\"]}",
     "9007199254740993", "not an exact integer"},
    /* so are the inputs and initializers */
    {"syntax_error_after_a_bad_input",
     "{\"inputs\":[{\"name\":7,\"shape\":[\"n\"]},{\"name\":\"b\" \"shape\":[1]}],\"nodes\":[],"
     "\"outputs\":[]}",
     "invalid JSON", NULL},
    {"bad_second_input_named_by_its_place",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]},{\"shape\":[1]}],\"nodes\":[],\"outputs\":[\"x\"]}",
     "inputs[1]", "missing \"name\""},
    {"inexact_initializer_value",
     "{\"inputs\":[],\"initializers\":[{\"name\":\"s\",\"dtype\":\"int64\",\"shape\":[1],\"data\":["
     "9007199254740993]}],\"nodes\":[],\"outputs\":[\"s\"]}",
     "9007199254740993", "not an exact integer"},
    {"inputs_not_a_list_before_a_list",
     "{\"inputs\":{},\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":[],\"outputs\":[]}",
     "\"inputs\" must be a list", NULL},
    {"nodes_not_a_list_before_a_list",
     "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}],\"nodes\":{},\"nodes\":[],\"outputs\":[\"x\"]}",
     "missing \"nodes\"", NULL},
};

/* The model read from the text has the nodes it lists, in order, whatever
 * the order of the top-level keys, with a later "nodes" key ignored (the
 * first one counts, as for every key). */
static void json_nodes_are_read_in_order_wherever_they_stand(void **state)
{
	static const char *const texts[] = {
	    "{\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}, "
	    "{\"name\":\"b\",\"op\":\"Neg\",\"inputs\":[\"y\"],\"outputs\":[\"z\"]}],"
	    "\"outputs\":[\"z\"],\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}]}",
	    "\xEF\xBB\xBF {\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\"]}], \"nodes\" : [ {\"name\":\"a\","
	    "\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]} ,{\"name\":\"b\",\"op\":\"Neg\","
	    "\"inputs\":[\"y\"],\"outputs\":[\"z\"]} ] ,\"outputs\":[\"z\"],\"nodes\":[]}  trailing",
	};
	size_t t;
	(void)state;
	for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_model *m = sym_model_from_json(ctx, texts[t], strlen(texts[t]));
		sym_graph_result *r;
		int rank;
		const sym_expr *const *dims;
		size_t i;
		if (!m)
			fail_msg("text %zu: %s", t, sym_ctx_last_message(ctx));
		r = sym_model_infer(ctx, m, NULL);
		assert_non_null(r);
		assert_int_equal(sym_graph_num_errors(r), 0);
		for (i = 0; i < sym_graph_num_tensors(r); i++)
			if (!strcmp(sym_graph_tensor(r, i, &rank, &dims, NULL), "z"))
				break;
		assert_true(i < sym_graph_num_tensors(r));
		assert_int_equal(rank, 1);
		assert_string_equal(sym_expr_symbol_name(dims[0]), "n");
		assert_int_equal(sym_graph_num_merge_keys(r), 1);
		sym_graph_result_free(r);
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
}

/* The inputs and initializers are those of the first list of each key,
 * wherever it stands, entries outside the reader's subset (an escaped
 * name, an inexact number in a string) among them. */
static void json_tensor_lists_are_read_wherever_they_stand(void **state)
{
	static const char *const text =
	    "{\"nodes\":[],\"initializers\":[{\"name\":\"w\",\"dtype\":\"int64\",\"shape\":[2],"
	    "\"data\":[\"9007199254740993\", 3]},{\"name\":\"v\\u0041\",\"shape\":[4]}],"
	    "\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", 3]},{\"name\":\"y\\u0042\",\"shape\":[]}],"
	    "\"outputs\":[\"x\"],\"inputs\":[{\"name\":\"z\",\"shape\":[1]}],\"initializers\":[]}";
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m = sym_model_from_json(ctx, text, strlen(text));
	sym_graph_result *r;
	size_t i;
	const char *names[] = {"x", "yB", "w", "vA"};
	const int ranks[] = {2, 0, 1, 1};
	(void)state;
	if (!m)
		fail_msg("%s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_model_num_inputs(m), 2);
	assert_string_equal(sym_model_input_name(m, 0), "x");
	assert_string_equal(sym_model_input_name(m, 1), "yB");
	r = sym_model_infer(ctx, m, NULL);
	assert_non_null(r);
	for (i = 0; i < 4; i++) {
		size_t t;
		int rank = -3;
		for (t = 0; t < sym_graph_num_tensors(r); t++)
			if (!strcmp(sym_graph_tensor(r, t, &rank, NULL, NULL), names[i]))
				break;
		assert_true(t < sym_graph_num_tensors(r));
		assert_int_equal(rank, ranks[i]);
	}
	assert_int_equal(sym_graph_num_tensors(r), 4); /* not z, of the later "inputs" */
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* Loads and infers; returns the error message (NULL when it succeeds). */
static const char *load_error(sym_ctx *ctx, const char *json, sym_model **m, sym_graph_result **r)
{
	*r = NULL;
	*m = sym_model_from_json(ctx, json, strlen(json));
	if (!*m)
		return sym_ctx_last_message(ctx);
	*r = sym_model_infer(ctx, *m, NULL);
	if (!*r)
		return sym_ctx_last_message(ctx);
	return NULL;
}

static void bad_models_give_errors_naming_node_or_field(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const bad_case *c = &bad_cases[i];
		sym_ctx *ctx = sym_ctx_new();
		sym_model *m;
		sym_graph_result *r;
		const char *msg = load_error(ctx, c->json, &m, &r);
		char copy[512];
		if (!msg && r && sym_graph_num_errors(r))
			msg = sym_graph_error(r, 0, NULL);
		if (!msg)
			fail_msg("%s: no error", c->name);
		snprintf(copy, sizeof(copy), "%s", msg);
		if (!strstr(copy, c->want) || (c->want2 && !strstr(copy, c->want2)))
			fail_msg("%s: error '%s' lacks '%s'%s%s", c->name, copy, c->want,
			         c->want2 ? " / " : "", c->want2 ? c->want2 : "");
		if (!strcmp(c->name, "invalid_json"))
			assert_int_equal(sym_ctx_last_position(ctx), 56);
		sym_graph_result_free(r);
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
}

/* Attribute type errors are per-node errors: inference goes on. */
static void wrong_attribute_types_are_reported_per_node(void **state)
{
	static const struct {
		const char *json, *node, *want;
	} cases[] = {
	    {"{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", "
	     "3]}],\"nodes\":[{\"name\":\"t\",\"op\":\"Transpose\","
	     "\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"perm\":\"01\"}}],\"outputs\":[\"y\"]}",
	     "t", "'perm'"},
	    {"{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", "
	     "3]}],\"nodes\":[{\"name\":\"c\",\"op\":\"Concat\","
	     "\"inputs\":[\"x\",\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"axis\":\"one\"}}],\"outputs\":[\"y\"]"
	     "}",
	     "c", "'axis'"},
	    {"{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", "
	     "3]}],\"nodes\":[{\"name\":\"c\",\"op\":\"Concat\","
	     "\"inputs\":[\"x\",\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"axis\":1.5}}],\"outputs\":[\"y\"]}",
	     "c", "'axis'"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_model *m;
		sym_graph_result *r;
		const char *node, *msg = load_error(ctx, cases[i].json, &m, &r);
		if (msg)
			fail_msg("case %zu: fatal error %s", i, msg);
		assert_int_equal(sym_graph_num_errors(r), 1);
		msg = sym_graph_error(r, 0, &node);
		assert_string_equal(node, cases[i].node);
		if (!strstr(msg, cases[i].want))
			fail_msg("case %zu: '%s' lacks %s", i, msg, cases[i].want);
		sym_graph_result_free(r);
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
}

static void unknown_operator_is_reported_and_inference_continues(void **state)
{
	static const char *json =
	    "{\"inputs\":[{\"name\":\"x\",\"shape\":[\"n\",4]}],\"nodes\":["
	    "{\"name\":\"mystery\",\"op\":\"FooBar\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]},"
	    "{\"name\":\"after\",\"op\":\"Relu\",\"inputs\":[\"y\"],\"outputs\":[\"z\"]},"
	    "{\"name\":\"other\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"w\"]}],"
	    "\"outputs\":[\"z\",\"w\"]}";
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	const char *node, *msg = load_error(ctx, json, &m, &r);
	char buf[256];
	int rank;
	(void)state;
	assert_null(msg);
	assert_int_equal(sym_graph_num_errors(r), 2);
	msg = sym_graph_error(r, 0, &node);
	assert_string_equal(node, "mystery");
	assert_non_null(strstr(msg, "FooBar"));
	msg = sym_graph_error(r, 1, &node);
	assert_string_equal(node, "after");
	assert_non_null(strstr(msg, "'y'"));
	shape_text(ctx, r, sym_graph_find_tensor(r, "w"), buf, sizeof(buf));
	assert_string_equal(buf, "[n, 4]");
	sym_graph_tensor(r, sym_graph_find_tensor(r, "z"), &rank, NULL, NULL);
	assert_int_equal(rank, -2);
	/* the outputs' program cannot be built, the all-tensors program can */
	assert_null(sym_graph_compile(ctx, r, 0));
	sym_ctx_clear_error(ctx);
	{
		sym_model_program *mp = sym_graph_compile(ctx, r, 1);
		assert_non_null(mp);
		sym_model_program_free(mp);
	}
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* SPEC §6: INT64_MAX as a Slice end is written as a decimal string; in an
 * initializer (opset 18) and mixed with numbers in an attribute list. */
static void int64_max_as_decimal_string_is_exact(void **state)
{
	static const char *json =
	    "{\"opset\": 9, \"inputs\":[{\"name\":\"x\",\"shape\":[\"n\", "
	    "\"L\"]}],\"nodes\":[{\"name\":\"s\","
	    "\"op\":\"Slice\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"starts\":[1, 0],"
	    "\"ends\":[-1, \"9223372036854775807\"],\"axes\":[1, 0]}}],\"outputs\":[\"y\"]}";
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	char buf[256];
	(void)state;
	assert_null(load_error(ctx, json, &m, &r));
	assert_int_equal(sym_graph_num_errors(r), 0);
	shape_text(ctx, r, sym_graph_find_tensor(r, "y"), buf, sizeof(buf));
	assert_string_equal(buf, "[n, max(0, L - 2)]");
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* Integers up to 2**53 are exact as JSON numbers, beyond as decimal
 * strings; a number written with more digits than a double keeps is exact
 * when its value is the integer. */
static void integers_up_to_2_53_and_decimal_strings_are_exact(void **state)
{
	static const char *json =
	    "{\"inputs\":[{\"name\":\"x\",\"shape\":[9007199254740992, \"9007199254740993\", -0, 3.000e0,"
	    " 1.00000000000000000000, 900719925474099.20e1]}],\"initializers\":[{\"name\":\"s\","
	    "\"dtype\":\"int64\",\"shape\":[3],\"data\":[9007199254740992, \"9007199254740993\", 2E1]}],"
	    "\"nodes\":[{\"name\":\"c\",\"op\":\"ConstantOfShape\",\"inputs\":[\"s\"],\"outputs\":[\"y\"]}],"
	    "\"outputs\":[\"x\", \"y\"]}";
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	char buf[256];
	(void)state;
	assert_null(load_error(ctx, json, &m, &r));
	shape_text(ctx, r, sym_graph_find_tensor(r, "x"), buf, sizeof(buf));
	assert_string_equal(buf, "[9007199254740992, 9007199254740993, 0, 3, 1, 9007199254740992]");
	/* the initializer's data as the shape of ConstantOfShape */
	shape_text(ctx, r, sym_graph_find_tensor(r, "y"), buf, sizeof(buf));
	assert_string_equal(buf, "[9007199254740992, 9007199254740993, 20]");
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

/* ---- runtime program against concrete inference -------------------------- */

static const char *const all_models[] = {
    "examples/transformer.json",
    "examples/cnn.json",
    "tests/models/elementwise.json",
    "tests/models/reshape_chain.json",
    "tests/models/concat_split.json",
    "tests/models/slice.json",
    "tests/models/conv_pool.json",
    "tests/models/matmul_gemm.json",
    "tests/models/layernorm.json",
    "tests/models/reduce.json",
    "tests/models/transpose_expand_tile.json",
};

#define MAXDIMS 64

static long long draw_dim(void)
{
	switch (rng_range(0, 9)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return rng_range(1, 4);
	case 4:
	case 5:
	case 6:
	case 7:
		return rng_range(1, 64);
	default:
		return rng_range(1, 700);
	}
}

/* The input dims as declared (after symbolization), position by position. */
typedef struct decl {
	size_t n;
	const sym_expr *dim[MAXDIMS];
	int uses[MAXDIMS]; /* how many positions are exactly this dim's symbol */
} decl;

static void declared_dims(fixture *fx, decl *dc)
{
	size_t i, j;
	dc->n = 0;
	for (i = 0; i < sym_model_num_inputs(fx->m); i++) {
		int rank, d;
		const sym_expr *const *dims;
		sym_graph_tensor(fx->r, sym_graph_find_tensor(fx->r, sym_model_input_name(fx->m, i)), &rank,
		                 &dims, NULL);
		for (d = 0; d < rank; d++) {
			assert_true(dc->n < MAXDIMS);
			dc->dim[dc->n++] = dims[d];
		}
	}
	for (i = 0; i < dc->n; i++) {
		dc->uses[i] = 0;
		for (j = 0; j < dc->n; j++)
			dc->uses[i] += dc->dim[i] == dc->dim[j];
	}
}

/* The model text with every input shape replaced by the concrete dims. */
static char *concrete_model(fixture *fx, const int64_t *dims)
{
	cJSON *root = cJSON_Parse(fx->text), *inputs, *in;
	size_t p = 0;
	char *out;
	assert_non_null(root);
	inputs = cJSON_GetObjectItem(root, "inputs");
	cJSON_ArrayForEach(in, inputs)
	{
		cJSON *shape = cJSON_GetObjectItem(in, "shape"), *nsh = cJSON_CreateArray();
		int k, rank = cJSON_GetArraySize(shape);
		for (k = 0; k < rank; k++)
			cJSON_AddItemToArray(nsh, cJSON_CreateNumber((double)dims[p++]));
		cJSON_ReplaceItemInObject(in, "shape", nsh);
	}
	out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return out;
}

static void describe_point(char *buf, size_t cap, const int64_t *dims, size_t n)
{
	size_t i, len = 0;
	buf[0] = 0;
	for (i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? "," : "", (long long)dims[i]);
}

/* Returns 1 when the program and concrete inference agreed at dims. */
static void check_point(fixture *fx, const sym_model_program *mp, const decl *dc, const int64_t *dims,
                        int consistent, int64_t *out, int counts[4])
{
	sym_model_run res;
	char where[512];
	describe_point(where, sizeof(where), dims, dc->n);
	sym_model_program_run(mp, dims, out, &res);
	if (!consistent) {
		if (res.status != SYM_EINPUT)
			fail_msg("%s at %s: dims contradict the declared shapes, program status %d (%s)",
			         fx->name, where, res.status, res.message ? res.message : "");
		counts[2]++;
		return;
	}
	if (res.status == SYM_EINPUT)
		fail_msg("%s at %s: consistent dims rejected: %s", fx->name, where, res.message);
	if (res.status != SYM_EOK && res.status != SYM_EGUARD)
		fail_msg("%s at %s: program error %d: %s", fx->name, where, res.status, res.message);
	{
		sym_ctx *ctx = sym_ctx_new();
		char *text = concrete_model(fx, dims);
		sym_model *m = sym_model_from_json(ctx, text, strlen(text));
		sym_graph_result *r;
		size_t i, q = 0;
		if (!m)
			fail_msg("%s at %s: concrete model does not load: %s", fx->name, where,
			         sym_ctx_last_message(ctx));
		r = sym_model_infer(ctx, m, NULL);
		if (r && sym_graph_num_errors(r)) {
			const char *node, *msg = sym_graph_error(r, 0, &node);
			fail_msg("%s at %s: concrete inference fails at node %s: %s (program status %d)",
			         fx->name, where, node, msg, res.status);
		}
		if (!r) {
			if (res.status != SYM_EGUARD)
				fail_msg("%s at %s: concrete inference fails (%s), the program says ok",
				         fx->name, where, sym_ctx_last_message(ctx));
			counts[1]++;
		} else if (res.status == SYM_EGUARD) {
			fail_msg("%s at %s: guard '%s' (node %s) fails, concrete inference succeeds",
			         fx->name, where, res.message, res.node);
		} else {
			assert_int_equal(sym_graph_num_guards(r), 0);
			for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
				int rank, crank, d;
				const char *name = sym_model_program_tensor(mp, i, &rank);
				const sym_expr *const *cd;
				size_t t = sym_graph_find_tensor(r, name);
				assert_true(t != (size_t)-1);
				sym_graph_tensor(r, t, &crank, &cd, NULL);
				if (crank != rank)
					fail_msg("%s at %s: tensor %s rank %d, concrete %d", fx->name, where,
					         name, rank, crank);
				for (d = 0; d < rank; d++, q++) {
					long long v;
					if (sym_expr_get_si(cd[d], &v) != 1)
						fail_msg("%s at %s: tensor %s dim %d is not concrete",
						         fx->name, where, name, d);
					if (v != out[q])
						fail_msg(
						    "%s at %s: tensor %s dim %d: program %lld, concrete %lld",
						    fx->name, where, name, d, (long long)out[q], v);
				}
			}
			counts[0]++;
		}
		sym_graph_result_free(r);
		sym_model_free(m);
		cJSON_free(text);
		sym_ctx_free(ctx);
	}
}

static void program_agrees_with_concrete_inference_at_random_dims(void **state)
{
	size_t mi;
	int total[4] = {0, 0, 0, 0};
	(void)state;
	rng_seed(seed_from_env());
	for (mi = 0; mi < sizeof(all_models) / sizeof(all_models[0]); mi++) {
		fixture fx;
		decl dc;
		sym_model_program *mp;
		int64_t dims[MAXDIMS], *out;
		int counts[4] = {0, 0, 0, 0}, pt;
		size_t nsyms, i;
		const sym_expr *syms[32];
		long long vals[32];
		open_model(&fx, all_models[mi]);
		declared_dims(&fx, &dc);
		mp = sym_graph_compile(fx.ctx, fx.r, 1);
		if (!mp)
			fail_msg("%s: %s", fx.name, sym_ctx_last_message(fx.ctx));
		assert_int_equal(sym_model_program_num_dims(mp), dc.n);
		out = calloc(sym_model_program_num_out_dims(mp) + 1, sizeof(*out));
		nsyms = sym_graph_num_symbols(fx.r);
		assert_true(nsyms <= 32);
		for (i = 0; i < nsyms; i++)
			syms[i] = sym_graph_symbol(fx.r, i, NULL, NULL, NULL);
		for (pt = 0; pt < 250; pt++) {
			int consistent = 1;
			/* symbols often take equal values, so that equality
			 * guards hold at some points */
			for (i = 0; i < nsyms; i++)
				vals[i] = i && rng_range(0, 2) == 0 ? vals[rng_range(0, (long long)i - 1)]
				                                    : draw_dim();
			for (i = 0; i < dc.n; i++) {
				const sym_expr *e = sym_expr_eval_si(fx.ctx, dc.dim[i], nsyms, syms, vals);
				long long v;
				assert_non_null(e);
				assert_int_equal(sym_expr_get_si(e, &v), 1);
				dims[i] = v;
			}
			if (rng_range(0, 4) == 0) {
				/* change one dim: the dims still fit the declared shapes
				 * only when that dim is a symbol used nowhere else */
				size_t k = (size_t)rng_range(0, (long long)dc.n - 1);
				int64_t old = dims[k];
				dims[k] = rng_range(0, 1) ? draw_dim() : old + 1;
				if (dims[k] != old && !(sym_expr_symbol_name(dc.dim[k]) && dc.uses[k] == 1))
					consistent = 0;
			}
			check_point(&fx, mp, &dc, dims, consistent, out, counts);
		}
		/* every model sees valid points, and the ones with guards failing ones */
		assert_true(counts[0] > 0);
		if (sym_graph_num_guards(fx.r))
			assert_true(counts[1] > 0);
		for (i = 0; i < dc.n; i++)
			if (!sym_expr_symbol_name(dc.dim[i]) || dc.uses[i] > 1)
				break;
		if (i < dc.n)
			assert_true(counts[2] > 0);
		for (i = 0; i < 3; i++)
			total[i] += counts[i];
		free(out);
		sym_model_program_free(mp);
		close_model(&fx);
	}
	print_message("agreed at %d valid points, %d failing guards, %d contradicting bindings\n", total[0],
	              total[1], total[2]);
}

/* The runtime program itself: shapes at a known point, and the failing guard
 * names itself and its node. */
static void transformer_program_reports_failing_guard_and_node(void **state)
{
	fixture fx;
	sym_model_program *mp;
	int64_t out[16];
	sym_model_run res;
	const int64_t ok[] = {2, 128, 768, 2, 1, 1, 128};
	const int64_t bad_batch[] = {2, 128, 768, 3, 1, 1, 128};
	const int64_t bad_width[] = {2, 128, 760, 2, 1, 1, 128};
	const int64_t long_mask[] = {2, 128, 768, 2, 1, 1, 129};
	(void)state;
	open_model(&fx, "examples/transformer.json");
	mp = sym_graph_compile(fx.ctx, fx.r, 0);
	assert_non_null(mp);
	assert_int_equal(sym_model_program_num_dims(mp), 7);
	assert_int_equal(sym_model_program_num_tensors(mp), 2);
	assert_int_equal(sym_model_program_num_out_dims(mp), 7);
	sym_model_program_run(mp, ok, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(out[0], 2), assert_int_equal(out[1], 128), assert_int_equal(out[2], 768);
	assert_int_equal(out[3], 2), assert_int_equal(out[4], 12), assert_int_equal(out[5], 128);
	assert_int_equal(out[6], 128);
	sym_model_program_run(mp, bad_batch, out, &res);
	assert_int_equal(res.status, SYM_EGUARD);
	assert_int_equal(res.failed, 0);
	assert_string_equal(res.node, "add_mask");
	assert_string_equal(res.kind, "assert");
	assert_string_equal(res.message, "batch == 1 || batch == mbatch || mbatch == 1");
	sym_model_program_run(mp, long_mask, out, &res);
	assert_int_equal(res.status, SYM_EGUARD);
	assert_int_equal(res.failed, 1);
	assert_string_equal(res.node, "add_mask");
	sym_model_program_run(mp, bad_width, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "'x' dim 2"));
	sym_model_program_free(mp);
	close_model(&fx);
}

/* Infers the model text with opt and compiles its program (outputs only). */
static sym_model_program *compile_text(sym_ctx *ctx, const char *json, const sym_infer_options *opt,
                                       sym_model **m, sym_graph_result **r)
{
	sym_model_program *mp;
	*m = sym_model_from_json(ctx, json, strlen(json));
	if (!*m)
		fail_msg("%s", sym_ctx_last_message(ctx));
	*r = sym_model_infer(ctx, *m, opt);
	if (!*r)
		fail_msg("%s", sym_ctx_last_message(ctx));
	mp = sym_graph_compile(ctx, *r, 0);
	if (!mp)
		fail_msg("%s", sym_ctx_last_message(ctx));
	return mp;
}

static const char relu_json[] =
    "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", \"2*h\"]}],"
    " \"nodes\": [{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}],"
    " \"outputs\": [\"y\"]}";

static void program_rejects_dims_outside_the_symbol_ranges(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *mp;
	sym_infer_options opt;
	int64_t out[4], dims[2];
	sym_model_run res;
	(void)state;
	/* dims >= 1 by default: n == 0 and h == 0 are invalid input */
	mp = compile_text(ctx, relu_json, NULL, &m, &r);
	dims[0] = 3, dims[1] = 4;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(out[0], 3), assert_int_equal(out[1], 4);
	dims[0] = 0;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "n must be in the range [1, inf)"));
	assert_non_null(strstr(res.message, "input 'x' dim 0"));
	dims[0] = 3, dims[1] = 0;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "h must be in the range [1, inf)"));
	assert_non_null(strstr(res.message, "input 'x' dim 1"));
	dims[1] = -4;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	/* no dim above SYM_DIM_MAX: n beyond it is invalid input, and so is
	 * the dim 2*h (its h is in range) */
	dims[0] = INT64_MAX, dims[1] = 4;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "n must be at most 4611686018427387904, the largest dim"));
	assert_non_null(strstr(res.message, "input 'x' dim 0"));
	dims[0] = SYM_DIM_MAX + 1;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "n must be at most 4611686018427387904"));
	dims[0] = SYM_DIM_MAX;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_true(out[0] == SYM_DIM_MAX);
	dims[0] = 3, dims[1] = INT64_MAX - 1;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(
	    strstr(res.message, "input 'x' dim 1 must be at most 4611686018427387904, the largest dim"));
	dims[1] = SYM_DIM_MAX;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_true(out[1] == SYM_DIM_MAX);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	/* with empty tensors allowed, 0 is in range and -1 is not */
	memset(&opt, 0, sizeof(opt));
	opt.allow_empty = 1;
	mp = compile_text(ctx, relu_json, &opt, &m, &r);
	dims[0] = 0, dims[1] = 0;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	assert_int_equal(out[0], 0), assert_int_equal(out[1], 0);
	dims[0] = -1;
	sym_model_program_run(mp, dims, out, &res);
	assert_int_equal(res.status, SYM_EINPUT);
	assert_non_null(strstr(res.message, "n must be in the range [0, inf)"));
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

static void guard_cache_answers_invalid_for_dims_outside_the_symbol_ranges(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r, *r2;
	sym_guard_cache *c = sym_guard_cache_new(4);
	const int64_t ok[] = {3, 4}, empty[] = {0, 4}, huge[] = {INT64_MAX, 4},
	              above[] = {SYM_DIM_MAX + 1, 4}, largest[] = {SYM_DIM_MAX, 4};
	const char *reason;
	long id = -1;
	(void)state;
	assert_non_null(c);
	assert_int_equal(sym_guard_cache_add(c, compile_text(ctx, relu_json, NULL, &m, &r), "generic"), 0);
	assert_int_equal(sym_guard_cache_lookup(c, ok, &id, &reason), SYM_CACHE_HIT);
	assert_int_equal(id, 0);
	assert_int_equal(sym_guard_cache_lookup(c, empty, &id, &reason), SYM_CACHE_INVALID);
	assert_non_null(strstr(reason, "n must be in the range [1, inf)"));
	assert_int_equal(sym_guard_cache_lookup(c, huge, &id, &reason), SYM_CACHE_INVALID);
	assert_non_null(strstr(reason, "n must be at most 4611686018427387904, the largest dim"));
	assert_int_equal(sym_guard_cache_lookup(c, above, &id, &reason), SYM_CACHE_INVALID);
	assert_int_equal(sym_guard_cache_lookup(c, largest, &id, &reason), SYM_CACHE_HIT);
	/* the same with a validity program */
	sym_model_free(m);
	assert_int_equal(sym_guard_cache_set_validity(c, compile_text(ctx, relu_json, NULL, &m, &r2)), 0);
	assert_int_equal(sym_guard_cache_lookup(c, empty, &id, &reason), SYM_CACHE_INVALID);
	assert_non_null(strstr(reason, "n must be in the range [1, inf)"));
	assert_int_equal(sym_guard_cache_lookup(c, huge, &id, &reason), SYM_CACHE_INVALID);
	assert_non_null(strstr(reason, "n must be at most 4611686018427387904, the largest dim"));
	sym_guard_cache_free(c);
	sym_graph_result_free(r), sym_graph_result_free(r2);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

static void guard_cache_capacity_is_not_allocated_up_front(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m[3];
	sym_graph_result *r[3];
	sym_guard_cache *huge = sym_guard_cache_new(SIZE_MAX), *two = sym_guard_cache_new(2);
	const int64_t dims[] = {3, 4};
	long id = -1;
	size_t i;
	(void)state;
	assert_non_null(huge);
	assert_non_null(two);
	assert_null(sym_guard_cache_new(0));
	for (i = 0; i < 3; i++) {
		assert_int_equal(
		    sym_guard_cache_add(huge, compile_text(ctx, relu_json, NULL, &m[i], &r[i]), "v"),
		    (long)i);
		sym_graph_result_free(r[i]);
		sym_model_free(m[i]);
	}
	assert_int_equal(sym_guard_cache_size(huge), 3);
	assert_int_equal(sym_guard_cache_lookup(huge, dims, &id, NULL), SYM_CACHE_HIT);
	/* a small capacity still evicts the least recently used */
	for (i = 0; i < 3; i++) {
		assert_int_equal(
		    sym_guard_cache_add(two, compile_text(ctx, relu_json, NULL, &m[i], &r[i]), "v"), (long)i);
		sym_graph_result_free(r[i]);
		sym_model_free(m[i]);
	}
	assert_int_equal(sym_guard_cache_size(two), 2);
	assert_null(sym_guard_cache_label(two, 0));
	assert_non_null(sym_guard_cache_label(two, 2));
	sym_guard_cache_free(huge);
	sym_guard_cache_free(two);
	sym_ctx_free(ctx);
}

static void hinted_program_tells_a_failed_assert_from_a_failed_expect(void **state)
{
	fixture fx;
	sym_graph_result *hinted;
	sym_model_program *mp;
	sym_infer_options opt;
	const char *names[] = {"batch", "mbatch"};
	const long long values[] = {2, 2};
	const int64_t ok[] = {2, 128, 768, 2, 1, 1, 128};
	const int64_t bad_batch[] = {3, 128, 768, 2, 1, 1, 128}; /* 3 against 2 never broadcasts */
	const int64_t one_mbatch[] = {3, 128, 768, 1, 1, 1, 128};
	int64_t out[16];
	sym_model_run res;
	size_t i, nassert = 0;
	(void)state;
	open_model(&fx, "examples/transformer.json");
	memset(&opt, 0, sizeof(opt));
	opt.nhints = 2, opt.hint_names = names, opt.hint_values = values;
	hinted = sym_model_infer(fx.ctx, fx.m, &opt);
	assert_non_null(hinted);
	/* the broadcast assert stays although the expect batch == mbatch
	 * implies it */
	for (i = 0; i < sym_graph_num_guards(hinted); i++) {
		const char *kind;
		char *t = sym_expr_to_str(fx.ctx, sym_graph_guard(hinted, i, &kind, NULL, NULL));
		if (!strcmp(t, "batch == 1 || batch == mbatch || mbatch == 1"))
			assert_string_equal(kind, "assert"), nassert++;
		sym_str_free(fx.ctx, t);
	}
	assert_int_equal(nassert, 1);
	mp = sym_graph_compile(fx.ctx, hinted, 0);
	assert_non_null(mp);
	sym_model_program_run(mp, ok, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	sym_model_program_run(mp, bad_batch, out, &res);
	assert_int_equal(res.status, SYM_EGUARD);
	assert_string_equal(res.kind, "assert");
	assert_string_equal(res.message, "batch == 1 || batch == mbatch || mbatch == 1");
	sym_model_program_run(mp, one_mbatch, out, &res);
	assert_int_equal(res.status, SYM_EGUARD);
	assert_string_equal(res.kind, "expect");
	sym_model_program_free(mp);
	sym_graph_result_free(hinted);
	close_model(&fx);
}

/* A message naming a long node is never cut to a field width: the whole
 * name and the rest of the message are in it. */
static void long_names_stay_whole_in_messages(void **state)
{
	char name[701], text[1200];
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	const char *msg;
	(void)state;
	memset(name, 'n', 700);
	name[700] = 0;
	snprintf(text, sizeof(text),
	         "{\"inputs\": [{\"name\": \"x\", \"shape\": [2]}], \"nodes\": [{\"name\": \"%s\", "
	         "\"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], "
	         "\"attrs\": {\"a\": [1, \"b\"]}}], \"outputs\": [\"y\"]}",
	         name);
	m = sym_model_from_json(ctx, text, strlen(text));
	assert_null(m);
	msg = sym_ctx_last_message(ctx);
	assert_non_null(strstr(msg, name));
	assert_non_null(strstr(msg, "attribute 'a': a list mixes numbers and strings"));
	sym_ctx_free(ctx);
}

/* Whether msg is one line: no byte below 0x20 (newline included) or 0x7f. */
static int is_one_line(const char *msg)
{
	for (; *msg; msg++)
		if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
			return 0;
	return 1;
}

/* Loads and infers the model text and compiles its program (outputs
 * only); returns the program, NULL with the error in ctx. */
static sym_model_program *try_compile(sym_ctx *ctx, const char *json, sym_model **m, sym_graph_result **r)
{
	*r = NULL;
	*m = sym_model_from_json(ctx, json, strlen(json));
	if (!*m)
		fail_msg("%s", sym_ctx_last_message(ctx));
	*r = sym_model_infer(ctx, *m, NULL);
	if (!*r)
		fail_msg("%s", sym_ctx_last_message(ctx));
	return sym_graph_compile(ctx, *r, 0);
}

/* The messages of compiling a program name the input or output whole (they
 * once kept 60 bytes of it), in one line. */
static void program_errors_name_long_inputs_and_outputs_whole(void **state)
{
	static const char *const models[] = {
	    /* an input of unknown rank */
	    "{\"inputs\": [{\"name\": \"%s\", \"shape\": null}, {\"name\": \"y\", \"shape\": [\"n\"]}],"
	    " \"nodes\": [{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}],"
	    " \"outputs\": [\"z\"]}",
	    /* a symbol no input dim binds */
	    "{\"inputs\": [{\"name\": \"%s\", \"shape\": [\"a*b\"]}],"
	    " \"nodes\": [], \"outputs\": []}",
	    /* an output without an inferred shape */
	    "{\"inputs\": [{\"name\": \"y\", \"shape\": [\"n\"]}],"
	    " \"nodes\": [{\"name\": \"r\", \"op\": \"FancyOp\", \"inputs\": [\"y\"], \"outputs\": "
	    "[\"%s\"]}], \"outputs\": [\"%s\"]}",
	};
	static const char *const want[] = {
	    "input '%s' has unknown rank: the runtime program needs it",
	    "input '%s' dim 0: symbol 'a' is not bound by any input dim",
	    "output '%s' has no inferred shape: no program computes it",
	};
	char name[301], text[1200], msg[1200];
	size_t i;
	(void)state;
	memset(name, 'q', 300);
	name[300] = 0;
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_model *m;
		sym_graph_result *r;
		snprintf(text, sizeof(text), models[i], name, name);
		assert_null(try_compile(ctx, text, &m, &r));
		snprintf(msg, sizeof(msg), want[i], name);
		assert_string_equal(sym_ctx_last_message(ctx), msg);
		assert_true(is_one_line(sym_ctx_last_message(ctx)));
		sym_graph_result_free(r);
		sym_model_free(m);
		sym_ctx_free(ctx);
	}
}

/* The range check of a data-dependent dim quotes its ends whole (each was
 * once cut at 100 bytes). */
static void data_dependent_range_checks_quote_long_ends_whole(void **state)
{
	char a[251], b[251], text[1200], want[1200];
	sym_ctx *ctx = sym_ctx_new();
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *mp;
	int64_t dims[3] = {2, 3, 7}, out[8];
	sym_model_run res;
	(void)state;
	memset(a, 'a', 250), memset(b, 'b', 250);
	a[250] = b[250] = 0;
	snprintf(text, sizeof(text),
	         "{\"inputs\": [{\"name\": \"x\", \"shape\": [\"%s\", \"%s\"]}],"
	         " \"nodes\": [{\"name\": \"nz\", \"op\": \"NonZero\", \"inputs\": [\"x\"], "
	         "\"outputs\": [\"idx\"]}], \"outputs\": [\"idx\"]}",
	         a, b);
	mp = try_compile(ctx, text, &m, &r);
	if (!mp)
		fail_msg("%s", sym_ctx_last_message(ctx));
	sym_model_program_run(mp, dims, out, &res); /* u0 = 7 > 2*3 */
	assert_int_equal(res.status, SYM_EINPUT);
	snprintf(want, sizeof(want), "data-dependent u0 must be in the range [0, %s*%s]", a, b);
	assert_string_equal(res.message, want);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(transformer_gets_symbolic_shapes_guards_and_merge_keys),
	    cmocka_unit_test(cnn_gets_conv_and_pool_formulas),
	    cmocka_unit_test(elementwise_broadcasts_with_guards),
	    cmocka_unit_test(reshape_follows_shape_gather_unsqueeze_concat_chains),
	    cmocka_unit_test(concat_and_split_add_and_divide_dims),
	    cmocka_unit_test(slice_clamps_int64_ends_and_symbolic_ends),
	    cmocka_unit_test(conv_and_pool_follow_ceil_mode_dilation_and_auto_pad),
	    cmocka_unit_test(matmul_and_gemm_broadcast_batches_and_check_contraction),
	    cmocka_unit_test(layer_norm_gives_mean_and_variance_shapes),
	    cmocka_unit_test(reduce_keeps_or_drops_axes),
	    cmocka_unit_test(transpose_expand_and_tile_permute_and_multiply),
	    cmocka_unit_test(merge_keys_do_not_depend_on_node_order),
	    cmocka_unit_test(bad_models_give_errors_naming_node_or_field),
	    cmocka_unit_test(json_nodes_are_read_in_order_wherever_they_stand),
	    cmocka_unit_test(json_tensor_lists_are_read_wherever_they_stand),
	    cmocka_unit_test(wrong_attribute_types_are_reported_per_node),
	    cmocka_unit_test(unknown_operator_is_reported_and_inference_continues),
	    cmocka_unit_test(int64_max_as_decimal_string_is_exact),
	    cmocka_unit_test(integers_up_to_2_53_and_decimal_strings_are_exact),
	    cmocka_unit_test(merge_keys_of_different_shapes_differ),
	    cmocka_unit_test(merge_key_has_one_bracket_per_output),
	    cmocka_unit_test(merge_keys_of_many_shapes_are_sorted_with_their_nodes_in_model_order),
	    cmocka_unit_test(transformer_program_reports_failing_guard_and_node),
	    cmocka_unit_test(program_rejects_dims_outside_the_symbol_ranges),
	    cmocka_unit_test(guard_cache_answers_invalid_for_dims_outside_the_symbol_ranges),
	    cmocka_unit_test(guard_cache_capacity_is_not_allocated_up_front),
	    cmocka_unit_test(hinted_program_tells_a_failed_assert_from_a_failed_expect),
	    cmocka_unit_test(program_agrees_with_concrete_inference_at_random_dims),
	    cmocka_unit_test(long_names_stay_whole_in_messages),
	    cmocka_unit_test(program_errors_name_long_inputs_and_outputs_whole),
	    cmocka_unit_test(data_dependent_range_checks_quote_long_ends_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
