/* Normalizations of ONNX Runtime's transformer optimizer:
 * SkipLayerNormalization, SkipSimplifiedLayerNormalization and
 * EmbedLayerNormalization, GroupNorm and SkipGroupNorm (com.microsoft) and
 * SimplifiedLayerNormalization
 * (which ONNX Runtime registers in the ONNX domain only, as it does its
 * LayerNormalization before opset 17: rules/norm.c).  The statistics
 * output has the shape ONNX Runtime's kernel writes: the dims before the
 * normalized ones, then 1s. */
#include "rules_private.h"

#define MS "com.microsoft"

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Guards that p (NULL: absent) is 1-D of length n. */
static int vector_of(sym_rule_ctx *rc, const sym_tval *p, const sym_expr *n, const char *what)
{
	const char *reason;
	if (!p || p->rank < 0)
		return 0;
	if (p->rank != 1)
		return sym__rc_error(rc, "input %s must have rank 1, not %d", what, p->rank);
	if (!(reason = sym__rc_text(rc, "%s length must equal the hidden size", what)))
		return -1;
	return sym__rc_require(rc, eq(rc, p->dims[0], n), SYM_GUARD_ASSERT, reason);
}

/* The product of the dims of x from axis on. */
static const sym_expr *norm_size(sym_rule_ctx *rc, const sym_tval *x, int axis)
{
	const sym_expr *p = sym__one(sym__rc_ctx(rc));
	int k;
	for (k = axis; k < x->rank; k++)
		p = sym_expr_mul(sym__rc_ctx(rc), p, x->dims[k]);
	return p;
}

/* Guards that p (NULL: absent) has as many elements as the normalized dims
 * of x (from axis on), as ONNX Runtime's LayerNormalization kernel checks. */
static int param_size(sym_rule_ctx *rc, const sym_tval *p, const sym_tval *x, int axis, const char *what)
{
	const char *reason;
	if (!p || p->rank < 0 || x->rank < 0)
		return 0;
	if (!(reason = sym__rc_text(rc, "%s must have as many elements as the normalized dims", what)))
		return -1;
	return sym__rc_require(rc, eq(rc, sym__rc_numel(rc, p), norm_size(rc, x, axis)), SYM_GUARD_ASSERT,
	                       reason);
}

/* SimplifiedLayerNormalization(X, scale) -> Y, inv_std_var. */
static int r_simplified_layer_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int axis, dt = SYM_DT_FLOAT32;
	if (!x || !sym__rc_need(rc, 1) || sym__rc_norm_axis_stash(rc, x, &axis, &dt) < 0 ||
	    param_size(rc, sym__rc_in(rc, 1), x, axis, "scale") < 0 || sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return sym__rc_norm_stats(rc, 1, x, axis, dt);
}

/* SkipLayerNormalization(input, skip, gamma, beta, bias) and
 * SkipSimplifiedLayerNormalization(input, skip, gamma, bias): output 0 and
 * input_skip_bias_sum (output 3) have the shape of input ([B, S, H] or
 * [T, H]); skip is [B, S, H], [1, S, H] or [S, H] (aligned right with the
 * input); the parameters are [H].  Outputs 1 and 2 (mean, inv_std_var)
 * are float32 with the input's dims and 1 for H, as ONNX Runtime's kernels
 * write them (its schema gives them no shape). */
static int skip_layer_norm(sym_rule_ctx *rc, int simplified)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0), *skip, *gamma;
	const sym_expr *h;
	int k;
	if (!x || !(skip = sym__rc_need(rc, 1)) || !(gamma = sym__rc_need(rc, 2)))
		return -1;
	if (x->rank != 2 && x->rank != 3)
		return sym__rc_error(rc, "input must have rank 3 ([B, S, H]) or 2 ([T, H]), not %d", x->rank);
	h = x->dims[x->rank - 1];
	if (skip->rank >= 0) {
		if (skip->rank < 2 || skip->rank > x->rank)
			return sym__rc_error(rc, "input skip must have rank 2 to %d, not %d", x->rank,
			                     skip->rank);
		for (k = 0; k < skip->rank; k++) {
			const sym_expr *s = skip->dims[skip->rank - 1 - k], *d = x->dims[x->rank - 1 - k];
			const sym_expr *p = eq(rc, s, d);
			if (k == 2)
				p = sym_expr_or(sym__rc_ctx(rc), p, eq(rc, s, sym__one(sym__rc_ctx(rc))));
			if (sym__rc_require(rc, p, SYM_GUARD_ASSERT,
			                    k == 2 ? "skip batch dim must be 1 or the input's"
			                           : "skip dims must equal the input's") < 0)
				return -1;
		}
	}
	if (vector_of(rc, gamma, h, "gamma") < 0)
		return -1;
	if (simplified) {
		if (vector_of(rc, sym__rc_in(rc, 3), h, "bias") < 0)
			return -1;
	} else if (vector_of(rc, sym__rc_in(rc, 3), h, "beta") < 0 ||
	           vector_of(rc, sym__rc_in(rc, 4), h, "bias") < 0) {
		return -1;
	}
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	for (k = 1; k < 3; k++)
		if (sym__rc_norm_stats(rc, (size_t)k, x, x->rank - 1, SYM_DT_FLOAT32) < 0)
			return -1;
	if (rc->nout > 3)
		return sym__rc_copy_shape(rc, 3, x);
	return 0;
}

static int r_skip_layer_norm(sym_rule_ctx *rc)
{
	return skip_layer_norm(rc, 0);
}

static int r_skip_simplified_layer_norm(sym_rule_ctx *rc)
{
	return skip_layer_norm(rc, 1);
}

/* Guards that the optional [B, S] input i has the shape of input_ids. */
static int same_as_ids(sym_rule_ctx *rc, size_t i, const sym_tval *ids, const char *what)
{
	const sym_tval *t = sym__rc_in(rc, i);
	const char *reason;
	int k;
	if (!t || t->rank < 0)
		return 0;
	if (t->rank != 2)
		return sym__rc_error(rc, "input %s must have rank 2 ([B, S]), not %d", what, t->rank);
	if (!(reason = sym__rc_text(rc, "%s must have the shape of input_ids", what)))
		return -1;
	for (k = 0; k < 2; k++)
		if (sym__rc_require(rc, eq(rc, t->dims[k], ids->dims[k]), SYM_GUARD_ASSERT, reason) < 0)
			return -1;
	return 0;
}

/* An embedding table [V, H]: rank 2 and, unless it defines H, its hidden
 * dim equal to h. */
static int table(sym_rule_ctx *rc, const sym_tval *t, const sym_expr *h, const char *what)
{
	const char *reason;
	if (!t || t->rank < 0)
		return 0;
	if (t->rank != 2)
		return sym__rc_error(rc, "input %s must have rank 2 ([V, H]), not %d", what, t->rank);
	if (!h)
		return 0;
	if (!(reason = sym__rc_text(rc, "%s hidden dim must equal word_embedding's", what)))
		return -1;
	return sym__rc_require(rc, eq(rc, t->dims[1], h), SYM_GUARD_ASSERT, reason);
}

/* EmbedLayerNormalization(input_ids [B, S], segment_ids, word_embedding
 * [V, H], position_embedding [P, H], segment_embedding, gamma [H], beta
 * [H], mask, position_ids) -> output [B, S, H], mask_index [B] (int32),
 * embedding_sum [B, S, H]. */
static int r_embed_layer_norm(sym_rule_ctx *rc)
{
	const sym_tval *ids = sym__rc_need_rank(rc, 0), *word, *pos;
	const sym_expr *d[3];
	int dt;
	if (!ids || !(word = sym__rc_need_rank(rc, 2)) || !(pos = sym__rc_need(rc, 3)) ||
	    !sym__rc_need(rc, 5) || !sym__rc_need(rc, 6))
		return -1;
	if (ids->rank != 2)
		return sym__rc_error(rc, "input input_ids must have rank 2 ([B, S]), not %d", ids->rank);
	if (table(rc, word, NULL, "word_embedding") < 0)
		return -1;
	d[0] = ids->dims[0], d[1] = ids->dims[1], d[2] = word->dims[1];
	if (same_as_ids(rc, 1, ids, "segment_ids") < 0 || same_as_ids(rc, 7, ids, "mask") < 0 ||
	    table(rc, pos, d[2], "position_embedding") < 0 ||
	    table(rc, sym__rc_in(rc, 4), d[2], "segment_embedding") < 0 ||
	    vector_of(rc, sym__rc_in(rc, 5), d[2], "gamma") < 0 ||
	    vector_of(rc, sym__rc_in(rc, 6), d[2], "beta") < 0)
		return -1;
	if (sym__rc_in(rc, 1) && !sym__rc_in(rc, 4))
		return sym__rc_error(rc, "segment_ids needs segment_embedding (input 4)");
	dt = word->dtype;
	if (sym__rc_set_shape(rc, 0, 3, d) < 0 || sym__rc_set_dtype(rc, 0, dt) < 0)
		return -1;
	if (rc->nout > 1 &&
	    (sym__rc_set_shape(rc, 1, 1, d) < 0 || sym__rc_set_dtype(rc, 1, SYM_DT_INT32) < 0))
		return -1;
	if (rc->nout > 2 && (sym__rc_set_shape(rc, 2, 3, d) < 0 || sym__rc_set_dtype(rc, 2, dt) < 0))
		return -1;
	return 0;
}

/* GroupNorm(X, gamma, beta) and SkipGroupNorm(X, gamma, beta, skip, bias)
 * of diffusion models: Y (and SkipGroupNorm's sum S) have the shape of X,
 * channels last ([N, H, W, C]) unless channels_last is 0; gamma and beta
 * have C elements, C a multiple of groups. */
static int group_norm(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *c;
	int64_t groups, last, act;
	if (!x || !sym__rc_need(rc, 1) || !sym__rc_need(rc, 2))
		return -1;
	if (!sym__rc_attr(rc, "groups") || !sym__rc_attr(rc, "activation"))
		return sym__rc_error(rc, "attribute '%s' is required",
		                     sym__rc_attr(rc, "groups") ? "activation" : "groups");
	if (sym__rc_attr_int(rc, "groups", 1, &groups) < 0 ||
	    sym__rc_attr_int(rc, "channels_last", 1, &last) < 0 ||
	    sym__rc_attr_int(rc, "activation", 0, &act) < 0)
		return -1;
	if (groups < 1)
		return sym__rc_error(rc, "attribute 'groups' must be at least 1, not %lld",
		                     (long long)groups);
	if (act != 0 && act != 1)
		return sym__rc_error(rc, "attribute 'activation' must be 0 or 1, not %lld", (long long)act);
	if (x->rank >= 0) {
		if (x->rank < 2)
			return sym__rc_error(rc, "input X must have rank at least 2, not %d", x->rank);
		c = last ? x->dims[x->rank - 1] : x->dims[1];
		if (sym__rc_require_divisible(rc, c, sym__rc_num(rc, groups),
		                              "channels must be a multiple of groups") < 0 ||
		    vector_of(rc, sym__rc_in(rc, 1), c, "gamma") < 0 ||
		    vector_of(rc, sym__rc_in(rc, 2), c, "beta") < 0)
			return -1;
	}
	if (sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return rc->nout > 1 ? sym__rc_copy_shape(rc, 1, x) : 0;
}

const sym_rule_entry sym__rules_microsoft_norm[] = {
    {"SkipLayerNormalization", MS, r_skip_layer_norm, 0},
    {"SkipSimplifiedLayerNormalization", MS, r_skip_simplified_layer_norm, 0},
    {"EmbedLayerNormalization", MS, r_embed_layer_norm, 0},
    {"SimplifiedLayerNormalization", "", r_simplified_layer_norm, 0},
    {"GroupNorm", MS, group_norm, 0},
    {"SkipGroupNorm", MS, group_norm, 0},
};
const size_t sym__rules_microsoft_norm_count =
    sizeof(sym__rules_microsoft_norm) / sizeof(sym__rules_microsoft_norm[0]);
