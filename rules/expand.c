/* Expand and Tile.  Expand broadcasts the input with the shape held by its
 * second input (ONNX's bidirectional rule, exact with guards); Tile
 * multiplies each dim by its repeat.  Small results with constant dims
 * carry their symbolic values. */
#include "rules_private.h"

#include <string.h>

/* The rank of a result that carries a value at most. */
#define MAX_VALUE_RANK 16

/* The value of output 0 from input x's value: output element at index idx
 * (over the output's constant dims) reads input element idx[k] mod the
 * input dim, right-aligned; that is broadcasting (input dim 1) and tiling
 * alike. */
static int spread_value(sym_rule_ctx *rc, const sym_tval *x)
{
	long long in[MAX_VALUE_RANK], out[MAX_VALUE_RANK], idx[MAX_VALUE_RANK], nin, nout;
	const sym_tval *o = &rc->out[0];
	size_t *v;
	long long i;
	int k, off;
	if (!x->has_value || !sym__rc_const_dims(x, in, MAX_VALUE_RANK, &nin) ||
	    !sym__rc_const_dims(o, out, MAX_VALUE_RANK, &nout) || (size_t)nin != x->nvalue ||
	    o->rank < x->rank)
		return 0;
	off = o->rank - x->rank;
	v = sym__rc_alloc(rc, (size_t)(nout ? nout : 1) * sizeof(*v));
	if (!v)
		return -1;
	memset(idx, 0, sizeof(idx));
	for (i = 0; i < nout; i++) {
		long long src = 0;
		for (k = 0; k < x->rank; k++)
			src = src * in[k] + idx[k + off] % in[k];
		v[i] = (size_t)src;
		for (k = o->rank - 1; k >= 0; k--) {
			if (++idx[k] < out[k])
				break;
			idx[k] = 0;
		}
	}
	return sym__rc_pick_value(rc, 0, x, (size_t)nout, v);
}

/* A 1-D integer input's value, required nonnegative element by element. */
static int sizes_in(sym_rule_ctx *rc, size_t i, const char *what, size_t *n, const sym_expr *const **v)
{
	const sym_tval *t = sym__rc_need(rc, i);
	size_t k;
	if (!t)
		return -1;
	if (t->rank != 1 && t->rank >= 0)
		return sym__rc_error(rc, "input %zu (%s) must be 1-D, not of rank %d", i, what, t->rank);
	if (sym__rc_in_value(rc, i, n, v) < 0)
		return -1;
	for (k = 0; k < *n; k++)
		if (sym__rc_require(rc,
		                    sym_expr_rel(sym__rc_ctx(rc), SYM_REL_GE, (*v)[k], sym__rc_num(rc, 0)),
		                    SYM_GUARD_ASSERT, "Expand and Tile sizes must be nonnegative") < 0)
			return -1;
	return 0;
}

/* Expand(x, shape): numpy broadcasting of x's shape with the shape value. */
static int r_expand(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_tval *ins[2];
	const sym_expr *const *v;
	sym_tval s;
	size_t n;
	if (!x || sizes_in(rc, 1, "shape", &n, &v) < 0)
		return -1;
	if (n > SYM_RC_VALUE_LIMIT)
		return sym__rc_error(rc, "the shape has too many dims (%zu)", n);
	memset(&s, 0, sizeof(s));
	s.present = 1;
	s.rank = (int)n;
	s.dims = (const sym_expr **)v;
	ins[0] = x, ins[1] = &s;
	if (sym__rc_broadcast(rc, 2, ins, 0) < 0 || sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	return spread_value(rc, x);
}

/* Tile(x, repeats): dim k times repeats[k]; one repeat per dim. */
static int r_tile(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_tval *x = sym__rc_need(rc, 0);
	const sym_expr *const *v;
	const sym_expr **d;
	size_t n;
	int k;
	if (!x || sizes_in(rc, 1, "repeats", &n, &v) < 0)
		return -1;
	if (x->rank < 0) {
		/* the rank is the repeats' length, the dims are not known */
		return sym__rc_error(rc, "cannot infer: input 0 has unknown rank");
	}
	if (n != (size_t)x->rank)
		return sym__rc_error(rc, "%zu repeats for rank %d", n, x->rank);
	d = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < x->rank; k++)
		d[k] = sym_expr_mul(ctx, x->dims[k], v[k]);
	if (sym__rc_set_shape(rc, 0, x->rank, d) < 0 || sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	return spread_value(rc, x);
}

const sym_rule_entry sym__rules_expand[] = {
    {"Expand", "", r_expand, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
    {"Tile", "", r_tile, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
};
const size_t sym__rules_expand_count = sizeof(sym__rules_expand) / sizeof(sym__rules_expand[0]);
