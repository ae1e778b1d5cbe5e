/* The sequence operators (rules/sequence.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

/* The shapes of the tensors of sequence s, "[a] [b]" ("" when empty). */
static const char *elems(rt *t, const sym_tval *s)
{
	char buf[512] = "";
	size_t k;
	assert_non_null(s->seq);
	for (k = 0; k < s->seq->n; k++) {
		if (k)
			strcat(buf, " ");
		strcat(buf, rt_shape(t, &s->seq->elems[k]));
	}
	return sym__infer_strdup(&t->inf, buf);
}

static const char *error_of(rt *t)
{
	const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
	sym_ctx_clear_error(t->ctx);
	return m;
}

static void split_to_sequence_pieces(void **state)
{
	rt t;
	sym_attr a[2];
	sym_tval in[2], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, 6, w]", NULL, NULL);
	in[1] = rt_t(&t, "[3]", "int64", "[1, k, 5 - k]");
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "SplitToSequence", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(elems(&t, &out[0]), "[b, 1, w] [b, k, w] [b, 5 - k, w]");
	assert_string_equal(rt_shape(&t, &out[0]), "*");
	assert_string_equal(rt_guards(&t), "assert k <= 5");
	/* a scalar split: pieces of 4, the last what remains */
	in[0] = rt_t(&t, "[b, 10]", NULL, NULL);
	in[1] = rt_t(&t, "[]", "int64", "[4]");
	assert_int_equal(rt_run(&t, "SplitToSequence", NULL, 2, in, 1, a, 1, out), 0);
	assert_string_equal(elems(&t, &out[0]), "[b, 4] [b, 4] [b, 2]");
	/* no split: pieces of 1, the axis dropped without keepdims */
	a[1] = rt_i(&t, "keepdims", 0);
	assert_int_equal(rt_run(&t, "SplitToSequence", NULL, 1, in, 2, a, 1, out), 0);
	assert_int_equal(out[0].seq->n, 10);
	assert_string_equal(rt_shape(&t, &out[0].seq->elems[9]), "[b]");
	in[0] = rt_t(&t, "[b, w]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SplitToSequence", NULL, 1, in, 2, a, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "must be a constant"));
	in[0] = rt_t(&t, "[b, 6]", NULL, NULL);
	in[1] = rt_t(&t, "[2]", "int64", "[2, 2]");
	assert_int_equal(rt_run(&t, "SplitToSequence", NULL, 2, in, 1, a, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "sum to the split dim"));
	rt_free(&t);
}

static void sequences_are_built_edited_and_read(void **state)
{
	rt t;
	sym_tval in[3], s[1], s2[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, 2]", NULL, NULL);
	in[1] = rt_t(&t, "[b, 3]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SequenceConstruct", NULL, 2, in, 0, NULL, 1, s), 0);
	assert_string_equal(elems(&t, &s[0]), "[b, 2] [b, 3]");
	/* insert at the front, then at the back (default) */
	in[0] = s[0];
	in[1] = rt_t(&t, "[b, 4]", NULL, NULL);
	in[2] = rt_t(&t, "[]", "int64", "[-2]");
	assert_int_equal(rt_run(&t, "SequenceInsert", NULL, 3, in, 0, NULL, 1, s2), 0);
	assert_string_equal(elems(&t, &s2[0]), "[b, 4] [b, 2] [b, 3]");
	in[0] = s2[0];
	in[1] = rt_t(&t, "[b, 5]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SequenceInsert", NULL, 2, in, 0, NULL, 1, s), 0);
	assert_string_equal(elems(&t, &s[0]), "[b, 4] [b, 2] [b, 3] [b, 5]");
	/* length, element, erase */
	assert_int_equal(rt_run(&t, "SequenceLength", NULL, 1, s, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[4]");
	assert_int_equal(out[0].dtype, SYM_DT_INT64);
	in[0] = s[0];
	in[1] = rt_t(&t, "[]", "int64", "[-1]");
	assert_int_equal(rt_run(&t, "SequenceAt", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, 5]");
	in[1] = rt_t(&t, "[]", "int64", "[4]");
	assert_int_equal(rt_run(&t, "SequenceAt", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "out of range"));
	in[1] = rt_t(&t, "[]", "int64", "[1]");
	assert_int_equal(rt_run(&t, "SequenceErase", NULL, 2, in, 0, NULL, 1, s2), 0);
	assert_string_equal(elems(&t, &s2[0]), "[b, 4] [b, 3] [b, 5]");
	assert_int_equal(rt_run(&t, "SequenceErase", NULL, 1, in, 0, NULL, 1, s2), 0);
	assert_string_equal(elems(&t, &s2[0]), "[b, 4] [b, 2] [b, 3]");
	/* an unknown position is an error */
	in[1] = rt_t(&t, "[]", "int64", NULL);
	assert_int_equal(rt_run(&t, "SequenceAt", NULL, 2, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "must be known"));
	/* a tensor is no sequence */
	in[0] = rt_t(&t, "[b, 2]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SequenceLength", NULL, 1, in, 0, NULL, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "must be a sequence"));
	rt_free(&t);
}

static void empty_sequences_and_integer_elements(void **state)
{
	rt t;
	sym_attr a[1];
	sym_tval in[2], s[1], out[1];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_i(&t, "dtype", SYM_DT_INT64);
	assert_int_equal(rt_run(&t, "SequenceEmpty", NULL, 0, NULL, 1, a, 1, s), 0);
	assert_int_equal(s[0].seq->n, 0);
	assert_int_equal(s[0].dtype, SYM_DT_INT64);
	assert_int_equal(rt_run(&t, "SequenceErase", NULL, 1, s, 0, NULL, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "empty sequence"));
	/* a shape value keeps its value through the sequence */
	in[0] = s[0];
	in[1] = rt_t(&t, "[2]", "int64", "[b, 7]");
	assert_int_equal(rt_run(&t, "SequenceInsert", NULL, 2, in, 0, NULL, 1, s), 0);
	in[0] = s[0];
	in[1] = rt_t(&t, "[]", "int64", "[0]");
	assert_int_equal(rt_run(&t, "SequenceAt", NULL, 2, in, 0, NULL, 1, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[b, 7]");
	a[0] = rt_i(&t, "dtype", 99);
	assert_int_equal(rt_run(&t, "SequenceEmpty", NULL, 0, NULL, 1, a, 1, s), -1);
	assert_non_null(strstr(error_of(&t), "'dtype'"));
	rt_free(&t);
}

static void concat_from_sequence_concatenates_or_stacks(void **state)
{
	rt t;
	sym_attr a[2];
	sym_tval in[3], s[1], out[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, 2, w]", NULL, NULL);
	in[1] = rt_t(&t, "[b, k, v]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SequenceConstruct", NULL, 2, in, 0, NULL, 1, s), 0);
	a[0] = rt_i(&t, "axis", 1);
	assert_int_equal(rt_run(&t, "ConcatFromSequence", NULL, 1, s, 1, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, k + 2, v]");
	assert_string_equal(rt_guards(&t), "assert v == w");
	a[1] = rt_i(&t, "new_axis", 1);
	a[0] = rt_i(&t, "axis", -1);
	in[0] = rt_t(&t, "[c, 3]", NULL, NULL);
	in[1] = rt_t(&t, "[c, 3]", NULL, NULL);
	in[2] = rt_t(&t, "[c, 3]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SequenceConstruct", NULL, 3, in, 0, NULL, 1, s), 0);
	assert_int_equal(rt_run(&t, "ConcatFromSequence", NULL, 1, s, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[c, 3, 3]");
	a[0] = rt_i(&t, "axis", 0);
	assert_int_equal(rt_run(&t, "ConcatFromSequence", NULL, 1, s, 2, a, 1, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[3, c, 3]");
	assert_int_equal(rt_run(&t, "ConcatFromSequence", NULL, 1, s, 0, a, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "'axis' is required"));
	in[1] = rt_t(&t, "[c]", NULL, NULL);
	assert_int_equal(rt_run(&t, "SequenceConstruct", NULL, 2, in, 0, NULL, 1, s), 0);
	assert_int_equal(rt_run(&t, "ConcatFromSequence", NULL, 1, s, 1, a, 1, out), -1);
	assert_non_null(strstr(error_of(&t), "ranks 2 and 1"));
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(split_to_sequence_pieces),
	    cmocka_unit_test(sequences_are_built_edited_and_read),
	    cmocka_unit_test(empty_sequences_and_integer_elements),
	    cmocka_unit_test(concat_from_sequence_concatenates_or_stacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
