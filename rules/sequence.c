/* The sequence operators: SequenceEmpty, SequenceConstruct, SequenceInsert,
 * SequenceErase, SequenceLength, SequenceAt, SplitToSequence and
 * ConcatFromSequence.  A sequence value (values.h, sym_tseq) holds its
 * tensors in order; as a tensor it has unknown rank.  A sequence is known
 * when its length is: positions and split counts must be constants. */
#include "rules_private.h"

#include <string.h>

static const sym_expr *eq(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b);
}

/* Output i becomes the sequence of the n tensors e (copied into session
 * memory; their dims and values are not copied), of element type dtype. */
static int set_seq(sym_rule_ctx *rc, size_t i, size_t n, const sym_tval *e, int dtype)
{
	sym_tseq *s;
	sym_tval *elems;
	size_t k;
	if (i >= rc->nout)
		return 0;
	if (!(s = sym__rc_alloc(rc, sizeof(*s))) ||
	    !(elems = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*elems))))
		return -1;
	for (k = 0; k < n; k++) {
		elems[k] = e[k];
		elems[k].present = 1;
		elems[k].seq = NULL;
	}
	s->n = n;
	s->elems = elems;
	if (sym__rc_set_unknown_rank(rc, i) < 0 || sym__rc_set_dtype(rc, i, dtype) < 0)
		return -1;
	rc->out[i].seq = s;
	return 0;
}

/* Input i as a sequence of known length; an error otherwise. */
static const sym_tseq *need_seq(sym_rule_ctx *rc, size_t i)
{
	const sym_tval *t = sym__rc_need(rc, i);
	if (t && !t->seq)
		sym__rc_error(rc, "input %zu must be a sequence of known length", i);
	return t && t->seq ? t->seq : NULL;
}

/* The constant scalar position of input i (def when absent), checked
 * against [-n, n + extra) and normalised. */
static int position(sym_rule_ctx *rc, size_t i, size_t n, int extra, long long def, size_t *out)
{
	int64_t *v;
	size_t nv;
	long long p = def, lo = -(long long)n, hi = (long long)n + extra;
	if (sym__rc_in(rc, i)) {
		if (sym__rc_in_ints(rc, i, &nv, &v) < 0)
			return -1;
		if (nv != 1)
			return sym__rc_error(rc, "input %zu (position) must be a scalar, not %zu values", i,
			                     nv);
		p = v[0];
	}
	if (p < lo || p >= hi)
		return sym__rc_error(rc, "position %lld is out of range for a sequence of %zu tensors", p, n);
	*out = (size_t)(p < 0 ? p + (long long)n : p);
	return 0;
}

/* SequenceEmpty() -> a sequence of no tensors, of type dtype (float32). */
static int r_sequence_empty(sym_rule_ctx *rc)
{
	int64_t dt;
	if (sym__rc_attr_int(rc, "dtype", SYM_DT_FLOAT32, &dt) < 0)
		return -1;
	if (dt <= 0 || dt >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'dtype' (%lld) is not a known element type",
		                     (long long)dt);
	return set_seq(rc, 0, 0, NULL, (int)dt);
}

/* SequenceConstruct(t0, ..., tn-1) -> the sequence of the inputs (of one
 * element type). */
static int r_sequence_construct(sym_rule_ctx *rc)
{
	size_t k;
	if (rc->nin < 1)
		return sym__rc_error(rc, "needs at least one input");
	for (k = 0; k < rc->nin; k++) {
		const sym_tval *t = sym__rc_need(rc, k);
		if (!t)
			return -1;
		if (t->dtype && rc->in[0].dtype && t->dtype != rc->in[0].dtype)
			return sym__rc_error(rc, "input %zu has type %s, input 0 %s", k,
			                     sym__dtype_name(t->dtype), sym__dtype_name(rc->in[0].dtype));
	}
	return set_seq(rc, 0, rc->nin, rc->in, rc->in[0].dtype);
}

/* SequenceInsert(S, tensor, position) -> S with tensor at position
 * (default: appended). */
static int r_sequence_insert(sym_rule_ctx *rc)
{
	const sym_tseq *s = need_seq(rc, 0);
	const sym_tval *t;
	sym_tval *e;
	size_t p, k;
	if (!s || !(t = sym__rc_need(rc, 1)) || position(rc, 2, s->n, 1, (long long)s->n, &p) < 0)
		return -1;
	if (s->n && t->dtype && rc->in[0].dtype && t->dtype != rc->in[0].dtype)
		return sym__rc_error(rc, "the tensor has type %s, the sequence %s", sym__dtype_name(t->dtype),
		                     sym__dtype_name(rc->in[0].dtype));
	if (!(e = sym__rc_alloc(rc, (s->n + 1) * sizeof(*e))))
		return -1;
	for (k = 0; k < s->n; k++)
		e[k < p ? k : k + 1] = s->elems[k];
	e[p] = *t;
	return set_seq(rc, 0, s->n + 1, e, t->dtype ? t->dtype : rc->in[0].dtype);
}

/* SequenceErase(S, position) -> S without the tensor at position
 * (default: the last). */
static int r_sequence_erase(sym_rule_ctx *rc)
{
	const sym_tseq *s = need_seq(rc, 0);
	sym_tval *e;
	size_t p, k;
	if (!s)
		return -1;
	if (!s->n)
		return sym__rc_error(rc, "cannot erase from an empty sequence");
	if (position(rc, 1, s->n, 0, -1, &p) < 0 || !(e = sym__rc_alloc(rc, s->n * sizeof(*e))))
		return -1;
	for (k = 0; k < s->n; k++)
		if (k != p)
			e[k < p ? k : k - 1] = s->elems[k];
	return set_seq(rc, 0, s->n - 1, e, rc->in[0].dtype);
}

/* SequenceLength(S) -> int64 scalar, its value the length. */
static int r_sequence_length(sym_rule_ctx *rc)
{
	const sym_tseq *s = need_seq(rc, 0);
	const sym_expr *n;
	if (!s || !(n = sym__rc_num(rc, (int64_t)s->n)) || sym__rc_set_shape(rc, 0, 0, NULL) < 0 ||
	    sym__rc_set_dtype(rc, 0, SYM_DT_INT64) < 0)
		return -1;
	return sym__rc_set_value(rc, 0, 1, &n);
}

/* SequenceAt(S, position) -> the tensor at position: its shape and type,
 * and its value when it is an integer tensor. */
static int r_sequence_at(sym_rule_ctx *rc)
{
	const sym_tseq *s = need_seq(rc, 0);
	const sym_tval *e;
	size_t p;
	if (!s || !sym__rc_need(rc, 1) || position(rc, 1, s->n, 0, 0, &p) < 0)
		return -1;
	e = &s->elems[p];
	if (sym__rc_copy_shape(rc, 0, e) < 0)
		return -1;
	if (e->has_value && sym__dtype_is_int(e->dtype))
		return sym__rc_set_value(rc, 0, e->nvalue, e->value);
	return 0;
}

/* One piece of x along axis: dims of x with d at axis (removed when
 * !keep). */
static int piece(sym_rule_ctx *rc, const sym_tval *x, int axis, const sym_expr *d, int keep, sym_tval *out)
{
	const sym_expr **dims;
	int k, r = 0;
	memset(out, 0, sizeof(*out));
	out->present = 1;
	out->dtype = x->dtype;
	if (!(dims = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*dims))))
		return -1;
	for (k = 0; k < x->rank; k++) {
		if (k != axis)
			dims[r++] = x->dims[k];
		else if (keep)
			dims[r++] = d;
	}
	out->rank = r;
	out->dims = dims;
	return 0;
}

/* SplitToSequence(input, split, axis, keepdims) -> the pieces: with a 1-D
 * split, one per entry (their sum the dim); with a scalar split s, ceil(d /
 * s) pieces of s, the last d - s*(n - 1) (d a constant); without split,
 * d pieces of 1, the axis dropped when keepdims is 0 (d a constant). */
static int r_split_to_sequence(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0), *sp = sym__rc_in(rc, 1);
	const sym_expr *const *v, *sum, *d;
	sym_tval *e;
	int64_t a, keep;
	long long dc, sc;
	size_t nv, n, k;
	int axis;
	if (!x || sym__rc_attr_int(rc, "axis", 0, &a) < 0 || sym__rc_attr_int(rc, "keepdims", 1, &keep) < 0)
		return -1;
	if (keep != 0 && keep != 1)
		return sym__rc_error(rc, "attribute 'keepdims' must be 0 or 1, not %lld", (long long)keep);
	if (sym__rc_axis(rc, a, x->rank, "axis", &axis) < 0)
		return -1;
	d = x->dims[axis];
	if (sp && sp->rank == 1) {
		if (sym__rc_in_value(rc, 1, &nv, &v) < 0)
			return -1;
		if (!nv)
			return sym__rc_error(rc, "input split is empty");
		if (!(e = sym__rc_alloc(rc, nv * sizeof(*e))))
			return -1;
		sum = sym__zero(ctx);
		for (k = 0; k < nv; k++) {
			if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, v[k], sym__zero(ctx)),
			                    SYM_GUARD_ASSERT, "split sizes must not be negative") < 0 ||
			    piece(rc, x, axis, v[k], 1, &e[k]) < 0)
				return -1;
			sum = sym_expr_add(ctx, sum, v[k]);
		}
		if (sym__rc_require(rc, eq(rc, sum, d), SYM_GUARD_ASSERT,
		                    "split sizes must sum to the split dim") < 0)
			return -1;
		return set_seq(rc, 0, nv, e, x->dtype);
	}
	if (sym_expr_get_si(d, &dc) != 1 || dc < 0 || dc > SYM_RC_VALUE_LIMIT)
		return sym__rc_error(rc, "the split dim must be a constant (at most %d) to count the pieces",
		                     SYM_RC_VALUE_LIMIT);
	if (sp) {
		int64_t *s1;
		if (sp->rank > 0)
			return sym__rc_error(rc, "input split must be a scalar or 1-D, not of rank %d",
			                     sp->rank);
		if (sym__rc_in_ints(rc, 1, &nv, &s1) < 0)
			return -1;
		sc = s1[0];
		if (sc < 1)
			return sym__rc_error(rc, "split %lld must be at least 1", sc);
		keep = 1;
	} else {
		sc = 1;
	}
	n = (size_t)((dc + sc - 1) / sc);
	if (!(e = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*e))))
		return -1;
	for (k = 0; k < n; k++) {
		long long len = k + 1 < n ? sc : dc - sc * (long long)(n - 1);
		if (piece(rc, x, axis, sym__rc_num(rc, len), (int)keep, &e[k]) < 0)
			return -1;
	}
	return set_seq(rc, 0, n, e, x->dtype);
}

/* ConcatFromSequence(S, axis, new_axis) -> Concat of the tensors along
 * axis, or (new_axis 1) their stack along a new axis. */
static int r_concat_from_sequence(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tseq *s = need_seq(rc, 0);
	const sym_tval *e0;
	const sym_expr **dims;
	int64_t a, stack;
	int axis, rank, k;
	size_t i;
	if (!s || sym__rc_attr_int(rc, "new_axis", 0, &stack) < 0)
		return -1;
	if (!sym__rc_attr(rc, "axis"))
		return sym__rc_error(rc, "attribute 'axis' is required");
	if (sym__rc_attr_int(rc, "axis", 0, &a) < 0)
		return -1;
	if (stack != 0 && stack != 1)
		return sym__rc_error(rc, "attribute 'new_axis' must be 0 or 1, not %lld", (long long)stack);
	if (!s->n)
		return sym__rc_error(rc, "cannot concatenate an empty sequence");
	e0 = &s->elems[0];
	for (i = 0; i < s->n; i++)
		if (s->elems[i].rank < 0)
			return sym__rc_error(rc, "tensor %zu of the sequence has unknown rank", i);
		else if (s->elems[i].rank != e0->rank)
			return sym__rc_error(rc, "tensors of ranks %d and %d cannot be concatenated",
			                     e0->rank, s->elems[i].rank);
	rank = e0->rank + (int)stack;
	if (!stack && rank < 1)
		return sym__rc_error(rc, "cannot concatenate scalars without new_axis");
	if (sym__rc_axis(rc, a, rank, "axis", &axis) < 0)
		return -1;
	if (!(dims = sym__rc_alloc(rc, (size_t)rank * sizeof(*dims))))
		return -1;
	for (k = 0; k < e0->rank; k++) {
		int o = stack && k >= axis ? k + 1 : k;
		dims[o] = e0->dims[k];
		for (i = 1; i < s->n; i++) {
			const sym_expr *di = s->elems[i].dims[k];
			if (!stack && k == axis)
				dims[o] = sym_expr_add(ctx, dims[o], di);
			else if (sym__rc_require(rc, eq(rc, di, e0->dims[k]), SYM_GUARD_ASSERT,
			                         stack ? "stacked tensors must have one shape"
			                               : "non-axis dims must be equal") < 0)
				return -1;
		}
	}
	if (stack)
		dims[axis] = sym__rc_num(rc, (int64_t)s->n);
	if (sym__rc_set_shape(rc, 0, rank, dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, rc->in[0].dtype);
}

const sym_rule_entry sym__rules_sequence[] = {
    {"SequenceEmpty", "", r_sequence_empty, 0},      {"SequenceConstruct", "", r_sequence_construct, 0},
    {"SequenceInsert", "", r_sequence_insert, 0},    {"SequenceErase", "", r_sequence_erase, 0},
    {"SequenceLength", "", r_sequence_length, 0},    {"SequenceAt", "", r_sequence_at, 0},
    {"SplitToSequence", "", r_split_to_sequence, 0}, {"ConcatFromSequence", "", r_concat_from_sequence, 0},
};
const size_t sym__rules_sequence_count = sizeof(sym__rules_sequence) / sizeof(sym__rules_sequence[0]);
