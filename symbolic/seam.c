/* The node-reading part of the seam (seam.h): what lowering into runtime
 * code and the model bindings read of a node and of a fact store, as
 * functions, so that no layout of the core is seen above it. */
#include "facts_private.h"

size_t sym__expr_nargs(const sym_expr *e)
{
	switch (e->kind) {
	case SYM_KIND_ADD:
	case SYM_KIND_MUL:
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		return e->n;
	case SYM_KIND_FLOOR:
	case SYM_KIND_ABS:
	case SYM_KIND_EQ:
	case SYM_KIND_NE:
	case SYM_KIND_LE:
	case SYM_KIND_LT:
		return 1;
	default:
		return 0;
	}
}

const sym_expr *sym__expr_arg(const sym_expr *e, size_t i)
{
	switch (e->kind) {
	case SYM_KIND_ADD:
		return node_mono(e, i);
	case SYM_KIND_MUL:
		return node_factors(e)[i].base;
	default:
		return node_kids(e)[i];
	}
}

int64_t sym__expr_factor_exp(const sym_expr *e, size_t i)
{
	return node_factors(e)[i].exp;
}

/* Records that the constant v does not fit int64; returns 0. */
static int const_error(sym_ctx *ctx, const sym_num *v)
{
	char *s = sym__num_to_str(v);
	sym__error(ctx, SYM_EOVERFLOW, -1, "constant %s does not fit int64", s ? s : "?");
	if (s)
		sym__num_str_free(s);
	return 0;
}

/* Stores the numerator and denominator of a when both fit int64. */
static int num_parts(const sym_num *a, int64_t *p, int64_t *q)
{
	sym_num n, d;
	int ok;
	if (!SYM_NUM_IS_BIG(a)) {
		*p = a->p, *q = a->q;
		return 1;
	}
	sym__num_init(&n);
	sym__num_init(&d);
	sym__num_numer(&n, a);
	sym__num_denom(&d, a);
	ok = sym__num_get_si(&n, p) && sym__num_get_si(&d, q);
	sym__num_clear(&n);
	sym__num_clear(&d);
	return ok;
}

int sym__expr_num_si(sym_ctx *ctx, const sym_expr *e, int64_t *p, int64_t *q)
{
	return num_parts(node_num(e), p, q) || const_error(ctx, node_num(e));
}

/* The lcm of the small positive a and b in *r, 0 when it leaves int64. */
static int lcm_si(int64_t a, int64_t b, int64_t *r)
{
	int64_t x = a, y = b;
	while (y) {
		int64_t t = x % y;
		x = y, y = t;
	}
	return !__builtin_mul_overflow(a / x, b, r);
}

int sym__sum_denom_si(sym_ctx *ctx, const sym_expr *e, int64_t *L)
{
	sym_num l, k;
	size_t i;
	int ok;
	if (e->flags & SYM_F_SMALL) { /* integer coefficients */
		*L = 1;
		return 1;
	}
	/* small numbers first: the common case, without GMP */
	if (!SYM_NUM_IS_BIG(node_add_const(e))) {
		int64_t d = node_add_const(e)->q;
		for (i = 0; i < e->n && !SYM_NUM_IS_BIG(node_coef(e, i)) && lcm_si(d, node_coef(e, i)->q, &d);
		     i++)
			;
		if (i == e->n) {
			*L = d;
			return 1;
		}
	}
	sym__num_init(&l);
	sym__num_init(&k);
	sym__num_denom(&l, node_add_const(e));
	for (i = 0; i < e->n; i++) {
		sym__num_denom(&k, node_coef(e, i));
		sym__num_lcm(&l, &l, &k);
	}
	ok = sym__num_get_si(&l, L) || const_error(ctx, &l);
	sym__num_clear(&l);
	sym__num_clear(&k);
	return ok;
}

int sym__sum_coef_si(sym_ctx *ctx, const sym_expr *e, size_t i, int64_t L, int64_t *k)
{
	const sym_num *c = i ? node_coef(e, i - 1) : node_add_const(e);
	sym_num l, u;
	int64_t q;
	int ok;
	if (!SYM_NUM_IS_BIG(c) && !__builtin_mul_overflow(c->p, L / c->q, k))
		return 1; /* L is a multiple of c's denominator */
	sym__num_init(&l);
	sym__num_init(&u);
	sym__num_set_si(&l, L);
	sym__num_mul(&u, c, &l);
	ok = num_parts(&u, k, &q) || const_error(ctx, &u);
	sym__num_clear(&l);
	sym__num_clear(&u);
	return ok;
}

int sym__linear_coef(sym_ctx *ctx, const sym_expr *e, const sym_expr *s, const sym_expr **coef)
{
	sym_lin v;
	size_t i;
	*coef = NULL;
	sym__lin_view(e, &v);
	for (i = 0; i < v.n && sym__lin_mono(&v, i) != s; i++)
		;
	if (i == v.n)
		return 0;
	*coef = sym__num_node(ctx, sym__lin_coef(&v, i));
	return *coef ? 1 : -1;
}

int sym__facts_symbol_range(sym_ctx *ctx, const sym_facts *f, const sym_expr *s, const sym_expr **lo,
                            const sym_expr **hi)
{
	sym_ival iv;
	int was = f ? f->dims_open : 0;
	*lo = *hi = NULL;
	sym__ival_init(&iv);
	if (f)
		((sym_facts *)f)->dims_open = 1; /* SYM_DIM_MAX is not a range end */
	sym__facts_sym_range(f, s, &iv);
	if (f)
		((sym_facts *)f)->dims_open = was;
	if (!iv.lo.inf)
		*lo = sym__num_node(ctx, &iv.lo.v);
	if (!iv.hi.inf)
		*hi = sym__num_node(ctx, &iv.hi.v);
	sym__ival_clear(&iv);
	return !sym__failed(ctx);
}

sym_allocator sym__ctx_allocator(const sym_ctx *ctx)
{
	return ctx->alloc;
}

const sym_expr *sym__expr_sum(sym_ctx *ctx, size_t n, const sym_expr *const *e)
{
	sym_sumb b;
	size_t i;
	if (sym__failed(ctx))
		return NULL;
	if (n == 0)
		return ctx->zero;
	sym__sumb_init(&b, ctx);
	for (i = 0; i < n; i++)
		if (!e[i] || !sym__sumb_add(&b, NULL, e[i])) {
			sym__sumb_clear(&b);
			return NULL;
		}
	return sym__sumb_finish(&b);
}
