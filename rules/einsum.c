/* Einsum: the output shape from the equation's labels, each label's dims
 * guarded equal. */
#include "rules_private.h"

#include <math.h>
#include <string.h>

/* ---- Einsum ------------------------------------------------------------- */

#define EIN_MAX 64

/* One term of the equation: labels (letters) and the position of "..." (-1
 * when absent). */
typedef struct ein_term {
	char lab[EIN_MAX];
	int n, ell;
} ein_term;

/* Parses one term from s up to a ',' '-' or the end; returns the end. */
static const char *ein_term_parse(sym_rule_ctx *rc, const char *s, ein_term *t, int *err)
{
	t->n = 0, t->ell = -1;
	for (; *s && *s != ',' && *s != '-'; s++) {
		if (*s == ' ')
			continue;
		if (*s == '.') {
			if (strncmp(s, "...", 3) || t->ell >= 0) {
				*err = sym__rc_error(rc, "bad equation: '.' must come as one '...' per term");
				return s;
			}
			t->ell = t->n;
			s += 2;
			continue;
		}
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) {
			*err = sym__rc_error(rc, "bad equation: '%c' is not a letter", *s);
			return s;
		}
		if (t->n == EIN_MAX) {
			*err = sym__rc_error(rc, "bad equation: a term has more than %d labels", EIN_MAX);
			return s;
		}
		t->lab[t->n++] = *s;
	}
	return s;
}

/* Einsum(inputs...; equation): each label's dims are equal (assert
 * guards); "..." dims broadcast; the output is the explicit right side, or
 * the "..." dims then the labels seen once, in ASCII order. */
static int r_einsum(sym_rule_ctx *rc)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const char *eq, *s;
	ein_term in[EIN_MAX], out;
	const sym_expr *lab_dim[128] = {0}, *ell[EIN_MAX];
	const sym_expr **d;
	int count[128] = {0};
	int nterms = 0, nell = 0, err = 0, explicit_out = 0, i, k, m = 0;
	if (!sym__rc_attr(rc, "equation"))
		return sym__rc_error(rc, "the attribute 'equation' is required");
	if (sym__rc_attr_string(rc, "equation", "", &eq) < 0)
		return -1;
	s = eq;
	for (;;) {
		if (nterms == EIN_MAX)
			return sym__rc_error(rc, "bad equation: more than %d terms", EIN_MAX);
		s = ein_term_parse(rc, s, &in[nterms++], &err);
		if (err)
			return -1;
		if (*s == ',') {
			s++;
			continue;
		}
		break;
	}
	if (*s == '-') {
		if (s[1] != '>')
			return sym__rc_error(rc, "bad equation: '-' must start '->'");
		s = ein_term_parse(rc, s + 2, &out, &err);
		if (err)
			return -1;
		if (*s)
			return sym__rc_error(rc, "bad equation: unexpected '%c' in the output", *s);
		explicit_out = 1;
	}
	if ((size_t)nterms != rc->nin)
		return sym__rc_error(rc, "the equation has %d input terms for %zu inputs", nterms, rc->nin);
	if (sym__rc_set_dtype(rc, 0,
	                      rc->nin && sym__rc_in(rc, 0) ? sym__rc_in(rc, 0)->dtype : SYM_DT_UNDEFINED) < 0)
		return -1;
	for (i = 0; i < nterms; i++) {
		const sym_tval *x = sym__rc_need(rc, (size_t)i);
		int ne, j, pos;
		if (!x)
			return -1;
		if (x->rank < 0)
			return sym__rc_set_unknown_rank(rc, 0);
		ne = x->rank - in[i].n;
		if (in[i].ell < 0 ? ne != 0 : ne < 0)
			return sym__rc_error(rc, "term %d has %d labels%s for input %d of rank %d", i,
			                     in[i].n, in[i].ell < 0 ? "" : " and '...'", i, x->rank);
		if (ne > EIN_MAX)
			return sym__rc_error(rc, "'...' stands for more than %d dims", EIN_MAX);
		/* "..." dims broadcast, aligned at the right */
		if (ne > nell) {
			memmove(ell + (ne - nell), ell, (size_t)nell * sizeof(*ell));
			for (j = 0; j < ne - nell; j++)
				ell[j] = NULL;
			nell = ne;
		}
		for (j = 0; j < ne; j++) {
			const sym_expr *e = x->dims[in[i].ell + j], **slot = &ell[nell - ne + j];
			if (!*slot)
				*slot = e;
			else if (sym__rc_broadcast_dim(rc, *slot, e, slot) < 0)
				return -1;
		}
		for (j = 0; j < in[i].n; j++) {
			int c = (unsigned char)in[i].lab[j];
			pos = in[i].ell >= 0 && j >= in[i].ell ? j + ne : j;
			count[c]++;
			if (!lab_dim[c]) {
				lab_dim[c] = x->dims[pos];
			} else if (sym__rc_require(rc,
			                           sym_expr_rel(ctx, SYM_REL_EQ, lab_dim[c], x->dims[pos]),
			                           SYM_GUARD_ASSERT,
			                           "Einsum dims with the same label must be equal") < 0) {
				return -1;
			}
		}
	}
	if (!explicit_out) {
		out.n = 0, out.ell = 0;
		for (i = 'A'; i <= 'z'; i++)
			if (count[i] == 1)
				out.lab[out.n++] = (char)i;
	} else {
		char seen[128] = {0};
		if (out.ell < 0 && nell > 0)
			return sym__rc_error(
			    rc, "bad equation: the inputs' '...' covers %d dims but the output has no '...'",
			    nell);
		for (k = 0; k < out.n; k++) {
			int c = (unsigned char)out.lab[k];
			if (!count[c])
				return sym__rc_error(
				    rc, "bad equation: output label '%c' is not in the inputs", c);
			if (seen[c]++)
				return sym__rc_error(rc, "bad equation: output label '%c' is repeated", c);
		}
	}
	d = sym__rc_alloc(rc, (size_t)(out.n + nell + 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k <= out.n; k++) {
		if (k == out.ell)
			for (i = 0; i < nell; i++)
				d[m++] = ell[i];
		if (k < out.n)
			d[m++] = lab_dim[(unsigned char)out.lab[k]];
	}
	return sym__rc_set_shape(rc, 0, m, d);
}

const sym_rule_entry sym__rules_einsum[] = {
    {"Einsum", "", r_einsum, 0},
};
const size_t sym__rules_einsum_count = sizeof(sym__rules_einsum) / sizeof(sym__rules_einsum[0]);
