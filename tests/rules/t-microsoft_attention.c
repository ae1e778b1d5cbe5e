/* com.microsoft attention operators (rules/microsoft_attention.c). */
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

static void attention_projects_and_grows_the_past(void **state)
{
	rt t;
	sym_attr a[3];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 12);
	assert_string_equal(
	    run(&t, "Attention", SHAPES("[b, s, 768]", "[768, 2304]", "[2304]", "[b, s]"), 1, a, 2),
	    "[b, s, 768] [2, b, 12, s, 64]");
	assert_string_equal(rt_guards(&t), "");
	/* GPT-2: the present is the past grown by the new tokens */
	assert_string_equal(run(&t, "Attention",
	                        SHAPES("[b, s, 768]", "[768, 2304]", "[2304]", "", "[2, b, 12, p, 64]"), 1, a,
	                        2),
	                    "[b, s, 768] [2, b, 12, p + s, 64]");
	a[1] = rt_i(&t, "past_present_share_buffer", 1);
	assert_string_equal(run(&t, "Attention",
	                        SHAPES("[b, s, 768]", "[768, 2304]", "[2304]", "", "[2, b, 12, m, 64]"), 2, a,
	                        2),
	                    "[b, s, 768] [2, b, 12, m, 64]");
	a[0] = rt_i(&t, "num_heads", 2);
	a[1] = rt_is(&t, "qkv_hidden_sizes", "[64, 64, 128]");
	assert_string_equal(run(&t, "Attention", SHAPES("[b, s, 32]", "[32, 256]", "[256]"), 2, a, 2),
	                    "[b, s, 128] *");
	/* a symbolic projection width is guarded to split in three heads */
	assert_string_equal(run(&t, "Attention", SHAPES("[b, s, h]", "[h, w]"), 1, a, 1), "[b, s, w/3]");
	assert_string_equal(rt_guards(&t), "assert w % 6 == 0");
	rt_free(&t);
}

static void attention_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 24]"), 0, a, 1), "'num_heads' is required"));
	a[0] = rt_i(&t, "num_heads", 2);
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[16, 24]"), 1, a, 1), "weights rows"));
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 24]", "[12]"), 1, a, 1), "bias length"));
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 21]"), 1, a, 1), "3 * num_heads"));
	assert_non_null(strstr(run(&t, "Attention", SHAPES("[b, 8]", "[8, 24]"), 1, a, 1), "rank 3"));
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 24]", "", "", "[2, b, 3, p, 4]"), 1, a, 2),
	           "num_heads"));
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 24]", "", "", "[2, b, 2, p, 3]"), 1, a, 2),
	           "head size"));
	a[1] = rt_is(&t, "qkv_hidden_sizes", "[8, 8]");
	assert_non_null(strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 24]"), 2, a, 1), "3 values"));
	a[1] = rt_is(&t, "qkv_hidden_sizes", "[8, 8, 7]");
	assert_non_null(
	    strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 23]"), 2, a, 1), "multiple of num_heads"));
	a[1] = rt_is(&t, "qkv_hidden_sizes", "[8, 8, 8]");
	assert_non_null(strstr(run(&t, "Attention", SHAPES("[b, s, 8]", "[8, 30]"), 2, a, 1), "sum of qkv"));
	rt_free(&t);
}

static void multi_head_attention_reads_every_layout(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 8);
	/* self attention with a past: presents [B, N, P + L, h] */
	assert_string_equal(run(&t, "MultiHeadAttention",
	                        SHAPES("[b, s, 512]", "[b, s, 512]", "[b, s, 512]", "", "", "",
	                               "[b, 8, p, 64]", "[b, 8, p, 64]"),
	                        1, a, 3),
	                    "[b, s, 512] [b, 8, p + s, 64] [b, 8, p + s, 64]");
	assert_string_equal(rt_guards(&t), "");
	/* cross attention: key and value of another length, value width differs */
	assert_string_equal(
	    run(&t, "MultiHeadAttention", SHAPES("[b, s, 512]", "[b, l, 512]", "[b, l, 256]"), 1, a, 3),
	    "[b, s, 256] [b, 8, l, 64] [b, 8, l, 32]");
	/* keys already as [B, N, L, h] */
	assert_string_equal(
	    run(&t, "MultiHeadAttention", SHAPES("[b, s, 512]", "[b, 8, l, 64]", "[b, 8, l, 64]"), 1, a, 3),
	    "[b, s, 512] * *");
	/* packed QKV and packed KV */
	assert_string_equal(run(&t, "MultiHeadAttention", SHAPES("[b, s, 8, 3, 64]"), 1, a, 1),
	                    "[b, s, 512]");
	assert_string_equal(run(&t, "MultiHeadAttention", SHAPES("[b, s, 512]", "[b, l, 8, 2, 64]"), 1, a, 1),
	                    "[b, s, 512]");
	assert_non_null(
	    strstr(run(&t, "MultiHeadAttention", SHAPES("[b, s, 4, 3, 64]"), 1, a, 1), "num_heads"));
	assert_non_null(
	    strstr(run(&t, "MultiHeadAttention", SHAPES("[b, s, 512]"), 1, a, 1), "value is needed"));
	assert_non_null(strstr(
	    run(&t, "MultiHeadAttention", SHAPES("[b, s, 512]", "[b, l, 256]", "[b, l, 256]"), 1, a, 1),
	    "key hidden"));
	assert_non_null(strstr(
	    run(&t, "MultiHeadAttention", SHAPES("[b, s, 512]", "[b, l, 512]", "[b, l, 500]"), 1, a, 3),
	    "multiples"));
	/* DecoderMaskedMultiHeadAttention with a shared KV buffer */
	a[1] = rt_i(&t, "past_present_share_buffer", 1);
	assert_string_equal(run(&t, "DecoderMaskedMultiHeadAttention",
	                        SHAPES("[b, 1, 512]", "[b, 1, 512]", "[b, 1, 512]", "[b, m]", "",
	                               "[b, 8, m, 64]", "[b, 8, m, 64]", "[1]"),
	                        2, a, 3),
	                    "[b, 1, 512] [b, 8, m, 64] [b, 8, m, 64]");
	assert_string_equal(
	    run(&t, "DecoderMaskedMultiHeadAttention",
	        SHAPES("[b, 1, 512]", "[b, 1, 512]", "[b, 1, 512]", "", "", "[b, 8, p, 64]", "[b, 8, p, 64]"),
	        1, a, 3),
	    "[b, 1, 512] [b, 8, p + 1, 64] [b, 8, p + 1, 64]");
	rt_free(&t);
}

static void group_query_attention_present_is_the_total_length(void **state)
{
	rt t;
	sym_attr a[2];
	sym_tval in[7];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 32);
	a[1] = rt_i(&t, "kv_num_heads", 8);
	in[0] = rt_t(&t, "[b, s, 4096]", NULL, NULL);
	in[1] = rt_t(&t, "[b, s, 1024]", NULL, NULL);
	in[2] = rt_t(&t, "[b, s, 1024]", NULL, NULL);
	in[3] = rt_t(&t, "[b, 8, p, 128]", NULL, NULL);
	in[4] = rt_t(&t, "[b, 8, p, 128]", NULL, NULL);
	in[5] = rt_t(&t, "[b]", "int32", NULL);
	in[6] = rt_t(&t, "[]", "int32", "[p + s]");
	assert_int_equal(rt_run(&t, "GroupQueryAttention", MS, 7, in, 2, a, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, s, 4096]");
	assert_string_equal(rt_shape(&t, &out[1]), "[b, 8, p + s, 128]");
	assert_string_equal(rt_shape(&t, &out[2]), "[b, 8, p + s, 128]");
	assert_string_equal(rt_guards(&t), "");
	/* an unknown total_sequence_length makes the present length run-time bound */
	in[6] = rt_t(&t, "[]", "int32", NULL);
	assert_int_equal(rt_run(&t, "GroupQueryAttention", MS, 7, in, 2, a, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[1]), "[b, 8, u0, 128]");
	assert_int_equal(t.inf.nfresh, 1);
	/* packed QKV: (32 + 2 * 8) heads of 128 */
	in[0] = rt_t(&t, "[b, s, 6144]", NULL, NULL);
	in[1] = in[2] = rt_absent();
	in[6] = rt_t(&t, "[]", "int32", "[p + s]");
	assert_int_equal(rt_run(&t, "GroupQueryAttention", MS, 7, in, 2, a, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, s, 4096]");
	assert_string_equal(rt_shape(&t, &out[1]), "[b, 8, p + s, 128]");
	/* bad inputs */
	in[0] = rt_t(&t, "[b, s, 4096]", NULL, NULL);
	in[1] = rt_t(&t, "[b, s, 512]", NULL, NULL);
	in[2] = rt_t(&t, "[b, s, 512]", NULL, NULL);
	assert_int_equal(rt_run(&t, "GroupQueryAttention", MS, 7, in, 2, a, 3, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "kv_num_heads * head size"));
	sym_ctx_clear_error(t.ctx);
	a[1] = rt_i(&t, "kv_num_heads", 5);
	assert_int_equal(rt_run(&t, "GroupQueryAttention", MS, 7, in, 2, a, 3, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "multiple of kv_num_heads"));
	sym_ctx_clear_error(t.ctx);
	rt_free(&t);
}

static void packed_attention_and_rotary_embedding(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 12);
	assert_string_equal(run(&t, "PackedAttention",
	                        SHAPES("[t0, 768]", "[768, 2304]", "[2304]", "[b, s]", "[c]"), 1, a, 1),
	                    "[t0, 768]");
	assert_string_equal(run(&t, "PackedMultiHeadAttention", SHAPES("[t0, 12, 3, 64]"), 1, a, 1),
	                    "[t0, 768]");
	assert_string_equal(run(&t, "PackedMultiHeadAttention",
	                        SHAPES("[t0, 768]", "[t0, 768]", "[t0, 384]", "", "[b, s]", "[c]"), 1, a, 1),
	                    "[t0, 384]");
	assert_non_null(
	    strstr(run(&t, "PackedMultiHeadAttention", SHAPES("[t0, 12, 64]"), 1, a, 1), "rank 2 or 4"));
	assert_string_equal(
	    run(&t, "RotaryEmbedding", SHAPES("[b, s, 768]", "[b, s]", "[m, 32]", "[m, 32]"), 0, a, 1),
	    "[b, s, 768]");
	assert_string_equal(
	    run(&t, "RotaryEmbedding", SHAPES("[b, n, s, 64]", "[1]", "[m, 32]", "[k, 32]"), 0, a, 1),
	    "[b, n, s, 64]");
	assert_string_equal(rt_guards(&t), "assert k == m");
	assert_non_null(
	    strstr(run(&t, "RotaryEmbedding", SHAPES("[b, 768]", "[b, s]", "[m, 32]", "[m, 32]"), 0, a, 1),
	           "rank 3 to 4"));
	rt_free(&t);
}

static void quantized_and_decoder_attention_and_position_bias(void **state)
{
	rt t;
	sym_attr a[2];
	sym_tval in[9];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 2);
	in[0] = rt_t(&t, "[b, s, 16]", "uint8", NULL);
	in[1] = rt_t(&t, "[16, 48]", "uint8", NULL);
	in[2] = rt_t(&t, "[48]", "float32", NULL);
	in[3] = in[4] = rt_t(&t, "[]", "float32", NULL);
	in[5] = rt_absent();
	in[6] = in[7] = rt_t(&t, "[]", "uint8", NULL);
	in[8] = rt_t(&t, "[2, b, 2, p, 8]", "float32", NULL);
	assert_int_equal(rt_run(&t, "QAttention", MS, 9, in, 1, a, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, s, 16]");
	assert_string_equal(rt_shape(&t, &out[1]), "[2, b, 2, p + s, 8]");
	assert_int_equal(out[0].dtype, SYM_DT_FLOAT32);
	a[1] = rt_i(&t, "past_present_share_buffer", 1);
	assert_string_equal(run(&t, "DecoderMaskedSelfAttention",
	                        SHAPES("[b, 1, 16]", "[16, 48]", "[48]", "", "[2, b, 2, m, 8]", "", "[1]"), 2,
	                        a, 2),
	                    "[b, 1, 16] [2, b, 2, m, 8]");
	/* T5's bias: [1, N, query_length, key_length] from the lengths' values */
	a[0] = rt_i(&t, "max_distance", 128);
	in[0] = rt_t(&t, "[32, 8]", NULL, NULL);
	in[1] = rt_t(&t, "[]", "int64", "[s]");
	in[2] = rt_t(&t, "[]", "int64", "[p + s]");
	assert_int_equal(rt_run(&t, "RelativePositionBias", MS, 3, in, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[1, 8, s, p + s]");
	in[2] = rt_t(&t, "[]", "int64", NULL);
	assert_int_equal(rt_run(&t, "RelativePositionBias", MS, 3, in, 1, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "key_length"));
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(rt_run(&t, "RelativePositionBias", MS, 3, in, 0, a, 1, out), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "'max_distance' is required"));
	sym_ctx_clear_error(t.ctx);
	/* padding removal: the token count is bound at run time */
	in[0] = rt_t(&t, "[b, s, 64]", NULL, NULL);
	in[1] = rt_t(&t, "[b]", "int32", NULL);
	assert_int_equal(rt_run(&t, "RemovePadding", MS, 2, in, 0, a, 4, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[u0, 64]");
	assert_string_equal(rt_shape(&t, &out[1]), "[b, s]");
	assert_string_equal(rt_shape(&t, &out[2]), "[b + 1]");
	assert_string_equal(rt_shape(&t, &out[3]), "[1]");
	assert_int_equal(out[1].dtype, SYM_DT_INT32);
	assert_string_equal(run(&t, "RestorePadding", SHAPES("[u0, 64]", "[b, s]"), 0, a, 1), "[b, s, 64]");
	rt_free(&t);
}

static void longformer_and_gated_position_bias(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 12);
	a[1] = rt_i(&t, "window", 256);
	assert_string_equal(
	    run(&t, "LongformerAttention",
	        SHAPES("[b, s, 768]", "[768, 2304]", "[2304]", "[b, s]", "[768, 2304]", "[2304]", "[b, s]"),
	        2, a, 1),
	    "[b, s, 768]");
	assert_non_null(
	    strstr(run(&t, "LongformerAttention", SHAPES("[b, s, 768]"), 1, a, 1), "'window' is required"));
	assert_string_equal(
	    run(&t, "GatedRelativePositionBias",
	        SHAPES("[b, s, 768]", "[768]", "[1, 12, s, s]", "[64, 16]", "[16]", "[1, 12, 1, 1]"), 1, a,
	        1),
	    "[b, 12, s, s]");
	assert_string_equal(
	    run(&t, "GatedRelativePositionBias",
	        SHAPES("[t0, 768]", "[768]", "[1, 12, s, s]", "[64, 16]", "[16]", "[1, 12, 1, 1]", "[b, s]"),
	        1, a, 1),
	    "[b, 12, s, s]");
	assert_non_null(strstr(
	    run(&t, "GatedRelativePositionBias",
	        SHAPES("[t0, 768]", "[768]", "[1, 12, s, s]", "[64, 16]", "[16]", "[1, 12, 1, 1]"), 1, a, 1),
	    "needs token_offset"));
	rt_free(&t);
}

static void attention_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 2);
	prop(&t, "Attention", SHAPES("[b, s, h]", "[k, w]", "[c]", "", "[2, e, 2, p, d]"), 1, a, 2);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "num_heads", 2);
	prop(&t, "MultiHeadAttention",
	     SHAPES("[b, s, h]", "[c, l, k]", "[e, m, v]", "", "", "", "[f, 2, p, d]"), 1, a, 3);
	rt_free(&t);
	rt_init(&t, 1);
	prop(&t, "RotaryEmbedding", SHAPES("[b, s, h]", "[b, s]", "[m, d]", "[k, e]"), 0, a, 1);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(attention_projects_and_grows_the_past),
	    cmocka_unit_test(attention_bad_inputs_are_errors),
	    cmocka_unit_test(multi_head_attention_reads_every_layout),
	    cmocka_unit_test(group_query_attention_present_is_the_total_length),
	    cmocka_unit_test(packed_attention_and_rotary_embedding),
	    cmocka_unit_test(quantized_and_decoder_attention_and_position_bias),
	    cmocka_unit_test(longformer_and_gated_position_bias),
	    cmocka_unit_test(attention_rules_hold_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
