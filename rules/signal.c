/* Signal operators (opset 17): DFT, STFT, the window generators and
 * MelWeightMatrix.  Lengths read from input values may be symbolic. */
#include "rules_private.h"

#include <string.h>

static const sym_expr *rel(sym_rule_ctx *rc, sym_relop op, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), op, a, b);
}

/* The scalar value of input i; error when unknown. */
static const sym_expr *scalar_value(sym_rule_ctx *rc, size_t i, const char *what)
{
	const sym_expr *const *v;
	size_t n;
	if (sym__rc_in_value(rc, i, &n, &v) < 0)
		return NULL;
	if (n != 1) {
		sym__rc_error(rc, "%s (input %zu) must be a single value, not %zu", what, i, n);
		return NULL;
	}
	return v[0];
}

/* n // 2 + 1, the bins of a one-sided transform of length n. */
static const sym_expr *onesided_bins(sym_rule_ctx *rc, const sym_expr *n)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	return sym_expr_add(ctx, sym_expr_floordiv(ctx, n, sym__rc_num(rc, 2)), sym__one(ctx));
}

/* The guard that the last dim of t is 1 (real) or 2 (complex). */
static int real_or_complex(sym_rule_ctx *rc, const sym_tval *t)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *d = t->dims[t->rank - 1];
	return sym__rc_require(rc,
	                       sym_expr_or(ctx, rel(rc, SYM_REL_EQ, d, sym__one(ctx)),
	                                   rel(rc, SYM_REL_EQ, d, sym__rc_num(rc, 2))),
	                       SYM_GUARD_ASSERT, "the last dim must be 1 (real) or 2 (complex)");
}

/* DFT(input [batch, n1, ..., 1 or 2], dft_length, axis): the input's shape
 * with the last dim 2 and the transformed axis dft_length (the input's dim
 * when absent), n // 2 + 1 of it when onesided.  The axis is an attribute
 * (default 1) before opset 20, input 2 (default -2) from it. */
static int r_dft(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr **d, *n;
	int64_t axis = 1, inverse, onesided;
	int a;
	if (!x || sym__rc_attr_int(rc, "inverse", 0, &inverse) < 0 ||
	    sym__rc_attr_int(rc, "onesided", 0, &onesided) < 0)
		return -1;
	if (rc->opset >= 20) {
		axis = -2;
		if (sym__rc_in(rc, 2)) {
			int64_t *v;
			size_t nv;
			if (sym__rc_in_ints(rc, 2, &nv, &v) < 0)
				return -1;
			if (nv != 1)
				return sym__rc_error(rc, "axis (input 2) must be a single value, not %zu",
				                     nv);
			axis = v[0];
		}
	} else if (sym__rc_attr_int(rc, "axis", 1, &axis) < 0) {
		return -1;
	}
	if (x->rank < 2)
		return sym__rc_error(rc, "input must have rank at least 2, not %d", x->rank);
	if (sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	if (a == x->rank - 1)
		return sym__rc_error(rc, "axis %lld is the real/complex dim", (long long)axis);
	if (onesided && inverse)
		return sym__rc_error(rc, "an inverse one-sided DFT is not supported");
	if (real_or_complex(rc, x) < 0)
		return -1;
	n = x->dims[a];
	if (sym__rc_in(rc, 1) && !(n = scalar_value(rc, 1, "dft_length")))
		return -1;
	if (sym__rc_require(rc, rel(rc, SYM_REL_GE, n, sym__one(sym__rc_ctx(rc))), SYM_GUARD_ASSERT,
	                    "dft_length must be positive") < 0)
		return -1;
	if (!(d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d))))
		return -1;
	memcpy(d, x->dims, (size_t)x->rank * sizeof(*d));
	d[a] = onesided ? onesided_bins(rc, n) : n;
	d[x->rank - 1] = sym__rc_num(rc, 2);
	if (!d[a] || sym__rc_set_shape(rc, 0, x->rank, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* STFT(signal [batch, length, 1 or 2], frame_step, window, frame_length):
 * [batch, (length - frame_length) // frame_step + 1, bins, 2] with bins
 * frame_length // 2 + 1 when onesided (the default), frame_length else. */
static int r_stft(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *w = sym__rc_in(rc, 2);
	const sym_expr *step, *len = NULL, *d[4];
	int64_t onesided;
	if (!x || !(step = scalar_value(rc, 1, "frame_step")) ||
	    sym__rc_attr_int(rc, "onesided", 1, &onesided) < 0)
		return -1;
	if (x->rank != 3)
		return sym__rc_error(rc, "signal must have rank 3 ([batch, length, 1 or 2]), not %d",
		                     x->rank);
	if (w && w->rank >= 0 && w->rank != 1)
		return sym__rc_error(rc, "window (input 2) must have rank 1, not %d", w->rank);
	if (sym__rc_in(rc, 3) && !(len = scalar_value(rc, 3, "frame_length")))
		return -1;
	if (w && w->rank == 1) {
		if (!len)
			len = w->dims[0];
		else if (sym__rc_require(rc, rel(rc, SYM_REL_EQ, w->dims[0], len), SYM_GUARD_ASSERT,
		                         "the window must be frame_length long") < 0)
			return -1;
	}
	if (!len)
		return sym__rc_error(rc, "the window (input 2) or frame_length (input 3) is required");
	if (real_or_complex(rc, x) < 0 ||
	    sym__rc_require(rc, rel(rc, SYM_REL_GE, step, sym__one(ctx)), SYM_GUARD_ASSERT,
	                    "frame_step must be positive") < 0 ||
	    sym__rc_require(rc, rel(rc, SYM_REL_GE, len, sym__one(ctx)), SYM_GUARD_ASSERT,
	                    "frame_length must be positive") < 0 ||
	    sym__rc_require(rc, rel(rc, SYM_REL_GE, x->dims[1], len), SYM_GUARD_ASSERT,
	                    "the signal must hold one frame") < 0)
		return -1;
	d[0] = x->dims[0];
	d[1] = sym_expr_add(ctx, sym_expr_floordiv(ctx, sym_expr_sub(ctx, x->dims[1], len), step),
	                    sym__one(ctx));
	d[2] = onesided ? onesided_bins(rc, len) : len;
	d[3] = sym__rc_num(rc, 2);
	if (!d[1] || !d[2] || sym__rc_set_shape(rc, 0, 4, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, x->dtype);
}

/* The 'output_datatype' attribute (default float32). */
static int output_datatype(sym_rule_ctx *rc, int *dt)
{
	int64_t v;
	if (sym__rc_attr_int(rc, "output_datatype", SYM_DT_FLOAT32, &v) < 0)
		return -1;
	if (v <= 0 || v >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'output_datatype' (%lld) is not a known element type",
		                     (long long)v);
	*dt = (int)v;
	return 0;
}

/* HannWindow, HammingWindow, BlackmanWindow(size): [size]. */
static int r_window(sym_rule_ctx *rc)
{
	const sym_expr *n;
	int dt = SYM_DT_FLOAT32;
	if (!(n = scalar_value(rc, 0, "size")) || output_datatype(rc, &dt) < 0)
		return -1;
	if (sym__rc_require(rc, rel(rc, SYM_REL_GE, n, sym__zero(sym__rc_ctx(rc))), SYM_GUARD_ASSERT,
	                    "the window size must not be negative") < 0 ||
	    sym__rc_set_shape(rc, 0, 1, &n) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dt);
}

/* MelWeightMatrix(num_mel_bins, dft_length, ...):
 * [dft_length // 2 + 1, num_mel_bins]. */
static int r_mel_weight_matrix(sym_rule_ctx *rc)
{
	const sym_expr *d[2], *bins, *len;
	int dt = SYM_DT_FLOAT32;
	if (!(bins = scalar_value(rc, 0, "num_mel_bins")) || !(len = scalar_value(rc, 1, "dft_length")) ||
	    output_datatype(rc, &dt) < 0)
		return -1;
	if (sym__rc_require(rc, rel(rc, SYM_REL_GE, bins, sym__zero(sym__rc_ctx(rc))), SYM_GUARD_ASSERT,
	                    "num_mel_bins must not be negative") < 0 ||
	    sym__rc_require(rc, rel(rc, SYM_REL_GE, len, sym__zero(sym__rc_ctx(rc))), SYM_GUARD_ASSERT,
	                    "dft_length must not be negative") < 0)
		return -1;
	d[0] = onesided_bins(rc, len), d[1] = bins;
	if (!d[0] || sym__rc_set_shape(rc, 0, 2, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dt);
}

const sym_rule_entry sym__rules_signal[] = {
    {"DFT", "", r_dft, 0},
    {"STFT", "", r_stft, 0},
    {"HannWindow", "", r_window, 0},
    {"HammingWindow", "", r_window, 0},
    {"BlackmanWindow", "", r_window, 0},
    {"MelWeightMatrix", "", r_mel_weight_matrix, 0},
};
const size_t sym__rules_signal_count = sizeof(sym__rules_signal) / sizeof(sym__rules_signal[0]);
