/* Transpose: output dim k is input dim perm[k]; perm defaults to the
 * reversed axes and must be a permutation. */
#include "rules_private.h"

#include <string.h>

/* Permutes a value whose dims are small constants; leaves the output
 * without a value otherwise. */
static int permute_value(sym_rule_ctx *rc, const sym_tval *x, const int *perm)
{
	long long dim[64], stride[64], idx[64], numel = 1, c;
	size_t *v, i;
	int k, r = x->rank;
	if (!x->has_value || r > 64)
		return 0;
	for (k = r - 1; k >= 0; k--) {
		if (sym_expr_get_si(x->dims[k], &dim[k]) != 1 || dim[k] < 0 || dim[k] > SYM_RC_VALUE_LIMIT)
			return 0;
		stride[k] = numel;
		numel *= dim[k];
		if (numel > SYM_RC_VALUE_LIMIT)
			return 0;
	}
	if ((size_t)numel != x->nvalue)
		return 0;
	v = sym__rc_alloc(rc, (size_t)(numel ? numel : 1) * sizeof(*v));
	if (!v)
		return -1;
	memset(idx, 0, sizeof(idx));
	for (i = 0; i < (size_t)numel; i++) {
		/* idx counts over the output dims dim[perm[k]] in row-major order */
		long long src = 0;
		for (k = 0; k < r; k++)
			src += idx[k] * stride[perm[k]];
		v[i] = (size_t)src;
		for (k = r - 1; k >= 0; k--) {
			c = ++idx[k];
			if (c < dim[perm[k]])
				break;
			idx[k] = 0;
		}
	}
	return sym__rc_pick_value(rc, 0, x, (size_t)numel, v);
}

static int r_transpose(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	const int64_t *p;
	const sym_expr **d;
	int *perm;
	char *seen;
	size_t n;
	int has, k, r;
	if (!x || (has = sym__rc_attr_ints(rc, "perm", &n, &p)) < 0)
		return -1;
	if (x->rank < 0) {
		if (has) {
			/* the rank is the perm's length, the dims are not known */
			return sym__rc_error(rc, "cannot infer: input 0 has unknown rank");
		}
		return sym__rc_set_unknown_rank(rc, 0) < 0 ? -1 : sym__rc_set_dtype(rc, 0, x->dtype);
	}
	r = x->rank;
	if (has && n != (size_t)r)
		return sym__rc_error(rc, "perm has %zu entries for rank %d", n, r);
	perm = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*perm));
	seen = sym__rc_alloc(rc, (size_t)(r ? r : 1));
	d = sym__rc_alloc(rc, (size_t)(r ? r : 1) * sizeof(*d));
	if (!perm || !seen || !d)
		return -1;
	for (k = 0; k < r; k++) {
		int64_t q = has ? p[k] : r - 1 - k;
		if (q < 0 || q >= r)
			return sym__rc_error(rc, "perm[%d] = %lld is out of range for rank %d", k,
			                     (long long)q, r);
		if (seen[q])
			return sym__rc_error(rc, "perm is not a permutation (%lld repeats)", (long long)q);
		seen[q] = 1;
		perm[k] = (int)q;
		d[k] = x->dims[q];
	}
	if (sym__rc_set_shape(rc, 0, r, d) < 0 || sym__rc_set_dtype(rc, 0, x->dtype) < 0)
		return -1;
	return permute_value(rc, x, perm);
}

const sym_rule_entry sym__rules_transpose[] = {
    {"Transpose", "", r_transpose, SYM_RULE_ANY_DOMAIN | SYM_RULE_PREDICATES},
};
const size_t sym__rules_transpose_count = sizeof(sym__rules_transpose) / sizeof(sym__rules_transpose[0]);
