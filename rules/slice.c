/* Slicing: ONNX Slice (inputs from opset 10, attributes before), CANN
 * Slice/SliceD (offsets and size) and TensorFlow's StridedSlice with its
 * masks.  Bounds may be symbolic; clamping is exact (min/max forms that the
 * simplifier reduces with the symbols' ranges).  On 1-D integer tensors with
 * known values the sliced values are computed too (Shape -> Slice). */
#include "rules_private.h"

#include <limits.h>
#include <string.h>

static const sym_expr *num(sym_rule_ctx *rc, int64_t v)
{
	return sym__rc_num(rc, v);
}

static const sym_expr *rel(sym_rule_ctx *rc, sym_relop op, const sym_expr *a, const sym_expr *b)
{
	return sym_expr_rel(sym__rc_ctx(rc), op, a, b);
}

static const sym_expr *min2(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	const sym_expr *ab[2];
	ab[0] = a, ab[1] = b;
	return sym_expr_min(sym__rc_ctx(rc), 2, ab);
}

static const sym_expr *max2(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b)
{
	const sym_expr *ab[2];
	ab[0] = a, ab[1] = b;
	return sym_expr_max(sym__rc_ctx(rc), 2, ab);
}

/* 1 when x is a constant at least INT64_MAX, -1 when at most INT64_MIN,
 * 0 otherwise.  A dim never exceeds INT64_MAX, so such bounds mean "past
 * the end" and "before the start" for every dim. */
static int huge(sym_rule_ctx *rc, const sym_expr *x)
{
	long long v;
	int r = sym_expr_get_si(x, &v);
	if (r == 1)
		return v == LLONG_MAX ? 1 : v == LLONG_MIN ? -1 : 0;
	if (r == 2)
		return sym__rc_prove(rc, rel(rc, SYM_REL_GT, x, sym__zero(sym__rc_ctx(rc)))) == SYM_TRUE ? 1
		                                                                                         : -1;
	return 0;
}

/* x < 0 ? x + d : x.  When the sign of x is not decided, the hints choose
 * a branch (an expect guard); without hints the exact form
 * x + d*min(max(-x, 0), 1) is used. */
static const sym_expr *wrap(sym_rule_ctx *rc, const sym_expr *x, const sym_expr *d)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *nonneg = rel(rc, SYM_REL_GE, x, sym__zero(ctx)),
	               *neg = rel(rc, SYM_REL_LT, x, sym__zero(ctx));
	int64_t h;
	if (sym__rc_prove(rc, nonneg) == SYM_TRUE)
		return x;
	if (sym__rc_prove(rc, neg) == SYM_TRUE)
		return sym_expr_add(ctx, x, d);
	if (sym__rc_has_hints(rc) && sym__rc_hint_value(rc, x, &h)) {
		if (h >= 0)
			return sym__rc_require(rc, nonneg, SYM_GUARD_EXPECT,
			                       "slice bound taken as nonnegative") < 0
			           ? NULL
			           : x;
		if (sym__rc_require(rc, neg, SYM_GUARD_EXPECT,
		                    "slice bound taken as negative (from the end)") < 0)
			return NULL;
		return sym_expr_add(ctx, x, d);
	}
	return sym_expr_add(
	    ctx, x,
	    sym_expr_mul(ctx, d, min2(rc, max2(rc, sym_expr_neg(ctx, x), sym__zero(ctx)), sym__one(ctx))));
}

/* clamp(wrap(x), lo, d + hi_off). */
static const sym_expr *clamp_index(sym_rule_ctx *rc, const sym_expr *x, const sym_expr *d, int64_t lo,
                                   int64_t hi_off)
{
	const sym_expr *hi = sym_expr_add(sym__rc_ctx(rc), d, num(rc, hi_off)), *w;
	int h = huge(rc, x);
	if (h > 0)
		return hi;
	if (h < 0)
		return num(rc, lo);
	if (!(w = wrap(rc, x, d)))
		return NULL;
	return sym__rc_simplify(rc, max2(rc, num(rc, lo), min2(rc, w, hi)));
}

enum { CLAMP_ONNX, CLAMP_TF };

/* Start and length of slicing a dim d with step != 0 from begin b and end
 * e (NULL: masked, the full range in the step's direction).  ONNX clamps
 * a forward slice to [0, d], a backward start to [0, d - 1] and end to
 * [-1, d - 1]; TensorFlow clamps both bounds of a backward slice to
 * [-1, d - 1].  len = max(ceil((end - start)/step), 0). */
static int slice_dim(sym_rule_ctx *rc, const sym_expr *d, const sym_expr *b, const sym_expr *e, int64_t step,
                     int mode, const sym_expr **start, const sym_expr **len)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *s, *t, *k, *span;
	if (step > 0) {
		s = b ? clamp_index(rc, b, d, 0, 0) : sym__zero(ctx);
		t = e ? clamp_index(rc, e, d, 0, 0) : d;
		k = num(rc, step);
		span = sym_expr_sub(ctx, t, s);
	} else {
		s = b ? clamp_index(rc, b, d, mode == CLAMP_TF ? -1 : 0, -1)
		      : sym_expr_sub(ctx, d, sym__one(ctx));
		t = e ? clamp_index(rc, e, d, -1, -1) : sym__minus_one(ctx);
		k = sym_expr_neg(ctx, num(rc, step));
		span = sym_expr_sub(ctx, s, t);
	}
	if (!s || !t)
		return -1;
	/* ceil(span/k) = (span + k - 1)//k */
	*len =
	    max2(rc, sym_expr_floordiv(ctx, sym_expr_add(ctx, span, sym_expr_sub(ctx, k, sym__one(ctx))), k),
	         sym__zero(ctx));
	/* an empty dim: ONNX's backward clamp would leave one element */
	if (step < 0 && mode == CLAMP_ONNX &&
	    sym__rc_prove(rc, rel(rc, SYM_REL_GE, d, sym__one(ctx))) != SYM_TRUE)
		*len = min2(rc, *len, d);
	*start = s;
	*len = sym__rc_simplify(rc, *len);
	return *len ? 0 : -1;
}

/* The constant value of e, or 0 (with *ok = 0) when it is not one. */
static int64_t const_or(const sym_expr *e, int *ok)
{
	long long v;
	if (e && sym_expr_get_si(e, &v) == 1)
		return v;
	*ok = 0;
	return 0;
}

/* Output value of slicing the 1-D value of x from start with step and len
 * elements (all constants); nothing when one is not constant. */
static int slice_value(sym_rule_ctx *rc, size_t out, const sym_tval *x, const sym_expr *start,
                       const sym_expr *len, int64_t step)
{
	size_t *v;
	int ok = 1;
	int64_t s = const_or(sym__rc_simplify(rc, start), &ok), n = const_or(len, &ok), i;
	if (!ok || !x->has_value || n < 0 || (size_t)n > x->nvalue)
		return 0;
	v = sym__rc_alloc(rc, (size_t)(n ? n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		int64_t j = s + i * step;
		if (j < 0 || (size_t)j >= x->nvalue)
			return 0;
		v[i] = (size_t)j;
	}
	return sym__rc_pick_value(rc, out, x, (size_t)n, v);
}

/* The value of an ONNX Slice of x (any rank, its dims constants): along
 * dim k the elements start[k], start[k] + step[k], ... (len[k] of them;
 * start NULL: the whole dim).  Nothing when a bound is not a constant. */
static int slice_value_nd(sym_rule_ctx *rc, const sym_tval *x, const sym_expr *const *start,
                          const sym_expr *const *len, const int64_t *step)
{
	long long dims[SYM_RC_VALUE_RANK], numel, s[SYM_RC_VALUE_RANK], n[SYM_RC_VALUE_RANK],
	    idx[SYM_RC_VALUE_RANK], total = 1, i;
	size_t *v;
	int k, ok = 1, r = x->rank;
	if (!sym__rc_value_dims(x, dims, SYM_RC_VALUE_RANK, &numel))
		return 0;
	for (k = 0; k < r; k++) {
		s[k] = start[k] ? const_or(sym__rc_simplify(rc, start[k]), &ok) : 0;
		n[k] = start[k] ? const_or(len[k], &ok) : dims[k];
		if (!ok || n[k] < 0 ||
		    (n[k] > 0 && (s[k] < 0 || s[k] >= dims[k] || s[k] + (n[k] - 1) * step[k] < 0 ||
		                  s[k] + (n[k] - 1) * step[k] >= dims[k])))
			return 0;
		total *= n[k];
	}
	v = sym__rc_alloc(rc, (size_t)(total ? total : 1) * sizeof(*v));
	if (!v)
		return -1;
	memset(idx, 0, sizeof(idx));
	for (i = 0; i < total; i++) {
		long long src = 0;
		for (k = 0; k < r; k++)
			src = src * dims[k] + s[k] + idx[k] * step[k];
		v[i] = (size_t)src;
		for (k = r - 1; k >= 0; k--) {
			if (++idx[k] < n[k])
				break;
			idx[k] = 0;
		}
	}
	return sym__rc_pick_value(rc, 0, x, (size_t)total, v);
}

/* Expressions of an ints attribute. */
static const sym_expr **attr_exprs(sym_rule_ctx *rc, const char *name, size_t *n, int required)
{
	const int64_t *v;
	const sym_expr **e;
	size_t i;
	int r = sym__rc_attr_ints(rc, name, n, &v);
	if (r < 0)
		return NULL;
	if (!r) {
		if (required)
			sym__rc_error(rc, "attribute '%s' is required", name);
		return NULL;
	}
	e = sym__rc_alloc(rc, (*n ? *n : 1) * sizeof(*e));
	if (!e)
		return NULL;
	for (i = 0; i < *n; i++)
		if (!(e[i] = num(rc, v[i])))
			return NULL;
	return e;
}

/* Constant ints of input i (NULL: absent) or attribute name. */
static int ints_of(sym_rule_ctx *rc, size_t i, const char *name, int from_inputs, size_t *n,
                   const int64_t **v)
{
	int64_t *w;
	if (from_inputs) {
		if (!sym__rc_in(rc, i)) {
			*n = 0, *v = NULL;
			return 0;
		}
		if (sym__rc_in_ints(rc, i, n, &w) < 0)
			return -1;
		*v = w;
		return 1;
	}
	return sym__rc_attr_ints(rc, name, n, v);
}

/* ONNX Slice(data, starts, ends, axes, steps), or the attribute form. */
static int r_slice(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *const *starts, *const *ends, **dims, **vstart, **vlen;
	const int64_t *axes, *steps;
	int64_t *vstep;
	size_t n, ne, na, ns, i, j;
	int inputs, r, *ax, k;
	if (!x)
		return -1;
	inputs = sym__rc_in(rc, 1) != NULL || !sym__rc_attr(rc, "starts");
	if (inputs) {
		if (sym__rc_in_value(rc, 1, &n, &starts) < 0 || sym__rc_in_value(rc, 2, &ne, &ends) < 0)
			return -1;
	} else {
		if (!(starts = attr_exprs(rc, "starts", &n, 1)) || !(ends = attr_exprs(rc, "ends", &ne, 1)))
			return -1;
	}
	if ((r = ints_of(rc, 3, "axes", inputs, &na, &axes)) < 0)
		return -1;
	if (!r)
		na = n;
	if (inputs && (r = ints_of(rc, 4, "steps", 1, &ns, &steps)) < 0)
		return -1;
	if (!inputs || !r)
		steps = NULL, ns = n;
	if (ne != n || na != n || ns != n)
		return sym__rc_error(
		    rc, "starts, ends, axes and steps must have the same length (%zu, %zu, %zu, %zu)", n, ne,
		    na, ns);
	for (i = 0; i < n; i++)
		if (steps && steps[i] == 0)
			return sym__rc_error(rc, "step %zu is zero", i);
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	ax = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*ax));
	dims = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*dims));
	vstart = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*vstart));
	vlen = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*vlen));
	vstep = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*vstep));
	if (!ax || !dims || !vstart || !vlen || !vstep)
		return -1;
	for (k = 0; k < x->rank; k++)
		vstep[k] = 1;
	for (k = 0; k < x->rank; k++)
		dims[k] = x->dims[k];
	for (i = 0; i < n; i++) {
		int64_t step = steps ? steps[i] : 1;
		const sym_expr *start, *len;
		if (sym__rc_axis(rc, axes ? axes[i] : (int64_t)i, x->rank, "axis", &ax[i]) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (ax[j] == ax[i])
				return sym__rc_error(rc, "axis %d is sliced twice", ax[i]);
		if (slice_dim(rc, x->dims[ax[i]], starts[i], ends[i], step, CLAMP_ONNX, &start, &len) < 0)
			return -1;
		dims[ax[i]] = len;
		vstart[ax[i]] = start, vlen[ax[i]] = len, vstep[ax[i]] = step;
	}
	if (sym__rc_set_shape(rc, 0, x->rank, dims) < 0)
		return -1;
	if (x->has_value && x->rank == 1 && !vstart[0])
		return sym__rc_pass_value(rc, 0, x);
	if (x->has_value && x->rank == 1)
		return slice_value(rc, 0, x, vstart[0], vlen[0], vstep[0]);
	return x->has_value ? slice_value_nd(rc, x, vstart, vlen, vstep) : 0;
}

/* CANN Slice(x, offsets, size) and SliceD (attributes): out = size, or
 * d - offset for size -1; guards 0 <= offset and offset + out <= d. */
static int cann_slice(sym_rule_ctx *rc, int from_attrs)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *const *off, *const *size, **dims;
	size_t n, ns;
	int k;
	if (!x)
		return -1;
	if (from_attrs) {
		if (!(off = attr_exprs(rc, "offsets", &n, 1)) || !(size = attr_exprs(rc, "size", &ns, 1)))
			return -1;
	} else if (sym__rc_in_value(rc, 1, &n, &off) < 0 || sym__rc_in_value(rc, 2, &ns, &size) < 0) {
		return -1;
	}
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	if (n != (size_t)x->rank || ns != (size_t)x->rank)
		return sym__rc_error(rc, "offsets and size must have one value per dim (%d), not %zu and %zu",
		                     x->rank, n, ns);
	dims = sym__rc_alloc(rc, (size_t)(x->rank ? x->rank : 1) * sizeof(*dims));
	if (!dims)
		return -1;
	for (k = 0; k < x->rank; k++) {
		const sym_expr *d = x->dims[k], *o = off[k], *s = size[k];
		long long sv;
		int c = sym_expr_get_si(s, &sv) == 1;
		if (c && sv < -1)
			return sym__rc_error(rc, "size %lld of dim %d is invalid (-1 or at least 0)", sv, k);
		if (sym__rc_require(rc, rel(rc, SYM_REL_GE, o, sym__zero(ctx)), SYM_GUARD_ASSERT,
		                    "slice offsets must be nonnegative") < 0)
			return -1;
		if (c && sv == -1) {
			s = sym_expr_sub(ctx, d, o);
		} else if (sym__rc_require(rc, rel(rc, SYM_REL_GE, s, sym__zero(ctx)), SYM_GUARD_ASSERT,
		                           "slice size must be nonnegative") < 0) {
			return -1;
		}
		if (sym__rc_require(rc, rel(rc, SYM_REL_LE, sym_expr_add(ctx, o, s), d), SYM_GUARD_ASSERT,
		                    "slice offset + size must not pass the dim") < 0)
			return -1;
		dims[k] = s;
	}
	if (sym__rc_set_shape(rc, 0, x->rank, dims) < 0)
		return -1;
	if (x->rank == 1 && x->has_value)
		return slice_value(rc, 0, x, off[0], rc->out[0].dims[0], 1);
	return 0;
}

static int r_cann_slice(sym_rule_ctx *rc)
{
	return cann_slice(rc, 0);
}
static int r_cann_slice_d(sym_rule_ctx *rc)
{
	return cann_slice(rc, 1);
}

/* ---- StridedSlice --------------------------------------------------------- */

enum { GATHER_NEW = -1, GATHER_SHRINK = -2 };

/* TensorFlow's StridedSlice: the sparse spec (begin, end, strides and the
 * masks) is expanded into one entry per input dim (the ellipsis covers the
 * dims not named; without one, one is implied at the end), each dim is
 * sliced with TensorFlow's clamping, shrunk dims are dropped and new axes
 * inserted as 1. */
static int strided_slice(sym_rule_ctx *rc, int from_attrs)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *const *begin, *const *end, **dense_b, **dense_e, **pdims, **dims, *vstart = NULL,
	                                                                                  *vlen = NULL;
	const int64_t *strides;
	int64_t masks[5], *dense_s, vstep = 1;
	static const char *const mask_names[5] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
	                                          "shrink_axis_mask"};
	unsigned long long dsm = 0;
	size_t n, ne, ns, sdims, i, ngather = 0;
	int *gather, full = 0, k, r = 0, after = 0, seen = 0;
	if (!x)
		return -1;
	if (from_attrs) {
		if (!(begin = attr_exprs(rc, "begin", &n, 1)) || !(end = attr_exprs(rc, "end", &ne, 1)) ||
		    sym__rc_attr_ints(rc, "strides", &ns, &strides) < 0)
			return -1;
		if (!sym__rc_attr(rc, "strides"))
			return sym__rc_error(rc, "attribute 'strides' is required");
	} else {
		int64_t *sv;
		if (sym__rc_in_value(rc, 1, &n, &begin) < 0 || sym__rc_in_value(rc, 2, &ne, &end) < 0)
			return -1;
		if (sym__rc_in(rc, 3)) {
			if (sym__rc_in_ints(rc, 3, &ns, &sv) < 0)
				return -1;
			strides = sv;
		} else {
			ns = n, strides = NULL;
		}
	}
	for (k = 0; k < 5; k++) {
		if (sym__rc_attr_int(rc, mask_names[k], 0, &masks[k]) < 0)
			return -1;
		if (masks[k] < 0)
			return sym__rc_error(rc, "attribute '%s' must be nonnegative", mask_names[k]);
	}
	if (ne != n || ns != n)
		return sym__rc_error(rc, "begin, end and strides must have the same length (%zu, %zu, %zu)",
		                     n, ne, ns);
	if (n > 62)
		return sym__rc_error(rc, "at most 62 slice entries are supported, not %zu", n);
	for (i = 0; i < n; i++)
		if (strides && strides[i] == 0)
			return sym__rc_error(rc, "stride %zu is zero", i);
	if (masks[2] & (masks[2] - 1))
		return sym__rc_error(rc, "attribute 'ellipsis_mask' has more than one ellipsis");
	if (sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	if (x->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	/* the sparse spec, with the implied trailing ellipsis */
	sdims = n;
	for (i = 0; i < n; i++) {
		if (seen && (masks[3] >> i & 1))
			after++;
		if (masks[2] >> i & 1)
			seen = 1;
	}
	if (!seen)
		masks[2] |= 1LL << sdims, sdims++;
	dense_b = sym__rc_alloc(rc, (size_t)(x->rank + 1) * sizeof(*dense_b));
	dense_e = sym__rc_alloc(rc, (size_t)(x->rank + 1) * sizeof(*dense_e));
	dense_s = sym__rc_alloc(rc, (size_t)(x->rank + 1) * sizeof(*dense_s));
	pdims = sym__rc_alloc(rc, (size_t)(x->rank + 1) * sizeof(*pdims));
	gather = sym__rc_alloc(rc, (sdims + (size_t)x->rank + 1) * sizeof(*gather));
	if (!dense_b || !dense_e || !dense_s || !pdims || !gather)
		return -1;
	for (i = 0; i < sdims; i++) {
		if (masks[2] >> i & 1) {
			int next = x->rank - (int)(sdims - i) + 1 + after;
			if (next > x->rank)
				next = x->rank;
			for (; full < next; full++) {
				dense_b[full] = dense_e[full] = NULL;
				dense_s[full] = 1;
				gather[ngather++] = full;
			}
		} else if (masks[3] >> i & 1) {
			gather[ngather++] = GATHER_NEW;
		} else {
			if (full == x->rank)
				return sym__rc_error(rc, "slice entry %zu is past the input's %d dims", i,
				                     x->rank);
			dense_b[full] = masks[0] >> i & 1 ? NULL : begin[i];
			dense_e[full] = masks[1] >> i & 1 ? NULL : end[i];
			dense_s[full] = strides ? strides[i] : 1;
			if (masks[4] >> i & 1) {
				/* a shrunk dim takes begin whatever the mask */
				dense_b[full] = begin[i];
				dsm |= 1ULL << full;
				gather[ngather++] = GATHER_SHRINK;
			} else {
				gather[ngather++] = full;
			}
			full++;
		}
	}
	for (k = 0; k < x->rank; k++) {
		const sym_expr *d = x->dims[k], *start;
		if (k >= full) {
			/* dims the spec does not reach are kept */
			pdims[k] = d;
			continue;
		}
		if (dsm >> k & 1) {
			const sym_expr *w;
			if (dense_s[k] < 0)
				return sym__rc_error(rc, "a shrunk axis needs a positive stride");
			if (huge(rc, dense_b[k]))
				return sym__rc_error(rc, "shrink index of dim %d is out of range", k);
			if (!(w = wrap(rc, dense_b[k], d)))
				return -1;
			if (sym__rc_require(rc,
			                    sym_expr_and(ctx, rel(rc, SYM_REL_GE, w, sym__zero(ctx)),
			                                 rel(rc, SYM_REL_LT, w, d)),
			                    SYM_GUARD_ASSERT, "shrink index must be inside the dim") < 0)
				return -1;
			start = w;
			pdims[k] = sym__one(ctx);
			if (k == 0)
				vstart = start, vlen = sym__one(ctx), vstep = 1;
			continue;
		}
		if (slice_dim(rc, d, dense_b[k], dense_e[k], dense_s[k], CLAMP_TF, &start, &pdims[k]) < 0)
			return -1;
		if (k == 0)
			vstart = start, vlen = pdims[k], vstep = dense_s[k];
	}
	dims = sym__rc_alloc(rc, (ngather + 1) * sizeof(*dims));
	if (!dims)
		return -1;
	for (i = 0; i < ngather; i++) {
		if (gather[i] == GATHER_SHRINK)
			continue;
		dims[r++] = gather[i] == GATHER_NEW ? sym__one(ctx) : pdims[gather[i]];
	}
	/* input dims past the spec (only when the ellipsis expanded short) */
	for (k = full; k < x->rank; k++)
		dims[r++] = pdims[k];
	if (sym__rc_set_shape(rc, 0, r, dims) < 0)
		return -1;
	if (x->rank == 1 && x->has_value && vlen)
		return slice_value(rc, 0, x, vstart, sym__rc_simplify(rc, vlen), vstep);
	return 0;
}

static int r_strided_slice(sym_rule_ctx *rc)
{
	return strided_slice(rc, 0);
}
static int r_strided_slice_d(sym_rule_ctx *rc)
{
	return strided_slice(rc, 1);
}

const sym_rule_entry sym__rules_slice[] = {
    {"Slice", "", r_slice, SYM_RULE_PREDICATES},
    {"Slice", "cann", r_cann_slice, 0},
    {"SliceD", "cann", r_cann_slice_d, SYM_RULE_ANY_DOMAIN},
    {"StridedSlice", "cann", r_strided_slice, SYM_RULE_ANY_DOMAIN},
    {"StridedSliceD", "cann", r_strided_slice_d, SYM_RULE_ANY_DOMAIN},
};
const size_t sym__rules_slice_count = sizeof(sym__rules_slice) / sizeof(sym__rules_slice[0]);
