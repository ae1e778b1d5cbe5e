/* Normalizations of ONNX Runtime's transformer optimizer
 * (rules/microsoft_norm.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

static void skip_layer_norm_keeps_the_input_shape(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[b, s, 64]", "[64]", "[64]"), 0, a, 4),
	    "[b, s, 64] [b, s, 1] [b, s, 1] [b, s, 64]");
	assert_int_equal(out[1].dtype, SYM_DT_FLOAT32);
	assert_string_equal(rt_guards(&t), "");
	/* skip may drop or broadcast the batch */
	assert_string_equal(
	    run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[s, 64]", "[64]"), 0, a, 1),
	    "[b, s, 64]");
	assert_string_equal(
	    run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[1, s, 64]", "[64]"), 0, a, 1),
	    "[b, s, 64]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(
	    run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[c, s, 64]", "[64]"), 0, a, 1),
	    "[b, s, 64]");
	assert_string_equal(rt_guards(&t), "assert b == c || c == 1");
	assert_string_equal(run(&t, "SkipSimplifiedLayerNormalization",
	                        SHAPES("[t0, 64]", "[t0, 64]", "[64]", "[64]"), 0, a, 4),
	                    "[t0, 64] [t0, 1] [t0, 1] [t0, 64]");
	rt_free(&t);
}

static void skip_layer_norm_bad_inputs_are_errors(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_non_null(
	    strstr(run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[b, s, 32]", "[64]"), 0, a, 1),
	           "skip dims"));
	assert_non_null(
	    strstr(run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[b, s, 64]", "[32]"), 0, a, 1),
	           "gamma length"));
	assert_non_null(strstr(run(&t, "SkipLayerNormalization",
	                           SHAPES("[b, s, 64]", "[b, s, 64]", "[64]", "", "[63]"), 0, a, 1),
	                       "bias length"));
	assert_non_null(
	    strstr(run(&t, "SkipLayerNormalization", SHAPES("[64]", "[64]", "[64]"), 0, a, 1), "rank 3"));
	assert_non_null(
	    strstr(run(&t, "SkipLayerNormalization", SHAPES("[b, s, 64]", "[1, b, s, 64]", "[64]"), 0, a, 1),
	           "rank 2 to 3"));
	assert_non_null(
	    strstr(run(&t, "SkipLayerNormalization", SHAPES("*", "[b, s, 64]", "[64]"), 0, a, 1), "rank"));
	rt_free(&t);
}

/* SimplifiedLayerNormalization runs in the ONNX domain ("") */
static const char *run_onnx(rt *t, const char *x, const char *scale, size_t na, const sym_attr *a)
{
	sym_tval in[2];
	char buf[256];
	in[0] = rt_t(t, x, NULL, NULL);
	in[1] = rt_t(t, scale, NULL, NULL);
	if (rt_run(t, "SimplifiedLayerNormalization", "", 2, in, na, a, 2, out) < 0) {
		const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		return m;
	}
	snprintf(buf, sizeof(buf), "%s %s", rt_shape(t, &out[0]), rt_shape(t, &out[1]));
	return sym__infer_strdup(&t->inf, buf);
}

static void simplified_layer_norm_statistics_drop_the_normalized_dims(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run_onnx(&t, "[b, s, 64]", "[64]", 0, a), "[b, s, 64] [b, s, 1]");
	assert_int_equal(out[1].dtype, SYM_DT_FLOAT32);
	a[0] = rt_i(&t, "axis", 1);
	a[1] = rt_i(&t, "stash_type", 11);
	assert_string_equal(run_onnx(&t, "[b, s, h]", "[k]", 2, a), "[b, s, h] [b, 1, 1]");
	assert_int_equal(out[1].dtype, SYM_DT_FLOAT64);
	assert_string_equal(rt_guards(&t), "assert h*s == k");
	assert_non_null(strstr(run_onnx(&t, "[b, s, 64]", "[32]", 0, a), "scale must have as many elements"));
	a[0] = rt_i(&t, "axis", 3);
	assert_non_null(strstr(run_onnx(&t, "[b, s, 64]", "[64]", 1, a), "out of range"));
	/* ONNX Runtime has neither under com.microsoft */
	assert_non_null(strstr(run(&t, "SimplifiedLayerNormalization", SHAPES("[b, 8]", "[8]"), 0, a, 1),
	                       "unsupported operator"));
	assert_non_null(
	    strstr(run(&t, "LayerNormalization", SHAPES("[b, 8]", "[8]"), 0, a, 1), "unsupported operator"));
	rt_free(&t);
}

static void embed_layer_norm_embeds_ids(void **state)
{
	rt t;
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "EmbedLayerNormalization",
	                        SHAPES("[b, s]", "[b, s]", "[30522, 768]", "[512, 768]", "[2, 768]", "[768]",
	                               "[768]", "[b, s]"),
	                        0, a, 3),
	                    "[b, s, 768] [b] [b, s, 768]");
	assert_int_equal(out[1].dtype, SYM_DT_INT32);
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(run(&t, "EmbedLayerNormalization",
	                        SHAPES("[b, s]", "", "[v, h]", "[p, k]", "", "[h]", "[h]", "[c, s]"), 0, a,
	                        2),
	                    "[b, s, h] [b]");
	assert_string_equal(rt_guards(&t), "assert b == c; assert h == k");
	assert_non_null(strstr(run(&t, "EmbedLayerNormalization",
	                           SHAPES("[b, s, 1]", "", "[100, 8]", "[16, 8]", "", "[8]", "[8]"), 0, a, 2),
	                       "rank 2"));
	assert_non_null(
	    strstr(run(&t, "EmbedLayerNormalization",
	               SHAPES("[b, s]", "[b, s]", "[100, 8]", "[16, 8]", "", "[8]", "[8]"), 0, a, 2),
	           "segment_embedding"));
	assert_non_null(strstr(run(&t, "EmbedLayerNormalization",
	                           SHAPES("[b, s]", "", "[100, 8]", "[16, 4]", "", "[8]", "[8]"), 0, a, 2),
	                       "position_embedding hidden dim"));
	rt_free(&t);
}

static void group_norms_keep_the_shape_and_check_channels(void **state)
{
	rt t;
	sym_attr a[3];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "groups", 32);
	a[1] = rt_i(&t, "activation", 1);
	assert_string_equal(run(&t, "GroupNorm", SHAPES("[n, h, w, 320]", "[320]", "[320]"), 2, a, 1),
	                    "[n, h, w, 320]");
	assert_string_equal(run(&t, "SkipGroupNorm",
	                        SHAPES("[n, h, w, 320]", "[320]", "[320]", "[n, 1, 1, 320]", "[320]"), 2, a,
	                        2),
	                    "[n, h, w, 320] [n, h, w, 320]");
	assert_string_equal(run(&t, "GroupNorm", SHAPES("[n, h, w, c]", "[c]", "[c]"), 2, a, 1),
	                    "[n, h, w, c]");
	assert_string_equal(rt_guards(&t), "assert c % 32 == 0");
	a[2] = rt_i(&t, "channels_last", 0);
	assert_non_null(
	    strstr(run(&t, "GroupNorm", SHAPES("[n, 320, h, w]", "[320]", "[32]"), 3, a, 1), "beta length"));
	assert_non_null(strstr(run(&t, "GroupNorm", SHAPES("[n, 48, h, w]", "[48]", "[48]"), 3, a, 1),
	                       "multiple of groups"));
	assert_non_null(strstr(run(&t, "GroupNorm", SHAPES("[n, h, w, 64]", "[64]", "[64]"), 1, a, 1),
	                       "'activation' is required"));
	a[1] = rt_i(&t, "activation", 2);
	assert_non_null(strstr(run(&t, "GroupNorm", SHAPES("[n, h, w, 64]", "[64]", "[64]"), 2, a, 1),
	                       "'activation' must be 0 or 1"));
	assert_non_null(strstr(run(&t, "GroupNorm", SHAPES("[n, h, w, 64]", "[64]", "[64]"), 0, a, 1),
	                       "'groups' is required"));
	rt_free(&t);
}

static void ms_norm_rules_hold_at_random_dims(void **state)
{
	rt t;
	sym_tval in[2];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	prop(&t, "SkipLayerNormalization", SHAPES("[b, s, h]", "[c, s, h]", "[g]", "[e]"), 0, a, 4);
	rt_free(&t);
	rt_init(&t, 1);
	prop(&t, "SkipSimplifiedLayerNormalization", SHAPES("[s, h]", "[r, k]", "[g]"), 0, a, 1);
	rt_free(&t);
	rt_init(&t, 1);
	a[0] = rt_i(&t, "axis", -2);
	in[0] = rt_t(&t, "[b, s, h]", NULL, NULL);
	in[1] = rt_t(&t, "[k]", NULL, NULL);
	rt_property(&t, "SimplifiedLayerNormalization", "", 2, in, 1, a, 2, 200, 1, 6);
	rt_free(&t);
	rt_init(&t, 1);
	prop(&t, "EmbedLayerNormalization",
	     SHAPES("[b, s]", "", "[v, h]", "[p, k]", "", "[g]", "[e]", "[c, s]"), 0, a, 3);
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(skip_layer_norm_keeps_the_input_shape),
	    cmocka_unit_test(skip_layer_norm_bad_inputs_are_errors),
	    cmocka_unit_test(simplified_layer_norm_statistics_drop_the_normalized_dims),
	    cmocka_unit_test(embed_layer_norm_embeds_ids),
	    cmocka_unit_test(group_norms_keep_the_shape_and_check_channels),
	    cmocka_unit_test(ms_norm_rules_hold_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
