/* n-ary min and max: flattened, sorted, deduplicated, constants folded and
 * arguments that differ from another by a constant pruned. */
#include "node_private.h"

#include <stdlib.h>

/* Returns 1 when a - b is a constant, storing it in *diff. */
static int const_diff(const sym_expr *a, const sym_expr *b, sym_num *diff)
{
	sym_lin x, y;
	size_t i;
	sym__lin_view(a, &x);
	sym__lin_view(b, &y);
	if (x.n != y.n)
		return 0;
	for (i = 0; i < x.n; i++)
		if (x.t[i].m != y.t[i].m || !sym__num_equal(&x.t[i].coef, &y.t[i].coef))
			return 0;
	sym__num_sub(diff, x.c, y.c);
	return 1;
}

static int kid_qcmp(const void *x, const void *y)
{
	return sym__cmp(*(const sym_expr *const *)x, *(const sym_expr *const *)y);
}

static const sym_expr *minmax(sym_ctx *ctx, sym_kind kind, size_t n, const sym_expr *const *args)
{
	const sym_expr **v, *stack[16], *r = NULL;
	size_t i, j, m = 0, cap = 0;
	sym_num d;
	struct sym_expr h = {0};
	if (sym__failed(ctx))
		return NULL;
	if (n == 0)
		return sym__error(ctx, SYM_EDOMAIN, -1, "%s needs at least one argument",
				  kind == SYM_KIND_MIN ? "min" : "max");
	for (i = 0; i < n; i++) {
		if (!args[i])
			return NULL;
		if (args[i]->flags & SYM_F_PRED)
			return sym__error(ctx, SYM_EDOMAIN, -1, "a predicate cannot be used as a number");
		cap += args[i]->kind == kind ? args[i]->n : 1;
	}
	v = cap <= 16 ? stack : sym__alloc(ctx, cap * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		if (args[i]->kind == kind) {
			for (j = 0; j < args[i]->n; j++)
				v[m++] = node_kids(args[i])[j];
		} else {
			v[m++] = args[i];
		}
	}
	sym__num_init(&d);
	/* prune arguments that are dominated by another one with a constant
	 * difference (this also folds constants and removes duplicates) */
	for (i = 0; i < m; i++) {
		if (!v[i])
			continue;
		for (j = i + 1; j < m; j++) {
			int s;
			if (!v[j] || !const_diff(v[i], v[j], &d))
				continue;
			s = sym__num_sgn(&d);
			if (kind == SYM_KIND_MAX)
				s = -s;
			if (s <= 0) {
				v[j] = NULL; /* v[i] <= v[j] for min: drop v[j] */
			} else {
				v[i] = NULL;
				break;
			}
		}
	}
	sym__num_clear(&d);
	for (i = 0, j = 0; i < m; i++)
		if (v[i])
			v[j++] = v[i];
	m = j;
	qsort(v, m, sizeof(*v), kid_qcmp);
	if (m == 1) {
		r = v[0];
	} else {
		h.kind = (uint8_t)kind;
		h.n = (uint32_t)m;
		r = sym__intern(ctx, &h, v, m * sizeof(*v));
	}
	if (v != stack)
		sym__free(ctx, v, cap * sizeof(*v));
	return r;
}

const sym_expr *sym_expr_min(sym_ctx *ctx, size_t n, const sym_expr *const *args)
{
	return minmax(ctx, SYM_KIND_MIN, n, args);
}

const sym_expr *sym_expr_max(sym_ctx *ctx, size_t n, const sym_expr *const *args)
{
	return minmax(ctx, SYM_KIND_MAX, n, args);
}
