/* Gather, GatherElements, GatherND and the Scatter operators.  Gather on a
 * shape tensor with constant indices also gives the gathered symbolic
 * value (Shape -> Gather(-1) is the last dim).  Constant or symbolic index
 * values are checked against the axis: out of range is an error for a
 * constant dim and an assert guard for a symbolic one. */
#include "rules_private.h"

#include <string.h>

/* Index values v[off], v[off + stride], ... (n of them) address an axis of
 * size d: each must lie in [-d, d).  Constant indices give one guard on d
 * (d >= max + 1 and d >= -min), symbolic ones a guard each. */
static int index_guard(sym_rule_ctx *rc, size_t n, const sym_expr *const *v, size_t off, size_t stride,
                       const sym_expr *d)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	long long lo = 0, hi = 0, c, dc;
	int have = 0;
	size_t i;
	for (i = off; i < n; i += stride) {
		if (sym_expr_get_si(v[i], &c) == 1) {
			if (!have || c < lo)
				lo = c;
			if (!have || c > hi)
				hi = c;
			have = 1;
			continue;
		}
		if (sym__rc_require(
		        rc,
		        sym_expr_and(ctx, sym_expr_rel(ctx, SYM_REL_GE, v[i], sym_expr_neg(ctx, d)),
		                     sym_expr_rel(ctx, SYM_REL_LT, v[i], d)),
		        SYM_GUARD_ASSERT, "index values must lie in [-dim, dim) of their axis") < 0)
			return -1;
	}
	if (!have)
		return 0;
	if (sym_expr_get_si(d, &dc) == 1 && (hi >= dc || lo < -dc))
		return sym__rc_error(rc, "index %lld is out of range for an axis of size %lld",
		                     hi >= dc ? hi : lo, dc);
	{
		const sym_expr *need[2];
		need[0] = sym_expr_add(ctx, sym_expr_from_si(ctx, hi), sym__one(ctx));
		need[1] = sym_expr_neg(ctx, sym_expr_from_si(ctx, lo));
		return sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_GE, d, sym_expr_max(ctx, 2, need)),
		                       SYM_GUARD_ASSERT,
		                       "constant indices must lie in [-dim, dim) of their axis");
	}
}

/* Gathers a value: out[(a*nidx + j)*B + b] = data[(a*D + idx[j])*B + b],
 * when the data's dims and the indices are constants. */
static int gather_value(sym_rule_ctx *rc, const sym_tval *data, const sym_tval *idx, int axis)
{
	long long dims[64], numel, A = 1, B = 1, D, a, b;
	size_t *v, j, o = 0, nidx = idx->nvalue;
	int k;
	if (!data->has_value || !idx->has_value || !sym__rc_const_dims(data, dims, 64, &numel) ||
	    (size_t)numel != data->nvalue)
		return 0;
	for (k = 0; k < axis; k++)
		A *= dims[k];
	for (k = axis + 1; k < data->rank; k++)
		B *= dims[k];
	D = dims[axis];
	if (nidx > SYM_RC_VALUE_LIMIT || (long long)nidx * A * B > SYM_RC_VALUE_LIMIT)
		return 0;
	for (j = 0; j < nidx; j++) {
		long long c;
		if (sym_expr_get_si(idx->value[j], &c) != 1)
			return 0;
	}
	v = sym__rc_alloc(rc, ((size_t)(A * B) * nidx + 1) * sizeof(*v));
	if (!v)
		return -1;
	for (a = 0; a < A; a++)
		for (j = 0; j < nidx; j++) {
			long long c;
			sym_expr_get_si(idx->value[j], &c);
			if (c < 0)
				c += D;
			for (b = 0; b < B; b++)
				v[o++] = (size_t)((a * D + c) * B + b);
		}
	return sym__rc_pick_value(rc, 0, data, o, v);
}

/* Gather(data, indices; axis): data.shape[:axis] + indices.shape +
 * data.shape[axis+1:]. */
static int r_gather(sym_rule_ctx *rc)
{
	const sym_tval *data = sym__rc_need(rc, 0), *idx = sym__rc_need(rc, 1);
	const sym_expr **d;
	int64_t axis;
	int a, k, r, n = 0;
	if (!data || !idx || sym__rc_attr_int(rc, "axis", 0, &axis) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, data->dtype) < 0)
		return -1;
	if (data->rank < 0 || idx->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	r = data->rank;
	if (r == 0)
		return sym__rc_error(rc, "data must have rank >= 1, not a scalar");
	if (sym__rc_axis(rc, axis, r, "axis", &a) < 0)
		return -1;
	if (idx->has_value && index_guard(rc, idx->nvalue, idx->value, 0, 1, data->dims[a]) < 0)
		return -1;
	d = sym__rc_alloc(rc, (size_t)(r + idx->rank) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < a; k++)
		d[n++] = data->dims[k];
	for (k = 0; k < idx->rank; k++)
		d[n++] = idx->dims[k];
	for (k = a + 1; k < r; k++)
		d[n++] = data->dims[k];
	if (sym__rc_set_shape(rc, 0, n, d) < 0)
		return -1;
	return gather_value(rc, data, idx, a);
}

/* GatherElements(data, indices; axis): the shape of indices, which has
 * the data's rank and dims no larger than the data's outside the axis. */
static int r_gather_elements(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *data = sym__rc_need(rc, 0), *idx = sym__rc_need(rc, 1);
	int64_t axis;
	int a, k;
	if (!data || !idx || sym__rc_attr_int(rc, "axis", 0, &axis) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, data->dtype) < 0)
		return -1;
	if (data->rank < 0 || idx->rank < 0) {
		if (sym__rc_set_shape(rc, 0, idx->rank, idx->dims) < 0)
			return -1;
		if (data->rank >= 0 && data->rank > 0 && sym__rc_axis(rc, axis, data->rank, "axis", &a) < 0)
			return -1;
		return 0;
	}
	if (data->rank == 0)
		return sym__rc_error(rc, "data must have rank >= 1, not a scalar");
	if (idx->rank != data->rank)
		return sym__rc_error(rc, "indices have rank %d, the data rank %d (they must be equal)",
		                     idx->rank, data->rank);
	if (sym__rc_axis(rc, axis, data->rank, "axis", &a) < 0)
		return -1;
	for (k = 0; k < data->rank; k++)
		if (k != a &&
		    sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_LE, idx->dims[k], data->dims[k]),
		                    SYM_GUARD_ASSERT,
		                    "indices dims must not exceed the data dims outside the axis") < 0)
			return -1;
	if (idx->has_value && index_guard(rc, idx->nvalue, idx->value, 0, 1, data->dims[a]) < 0)
		return -1;
	if (sym__rc_set_shape(rc, 0, idx->rank, idx->dims) < 0)
		return -1;
	/* along a 1-D tensor GatherElements is Gather */
	return data->rank == 1 ? gather_value(rc, data, idx, 0) : 0;
}

/* The last dim of indices for GatherND / ScatterND: a constant m. */
static int tuple_len(sym_rule_ctx *rc, const sym_tval *idx, long long *m)
{
	if (idx->rank < 1)
		return sym__rc_error(rc, "indices must have rank >= 1");
	if (sym_expr_get_si(idx->dims[idx->rank - 1], m) != 1)
		return sym__rc_error(rc, "the last dim of indices must be a known constant (the output rank "
		                         "depends on it)");
	return 0;
}

/* GatherND(data, indices; batch_dims b): with m the last dim of indices,
 * indices.shape[:-1] + data.shape[b+m:]; the first b dims agree. */
static int r_gather_nd(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *data = sym__rc_need(rc, 0), *idx = sym__rc_need(rc, 1);
	const sym_expr **d;
	int64_t b;
	long long m;
	int k, n = 0, q, r;
	if (!data || !idx || sym__rc_attr_int(rc, "batch_dims", 0, &b) < 0)
		return -1;
	if (sym__rc_set_dtype(rc, 0, data->dtype) < 0)
		return -1;
	if (data->rank < 0 || idx->rank < 0)
		return sym__rc_set_unknown_rank(rc, 0);
	q = idx->rank, r = data->rank;
	if (r < 1)
		return sym__rc_error(rc, "data must have rank >= 1");
	if (tuple_len(rc, idx, &m) < 0)
		return -1;
	if (b < 0 || b >= (q < r ? q : r))
		return sym__rc_error(
		    rc, "batch_dims %lld must lie in [0, min(rank(indices), rank(data))) = [0, %d)",
		    (long long)b, q < r ? q : r);
	if (m < 1 || m > r - b)
		return sym__rc_error(
		    rc,
		    "the last dim of indices (%lld) must lie in [1, rank(data) - batch_dims] = "
		    "[1, %lld]",
		    m, (long long)(r - b));
	for (k = 0; k < b; k++)
		if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, idx->dims[k], data->dims[k]),
		                    SYM_GUARD_ASSERT,
		                    "GatherND batch dims of indices and data must be equal") < 0)
			return -1;
	if (idx->has_value)
		for (k = 0; k < m; k++)
			if (index_guard(rc, idx->nvalue, idx->value, (size_t)k, (size_t)m,
			                data->dims[b + k]) < 0)
				return -1;
	d = sym__rc_alloc(rc, (size_t)(q + r) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < q - 1; k++)
		d[n++] = idx->dims[k];
	for (k = (int)(b + m); k < r; k++)
		d[n++] = data->dims[k];
	return sym__rc_set_shape(rc, 0, n, d);
}

static int check_reduction(sym_rule_ctx *rc)
{
	static const char *const ok[] = {"none", "add", "mul", "max", "min"};
	const char *s;
	size_t i;
	if (sym__rc_attr_string(rc, "reduction", "none", &s) < 0)
		return -1;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(s, ok[i]))
			return 0;
	return sym__rc_error(rc, "reduction '%s' is not one of none, add, mul, max, min", s);
}

/* ScatterND(data, indices, updates): the data shape; updates has the shape
 * indices.shape[:-1] + data.shape[m:]. */
static int r_scatter_nd(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *data = sym__rc_need(rc, 0), *idx = sym__rc_need(rc, 1), *upd = sym__rc_need(rc, 2);
	long long m;
	int k, q, r;
	if (!data || !idx || !upd || check_reduction(rc) < 0)
		return -1;
	if (data->rank >= 0 && idx->rank >= 0) {
		q = idx->rank, r = data->rank;
		if (tuple_len(rc, idx, &m) < 0)
			return -1;
		if (m > r)
			return sym__rc_error(rc, "the last dim of indices (%lld) exceeds the data rank %d", m,
			                     r);
		if (upd->rank >= 0) {
			if (upd->rank != q - 1 + r - (int)m)
				return sym__rc_error(rc,
				                     "updates have rank %d, expected %d (rank(indices) - 1 + "
				                     "rank(data) - %lld)",
				                     upd->rank, q - 1 + r - (int)m, m);
			for (k = 0; k < upd->rank; k++) {
				const sym_expr *want = k < q - 1 ? idx->dims[k] : data->dims[m + k - (q - 1)];
				if (sym__rc_require(
				        rc, sym_expr_rel(ctx, SYM_REL_EQ, upd->dims[k], want),
				        SYM_GUARD_ASSERT,
				        "ScatterND updates must have the shape indices.shape[:-1] + "
				        "data.shape[m:]") < 0)
					return -1;
			}
		}
		if (idx->has_value)
			for (k = 0; k < m; k++)
				if (index_guard(rc, idx->nvalue, idx->value, (size_t)k, (size_t)m,
				                data->dims[k]) < 0)
					return -1;
	}
	return sym__rc_copy_shape(rc, 0, data);
}

/* ScatterElements / Scatter(data, indices, updates; axis): the data shape;
 * updates and indices share a shape of the data's rank. */
static int r_scatter_elements(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *data = sym__rc_need(rc, 0), *idx = sym__rc_need(rc, 1), *upd = sym__rc_need(rc, 2);
	int64_t axis;
	int a = 0, k;
	if (!data || !idx || !upd || sym__rc_attr_int(rc, "axis", 0, &axis) < 0 || check_reduction(rc) < 0)
		return -1;
	if (data->rank == 0)
		return sym__rc_error(rc, "data must have rank >= 1, not a scalar");
	if (data->rank > 0 && sym__rc_axis(rc, axis, data->rank, "axis", &a) < 0)
		return -1;
	if (idx->rank >= 0 && upd->rank >= 0) {
		if (idx->rank != upd->rank)
			return sym__rc_error(rc, "updates have rank %d, indices rank %d (they must be equal)",
			                     upd->rank, idx->rank);
		for (k = 0; k < idx->rank; k++)
			if (sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, upd->dims[k], idx->dims[k]),
			                    SYM_GUARD_ASSERT, "updates must have the shape of indices") < 0)
				return -1;
	}
	if (idx->rank >= 0 && data->rank >= 0) {
		if (idx->rank != data->rank)
			return sym__rc_error(rc,
			                     "indices have rank %d, the data rank %d (they must be equal)",
			                     idx->rank, data->rank);
		for (k = 0; k < data->rank; k++)
			if (k != a && sym__rc_require(
			                  rc, sym_expr_rel(ctx, SYM_REL_LE, idx->dims[k], data->dims[k]),
			                  SYM_GUARD_ASSERT,
			                  "indices dims must not exceed the data dims outside the axis") < 0)
				return -1;
		if (idx->has_value && index_guard(rc, idx->nvalue, idx->value, 0, 1, data->dims[a]) < 0)
			return -1;
	}
	return sym__rc_copy_shape(rc, 0, data);
}

const sym_rule_entry sym__rules_gather[] = {
    {"Gather", "", r_gather, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"GatherElements", "", r_gather_elements, SYM_RULE_ANY_DOMAIN},
    {"GatherND", "", r_gather_nd, SYM_RULE_ANY_DOMAIN},
    {"ScatterND", "", r_scatter_nd, SYM_RULE_ANY_DOMAIN},
    {"ScatterElements", "", r_scatter_elements, SYM_RULE_ANY_DOMAIN},
    {"Scatter", "", r_scatter_elements, 0},
};
const size_t sym__rules_gather_count = sizeof(sym__rules_gather) / sizeof(sym__rules_gather[0]);
