/* Attention variants and mixtures of experts of ONNX Runtime
 * (com.microsoft): DecoderAttention (BART-style decoders, sequence first),
 * SparseAttention (block-sparse, with a shared KV buffer) and MoE.  The
 * shapes are those ONNX Runtime's kernels write and the guards the checks
 * they make; where a shape depends on a runtime value that is not known
 * here, the dim is bound at run time (never guessed). */
#include "rules_private.h"

#include <string.h>

#define MS "com.microsoft"

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

static int require_eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const char *reason)
{
	return sym__rc_require(rc, eq(rc, a, b), SYM_GUARD_ASSERT, reason);
}

static int require_rel(sym_rule_ctx *rc, sym_relop op, const sym_expr *a, const sym_expr *b,
                       const char *reason)
{
	return sym__rc_require(rc, sym_expr_rel(sym__rc_ctx(rc), op, a, b), SYM_GUARD_ASSERT, reason);
}

/* Input i with exactly rank n (unknown rank is an error). */
static const sym_tval *need_rank_n(sym_rule_ctx *rc, size_t i, const char *what, int n)
{
	const sym_tval *t = sym__rc_need_rank(rc, i);
	if (t && t->rank != n) {
		sym__rc_error(rc, "input %s must have rank %d, not %d", what, n, t->rank);
		return NULL;
	}
	return t;
}

/* Optional input i: absent (NULL, *ok 1), of rank n, or an error (*ok 0). */
static const sym_tval *opt_rank_n(sym_rule_ctx *rc, size_t i, const char *what, int n, int *ok)
{
	const sym_tval *t = sym__rc_in(rc, i);
	*ok = 1;
	if (!t)
		return NULL;
	if (!(t = need_rank_n(rc, i, what, n)))
		*ok = 0;
	return t;
}

/* The value of a one-element input as a constant: 1 with *v set, 0 when
 * absent or not known. */
static int const_scalar(const sym_tval *t, long long *v)
{
	if (!t || !t->has_value || t->nvalue != 1)
		return 0;
	return sym_expr_get_si(t->value[0], v) == 1;
}

/* The one-element value of t as an expression, or NULL. */
static const sym_expr *scalar_value(const sym_tval *t)
{
	return t && t->has_value && t->nvalue == 1 ? t->value[0] : NULL;
}

/* ---- DecoderAttention ---------------------------------------------------- */

/* The flags static_kv, use_past, has_layer_state, has_key_padding_mask
 * (inputs 8 to 11, bool scalars): 1 or 0 when known, -1 when not. */
static int flag(sym_rule_ctx *rc, size_t i)
{
	long long v;
	return const_scalar(sym__rc_in(rc, i), &v) ? v != 0 : -1;
}

/* DecoderAttention(query [S, B, H], key [L, B, H], q_weight [H, H],
 * kv_weight [H, 2H], bias [3H], key_padding_mask [B, K], key_cache
 * [B, N, C, h], value_cache, static_kv, use_past, has_layer_state,
 * has_key_padding_mask) -> output [S, B, H], new_key_cache and
 * new_value_cache [B, N, kv, H//N]: kv is L (static_kv) or S without a
 * used cache (use_past and has_layer_state), C or C + S with one. */
static int r_decoder_attention(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *q, *k, *qw, *kvw, *bias, *mask, *kc = NULL, *vc = NULL;
	const sym_expr *h, *b, *s, *d[4], *kv = NULL, *klen = NULL, *two, *three;
	int64_t heads;
	int st, past, layer, hasmask, ok, i, cache;
	size_t j;
	if (sym__rc_attr_pos(rc, "num_heads", &heads) < 0)
		return -1;
	if (!(q = need_rank_n(rc, 0, "query", 3)) || !(k = need_rank_n(rc, 1, "key", 3)) ||
	    !(qw = need_rank_n(rc, 2, "q_weight", 2)) || !(kvw = need_rank_n(rc, 3, "kv_weight", 2)) ||
	    !(bias = need_rank_n(rc, 4, "bias", 1)))
		return -1;
	for (j = 8; j < 12; j++)
		if (!sym__rc_need(rc, j))
			return -1;
	s = q->dims[0], b = q->dims[1], h = q->dims[2];
	two = sym__rc_num(rc, 2), three = sym__rc_num(rc, 3);
	if (require_eq(rc, k->dims[1], b, "query and key must have the same batch size") < 0 ||
	    require_eq(rc, k->dims[2], h, "query and key must have the same hidden size") < 0 ||
	    require_eq(rc, qw->dims[0], h, "q_weight must be [hidden, hidden]") < 0 ||
	    require_eq(rc, qw->dims[1], h, "q_weight must be [hidden, hidden]") < 0 ||
	    require_eq(rc, kvw->dims[0], h, "kv_weight must be [hidden, 2 * hidden]") < 0 ||
	    require_eq(rc, kvw->dims[1], sym_expr_mul(ctx, two, h),
	               "kv_weight must be [hidden, 2 * hidden]") < 0 ||
	    require_eq(rc, bias->dims[0], sym_expr_mul(ctx, three, h), "bias must be [3 * hidden]") < 0)
		return -1;
	st = flag(rc, 8), past = flag(rc, 9), layer = flag(rc, 10), hasmask = flag(rc, 11);
	/* 1: the caches are read, 0: not, -1: not known */
	cache = (past == 0 || layer == 0) ? 0 : (past == 1 && layer == 1) ? 1 : -1;
	if (cache == 1) {
		if (!sym__rc_in(rc, 6) || !sym__rc_in(rc, 7))
			return sym__rc_error(
			    rc, "use_past and has_layer_state need key_cache and value_cache (inputs "
			        "6 and 7)");
		if (!(kc = need_rank_n(rc, 6, "key_cache", 4)) ||
		    !(vc = need_rank_n(rc, 7, "value_cache", 4)))
			return -1;
		for (i = 0; i < 2; i++) {
			const sym_tval *c = i ? vc : kc;
			if (require_eq(rc, c->dims[0], b, "the caches must have the query's batch size") <
			        0 ||
			    require_eq(rc, sym_expr_mul(ctx, c->dims[1], c->dims[3]), h,
			               "the caches must be [batch, heads, length, hidden / heads]") < 0)
				return -1;
		}
	}
	if (cache >= 0 && st >= 0) {
		if (!cache)
			kv = st ? k->dims[0] : s;
		else
			kv = st ? kc->dims[2] : sym_expr_add(ctx, kc->dims[2], s);
		/* the key length the kernel checks the mask against: the
		 * key's L with static_kv, else S (S + L with a cache) */
		klen = st ? k->dims[0] : cache ? sym_expr_add(ctx, s, k->dims[0]) : s;
	}
	if (hasmask == 1 && sym__rc_in(rc, 5)) {
		if (!(mask = opt_rank_n(rc, 5, "key_padding_mask", 2, &ok)) && !ok)
			return -1;
		if (require_eq(rc, mask->dims[0], b, "key_padding_mask must have the query's batch size") < 0)
			return -1;
		if (klen && require_eq(rc, mask->dims[1], klen,
		                       "key_padding_mask must have the generated key's length") < 0)
			return -1;
	}
	if (sym__rc_copy_shape(rc, 0, q) < 0)
		return -1;
	if (rc->nout < 2)
		return 0;
	if (!kv && !(kv = sym__rc_fresh_dim(rc, sym__zero(ctx), NULL, "cache length")))
		return -1;
	d[0] = b, d[1] = sym__rc_num(rc, heads), d[2] = kv;
	d[3] = sym_expr_floordiv(ctx, h, d[1]);
	if (sym__rc_set_out(rc, 1, 4, d, q->dtype) < 0)
		return -1;
	return sym__rc_set_out(rc, 2, 4, d, q->dtype);
}

/* ---- SparseAttention ----------------------------------------------------- */

/* The rotary caches of SparseAttention with do_rotary: both present, one
 * shape [R, r] with R >= the total length (when known), r a multiple of 8
 * and at most (h//16)*8, h a multiple of 16. */
static int sparse_rotary(sym_rule_ctx *rc, const sym_expr *hd, const sym_expr *tsl)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *c, *s;
	const sym_expr *cap;
	int i;
	if (!sym__rc_in(rc, 9) || !sym__rc_in(rc, 10))
		return sym__rc_error(rc, "do_rotary needs cos_cache and sin_cache (inputs 9 and 10)");
	if (!(c = need_rank_n(rc, 9, "cos_cache", 2)) || !(s = need_rank_n(rc, 10, "sin_cache", 2)))
		return -1;
	if (sym__rc_require_divisible(rc, hd, sym__rc_num(rc, 16),
	                              "with do_rotary, the head size must be a multiple of 16") < 0 ||
	    require_eq(rc, c->dims[0], s->dims[0], "cos_cache and sin_cache must have the same length") < 0 ||
	    require_eq(rc, c->dims[1], s->dims[1], "cos_cache and sin_cache must have the same width") < 0)
		return -1;
	cap = sym_expr_mul(ctx, sym_expr_floordiv(ctx, hd, sym__rc_num(rc, 16)), sym__rc_num(rc, 8));
	for (i = 0; i < 2; i++) {
		const sym_tval *t = i ? s : c;
		if (sym__rc_require_divisible(rc, t->dims[1], sym__rc_num(rc, 8),
		                              "the rotary cache width must be a multiple of 8") < 0 ||
		    require_rel(rc, SYM_REL_LE, t->dims[1], cap,
		                "the rotary cache width must be at most head size / 2") < 0)
			return -1;
	}
	if (tsl && require_rel(rc, SYM_REL_GE, c->dims[0], tsl,
	                       "the rotary caches must cover total_sequence_length") < 0)
		return -1;
	return 0;
}

/* SparseAttention(query, key, value, past_key, past_value,
 * block_row_indices, block_col_indices, total_sequence_length,
 * key_total_sequence_lengths, cos_cache, sin_cache) -> output [B, S, Hq],
 * present_key and present_value (the past buffers, [B, K, M, h]). */
static int r_sparse_attention(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *q, *key, *value, *pk, *pv, *rows, *cols, *tl, *kl;
	const sym_expr *hq, *hd, *tsl, *d[3], *maxb;
	int64_t heads, kv_heads, block, rotary;
	int i;
	if (sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    sym__rc_attr_pos(rc, "kv_num_heads", &kv_heads) < 0 ||
	    sym__rc_attr_pos(rc, "sparse_block_size", &block) < 0 ||
	    sym__rc_attr_int(rc, "do_rotary", 0, &rotary) < 0)
		return -1;
	if (heads % kv_heads)
		return sym__rc_error(rc, "num_heads (%lld) must be a multiple of kv_num_heads (%lld)",
		                     (long long)heads, (long long)kv_heads);
	rotary = rotary == 1; /* as the kernels read it */
	if (!(q = need_rank_n(rc, 0, "query", 3)))
		return -1;
	key = sym__rc_in(rc, 1), value = sym__rc_in(rc, 2);
	if (!key != !value)
		return sym__rc_error(rc, "inputs key and value must both be present or both absent");
	hq = q->dims[2];
	if (key) {
		if (!(key = need_rank_n(rc, 1, "key", 3)) || !(value = need_rank_n(rc, 2, "value", 3)))
			return -1;
		hd = sym_expr_floordiv(ctx, hq, sym__rc_num(rc, heads));
		if (require_eq(rc, key->dims[0], q->dims[0], "query and key must have the same batch size") <
		        0 ||
		    require_eq(rc, key->dims[1], q->dims[1],
		               "query and key must have the same sequence length") < 0)
			return -1;
		for (i = 0; i < 3; i++)
			if (require_eq(rc, value->dims[i], key->dims[i], "value must have the shape of key") <
			    0)
				return -1;
	} else {
		const sym_expr *parts = sym__rc_num(rc, heads + 2 * kv_heads);
		if (sym__rc_require_divisible(
		        rc, hq, parts,
		        "packed QKV hidden size must be a multiple of num_heads + 2 * kv_num_heads") < 0)
			return -1;
		hd = sym_expr_floordiv(ctx, hq, parts);
		hq = sym_expr_mul(ctx, hd, sym__rc_num(rc, heads));
	}
	if (sym__rc_require_divisible(rc, hd, sym__rc_num(rc, 8), "the head size must be a multiple of 8") <
	    0)
		return -1;
	if (!(tl = sym__rc_need(rc, 7)) || !(kl = sym__rc_need(rc, 8)))
		return -1;
	if (tl->rank > 1)
		return sym__rc_error(
		    rc, "input total_sequence_length must be a scalar or have one element, not rank %d",
		    tl->rank);
	if (tl->rank == 1 &&
	    require_eq(rc, tl->dims[0], sym__one(ctx), "total_sequence_length must have one element") < 0)
		return -1;
	tsl = scalar_value(tl);
	if (!(rows = need_rank_n(rc, 5, "block_row_indices", 2)) ||
	    !(cols = need_rank_n(rc, 6, "block_col_indices", 2)))
		return -1;
	maxb = sym_expr_sub(ctx, rows->dims[1], sym__one(ctx));
	if (require_rel(rc, SYM_REL_GE, rows->dims[1], sym__rc_num(rc, 2),
	                "block_row_indices must be [num_layout, max_blocks + 1] with max_blocks >= 1") < 0 ||
	    sym__rc_require_divisible(
	        rc, sym__rc_num(rc, heads), rows->dims[0],
	        "num_heads must be a multiple of num_layout (block_row_indices dim 0)") < 0 ||
	    require_eq(rc, cols->dims[0], rows->dims[0], "block_col_indices must have num_layout rows") < 0 ||
	    require_rel(rc, SYM_REL_LE, cols->dims[1], sym_expr_mul(ctx, maxb, maxb),
	                "block_col_indices must have at most max_blocks^2 columns") < 0)
		return -1;
	if (tsl && require_rel(rc, SYM_REL_GE, sym_expr_mul(ctx, maxb, sym__rc_num(rc, block)), tsl,
	                       "max_blocks * sparse_block_size must cover total_sequence_length") < 0)
		return -1;
	if (!(pk = need_rank_n(rc, 3, "past_key", 4)) || !(pv = need_rank_n(rc, 4, "past_value", 4)))
		return -1;
	for (i = 0; i < 4; i++)
		if (require_eq(rc, pv->dims[i], pk->dims[i], "past_value must have the shape of past_key") <
		    0)
			return -1;
	if (require_eq(rc, pk->dims[0], q->dims[0], "past_key must have the query's batch size") < 0 ||
	    require_eq(rc, pk->dims[1], sym__rc_num(rc, kv_heads), "past_key dim 1 must be kv_num_heads") <
	        0 ||
	    require_eq(rc, pk->dims[3], hd, "past_key dim 3 must be the head size") < 0)
		return -1;
	if (tsl &&
	    require_rel(rc, SYM_REL_GE, pk->dims[2], tsl, "past_key must cover total_sequence_length") < 0)
		return -1;
	/* the kernel refuses key_total_sequence_lengths only when it is not
	 * 1-D and its first dim is not the batch */
	if (kl->rank == 0)
		return sym__rc_error(rc,
		                     "input key_total_sequence_lengths must have rank 1 ([batch]), not 0");
	if (kl->rank > 1 &&
	    require_eq(rc, kl->dims[0], q->dims[0], "key_total_sequence_lengths must have shape [batch]") < 0)
		return -1;
	if (rotary && sparse_rotary(rc, hd, tsl) < 0)
		return -1;
	d[0] = q->dims[0], d[1] = q->dims[1], d[2] = hq;
	if (sym__rc_set_out(rc, 0, 3, d, q->dtype) < 0 || sym__rc_set_out(rc, 1, 4, pk->dims, pk->dtype) < 0)
		return -1;
	return sym__rc_set_out(rc, 2, 4, pk->dims, pv->dtype);
}

/* ---- MoE ----------------------------------------------------------------- */

/* An expert weight [E, a, b] (rank 3, E experts) with hidden as a or b:
 * ONNX Runtime reads both layouts ([E, out, in] and the legacy [E, in,
 * out]) and tells them apart by the sizes, so only this much holds in
 * both. */
static int expert_weight(sym_rule_ctx *rc, const sym_tval *w, const sym_expr *e, const sym_expr *hidden,
                         const char *what)
{
	const char *r1, *r2;
	if (!(r1 = sym__rc_text(rc, "%s must have num_experts (router_probs dim 1) as dim 0", what)) ||
	    !(r2 = sym__rc_text(rc, "%s must have the hidden size as dim 1 or 2", what)))
		return -1;
	if (require_eq(rc, w->dims[0], e, r1) < 0)
		return -1;
	return sym__rc_require(
	    rc, sym_expr_or(sym__rc_ctx(rc), eq(rc, w->dims[1], hidden), eq(rc, w->dims[2], hidden)),
	    SYM_GUARD_ASSERT, r2);
}

/* MoE(input [T, H] or [B, S, H], router_probs [T, E], fc1_experts_weights,
 * fc1_experts_bias, fc2_experts_weights, fc2_experts_bias,
 * fc3_experts_weights, fc3_experts_bias) -> output, the input's shape. */
static int r_moe(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *router, *w1, *w2, *w3, *b1, *b2, *b3;
	const sym_expr *rows, *hidden, *e;
	static const char *const acts[] = {"relu", "gelu", "silu", "identity", "swiglu"};
	const char *act;
	size_t i;
	int64_t k;
	int ok;
	if (!x)
		return -1;
	if (x->rank != 2 && x->rank != 3)
		return sym__rc_error(rc, "input input must have rank 2 or 3, not %d", x->rank);
	if (sym__rc_attr_int(rc, "k", 1, &k) < 0)
		return -1;
	if (k < 1)
		return sym__rc_error(rc, "attribute 'k' must be at least 1, not %lld", (long long)k);
	if (sym__rc_attr_string(rc, "activation_type", "relu", &act) < 0)
		return -1;
	for (i = 0; i < sizeof(acts) / sizeof(acts[0]) && strcmp(act, acts[i]); i++)
		;
	if (i == sizeof(acts) / sizeof(acts[0]))
		return sym__rc_error(rc, "attribute 'activation_type' has the unknown value '%s'", act);
	if (!(router = need_rank_n(rc, 1, "router_probs", 2)) ||
	    !(w1 = need_rank_n(rc, 2, "fc1_experts_weights", 3)) ||
	    !(w2 = need_rank_n(rc, 4, "fc2_experts_weights", 3)))
		return -1;
	if ((!(b1 = opt_rank_n(rc, 3, "fc1_experts_bias", 2, &ok)) && !ok) ||
	    (!(b2 = opt_rank_n(rc, 5, "fc2_experts_bias", 2, &ok)) && !ok) ||
	    (!(w3 = opt_rank_n(rc, 6, "fc3_experts_weights", 3, &ok)) && !ok) ||
	    (!(b3 = opt_rank_n(rc, 7, "fc3_experts_bias", 2, &ok)) && !ok))
		return -1;
	if (b3 && !w3)
		return sym__rc_error(rc, "fc3_experts_bias needs fc3_experts_weights (input 6)");
	rows = x->rank == 2 ? x->dims[0] : sym_expr_mul(ctx, x->dims[0], x->dims[1]);
	hidden = x->dims[x->rank - 1], e = router->dims[1];
	if (require_eq(rc, router->dims[0], rows, "router_probs must have a row per token") < 0 ||
	    expert_weight(rc, w1, e, hidden, "fc1_experts_weights") < 0 ||
	    expert_weight(rc, w2, e, hidden, "fc2_experts_weights") < 0 ||
	    (w3 && expert_weight(rc, w3, e, hidden, "fc3_experts_weights") < 0))
		return -1;
	if ((b1 && require_eq(rc, b1->dims[0], e, "fc1_experts_bias must be [num_experts, ...]") < 0) ||
	    (b3 && require_eq(rc, b3->dims[0], e, "fc3_experts_bias must be [num_experts, ...]") < 0))
		return -1;
	if (b2 && (require_eq(rc, b2->dims[0], e, "fc2_experts_bias must be [num_experts, hidden]") < 0 ||
	           require_eq(rc, b2->dims[1], hidden, "fc2_experts_bias must be [num_experts, hidden]") < 0))
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

const sym_rule_entry sym__rules_microsoft_moe[] = {
    {"DecoderAttention", MS, r_decoder_attention, 0},
    {"SparseAttention", MS, r_sparse_attention, 0},
    {"MoE", MS, r_moe, 0},
};
const size_t sym__rules_microsoft_moe_count =
    sizeof(sym__rules_microsoft_moe) / sizeof(sym__rules_microsoft_moe[0]);
