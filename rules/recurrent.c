/* Recurrent operators: RNN, GRU and LSTM, in every direction and both
 * layouts (opset 14), with their optional inputs and outputs. */
#include "rules_private.h"

#include <string.h>

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Input i, when present, has rank n and the dims want[] (NULL: any);
 * what names the input and its expected shape. */
static int check_input(sym_rule_ctx *rc, size_t i, int n, const sym_expr *const *want, const char *name,
                       const char *what)
{
	const sym_tval *t = sym__rc_in(rc, i);
	const char *why;
	int k;
	if (!t || t->rank == -1)
		return 0;
	if (t->rank != n)
		return sym__rc_error(rc, "%s (input %zu) must have rank %d, not %d", name, i, n, t->rank);
	if (!(why = sym__rc_text(rc, "%s must be %s", name, what)))
		return -1;
	for (k = 0; k < n; k++)
		if (want[k] && sym__rc_require(rc, eq(rc, t->dims[k], want[k]), SYM_GUARD_ASSERT, why) < 0)
			return -1;
	return 0;
}

/* The shared rule: gates is 1 (RNN), 3 (GRU) or 4 (LSTM).
 * X: [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1);
 * W: [dirs, gates*hidden, input]; R: [dirs, gates*hidden, hidden];
 * Y: [seq, dirs, batch, hidden] or [batch, seq, dirs, hidden];
 * Y_h, Y_c: [dirs, batch, hidden] or [batch, dirs, hidden]. */
static int recurrent(sym_rule_ctx *rc, int gates)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *w, *r;
	const sym_expr *seq, *batch, *hidden, *dirs, *gh, *want[4], *y[4], *yh[3];
	const char *direction;
	int64_t layout, hs;
	int has_hs;
	size_t k;
	if (!x || !(w = sym__rc_need_rank(rc, 1)) || !(r = sym__rc_need_rank(rc, 2)))
		return -1;
	if (sym__rc_attr_string(rc, "direction", "forward", &direction) < 0 ||
	    sym__rc_attr_int(rc, "layout", 0, &layout) < 0 || sym__rc_attr_int(rc, "hidden_size", 0, &hs) < 0)
		return -1;
	if (strcmp(direction, "forward") && strcmp(direction, "reverse") &&
	    strcmp(direction, "bidirectional"))
		return sym__rc_error(
		    rc, "attribute 'direction' must be forward, reverse or bidirectional, not '%s'",
		    direction);
	if (layout != 0 && layout != 1)
		return sym__rc_error(rc, "attribute 'layout' must be 0 or 1, not %lld", (long long)layout);
	has_hs = sym__rc_attr(rc, "hidden_size") != NULL;
	if (has_hs && hs < 1)
		return sym__rc_error(rc, "attribute 'hidden_size' must be at least 1, not %lld",
		                     (long long)hs);
	if (x->rank != 3 || w->rank != 3 || r->rank != 3)
		return sym__rc_error(rc, "X, W and R must have rank 3 (ranks %d, %d, %d)", x->rank, w->rank,
		                     r->rank);
	seq = x->dims[layout ? 1 : 0];
	batch = x->dims[layout ? 0 : 1];
	dirs = sym__rc_num(rc, strcmp(direction, "bidirectional") ? 1 : 2);
	hidden = has_hs ? sym__rc_num(rc, hs) : r->dims[2];
	gh = sym_expr_mul(ctx, sym__rc_num(rc, gates), hidden);
	if (!seq || !gh)
		return -1;
	want[0] = dirs, want[1] = gh, want[2] = x->dims[2];
	if (check_input(rc, 1, 3, want, "W", "[num_directions, gates*hidden_size, input_size]") < 0)
		return -1;
	want[2] = hidden;
	if (check_input(rc, 2, 3, want, "R", "[num_directions, gates*hidden_size, hidden_size]") < 0)
		return -1;
	want[1] = sym_expr_mul(ctx, sym__rc_num(rc, 2), gh);
	if (check_input(rc, 3, 2, want, "B", "[num_directions, 2*gates*hidden_size]") < 0)
		return -1;
	want[0] = batch;
	if (check_input(rc, 4, 1, want, "sequence_lens", "[batch_size]") < 0)
		return -1;
	yh[layout ? 1 : 0] = dirs, yh[layout ? 0 : 1] = batch, yh[2] = hidden;
	if (check_input(rc, 5, 3, yh, "initial_h", "the shape of Y_h") < 0 ||
	    (gates == 4 && check_input(rc, 6, 3, yh, "initial_c", "the shape of Y_h") < 0))
		return -1;
	want[0] = dirs, want[1] = sym_expr_mul(ctx, sym__rc_num(rc, 3), hidden);
	if (gates == 4 && check_input(rc, 7, 2, want, "P", "[num_directions, 3*hidden_size]") < 0)
		return -1;
	if (layout)
		y[0] = batch, y[1] = seq, y[2] = dirs;
	else
		y[0] = seq, y[1] = dirs, y[2] = batch;
	y[3] = hidden;
	for (k = 0; k < rc->nout && k < (gates == 4 ? 3u : 2u); k++) {
		if (sym__rc_set_shape(rc, k, k ? 3 : 4, k ? yh : y) < 0 ||
		    sym__rc_set_dtype(rc, k, x->dtype) < 0)
			return -1;
	}
	return 0;
}

static int r_rnn(sym_rule_ctx *rc)
{
	return recurrent(rc, 1);
}
static int r_gru(sym_rule_ctx *rc)
{
	return recurrent(rc, 3);
}
static int r_lstm(sym_rule_ctx *rc)
{
	return recurrent(rc, 4);
}

const sym_rule_entry sym__rules_recurrent[] = {
    {"RNN", "", r_rnn, 0},
    {"GRU", "", r_gru, 0},
    {"LSTM", "", r_lstm, 0},
};
const size_t sym__rules_recurrent_count = sizeof(sym__rules_recurrent) / sizeof(sym__rules_recurrent[0]);
