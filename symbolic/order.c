/* The canonical total order of nodes: structural, never by address or by
 * creation order, so printed forms and keys do not depend on construction. */
#include "node_private.h"

/* Natural order of names: digit runs compare as numbers (s2 < s10). */
int sym__name_cmp(const char *a, const char *b)
{
	const char *x = a, *y = b;
	while (*x && *y) {
		if (*x >= '0' && *x <= '9' && *y >= '0' && *y <= '9') {
			const char *xs = x, *ys = y;
			size_t lx, ly;
			while (*xs == '0' && xs[1] >= '0' && xs[1] <= '9')
				xs++;
			while (*ys == '0' && ys[1] >= '0' && ys[1] <= '9')
				ys++;
			for (x = xs; *x >= '0' && *x <= '9'; x++)
				;
			for (y = ys; *y >= '0' && *y <= '9'; y++)
				;
			lx = (size_t)(x - xs), ly = (size_t)(y - ys);
			if (lx != ly)
				return lx < ly ? -1 : 1;
			{
				int c = memcmp(xs, ys, lx);
				if (c)
					return c < 0 ? -1 : 1;
			}
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		x++, y++;
	}
	if (*x || *y)
		return *x ? 1 : -1;
	{
		int c = strcmp(a, b);
		return (c > 0) - (c < 0);
	}
}

uint64_t sym__name_key(const char *s)
{
	unsigned char out[7] = {0};
	size_t n = 0, valid = 7, i;
	uint64_t k = 0;
	while (*s && n < 7) {
		const char *d = s, *e;
		if (!(*s >= '0' && *s <= '9')) {
			out[n++] = (unsigned char)*s++;
			continue;
		}
		while (*d == '0' && d[1] >= '0' && d[1] <= '9')
			d++;
		for (e = d; *e >= '0' && *e <= '9'; e++)
			;
		if (e - d > 9) { /* a count that takes more than one digit */
			valid = n;
			break;
		}
		out[n++] = (unsigned char)('0' + (e - d));
		while (d < e && n < 7)
			out[n++] = (unsigned char)*d++;
		s = e;
	}
	for (i = 0; i < 7; i++)
		k = k << 8 | out[i];
	return k << 8 | valid;
}

int sym__cmp_full(const sym_expr *a, const sym_expr *b)
{
	size_t i, n;
	int c;
	if (a == b)
		return 0;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	n = a->n < b->n ? a->n : b->n;
	switch (a->kind) {
	case SYM_KIND_NUM:
		return sym__num_cmp(node_num(a), node_num(b));
	case SYM_KIND_SYM:
		if ((c = sym__name_key_cmp(node_name_key(a), node_name_key(b))))
			return c;
		return sym__name_cmp(node_name(a), node_name(b));
	case SYM_KIND_BOOL:
		return *(const int64_t *)NODE_PAYLOAD(a) < *(const int64_t *)NODE_PAYLOAD(b) ? -1 : 1;
	case SYM_KIND_ADD: {
		for (i = 0; i < n; i++) {
			if ((c = sym__term_cmp(node_mono(a, i), node_mono(b, i))))
				return c;
			if ((c = sym__num_cmp(node_coef(a, i), node_coef(b, i))))
				return c;
		}
		if (a->n != b->n)
			return a->n < b->n ? -1 : 1;
		return sym__num_cmp(node_add_const(a), node_add_const(b));
	}
	case SYM_KIND_MUL: {
		const sym_factor *x = node_factors(a), *y = node_factors(b);
		for (i = 0; i < n; i++) {
			if ((c = sym__cmp(x[i].base, y[i].base)))
				return c;
			if (x[i].exp != y[i].exp)
				return x[i].exp > y[i].exp ? -1 : 1;
		}
		return a->n < b->n ? -1 : 1;
	}
	default: {
		const sym_expr *const *x = node_kids(a), *const *y = node_kids(b);
		for (i = 0; i < n; i++)
			if ((c = sym__cmp(x[i], y[i])))
				return c;
		return a->n < b->n ? -1 : 1;
	}
	}
}

int sym__cmp_q(const void *a, const void *b)
{
	return sym__cmp(*(const sym_expr *const *)a, *(const sym_expr *const *)b);
}

int sym_expr_cmp(const sym_expr *a, const sym_expr *b)
{
	return sym__cmp(a, b);
}
