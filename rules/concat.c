/* Concat, Split, and CANN's Pack and Unpack.  Dims that must agree are
 * checked exactly (assert guards when not provable); Concat and Pack join
 * symbolic values, Split and Unpack cut them, so shape vectors built from
 * Shape outputs stay symbolic. */
#include "rules_private.h"

#include <string.h>

/* Value elements carried by a result at most. */

/* The dim two inputs share: a and b must be equal (proven, refuted, or an
 * assert guard); the result prefers a constant. */
static int same_dim(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const char *reason,
                    const sym_expr **out)
{
	long long c;
	*out = a;
	if (a == b)
		return 0;
	if (sym__rc_require(rc, sym_expr_rel(sym__rc_ctx(rc), SYM_REL_EQ, a, b), SYM_GUARD_ASSERT, reason) <
	    0)
		return -1;
	if (sym_expr_get_si(b, &c) == 1)
		*out = b;
	return 0;
}

/* The value of a Concat on axis a of inputs whose values lie over
 * constant dims: for each index over the dims before the axis, each
 * input's block in turn.  Float elements keep their rounding records. */
static int concat_value(sym_rule_ctx *rc, int a)
{
	long long dims[SYM_RC_VALUE_RANK], numel, outer, block, o;
	const sym_expr **v;
	sym_fmeta *m = NULL;
	size_t i, n = 0, total = 0;
	int k, fl = sym__dtype_is_float(rc->out[0].dtype);
	for (i = 0; i < rc->nin; i++) {
		const sym_tval *t = sym__rc_in(rc, i);
		if (t && !sym__rc_value_dims(t, dims, SYM_RC_VALUE_RANK, &numel) && t->rank != 1)
			return 0;
		if (t)
			total += t->nvalue;
	}
	v = sym__rc_alloc(rc, (total ? total : 1) * sizeof(*v));
	if (!v || (fl && !(m = sym__rc_alloc(rc, (total ? total : 1) * sizeof(*m)))))
		return -1;
	/* the dims before the axis are shared: take them from the output */
	outer = 1;
	for (k = 0; k < a; k++) {
		long long c;
		if (sym_expr_get_si(rc->out[0].dims[k], &c) != 1 || c < 0)
			return 0;
		outer *= c;
	}
	for (o = 0; o < outer; o++)
		for (i = 0; i < rc->nin; i++) {
			const sym_tval *t = sym__rc_in(rc, i);
			long long j;
			if (!t)
				continue;
			block = (long long)t->nvalue / outer;
			if (block * outer != (long long)t->nvalue || n + (size_t)block > total)
				return 0;
			for (j = 0; j < block; j++, n++) {
				v[n] = t->value[o * block + j];
				if (fl)
					m[n] = sym__rc_fmeta_at(t, (size_t)(o * block + j));
			}
		}
	if (n != total)
		return 0;
	return fl ? sym__rc_set_fvalue(rc, 0, n, v, m) : sym__rc_set_value(rc, 0, n, v);
}

/* Concat(inputs..., axis): equal ranks, equal non-axis dims, the axis dim
 * is the sum. */
static int r_concat(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *first = NULL;
	const sym_expr **d;
	int64_t axis;
	size_t i, nv = 0;
	int a, k, with_values = 1;
	if (!sym__rc_attr(rc, "axis"))
		return sym__rc_error(rc, "attribute 'axis' is required");
	if (sym__rc_attr_int(rc, "axis", 0, &axis) < 0)
		return -1;
	for (i = 0; i < rc->nin; i++) {
		const sym_tval *t = sym__rc_in(rc, i);
		if (!t)
			continue;
		if (t->rank < 0)
			return sym__rc_set_unknown_rank(rc, 0) < 0 ? -1 : sym__rc_set_dtype(rc, 0, t->dtype);
		if (!first)
			first = t;
		else if (t->rank != first->rank)
			return sym__rc_error(rc, "input %zu has rank %d, input 0 rank %d", i, t->rank,
			                     first->rank);
	}
	if (!first)
		return sym__rc_error(rc, "needs at least one input");
	if (first->rank == 0)
		return sym__rc_error(rc, "cannot concatenate scalars");
	if (sym__rc_axis(rc, axis, first->rank, "axis", &a) < 0)
		return -1;
	d = sym__rc_alloc(rc, (size_t)first->rank * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < first->rank; k++)
		d[k] = k == a ? sym__zero(ctx) : first->dims[k];
	for (i = 0; i < rc->nin; i++) {
		const sym_tval *t = sym__rc_in(rc, i);
		if (!t)
			continue;
		for (k = 0; k < first->rank; k++) {
			if (k == a)
				d[k] = sym_expr_add(ctx, d[k], t->dims[k]);
			else if (same_dim(rc, d[k], t->dims[k], "Concat inputs must agree off the axis",
			                  &d[k]) < 0)
				return -1;
		}
		if (!t->has_value)
			with_values = 0;
		else
			nv += t->nvalue;
	}
	if (sym__rc_set_shape(rc, 0, first->rank, d) < 0 || sym__rc_set_dtype(rc, 0, first->dtype) < 0)
		return -1;
	if (!with_values || nv > SYM_RC_VALUE_LIMIT)
		return 0;
	return concat_value(rc, a);
}

/* ---- Split -------------------------------------------------------------- */

/* The split sizes: input 1 (opset 13) or the 'split' attribute; returns 1
 * when given. */
static int split_sizes(sym_rule_ctx *rc, size_t *n, const sym_expr *const **v)
{
	const sym_tval *s = sym__rc_in(rc, 1);
	const int64_t *a;
	const sym_expr **e;
	size_t i;
	int r;
	if (s) {
		if (s->rank > 1)
			return sym__rc_error(rc, "the split input must be 1-D, not of rank %d", s->rank);
		return sym__rc_in_value(rc, 1, n, v) < 0 ? -1 : 1;
	}
	if ((r = sym__rc_attr_ints(rc, "split", n, &a)) <= 0)
		return r;
	e = sym__rc_alloc(rc, (*n ? *n : 1) * sizeof(*e));
	if (!e)
		return -1;
	for (i = 0; i < *n; i++)
		e[i] = sym__rc_num(rc, a[i]);
	*v = e;
	return 1;
}

/* Output i's value: elements off..off+len-1 along axis a of x's value
 * (over constant dims). */
static int split_value(sym_rule_ctx *rc, size_t i, const sym_tval *x, int a, long long off, long long len)
{
	long long dims[SYM_RC_VALUE_RANK], numel, outer = 1, inner = 1, o, j, b;
	size_t *v, n = 0;
	int k;
	if (x->rank == 1 && x->has_value)
		dims[0] = (long long)x->nvalue;
	else if (!sym__rc_value_dims(x, dims, SYM_RC_VALUE_RANK, &numel))
		return 0;
	for (k = 0; k < a; k++)
		outer *= dims[k];
	for (k = a + 1; k < x->rank; k++)
		inner *= dims[k];
	if (off + len > dims[a])
		return 0;
	v = sym__rc_alloc(rc, (size_t)(outer * len * inner + 1) * sizeof(*v));
	if (!v)
		return -1;
	for (o = 0; o < outer; o++)
		for (j = off; j < off + len; j++)
			for (b = 0; b < inner; b++)
				v[n++] = (size_t)((o * dims[a] + j) * inner + b);
	return sym__rc_pick_value(rc, i, x, n, v);
}

/* Sets output i to x with dim a replaced by len; when x holds a 1-D value
 * and off/len are constants, the output holds that part of it. */
static int split_out(sym_rule_ctx *rc, size_t i, const sym_tval *x, int a, const sym_expr *off,
                     const sym_expr *len)
{
	const sym_expr **d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d));
	long long o, l;
	if (!d)
		return -1;
	memcpy(d, x->dims, (size_t)x->rank * sizeof(*d));
	d[a] = len;
	if (sym__rc_set_shape(rc, i, x->rank, d) < 0 || sym__rc_set_dtype(rc, i, x->dtype) < 0)
		return -1;
	off = sym__rc_simplify(rc, off);
	len = sym__rc_simplify(rc, len);
	if (!off || !len)
		return -1;
	if (sym_expr_get_si(off, &o) == 1 && sym_expr_get_si(len, &l) == 1 && o >= 0 && l >= 0)
		return split_value(rc, i, x, a, o, l);
	return 0;
}

/* Split(x, split?, axis, num_outputs?): explicit sizes must be nonnegative
 * and sum to the axis dim; without sizes, num_outputs (opset 18) gives
 * chunks of ceil(d/n) with a smaller, positive last one; otherwise the
 * outputs are equal parts and d must divide. */
static int r_split(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr *const *sz;
	const sym_expr *d, *off, *sum;
	int64_t axis, nout_attr;
	size_t n, i;
	int a, given;
	if (!x || sym__rc_attr_int(rc, "axis", 0, &axis) < 0 ||
	    sym__rc_attr_int(rc, "num_outputs", 0, &nout_attr) < 0 || (given = split_sizes(rc, &n, &sz)) < 0)
		return -1;
	if (x->rank == 0)
		return sym__rc_error(rc, "cannot split a scalar");
	if (sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	if (rc->nout == 0)
		return sym__rc_error(rc, "needs at least one output");
	d = x->dims[a];
	if (given && sym__rc_attr(rc, "num_outputs"))
		return sym__rc_error(rc, "give either the split sizes or 'num_outputs', not both");
	if (given) {
		if (n != rc->nout)
			return sym__rc_error(rc, "%zu split sizes for %zu outputs", n, rc->nout);
		sum = sym__zero(ctx);
		for (i = 0; i < n; i++) {
			if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, sz[i], sym__zero(ctx)),
			                    SYM_GUARD_ASSERT, "split sizes must be nonnegative") < 0)
				return -1;
			if (split_out(rc, i, x, a, sum, sz[i]) < 0)
				return -1;
			sum = sym_expr_add(ctx, sum, sz[i]);
		}
		return sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, sum, d), SYM_GUARD_ASSERT,
		                       "split sizes must add up to the dim");
	}
	if (sym__rc_attr(rc, "num_outputs")) {
		const sym_expr *chunk, *last;
		if (nout_attr < 1)
			return sym__rc_error(rc, "num_outputs must be positive, not %lld",
			                     (long long)nout_attr);
		if ((size_t)nout_attr != rc->nout)
			return sym__rc_error(rc, "num_outputs is %lld but the node has %zu outputs",
			                     (long long)nout_attr, rc->nout);
		n = rc->nout;
		chunk = sym__rc_simplify(
		    rc, sym_expr_ceil(ctx, sym_expr_div(ctx, d, sym__rc_num(rc, (int64_t)n))));
		last = sym_expr_sub(ctx, d, sym_expr_mul(ctx, chunk, sym__rc_num(rc, (int64_t)n - 1)));
		if (n > 1 &&
		    sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, last, sym__one(ctx)), SYM_GUARD_ASSERT,
		                    "the last chunk of num_outputs must not be empty") < 0)
			return -1;
		for (off = sym__zero(ctx), i = 0; i < n; i++) {
			if (split_out(rc, i, x, a, off, i + 1 < n ? chunk : last) < 0)
				return -1;
			off = sym_expr_add(ctx, off, chunk);
		}
		return 0;
	}
	n = rc->nout;
	if (n > 1 && sym__rc_require_divisible(rc, d, sym__rc_num(rc, (int64_t)n),
	                                       "the dim must split into equal parts") < 0)
		return -1;
	for (off = sym__zero(ctx), i = 0; i < n; i++) {
		const sym_expr *part = sym_expr_div(ctx, d, sym__rc_num(rc, (int64_t)n));
		if (split_out(rc, i, x, a, off, part) < 0)
			return -1;
		off = sym_expr_add(ctx, off, part);
	}
	return 0;
}

/* ---- Pack / Unpack ------------------------------------------------------ */

/* Pack(x_1..x_N, N, axis): N inputs of one shape stacked on a new axis in
 * [-(r+1), r]. */
static int r_pack(sym_rule_ctx *rc)
{
	const sym_tval *x;
	const sym_expr **d;
	int64_t axis, nattr;
	size_t i, nv = 0;
	int a, k, r, with_values = 1;
	if (rc->nin == 0)
		return sym__rc_error(rc, "needs at least one input");
	if (sym__rc_attr_int(rc, "axis", 0, &axis) < 0 ||
	    sym__rc_attr_int(rc, "N", (int64_t)rc->nin, &nattr) < 0)
		return -1;
	if (nattr != (int64_t)rc->nin)
		return sym__rc_error(rc, "attribute N is %lld but the node has %zu inputs", (long long)nattr,
		                     rc->nin);
	for (i = 0; i < rc->nin; i++) {
		const sym_tval *t = sym__rc_need(rc, i);
		if (!t)
			return -1;
		if (t->rank < 0)
			return sym__rc_set_unknown_rank(rc, 0) < 0 ? -1 : sym__rc_set_dtype(rc, 0, t->dtype);
	}
	x = &rc->in[0];
	r = x->rank + 1;
	if (sym__rc_axis(rc, axis, r, "axis", &a) < 0)
		return -1;
	d = sym__rc_alloc(rc, (size_t)r * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < x->rank; k++)
		d[k + (k >= a)] = x->dims[k];
	d[a] = sym__rc_num(rc, (int64_t)rc->nin);
	for (i = 0; i < rc->nin; i++) {
		const sym_tval *t = &rc->in[i];
		if (t->rank != x->rank)
			return sym__rc_error(rc, "input %zu has rank %d, input 0 rank %d", i, t->rank,
			                     x->rank);
		for (k = 0; k < x->rank; k++)
			if (same_dim(rc, d[k + (k >= a)], t->dims[k], "Pack inputs must have one shape",
			             &d[k + (k >= a)]) < 0)
				return -1;
		if (!t->has_value)
			with_values = 0;
		nv += t->nvalue;
	}
	if (sym__rc_set_shape(rc, 0, r, d) < 0 || sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	/* in row-major order, stacking on axis a interleaves the inputs'
	 * blocks after the dims before a, as a Concat does */
	if (!with_values || nv > SYM_RC_VALUE_LIMIT)
		return 0;
	return concat_value(rc, a);
}

/* Unpack(x, num, axis): num outputs, each x without the axis dim, which
 * must equal num. */
static int r_unpack(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr **d;
	int64_t axis, num;
	int a, k;
	size_t i;
	if (!x || sym__rc_attr_int(rc, "axis", 0, &axis) < 0 ||
	    sym__rc_attr_int(rc, "num", (int64_t)rc->nout, &num) < 0)
		return -1;
	if (x->rank == 0)
		return sym__rc_error(rc, "cannot unpack a scalar");
	if (sym__rc_axis(rc, axis, x->rank, "axis", &a) < 0)
		return -1;
	if (num < 1)
		return sym__rc_error(rc, "attribute num must be positive, not %lld", (long long)num);
	if (num != (int64_t)rc->nout)
		return sym__rc_error(rc, "attribute num is %lld but the node has %zu outputs", (long long)num,
		                     rc->nout);
	if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, x->dims[a], sym__rc_num(rc, num)),
	                    SYM_GUARD_ASSERT, "the unpacked dim must equal num") < 0)
		return -1;
	d = sym__rc_alloc(rc, (size_t)x->rank * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < x->rank - 1; k++)
		d[k] = x->dims[k + (k >= a)];
	for (i = 0; i < rc->nout; i++) {
		if (sym__rc_set_shape(rc, i, x->rank - 1, d) < 0 || sym__rc_set_dtype(rc, i, x->dtype) < 0)
			return -1;
		if (x->has_value && x->rank == 1 && x->nvalue == rc->nout &&
		    sym__rc_pick_value(rc, i, x, 1, &i) < 0)
			return -1;
	}
	return 0;
}

const sym_rule_entry sym__rules_concat[] = {
    {"Concat", "", r_concat, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"Split", "", r_split, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"Pack", "cann", r_pack, SYM_RULE_ANY_DOMAIN},
    {"Stack", "", r_pack, SYM_RULE_ANY_DOMAIN},
    {"Unpack", "cann", r_unpack, SYM_RULE_ANY_DOMAIN},
};
const size_t sym__rules_concat_count = sizeof(sym__rules_concat) / sizeof(sym__rules_concat[0]);
