/* com.microsoft attention operators of ONNX Runtime's transformer
 * optimizer: Attention, MultiHeadAttention, DecoderMaskedMultiHeadAttention,
 * GroupQueryAttention, PackedAttention, PackedMultiHeadAttention,
 * QAttention, DecoderMaskedSelfAttention, RotaryEmbedding,
 * RelativePositionBias, GatedRelativePositionBias, RemovePadding,
 * RestorePadding and LongformerAttention.  The shapes follow ONNX Runtime's contrib schemas
 * and the shapes its kernels write (docs/rules.md, "com.microsoft"); a present (KV cache) output whose shape
 * neither defines keeps an unknown rank. */
#include "rules_private.h"

#define MS "com.microsoft"

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

static int require_eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const char *reason)
{
	return sym__rc_require(rc, eq(rc, a, b), SYM_GUARD_ASSERT, reason);
}

/* Input i with a rank among lo..hi (unknown rank is an error). */
static const sym_tval *need_ranks(sym_rule_ctx *rc, size_t i, const char *what, int lo, int hi)
{
	const sym_tval *t = sym__rc_need_rank(rc, i);
	if (t && (t->rank < lo || t->rank > hi)) {
		if (lo == hi)
			sym__rc_error(rc, "input %s must have rank %d, not %d", what, lo, t->rank);
		else
			sym__rc_error(rc, "input %s must have rank %d to %d, not %d", what, lo, hi, t->rank);
		return NULL;
	}
	return t;
}

/* Optional input i: NULL when absent; when present its rank must be known
 * and among lo..hi (*bad set on error). */
static const sym_tval *opt_ranks(sym_rule_ctx *rc, size_t i, const char *what, int lo, int hi, int *bad)
{
	if (!sym__rc_in(rc, i))
		return NULL;
	if (!need_ranks(rc, i, what, lo, hi))
		*bad = 1;
	return sym__rc_in(rc, i);
}

/* d // n with the guard d % n == 0 (reason). */
static const sym_expr *exact_div(sym_rule_ctx *rc, const sym_expr *d, int64_t n, const char *reason)
{
	const sym_expr *k = sym__rc_num(rc, n);
	if (sym__rc_require_divisible(rc, d, k, reason) < 0)
		return NULL;
	return sym_expr_floordiv(sym__rc_ctx(rc), d, k);
}

int sym__rc_qkv_hidden_sizes(sym_rule_ctx *rc, int64_t heads, const int64_t **hs)
{
	size_t n, i;
	int r;
	if ((r = sym__rc_attr_ints(rc, "qkv_hidden_sizes", &n, hs)) <= 0)
		return r;
	if (n != 3)
		return sym__rc_error(rc, "attribute 'qkv_hidden_sizes' must have 3 values, not %zu", n);
	for (i = 0; i < 3; i++)
		if ((*hs)[i] < 1 || (*hs)[i] % heads)
			return sym__rc_error(rc,
			                     "attribute 'qkv_hidden_sizes' value %lld is not a positive "
			                     "multiple of num_heads (%lld)",
			                     (long long)(*hs)[i], (long long)heads);
	return 1;
}

/* The hidden sizes of Q, K and V of a merged projection of total width:
 * qkv_hidden_sizes when given (summing to total, Q and K equal), else a
 * third each.  Each is a multiple of num_heads. */
static int qkv_sizes(sym_rule_ctx *rc, const sym_expr *total, int64_t heads, const sym_expr **q,
                     const sym_expr **v, int *given)
{
	const int64_t *hs;
	int r;
	*given = 0;
	if ((r = sym__rc_qkv_hidden_sizes(rc, heads, &hs)) < 0)
		return -1;
	if (r) {
		if (hs[0] != hs[1])
			return sym__rc_error(
			    rc, "attribute 'qkv_hidden_sizes': Q and K sizes differ (%lld, %lld)",
			    (long long)hs[0], (long long)hs[1]);
		if (require_eq(rc, total, sym__rc_num(rc, hs[0] + hs[1] + hs[2]),
		               "the projection width must equal the sum of qkv_hidden_sizes") < 0)
			return -1;
		*q = sym__rc_num(rc, hs[0]);
		*v = sym__rc_num(rc, hs[2]);
		*given = hs[1] != hs[2];
		return 0;
	}
	if (sym__rc_require_divisible(rc, total, sym__rc_num(rc, 3 * heads),
	                              "the projection width must be 3 * num_heads * head_size") < 0)
		return -1;
	*q = *v = sym_expr_floordiv(sym__rc_ctx(rc), total, sym__rc_num(rc, 3));
	return 0;
}

/* Attention(input [B, S, Hin], weights [Hin, W], bias [W], mask_index,
 * past [2, B, N, P, h], ...) -> output [B, S, Hv], present [2, B, N, P + S,
 * h] (h = Hq / N; the past's shape itself when past_present_share_buffer).
 * The past is input past_in (QAttention's quantization parameters come
 * first); the output has type dtype (-1: the input's). */
static int attention(sym_rule_ctx *rc, size_t past_in, int dtype)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = need_ranks(rc, 0, "input", 3, 3), *w, *bias, *past;
	const sym_expr *q, *v, *d[5], *total;
	int64_t heads, share, uni;
	int bad = 0, distinct_v, k;
	if (!x || sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    sym__rc_attr_int(rc, "unidirectional", 0, &uni) < 0 ||
	    sym__rc_attr_int(rc, "past_present_share_buffer", 0, &share) < 0)
		return -1;
	if (!(w = need_ranks(rc, 1, "weights", 2, 2)))
		return -1;
	bias = opt_ranks(rc, 2, "bias", 1, 1, &bad);
	past = opt_ranks(rc, past_in, "past", 5, 5, &bad);
	if (bad)
		return -1;
	if (dtype < 0)
		dtype = x->dtype;
	if (require_eq(rc, w->dims[0], x->dims[2], "weights rows must equal the input hidden size") < 0)
		return -1;
	total = w->dims[1];
	if (bias && require_eq(rc, bias->dims[0], total, "bias length must equal the weights columns") < 0)
		return -1;
	if (qkv_sizes(rc, total, heads, &q, &v, &distinct_v) < 0)
		return -1;
	d[0] = x->dims[0], d[1] = x->dims[1], d[2] = v;
	if (sym__rc_set_out(rc, 0, 3, d, dtype) < 0)
		return -1;
	if (rc->nout < 2)
		return 0;
	if (past) {
		if (require_eq(rc, past->dims[0], sym__rc_num(rc, 2),
		               "past dim 0 must be 2 (key and value)") < 0 ||
		    require_eq(rc, past->dims[1], x->dims[0], "past batch must equal the input's") < 0 ||
		    require_eq(rc, past->dims[2], sym__rc_num(rc, heads), "past dim 2 must equal num_heads") <
		        0 ||
		    require_eq(rc, past->dims[4], sym_expr_floordiv(ctx, q, sym__rc_num(rc, heads)),
		               "past head size must equal hidden_size / num_heads") < 0)
			return -1;
		for (k = 0; k < 5; k++)
			d[k] = past->dims[k];
		if (!share)
			d[3] = sym_expr_add(ctx, past->dims[3], x->dims[1]);
		return sym__rc_set_out(rc, 1, 5, d, dtype);
	}
	if (share || distinct_v)
		return 0; /* no past to take the buffer from; mixed head sizes */
	d[0] = sym__rc_num(rc, 2), d[1] = x->dims[0], d[2] = sym__rc_num(rc, heads), d[3] = x->dims[1];
	d[4] = sym_expr_floordiv(ctx, q, sym__rc_num(rc, heads));
	return sym__rc_set_out(rc, 1, 5, d, dtype);
}

static int r_attention(sym_rule_ctx *rc)
{
	return attention(rc, 4, -1);
}

/* QAttention(input, weight, bias, input_scale, weight_scale, mask_index,
 * input_zero_point, weight_zero_point, past): Attention's shapes with the
 * past at input 8, of the float type of bias (float32 without). */
static int r_qattention(sym_rule_ctx *rc)
{
	const sym_tval *bias = sym__rc_in(rc, 2);
	return attention(rc, 8, bias ? bias->dtype : SYM_DT_FLOAT32);
}

/* Presents [B, N, P + L, hk] and [B, N, P + L, hv] of self attention with
 * separate key [B, L, Hk] and value [B, L, Hv] (P the past length, 0
 * without past; with share, the pasts' own shapes). */
static int self_presents(sym_rule_ctx *rc, const sym_tval *q, const sym_tval *key, const sym_tval *value,
                         const sym_tval *pk, const sym_tval *pv, int64_t heads, int share, size_t out)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *past[2];
	const sym_expr *hid[2], *d[4];
	size_t i;
	int k;
	past[0] = pk, past[1] = pv;
	hid[0] = key->dims[2], hid[1] = value->dims[2];
	for (i = 0; i < 2; i++) {
		if (out + i >= rc->nout)
			break;
		if (share) {
			if (past[i] && sym__rc_set_out(rc, out + i, 4, past[i]->dims, q->dtype) < 0)
				return -1;
			continue;
		}
		d[0] = q->dims[0], d[1] = sym__rc_num(rc, heads), d[2] = value->dims[1];
		if (!(d[3] = exact_div(rc, hid[i], heads, "hidden sizes must be multiples of num_heads")))
			return -1;
		if (past[i]) {
			for (k = 0; k < 4; k++)
				if (k != 2 &&
				    require_eq(rc, past[i]->dims[k], d[k],
				               "past must be [batch, num_heads, past length, head size]") < 0)
					return -1;
			d[2] = sym_expr_add(ctx, past[i]->dims[2], d[2]);
		}
		if (sym__rc_set_out(rc, out + i, 4, d, q->dtype) < 0)
			return -1;
	}
	return 0;
}

/* The attention output [B, S, Hv] from query [B, S, H] and value [B, L,
 * Hv] (or [B, N, L, h]: Hv = N * h), with key [B, L, H] guarded when 3-D. */
static int attention_output(sym_rule_ctx *rc, const sym_tval *q, const sym_tval *key, const sym_tval *value)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *d[3];
	if (require_eq(rc, value->dims[0], q->dims[0], "value batch must equal the query's") < 0)
		return -1;
	if (key && key->rank == 3 && value->rank == 3 &&
	    (require_eq(rc, key->dims[0], q->dims[0], "key batch must equal the query's") < 0 ||
	     require_eq(rc, key->dims[1], value->dims[1], "key and value lengths must be equal") < 0 ||
	     require_eq(rc, key->dims[2], q->dims[2], "key hidden size must equal the query's") < 0))
		return -1;
	d[0] = q->dims[0], d[1] = q->dims[1];
	d[2] = value->rank == 3 ? value->dims[2] : sym_expr_mul(ctx, value->dims[1], value->dims[3]);
	return sym__rc_set_out(rc, 0, 3, d, q->dtype);
}

/* MultiHeadAttention(query, key, value, bias, key_padding_mask,
 * relative_position_bias, past_key, past_value) -> output, present_key,
 * present_value. */
static int r_multi_head_attention(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *q = need_ranks(rc, 0, "query", 3, 5), *key, *value, *pk, *pv;
	const sym_expr *d[3];
	int64_t heads;
	int bad = 0;
	if (!q || sym__rc_attr_pos(rc, "num_heads", &heads) < 0)
		return -1;
	if (q->rank == 4)
		return sym__rc_error(rc, "input query must have rank 3 or 5 (packed QKV), not 4");
	key = opt_ranks(rc, 1, "key", 3, 5, &bad);
	value = opt_ranks(rc, 2, "value", 3, 4, &bad);
	pk = opt_ranks(rc, 6, "past_key", 4, 4, &bad);
	pv = opt_ranks(rc, 7, "past_value", 4, 4, &bad);
	if (bad)
		return -1;
	if (q->rank == 5) {
		/* packed QKV [B, S, N, 3, h] */
		if (require_eq(rc, q->dims[2], sym__rc_num(rc, heads),
		               "packed QKV dim 2 must equal num_heads") < 0 ||
		    require_eq(rc, q->dims[3], sym__rc_num(rc, 3), "packed QKV dim 3 must be 3") < 0)
			return -1;
		d[0] = q->dims[0], d[1] = q->dims[1], d[2] = sym_expr_mul(ctx, q->dims[2], q->dims[4]);
		return sym__rc_set_out(rc, 0, 3, d, q->dtype);
	}
	if (value) {
		if (attention_output(rc, q, key, value) < 0)
			return -1;
		if (key && key->rank == 3 && value->rank == 3)
			return self_presents(rc, q, key, value, pk, pv, heads, 0, 1);
		return 0; /* cross attention with the keys as [B, N, L, h] */
	}
	if (key && key->rank == 5)
		return sym__rc_copy_shape(rc, 0, q); /* packed KV [B, L, N, 2, h] */
	return sym__rc_error(rc, "input value is needed unless query packs QKV or key packs KV");
}

/* DecoderMaskedMultiHeadAttention(query, key, value, mask_index,
 * relative_position_bias, past_key, past_value, past_sequence_length, ...)
 * -> output, present_key, present_value: MultiHeadAttention's shapes; with
 * past_present_share_buffer the presents are the pasts' buffers. */
static int r_decoder_masked_mha(sym_rule_ctx *rc)
{
	const sym_tval *q = need_ranks(rc, 0, "query", 3, 3), *key, *value, *pk, *pv;
	int64_t heads, share;
	int bad = 0;
	if (!q || sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    sym__rc_attr_int(rc, "past_present_share_buffer", 0, &share) < 0)
		return -1;
	key = opt_ranks(rc, 1, "key", 3, 4, &bad);
	value = opt_ranks(rc, 2, "value", 3, 4, &bad);
	pk = opt_ranks(rc, 5, "past_key", 4, 4, &bad);
	pv = opt_ranks(rc, 6, "past_value", 4, 4, &bad);
	if (bad)
		return -1;
	if (!value)
		return 0; /* packed QKV: no output shape is defined */
	if (attention_output(rc, q, key, value) < 0)
		return -1;
	if (key && key->rank == 3 && value->rank == 3)
		return self_presents(rc, q, key, value, pk, pv, heads, share != 0, 1);
	return 0;
}

/* The value of a scalar (or 1-element) input, or NULL when unknown. */
static const sym_expr *scalar_value(const sym_tval *t)
{
	if (!t || !t->has_value || t->nvalue != 1)
		return NULL;
	return t->value[0];
}

/* GroupQueryAttention(query, key, value, past_key, past_value, seqlens_k,
 * total_sequence_length, ...) -> output [B, S, N * h], present_key and
 * present_value [B, Nkv, max(P, total_sequence_length), h]; a present
 * length whose total_sequence_length is not known is bound at run time. */
static int r_group_query_attention(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *q = need_ranks(rc, 0, "query", 3, 3), *key, *value, *pk, *pv;
	const sym_expr *h, *d[4], *len, *tsl;
	int64_t heads, kv_heads;
	int bad = 0, i, k;
	if (!q || sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    sym__rc_attr_pos(rc, "kv_num_heads", &kv_heads) < 0)
		return -1;
	if (heads % kv_heads)
		return sym__rc_error(rc, "num_heads (%lld) must be a multiple of kv_num_heads (%lld)",
		                     (long long)heads, (long long)kv_heads);
	key = opt_ranks(rc, 1, "key", 3, 3, &bad);
	value = opt_ranks(rc, 2, "value", 3, 3, &bad);
	pk = opt_ranks(rc, 3, "past_key", 4, 4, &bad);
	pv = opt_ranks(rc, 4, "past_value", 4, 4, &bad);
	if (bad)
		return -1;
	if (!key != !value)
		return sym__rc_error(rc,
		                     "inputs key and value must both be present or both absent (packed QKV)");
	d[0] = q->dims[0], d[1] = q->dims[1];
	if (value) {
		if (!(h = exact_div(rc, q->dims[2], heads,
		                    "query hidden size must be a multiple of num_heads")))
			return -1;
		for (k = 0; k < 3; k++) {
			const sym_expr *want = k == 0   ? q->dims[0]
			                       : k == 1 ? key->dims[1]
			                                : sym_expr_mul(ctx, h, sym__rc_num(rc, kv_heads));
			if (require_eq(rc, key->dims[k], want,
			               "key must be [batch, kv length, kv_num_heads * head size]") < 0 ||
			    require_eq(rc, value->dims[k], key->dims[k], "value must have the shape of key") <
			        0)
				return -1;
		}
		d[2] = q->dims[2];
	} else {
		if (!(h = exact_div(
		          rc, q->dims[2], heads + 2 * kv_heads,
		          "packed QKV hidden size must be (num_heads + 2 * kv_num_heads) * head size")))
			return -1;
		d[2] = sym_expr_mul(ctx, sym__rc_num(rc, heads), h);
	}
	if (sym__rc_set_out(rc, 0, 3, d, q->dtype) < 0)
		return -1;
	if (rc->nout < 2)
		return 0;
	if (!pk != !pv)
		return sym__rc_error(rc,
		                     "inputs past_key and past_value must both be present or both absent");
	d[0] = q->dims[0], d[1] = sym__rc_num(rc, kv_heads), d[3] = h;
	if (pk)
		for (i = 0; i < 2; i++)
			for (k = 0; k < 4; k++)
				if (k != 2 &&
				    require_eq(rc, (i ? pv : pk)->dims[k], d[k],
				               "past must be [batch, kv_num_heads, past length, head size]") <
				        0)
					return -1;
	tsl = scalar_value(sym__rc_in(rc, 6));
	if (tsl && pk) {
		const sym_expr *both[2];
		both[0] = pk->dims[2], both[1] = tsl;
		len = sym_expr_max(ctx, 2, both);
	} else if (tsl) {
		len = tsl;
	} else if (!(len =
	                 sym__rc_fresh_dim(rc, pk ? pk->dims[2] : sym__zero(ctx), NULL, "present length"))) {
		return -1;
	}
	d[2] = len;
	if (sym__rc_set_out(rc, 1, 4, d, pk ? pk->dtype : q->dtype) < 0)
		return -1;
	return sym__rc_set_out(rc, 2, 4, d, pv ? pv->dtype : q->dtype);
}

/* PackedAttention(input [T, Hin], weights [Hin, W], bias [W], token_offset,
 * cumulative_sequence_length, relative_position_bias) -> [T, Hv]. */
static int r_packed_attention(sym_rule_ctx *rc)
{
	const sym_tval *x = need_ranks(rc, 0, "input", 2, 2), *w, *bias;
	const sym_expr *q, *v, *d[2];
	int64_t heads;
	int distinct;
	if (!x || sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    !(w = need_ranks(rc, 1, "weights", 2, 2)) || !(bias = need_ranks(rc, 2, "bias", 1, 1)))
		return -1;
	if (require_eq(rc, w->dims[0], x->dims[1], "weights rows must equal the input hidden size") < 0 ||
	    require_eq(rc, bias->dims[0], w->dims[1], "bias length must equal the weights columns") < 0 ||
	    qkv_sizes(rc, w->dims[1], heads, &q, &v, &distinct) < 0)
		return -1;
	d[0] = x->dims[0], d[1] = v;
	return sym__rc_set_out(rc, 0, 2, d, x->dtype);
}

/* PackedMultiHeadAttention(query [T, H] or packed [T, N, 3, h], key, value
 * [T, Hv], bias, token_offset, cumulative_sequence_length, ...) -> [T, Hv]
 * or [T, N * h]. */
static int r_packed_mha(sym_rule_ctx *rc)
{
	const sym_tval *q = need_ranks(rc, 0, "query", 2, 4), *value;
	const sym_expr *d[2];
	int64_t heads;
	int bad = 0;
	if (!q || sym__rc_attr_pos(rc, "num_heads", &heads) < 0)
		return -1;
	if (q->rank == 3)
		return sym__rc_error(rc, "input query must have rank 2 or 4 (packed QKV), not 3");
	d[0] = q->dims[0];
	if (q->rank == 4) {
		if (require_eq(rc, q->dims[1], sym__rc_num(rc, heads),
		               "packed QKV dim 1 must equal num_heads") < 0 ||
		    require_eq(rc, q->dims[2], sym__rc_num(rc, 3), "packed QKV dim 2 must be 3") < 0)
			return -1;
		d[1] = sym_expr_mul(sym__rc_ctx(rc), q->dims[1], q->dims[3]);
		return sym__rc_set_out(rc, 0, 2, d, q->dtype);
	}
	value = opt_ranks(rc, 2, "value", 2, 2, &bad);
	if (bad)
		return -1;
	if (!value)
		return sym__rc_error(rc, "input value is needed unless query packs QKV");
	if (require_eq(rc, value->dims[0], q->dims[0], "value must have the query's token count") < 0)
		return -1;
	d[1] = value->dims[1];
	return sym__rc_set_out(rc, 0, 2, d, q->dtype);
}

/* RotaryEmbedding(input [B, S, H] or [B, N, S, h], position_ids, cos_cache,
 * sin_cache) -> the shape of input; the caches have one shape. */
static int r_rotary_embedding(sym_rule_ctx *rc)
{
	const sym_tval *x = need_ranks(rc, 0, "input", 3, 4), *cosc, *sinc;
	int64_t interleaved;
	int k;
	if (!x || !sym__rc_need(rc, 1) || !(cosc = need_ranks(rc, 2, "cos_cache", 2, 2)) ||
	    !(sinc = need_ranks(rc, 3, "sin_cache", 2, 2)) ||
	    sym__rc_attr_int(rc, "interleaved", 0, &interleaved) < 0)
		return -1;
	if (interleaved != 0 && interleaved != 1)
		return sym__rc_error(rc, "attribute 'interleaved' must be 0 or 1, not %lld",
		                     (long long)interleaved);
	for (k = 0; k < 2; k++)
		if (require_eq(rc, sinc->dims[k], cosc->dims[k],
		               "sin_cache must have the shape of cos_cache") < 0)
			return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* The value of the scalar input i as a dim: its known value, else an
 * error naming it. */
static const sym_expr *length_value(sym_rule_ctx *rc, size_t i, const char *what)
{
	const sym_expr *v = scalar_value(sym__rc_in(rc, i));
	if (!v)
		sym__rc_error(rc,
		              "the value of input %zu (%s) must be known (a constant or a shape computation)",
		              i, what);
	return v;
}

/* RelativePositionBias(bias_table [buckets, N], query_length, key_length)
 * -> [1, N, query_length, key_length]. */
static int r_relative_position_bias(sym_rule_ctx *rc)
{
	const sym_tval *t = need_ranks(rc, 0, "bias_table", 2, 2);
	const sym_expr *d[4];
	int64_t maxd;
	if (!t || !sym__rc_need(rc, 1) || !sym__rc_need(rc, 2))
		return -1;
	if (!sym__rc_attr(rc, "max_distance"))
		return sym__rc_error(rc, "attribute 'max_distance' is required");
	if (sym__rc_attr_int(rc, "max_distance", 1, &maxd) < 0)
		return -1;
	d[0] = sym__one(sym__rc_ctx(rc)), d[1] = t->dims[1];
	if (!(d[2] = length_value(rc, 1, "query_length")) || !(d[3] = length_value(rc, 2, "key_length")))
		return -1;
	return sym__rc_set_out(rc, 0, 4, d, t->dtype);
}

/* RemovePadding(input [B, S, H], sequence_token_count [B]) -> output [T, H]
 * with T the tokens kept (data-dependent, 0 <= T <= B*S), token_offset
 * [B, S], cumulated_seq_len [B + 1], max_seq_len [1]. */
static int r_remove_padding(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = need_ranks(rc, 0, "input", 3, 3), *count;
	const sym_expr *d[2], *one = sym__one(ctx);
	int dt;
	if (!x || !(count = sym__rc_need(rc, 1)))
		return -1;
	dt = count->dtype ? count->dtype : SYM_DT_INT32;
	if (!(d[0] =
	          sym__rc_fresh_dim(rc, sym__zero(ctx), sym_expr_mul(ctx, x->dims[0], x->dims[1]), "tokens")))
		return -1;
	d[1] = x->dims[2];
	if (sym__rc_set_out(rc, 0, 2, d, x->dtype) < 0 || sym__rc_set_out(rc, 1, 2, x->dims, dt) < 0)
		return -1;
	d[0] = sym_expr_add(ctx, x->dims[0], one);
	if (sym__rc_set_out(rc, 2, 1, d, dt) < 0)
		return -1;
	return sym__rc_set_out(rc, 3, 1, &one, dt);
}

/* RestorePadding(input [T, H], token_offset [B, S]) -> [B, S, H]. */
static int r_restore_padding(sym_rule_ctx *rc)
{
	const sym_tval *x = need_ranks(rc, 0, "input", 2, 2), *off;
	const sym_expr *d[3];
	if (!x || !(off = need_ranks(rc, 1, "token_offset", 2, 2)))
		return -1;
	d[0] = off->dims[0], d[1] = off->dims[1], d[2] = x->dims[1];
	return sym__rc_set_out(rc, 0, 3, d, x->dtype);
}

/* LongformerAttention(input [B, S, H], weight, bias, mask, global_weight,
 * global_bias, global) -> [B, S, H]. */
static int r_longformer_attention(sym_rule_ctx *rc)
{
	const sym_tval *x = need_ranks(rc, 0, "input", 3, 3);
	int64_t heads, window;
	if (!x || sym__rc_attr_pos(rc, "num_heads", &heads) < 0 ||
	    sym__rc_attr_pos(rc, "window", &window) < 0)
		return -1;
	return sym__rc_copy_shape(rc, 0, x);
}

/* GatedRelativePositionBias(query_layer [B, S, N*h] or [T, N*h],
 * query_bias, rel_pos, weight, bias, eco_a, token_offset [B, S]) ->
 * [B, N, S, S]. */
static int r_gated_relative_position_bias(sym_rule_ctx *rc)
{
	const sym_tval *q = need_ranks(rc, 0, "query_layer", 2, 3), *off;
	const sym_expr *d[4];
	int64_t heads;
	int bad = 0;
	if (!q || sym__rc_attr_pos(rc, "num_heads", &heads) < 0)
		return -1;
	off = opt_ranks(rc, 6, "token_offset", 2, 2, &bad);
	if (bad)
		return -1;
	if (!off && q->rank != 3)
		return sym__rc_error(rc, "a query_layer of [T, N*h] needs token_offset (input 6)");
	off = off ? off : q;
	d[0] = off->dims[0], d[1] = sym__rc_num(rc, heads), d[2] = d[3] = off->dims[1];
	return sym__rc_set_out(rc, 0, 4, d, q->dtype);
}

const sym_rule_entry sym__rules_microsoft_attention[] = {
    {"Attention", MS, r_attention, 0},
    {"QAttention", MS, r_qattention, 0},
    {"DecoderMaskedSelfAttention", MS, r_attention, 0},
    {"MultiHeadAttention", MS, r_multi_head_attention, 0},
    {"DecoderMaskedMultiHeadAttention", MS, r_decoder_masked_mha, 0},
    {"GroupQueryAttention", MS, r_group_query_attention, 0},
    {"PackedAttention", MS, r_packed_attention, 0},
    {"PackedMultiHeadAttention", MS, r_packed_mha, 0},
    {"RotaryEmbedding", MS, r_rotary_embedding, 0},
    {"RelativePositionBias", MS, r_relative_position_bias, 0},
    {"RemovePadding", MS, r_remove_padding, 0},
    {"RestorePadding", MS, r_restore_padding, 0},
    {"LongformerAttention", MS, r_longformer_attention, 0},
    {"GatedRelativePositionBias", MS, r_gated_relative_position_bias, 0},
};
const size_t sym__rules_microsoft_attention_count =
    sizeof(sym__rules_microsoft_attention) / sizeof(sym__rules_microsoft_attention[0]);
