/* RNN, GRU and LSTM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void expect_error(rt *t, int r, const char *needle)
{
	assert_int_equal(r, -1);
	if (!strstr(sym_ctx_last_message(t->ctx), needle))
		fail_msg("message '%s' lacks '%s'", sym_ctx_last_message(t->ctx), needle);
	sym_ctx_clear_error(t->ctx);
}

static void lstm_outputs_follow_sequence_batch_and_hidden(void **state)
{
	rt t;
	sym_tval in[3], out[3];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[seq, b, 10]", NULL, NULL);
	in[1] = rt_t(&t, "[1, 28, 10]", NULL, NULL);
	in[2] = rt_t(&t, "[1, 28, 7]", NULL, NULL);
	a[0] = rt_i(&t, "hidden_size", 7);
	assert_int_equal(rt_run(&t, "LSTM", NULL, 3, in, 1, a, 3, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[seq, 1, b, 7]");
	assert_string_equal(rt_shape(&t, &out[1]), "[1, b, 7]");
	assert_string_equal(rt_shape(&t, &out[2]), "[1, b, 7]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

static void bidirectional_gru_in_batch_first_layout(void **state)
{
	rt t;
	sym_tval in[6], out[2];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[b, seq, i]", NULL, NULL);
	in[1] = rt_t(&t, "[2, 3*h, i]", NULL, NULL);
	in[2] = rt_t(&t, "[2, 3*h, h]", NULL, NULL);
	in[3] = rt_absent();
	in[4] = rt_t(&t, "[n]", "int32", NULL);
	in[5] = rt_t(&t, "[b, 2, h]", NULL, NULL);
	a[0] = rt_s(&t, "direction", "bidirectional");
	a[1] = rt_i(&t, "layout", 1);
	assert_int_equal(rt_run(&t, "GRU", NULL, 6, in, 2, a, 2, out), 0);
	assert_string_equal(rt_shape(&t, &out[0]), "[b, seq, 2, h]");
	assert_string_equal(rt_shape(&t, &out[1]), "[b, 2, h]");
	/* sequence_lens must have one length per batch entry */
	assert_string_equal(rt_guards(&t), "assert b == n");
	rt_free(&t);
}

static void rnn_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_tval in[3];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[s, b, i]", NULL, NULL);
	in[1] = rt_t(&t, "[d, h, j]", NULL, NULL);
	in[2] = rt_t(&t, "[1, h, h]", NULL, NULL);
	a[0] = rt_s(&t, "direction", "reverse");
	rt_property(&t, "RNN", NULL, 3, in, 1, a, 2, 200, 1, 3);
	rt_free(&t);
}

static void recurrent_errors_name_the_problem(void **state)
{
	rt t;
	sym_tval in[3], out[2];
	sym_attr a[1];
	(void)state;
	rt_init(&t, 1);
	in[0] = rt_t(&t, "[s, b, 4]", NULL, NULL);
	in[1] = rt_t(&t, "[1, 8, 4]", NULL, NULL);
	in[2] = rt_t(&t, "[1, 8, 2]", NULL, NULL);
	a[0] = rt_s(&t, "direction", "sideways");
	expect_error(&t, rt_run(&t, "LSTM", NULL, 3, in, 1, a, 2, out), "'direction' must be");
	/* LSTM has four gates: W dim 1 must be 4*hidden = 8 (hidden 2) */
	assert_int_equal(rt_run(&t, "LSTM", NULL, 3, in, 0, NULL, 2, out), 0);
	in[1] = rt_t(&t, "[1, 6, 4]", NULL, NULL);
	expect_error(&t, rt_run(&t, "LSTM", NULL, 3, in, 0, NULL, 2, out),
	             "W must be [num_directions, gates*hidden_size, input_size]");
	in[0] = rt_t(&t, "[s, 4]", NULL, NULL);
	expect_error(&t, rt_run(&t, "RNN", NULL, 3, in, 0, NULL, 2, out), "rank 3");
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lstm_outputs_follow_sequence_batch_and_hidden),
	    cmocka_unit_test(bidirectional_gru_in_batch_first_layout),
	    cmocka_unit_test(rnn_property_holds_at_random_dims),
	    cmocka_unit_test(recurrent_errors_name_the_problem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
