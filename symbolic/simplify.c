/* The contextual simplifier: defining equalities substituted, then
 * range-driven rewrites bottom-up until nothing changes. */
#include "facts_private.h"

#define MAX_ROUNDS 16

typedef struct simp {
	sym_ctx *ctx;
	const sym_facts *f;
	sym_memo *memo;             /* node -> simp_node(node) */
	struct sym_simpstate *kept; /* what f keeps between calls, or NULL */
} simp;

/* A min or max whose arguments are pairwise incomparable under the facts
 * (no one proven not smaller, not larger, than another), under the sum of
 * its arguments' mixed hashes: a min or max that extends it by one
 * argument finds it by subtracting that argument's share. */
typedef struct mm_entry {
	uint64_t key;
	const sym_expr *e;
	/* set when every argument is compared by its bounds alone (see
	 * minmax_by_bounds), with ends that fit int64 or are infinite: the best
	 * dominating end x (a max: the largest lower end; a min: the smallest
	 * upper end) and the weakest dominated end y (a max: the smallest upper
	 * end; a min: the largest lower end); *_inf when no argument has a
	 * finite one */
	int agg, x_inf, y_inf;
	int64_t x, y;
} mm_entry;

/* The aggregate ends of a min or max recorded by its bounds (mm_entry). */
typedef struct mm_agg {
	int x_inf, y_inf;
	int64_t x, y;
} mm_agg;

/* What the simplifier keeps in a fact store between calls: simp_node's
 * result for every node it met under the current version of the facts (a
 * node's result depends on the node and the facts only), so that a
 * subexpression that rules, guards and final shapes simplify again and
 * again (the max of a chain of broadcasts) is simplified once per version.
 * Emptied when the version moves, when a call fails (a result computed
 * around an error is not kept) and past SIMP_MEMO_MAX entries. */
struct sym_simpstate {
	unsigned long version;
	sym_memo memo;
	mm_entry *mm; /* open addressing, mmcap slots */
	size_t mmcap, mmcount;
};

static void mm_clear(sym_ctx *ctx, struct sym_simpstate *st)
{
	sym__free(ctx, st->mm, st->mmcap * sizeof(*st->mm));
	st->mm = NULL;
	st->mmcap = st->mmcount = 0;
}

/* Empties what f keeps and keeps its tables when they were an eighth full
 * or more: a long run fills them again and again, and regrowing them would
 * page in fresh memory each time. */
static void kept_reset(sym_ctx *ctx, struct sym_simpstate *st)
{
	sym__memo_reset(&st->memo);
	if (st->mmcount * 8 < st->mmcap)
		mm_clear(ctx, st);
	else if (st->mmcap)
		memset(st->mm, 0, st->mmcap * sizeof(*st->mm));
	st->mmcount = 0;
}

/* The kept tables are emptied past SIMP_MEMO_MAX entries or past the
 * context's node count, whichever is larger: every entry is keyed by a
 * distinct node, so the bound keeps the tables within a constant of the
 * nodes' own memory, and a large model's later passes (storage, final
 * shapes) find what its rules simplified, as a small model's do. */
#define SIMP_MEMO_MAX (1u << 18)

static size_t kept_max(const sym_ctx *ctx)
{
	return ctx->nnodes > SIMP_MEMO_MAX ? ctx->nnodes : SIMP_MEMO_MAX;
}

void sym__simp_state_free(sym_facts *f)
{
	if (!f->simp)
		return;
	sym__memo_clear(&f->simp->memo);
	mm_clear(f->ctx, f->simp);
	sym__free(f->ctx, f->simp, sizeof(*f->simp));
	f->simp = NULL;
}

/* What f keeps, brought to f's version; NULL when there is no fact store
 * or memory runs out (the call then uses a memo of its own). */
static struct sym_simpstate *kept_state(sym_ctx *ctx, sym_facts *f)
{
	if (!f)
		return NULL;
	if (!f->simp) {
		if (!(f->simp = sym__alloc(ctx, sizeof(*f->simp)))) {
			sym_ctx_clear_error(ctx); /* the memo is optional */
			return NULL;
		}
		memset(f->simp, 0, sizeof(*f->simp));
		sym__memo_init(&f->simp->memo, ctx);
		f->simp->version = f->version;
	}
	if (f->simp->version != f->version || f->simp->memo.count > kept_max(ctx) ||
	    f->simp->mmcount > kept_max(ctx)) {
		kept_reset(ctx, f->simp);
		f->simp->version = f->version;
	}
	return f->simp;
}

/* Records min or max e (key k) as pairwise incomparable, with the
 * aggregate ends of its arguments when agg is not NULL; a failure only
 * loses the entry. */
static void mm_put_agg(simp *s, const sym_expr *e, uint64_t k, const mm_agg *agg)
{
	struct sym_simpstate *st = s->kept;
	size_t j, i;
	if (!st || e->n < 2 || (e->kind != SYM_KIND_MIN && e->kind != SYM_KIND_MAX))
		return;
	if ((st->mmcount + 1) * 2 > st->mmcap) {
		size_t cap = st->mmcap ? st->mmcap * 2 : 64;
		mm_entry *nm = sym__alloc(s->ctx, cap * sizeof(*nm));
		if (!nm) {
			sym_ctx_clear_error(s->ctx);
			return;
		}
		memset(nm, 0, cap * sizeof(*nm));
		for (i = 0; i < st->mmcap; i++)
			if (st->mm[i].e) {
				for (j = st->mm[i].key & (cap - 1); nm[j].e; j = (j + 1) & (cap - 1))
					;
				nm[j] = st->mm[i];
			}
		sym__free(s->ctx, st->mm, st->mmcap * sizeof(*st->mm));
		st->mm = nm;
		st->mmcap = cap;
	}
	for (j = k & (st->mmcap - 1); st->mm[j].e; j = (j + 1) & (st->mmcap - 1))
		if (st->mm[j].e == e)
			return;
	st->mm[j].key = k;
	st->mm[j].e = e;
	st->mm[j].agg = agg != NULL;
	if (agg) {
		st->mm[j].x_inf = agg->x_inf, st->mm[j].x = agg->x;
		st->mm[j].y_inf = agg->y_inf, st->mm[j].y = agg->y;
	}
	st->mmcount++;
}

static void mm_put(simp *s, const sym_expr *e, uint64_t k)
{
	mm_put_agg(s, e, k, NULL);
}

/* Records r, the min or max built from the arguments kept[0..m) of e, when
 * it holds exactly them (the constructor may rewrite them: distribute a
 * common argument, say); kept NULL: r's arguments are among e's. */
static void mm_put_kept(simp *s, const sym_expr *e, const sym_expr *r, const sym_expr *const *kept, size_t m)
{
	size_t i, t = 0;
	if (r->kind != e->kind)
		return;
	if (kept) {
		if (r->n != m)
			return;
		for (i = 0; i < m; i++)
			if (node_kids(r)[i] != kept[i])
				return;
	} else {
		/* both sorted: r's arguments a subsequence of e's */
		for (i = 0; i < e->n && t < r->n; i++)
			if (node_kids(e)[i] == node_kids(r)[t])
				t++;
		if (t < r->n)
			return;
	}
	mm_put(s, r, sym__minmax_key(r));
}

/* The index of an argument of e whose removal leaves a recorded min or max
 * (e itself recorded: e->n), or (size_t)-1; the entry found in *found. */
static size_t mm_find(const simp *s, const sym_expr *e, uint64_t k, const mm_entry **found)
{
	const struct sym_simpstate *st = s->kept;
	size_t t, j;
	*found = NULL;
	if (!st || !st->mmcap)
		return (size_t)-1;
	for (j = k & (st->mmcap - 1); st->mm[j].e; j = (j + 1) & (st->mmcap - 1))
		if (st->mm[j].e == e)
			return *found = &st->mm[j], e->n;
	for (t = 0; t < e->n; t++) {
		size_t i = sym__minmax_probe_at(e->n, t);
		uint64_t ki = k - sym__arg_mix(node_kids(e)[i]);
		for (j = ki & (st->mmcap - 1); st->mm[j].e; j = (j + 1) & (st->mmcap - 1))
			if (st->mm[j].key == ki && sym__minmax_is_without(st->mm[j].e, e, i))
				return *found = &st->mm[j], i;
	}
	return (size_t)-1;
}

static const sym_expr *simp_node(simp *s, const sym_expr *e);

/* Lower bound of e as a number, when finite. */
static int lower_bound(simp *s, const sym_expr *e, sym_num *lo)
{
	sym_ival iv;
	int ok;
	sym__ival_init(&iv);
	ok = sym__bounds(s->ctx, s->f, e, &iv) && !iv.lo.inf;
	if (ok)
		sym__num_set(lo, &iv.lo.v);
	sym__ival_clear(&iv);
	return ok;
}

/* floor(N/d) == (N - r)/d when N == r (mod d) is known for the integer
 * N = d*E. */
static const sym_expr *rw_floor_residue(simp *s, const sym_expr *e)
{
	sym_lin v;
	sym_num d, t, m, r;
	const sym_expr *res = e, *N;
	sym__lin_view(node_kid(e), &v);
	sym__num_init(&d);
	sym__num_init(&t);
	sym__num_init(&m);
	sym__num_init(&r);
	sym__lin_denom(&v, &d);
	N = sym__scale(s->ctx, &d, node_kid(e));
	if (N && !sym__num_is_one(&d) && sym__residue(s->f, N, &m, &r) && !sym__num_is_zero(&m)) {
		sym__num_div(&t, &m, &d);
		if (sym__num_is_int(&t)) {
			/* r mod d */
			sym__num_div(&t, &r, &d);
			sym__num_floor(&t, &t);
			sym__num_mul(&t, &t, &d);
			sym__num_sub(&r, &r, &t);
			sym__num_neg(&r, &r);
			res = sym__add_num(s->ctx, N, &r);
			sym__num_div(&t, &(sym_num){{1}, 1}, &d);
			res = sym__scale(s->ctx, &t, res);
		}
	}
	sym__num_clear(&d);
	sym__num_clear(&t);
	sym__num_clear(&m);
	sym__num_clear(&r);
	return res;
}

/* Whether e >= 1 is proven and e is integer-valued. */
static int positive_int(simp *s, const sym_expr *e)
{
	sym_num lo;
	int ok;
	if (!sym__is_int(e))
		return 0;
	sym__num_init(&lo);
	ok = lower_bound(s, e, &lo) && sym__num_cmp(&lo, &(sym_num){{1}, 1}) >= 0;
	sym__num_clear(&lo);
	return ok;
}

/* Nested floor division by a positive symbolic divisor:
 * floor((floor(E) + J)/k) == floor((E + J)/k) for integer-valued k >= 1
 * and J; the term floor(E)/k is c*M*floor(E) with k = 1/(c*M). */
static const sym_expr *rw_floor_nested(simp *s, const sym_expr *e)
{
	sym_ctx *ctx = s->ctx;
	const sym_expr *arg = node_kid(e);
	sym_lin v;
	size_t i, j;
	sym__lin_view(arg, &v);
	for (i = 0; i < v.n; i++) {
		const sym_expr *m = sym__lin_mono(&v, i), *F = NULL, *term, *k, *rest, *M;
		sym_factor one;
		const sym_factor *f;
		size_t n;
		if (m->kind == SYM_KIND_MUL)
			f = node_factors(m), n = m->n;
		else
			one.base = m, one.exp = 1, f = &one, n = 1;
		for (j = 0; j < n && !F; j++)
			if (f[j].base->kind == SYM_KIND_FLOOR && f[j].exp == 1)
				F = f[j].base;
		if (!F)
			continue;
		term = sym__scale(ctx, sym__lin_coef(&v, i), m);
		M = sym_expr_div(ctx, term, F);
		k = sym_expr_div(ctx, ctx->one, M);
		if (!k || !positive_int(s, k))
			continue;
		rest = sym_expr_mul(ctx, sym_expr_sub(ctx, arg, term), k);
		if (!rest || !sym__is_int(rest))
			continue;
		return sym_expr_floor(
		    ctx, sym_expr_add(ctx, sym_expr_sub(ctx, arg, term), sym_expr_mul(ctx, M, node_kid(F))));
	}
	return e;
}

/* floor(P/Q) == 0 when Q >= 1 and 0 <= P < Q are proven; -1 when
 * -Q <= P < 0. */
static const sym_expr *rw_floor_range(simp *s, const sym_expr *e)
{
	sym_ctx *ctx = s->ctx;
	const sym_expr *arg = node_kid(e), *Q, *P;
	sym_lin v;
	size_t i;
	/* Q: the reciprocal factors shared by every term, times the constant
	 * denominator */
	sym__lin_view(arg, &v);
	if (!sym__num_is_zero(v.c) || v.n == 0)
		return e;
	{
		const sym_expr *m = sym__lin_mono(&v, 0);
		sym_factor inv[16], one;
		const sym_factor *f;
		size_t n, ni = 0;
		if (m->kind == SYM_KIND_MUL)
			f = node_factors(m), n = m->n;
		else
			one.base = m, one.exp = 1, f = &one, n = 1;
		for (i = 0; i < n && ni < 16; i++)
			if (f[i].exp < 0) {
				inv[ni].base = f[i].base;
				inv[ni++].exp = -f[i].exp;
			}
		if (!ni)
			return e;
		Q = sym__monomial(ctx, inv, ni);
	}
	P = sym_expr_mul(ctx, arg, Q);
	if (!P || !sym__is_int(P) || !positive_int(s, Q))
		return e;
	/* k*Q <= P < (k+1)*Q for k = 0 or -1 */
	if (sym__decide_rel(ctx, s->f, SYM_KIND_LE, sym_expr_neg(ctx, P)) == SYM_TRUE) {
		if (sym__decide_rel(ctx, s->f, SYM_KIND_LT, sym_expr_sub(ctx, P, Q)) == SYM_TRUE)
			return ctx->zero;
	} else if (sym__decide_rel(ctx, s->f, SYM_KIND_LT, P) == SYM_TRUE &&
	           sym__decide_rel(ctx, s->f, SYM_KIND_LE, sym_expr_neg(ctx, sym_expr_add(ctx, P, Q))) ==
	               SYM_TRUE) {
		return ctx->minus_one;
	}
	return e;
}

/* The terms of v whose coefficient g divides, divided by g, plus v's
 * constant divided by g when with_const and g divides it. */
static const sym_expr *multiples_of(sym_ctx *ctx, const sym_lin *v, const sym_num *g, int with_const)
{
	sym_sumb sb;
	sym_num t;
	size_t j;
	sym__num_init(&t);
	sym__sumb_init(&sb, ctx);
	for (j = 0; j < v->n; j++) {
		sym__num_div(&t, sym__lin_coef(v, j), g);
		if (sym__num_is_int(&t))
			sym__sumb_add_term(&sb, &t, sym__lin_mono(v, j));
	}
	sym__num_div(&t, v->c, g);
	if (with_const && sym__num_is_int(&t))
		sym__num_set(&sb.c, &t);
	sym__num_clear(&t);
	return sym__sumb_finish(&sb);
}

/* The small-part rewrites split a sum once per candidate step g, each split
 * a pass over its terms: distinct steps only, at most MAX_STEPS of them and
 * at most MAX_STEP_WORK term visits in all, so a sum of thousands of terms
 * with as many distinct coefficients stays linear. */
#define MAX_STEPS 16
#define MAX_STEP_WORK 200000

typedef struct steps {
	sym_num g[MAX_STEPS];
	size_t n;
} steps;

/* Whether g is a new step within the budget for a sum of nterms terms;
 * records it. */
static int new_step(steps *st, const sym_num *g, size_t nterms)
{
	size_t i;
	for (i = 0; i < st->n; i++)
		if (sym__num_equal(&st->g[i], g))
			return 0;
	if (st->n == MAX_STEPS || (st->n + 1) * (nterms + 1) > MAX_STEP_WORK)
		return 0;
	sym__num_init(&st->g[st->n]);
	sym__num_set(&st->g[st->n++], g);
	return 1;
}

static void steps_clear(steps *st)
{
	while (st->n)
		sym__num_clear(&st->g[--st->n]);
}

/* Whether 0 <= B <= g - 1 is proven. */
static int below_step(simp *s, const sym_expr *B, const sym_num *g)
{
	sym_num t;
	int ok;
	sym__num_init(&t);
	sym__num_sub(&t, g, &(sym_num){{1}, 1});
	ok = sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, sym_expr_neg(s->ctx, B)) == SYM_TRUE &&
	     sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, sym_expr_sub(s->ctx, B, sym__num_node(s->ctx, &t))) ==
	         SYM_TRUE;
	sym__num_clear(&t);
	return ok;
}

/* floor((g*A + B)/(g*m)) == floor(A/m) when A is integer-valued and
 * 0 <= B < g is proven: the part B below a common factor g of the divisor
 * and of the other terms cannot carry.  (32*x + y)//64 is x//2 for
 * 0 <= y < 32.  g runs over the gcds of the divisor with each coefficient. */
static const sym_expr *rw_floor_small_part(simp *s, const sym_expr *e)
{
	sym_ctx *ctx = s->ctx;
	sym_lin v;
	sym_num d, g, t;
	size_t i;
	const sym_expr *N, *r = e;
	steps st;
	sym__lin_view(node_kid(e), &v);
	if (!sym__lin_int_monos(&v))
		return e;
	st.n = 0;
	sym__num_init(&d);
	sym__num_init(&g);
	sym__num_init(&t);
	sym__lin_denom(&v, &d);
	N = sym__scale(ctx, &d, node_kid(e)); /* N/d, integer coefficients */
	if (!N || sym__num_is_one(&d))
		goto done;
	sym__lin_view(N, &v);
	for (i = 0; i < v.n && r == e; i++) {
		const sym_expr *B, *A;
		sym__num_gcd(&g, &d, sym__lin_coef(&v, i));
		if (sym__num_is_one(&g) || !new_step(&st, &g, v.n))
			continue;
		/* A: the multiples of g (constant included) over g; B the rest */
		A = multiples_of(ctx, &v, &g, 1);
		B = sym_expr_sub(ctx, N, sym__scale(ctx, &g, A));
		if (!A || !B || B == ctx->zero)
			continue;
		if (below_step(s, B, &g)) {
			sym__num_div(&t, &g, &d);
			r = sym_expr_floor(ctx, sym__scale(ctx, &t, A));
		}
	}
done:
	steps_clear(&st);
	sym__num_clear(&d);
	sym__num_clear(&g);
	sym__num_clear(&t);
	return r ? r : e;
}

/* floor(A) == G + n, G the floor atoms of A whose coefficient is in (0, 1)
 * (construction floors the coefficients: (x % 4)//8 holds
 * floor(x/8 + floor(x/4)/2)), when A - G is proven to lie in [n, n + 1). */
static const sym_expr *rw_floor_shift(simp *s, const sym_expr *e)
{
	static const sym_num one = {{1}, 1};
	sym_ctx *ctx = s->ctx;
	const sym_expr *A = node_kid(e), *G, *r = e;
	sym_lin v;
	sym_sumb g;
	sym_ival iv;
	size_t i;
	sym__lin_view(A, &v);
	sym__sumb_init(&g, ctx);
	for (i = 0; i < v.n; i++)
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_FLOOR && sym__num_sgn(sym__lin_coef(&v, i)) > 0 &&
		    sym__num_cmp(sym__lin_coef(&v, i), &one) < 0)
			sym__sumb_add_term(&g, &one, sym__lin_mono(&v, i));
	G = sym__sumb_finish(&g);
	if (!G || (G->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(G))))
		return e;
	sym__ival_init(&iv);
	if (sym__bounds(ctx, s->f, sym_expr_sub(ctx, A, G), &iv) && !iv.lo.inf && !iv.hi.inf) {
		sym_num a, b;
		sym__num_init(&a);
		sym__num_init(&b);
		sym__num_floor(&a, &iv.lo.v);
		sym__num_floor(&b, &iv.hi.v);
		if (sym__num_equal(&a, &b))
			r = sym__add_num(ctx, G, &a);
		sym__num_clear(&a);
		sym__num_clear(&b);
	}
	sym__ival_clear(&iv);
	return r ? r : e;
}

static const sym_expr *rw_floor(simp *s, const sym_expr *e)
{
	sym_ival iv;
	const sym_expr *r = e;
	if (s->f && (r = rw_floor_residue(s, e)) != e)
		return r;
	if ((r = rw_floor_small_part(s, e)) != e)
		return r;
	if ((r = rw_floor_nested(s, e)) != e)
		return r;
	if ((r = rw_floor_range(s, e)) != e)
		return r;
	r = e;
	sym__ival_init(&iv);
	if (sym__bounds(s->ctx, s->f, node_kid(e), &iv) && !iv.lo.inf && !iv.hi.inf) {
		sym_num a, b;
		sym__num_init(&a);
		sym__num_init(&b);
		sym__num_floor(&a, &iv.lo.v);
		sym__num_floor(&b, &iv.hi.v);
		if (sym__num_equal(&a, &b))
			r = sym__num_node(s->ctx, &a);
		sym__num_clear(&a);
		sym__num_clear(&b);
	}
	sym__ival_clear(&iv);
	if (r == e)
		r = rw_floor_shift(s, e);
	return r;
}

static const sym_expr *rw_abs(simp *s, const sym_expr *e)
{
	const sym_expr *x = node_kid(e);
	sym_truth t = sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, sym_expr_neg(s->ctx, x));
	if (t == SYM_TRUE)
		return x;
	t = sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, x);
	if (t == SYM_TRUE)
		return sym_expr_neg(s->ctx, x);
	return e;
}

/* Whether the decisions compare argument a of a min or max with the
 * others by its bounds alone, which it then puts in *iv: a constant, or a
 * symbol with more than one value, no residue fact, no definition and in
 * no linear fact.  Between two such arguments sym__decide_rel of the
 * difference is the comparison of their bounds (interval arithmetic; the
 * linear prover sees the same bounds and nothing else). */
static int bounds_only(simp *s, const sym_expr *a, sym_ival *iv)
{
	const sym_syminfo *si;
	if (a->kind == SYM_KIND_NUM) {
		iv->lo.inf = iv->hi.inf = 0;
		sym__num_set(&iv->lo.v, node_num(a));
		sym__num_set(&iv->hi.v, node_num(a));
		return 1;
	}
	if (a->kind != SYM_KIND_SYM)
		return 0;
	si = sym__facts_get(s->f, a);
	if (si && (si->def || !sym__num_is_zero(&si->mod)))
		return 0;
	if (sym__fm_atom_in_facts(s->ctx, s->f, a))
		return 0;
	sym__facts_sym_range(s->f, a, iv);
	return iv->lo.inf || iv->hi.inf || !sym__num_equal(&iv->lo.v, &iv->hi.v);
}

/* rw_minmax when every argument is compared by its bounds alone: "v[i]
 * proven >= v[j]" is lo_i >= hi_j for a max (hi_i <= lo_j for a min),
 * a strict order (no two arguments dominate each other, as no symbol here
 * has a single value) and transitive, so the pairwise rewrite keeps
 * exactly the arguments that no other dominates.  Linear in the
 * arguments: each is compared with the best end among the others.
 * Returns 0 when some argument is not compared by its bounds alone, else
 * 1 with the result in *out (e when nothing is dropped, NULL on error). */
static int minmax_by_bounds(simp *s, const sym_expr *e, const sym_expr **out, mm_agg *agg, int *has_agg)
{
	size_t n = e->n, i, m = 0, best = SIZE_MAX, second = SIZE_MAX;
	int is_max = e->kind == SYM_KIND_MAX;
	const sym_expr **keep = NULL;
	sym_ival *iv = sym__alloc(s->ctx, n * sizeof(*iv));
	int applies = 0;
	*out = NULL;
	*has_agg = 1;
	agg->x_inf = agg->y_inf = 1;
	if (!iv)
		return 1;
	for (i = 0; i < n; i++)
		sym__ival_init(&iv[i]);
	for (i = 0; i < n; i++) {
		const sym_xnum *x;
		if (!bounds_only(s, node_kids(e)[i], &iv[i]))
			goto done;
		/* the two best dominating ends: the largest lo (max), smallest hi (min) */
		x = is_max ? &iv[i].lo : &iv[i].hi;
		if (x->inf)
			continue;
		if (best == SIZE_MAX || (is_max ? sym__num_cmp(&x->v, &iv[best].lo.v) > 0
		                                : sym__num_cmp(&x->v, &iv[best].hi.v) < 0)) {
			second = best;
			best = i;
		} else if (second == SIZE_MAX || (is_max ? sym__num_cmp(&x->v, &iv[second].lo.v) > 0
		                                         : sym__num_cmp(&x->v, &iv[second].hi.v) < 0)) {
			second = i;
		}
	}
	applies = 1;
	if (!(keep = sym__alloc(s->ctx, n * sizeof(*keep))))
		goto done;
	for (i = 0; i < n; i++) {
		size_t d = i == best ? second : best;
		const sym_xnum *y = is_max ? &iv[i].hi : &iv[i].lo;
		int dominated =
		    d != SIZE_MAX && !y->inf &&
		    (is_max ? sym__num_cmp(&iv[d].lo.v, &y->v) >= 0 : sym__num_cmp(&iv[d].hi.v, &y->v) <= 0);
		if (!dominated)
			keep[m++] = node_kids(e)[i];
		/* the weakest dominated end, for a max extended later */
		if (!y->inf) {
			int64_t yv;
			if (!sym__num_get_si(&y->v, &yv))
				*has_agg = 0;
			else if (agg->y_inf || (is_max ? yv < agg->y : yv > agg->y))
				agg->y_inf = 0, agg->y = yv;
		}
	}
	if (best != SIZE_MAX) {
		const sym_xnum *x = is_max ? &iv[best].lo : &iv[best].hi;
		if (!sym__num_get_si(&x->v, &agg->x))
			*has_agg = 0;
		else
			agg->x_inf = 0;
	}
	*out = m == n ? e : is_max ? sym_expr_max(s->ctx, m, keep) : sym_expr_min(s->ctx, m, keep);
done:
	for (i = 0; i < n; i++)
		sym__ival_clear(&iv[i]);
	sym__free(s->ctx, iv, n * sizeof(*iv));
	if (keep)
		sym__free(s->ctx, keep, n * sizeof(*keep));
	return applies;
}

/* Drops the arguments of min (max) proven not smaller (larger) than
 * another argument. */
/* Whether v[i] is proven not larger (min) or not smaller (max) than v[j]:
 * then v[j] can go. */
static int dominates(simp *s, const sym_expr *e, const sym_expr *vi, const sym_expr *vj)
{
	const sym_expr *d =
	    e->kind == SYM_KIND_MIN ? sym_expr_sub(s->ctx, vi, vj) : sym_expr_sub(s->ctx, vj, vi);
	return sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, d) == SYM_TRUE;
}

/* Min or max e extends the recorded M (entry m, every argument compared
 * by its bounds alone, none dominating another) by its argument p.  When p
 * is compared by its bounds alone too and neither dominates an argument of
 * M nor is dominated by one (M's best dominating end against p's dominated
 * end, p's dominating end against M's weakest dominated end), e's
 * arguments are incomparable as well: returns e with its aggregate ends in
 * *agg.  NULL otherwise (no error unless one is recorded). */
static const sym_expr *extend_by_bounds(simp *s, const sym_expr *e, const mm_entry *m, size_t p, mm_agg *agg)
{
	int is_max = e->kind == SYM_KIND_MAX, ok;
	const sym_xnum *x, *y;
	int64_t xv = 0, yv = 0;
	sym_ival iv;
	sym__ival_init(&iv);
	ok = bounds_only(s, node_kids(e)[p], &iv);
	x = is_max ? &iv.lo : &iv.hi;
	y = is_max ? &iv.hi : &iv.lo;
	/* ends that are integers within int64, or infinite */
	if (ok && ((!x->inf && !sym__num_get_si(&x->v, &xv)) || (!y->inf && !sym__num_get_si(&y->v, &yv))))
		ok = 0;
	/* p dominated by M's best: x_M >= y_p (a max), x_M <= y_p (a min) */
	if (ok && !m->x_inf && !y->inf && (is_max ? m->x >= yv : m->x <= yv))
		ok = 0;
	/* an argument of M dominated by p: x_p >= y_M (a max), x_p <= y_M */
	if (ok && !x->inf && !m->y_inf && (is_max ? xv >= m->y : xv <= m->y))
		ok = 0;
	if (ok) {
		agg->x_inf = m->x_inf, agg->x = m->x;
		agg->y_inf = m->y_inf, agg->y = m->y;
		if (!x->inf && (agg->x_inf || (is_max ? xv > agg->x : xv < agg->x)))
			agg->x_inf = 0, agg->x = xv;
		if (!y->inf && (agg->y_inf || (is_max ? yv < agg->y : yv > agg->y)))
			agg->y_inf = 0, agg->y = yv;
	}
	sym__ival_clear(&iv);
	return ok ? e : NULL;
}

/* Drops the arguments of min (max) proven not smaller (larger) than
 * another argument, each argument tested against each other one in order
 * (v[i] drops v[j] while both are still in).  The result has no two
 * arguments of which one drops the other, and is recorded as such: a min
 * or max that extends a recorded one by the argument p is done with the
 * pairs that hold p only, in the same order, which gives the same node,
 * since the other pairs drop nothing.  Arguments compared by their bounds
 * alone take a linear pass (minmax_by_bounds). */
static const sym_expr *rw_minmax(simp *s, const sym_expr *e)
{
	const sym_expr *stack[16], **v;
	size_t n = e->n, i, j, m = 0, p = (size_t)-1;
	int changed = 0;
	const sym_expr *r = e;
	uint64_t key = s->kept ? sym__minmax_key(e) : 0;
	const mm_entry *found = NULL;
	mm_agg agg;
	int has_agg;
	if (s->kept && (p = mm_find(s, e, key, &found)) == n)
		return e;
	if (n > 2 && found && found->agg && (r = extend_by_bounds(s, e, found, p, &agg)) != NULL) {
		/* a max of incomparable arguments extended by one that compares
		 * with none of them */
		mm_put_agg(s, e, key, &agg);
		return e;
	}
	if (sym__failed(s->ctx))
		return NULL;
	r = e;
	if (n > 2 && minmax_by_bounds(s, e, &r, &agg, &has_agg)) {
		if (r == e)
			mm_put_agg(s, e, key, has_agg ? &agg : NULL);
		else if (r)
			mm_put_kept(s, e, r, NULL, 0);
		return r;
	}
	r = e;
	v = n <= 16 ? stack : sym__alloc(s->ctx, n * sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, node_kids(e), n * sizeof(*v));
	for (i = 0; i < n; i++) {
		if (!v[i])
			continue;
		if (p != (size_t)-1 && i != p) {
			if (v[p] && dominates(s, e, v[i], v[p])) {
				v[p] = NULL;
				changed = 1;
			}
			continue;
		}
		for (j = 0; j < n; j++) {
			if (j == i || !v[j])
				continue;
			if (dominates(s, e, v[i], v[j])) {
				v[j] = NULL;
				changed = 1;
			}
		}
	}
	if (changed) {
		for (i = 0; i < n; i++)
			if (v[i])
				v[m++] = v[i];
		r = e->kind == SYM_KIND_MIN ? sym_expr_min(s->ctx, m, v) : sym_expr_max(s->ctx, m, v);
		if (r && !sym__failed(s->ctx))
			mm_put_kept(s, e, r, v, m);
	} else if (!sym__failed(s->ctx)) {
		mm_put(s, e, key);
	}
	if (v != stack)
		sym__free(s->ctx, v, n * sizeof(*v));
	return r;
}

/* M*Q + c KIND 0 with a common factor M >= 1 of the nonconstant terms:
 *   c == 0:            M*Q KIND 0  <=>  Q KIND 0
 *   LE, 0 < c <= M:    M*Q <= -c   <=>  Q <= -1
 *   LE, 0 < -c < M:    M*Q <= -c   <=>  Q <= 0 */
static const sym_expr *rw_rel_factor(simp *s, const sym_expr *e)
{
	const sym_expr *d = node_kid(e), *M, *Q, *r = e;
	sym_lin v;
	sym_num lo, c;
	if (!sym__is_int(d))
		return e;
	M = sym__common_factor(s->ctx, d, 1);
	if (!M)
		return e;
	sym__lin_view(d, &v);
	sym__num_init(&lo);
	sym__num_init(&c);
	sym__num_set(&c, v.c);
	if (!lower_bound(s, M, &lo) || sym__num_cmp(&lo, &(sym_num){{1}, 1}) < 0)
		goto done;
	{
		sym_num nc;
		sym__num_init(&nc);
		sym__num_neg(&nc, &c);
		Q = sym_expr_div(s->ctx, sym__add_num(s->ctx, d, &nc), M);
		sym__num_clear(&nc);
	}
	if (!Q)
		goto done;
	if (sym__num_is_zero(&c)) {
		r = sym__rebuild(s->ctx, e, &Q);
	} else if (e->kind == SYM_KIND_LE && sym__num_sgn(&c) > 0 && sym__num_cmp(&c, &lo) <= 0) {
		r = sym_expr_rel(s->ctx, SYM_REL_LE, Q, s->ctx->minus_one);
	} else if (e->kind == SYM_KIND_LE && sym__num_sgn(&c) < 0) {
		sym__num_neg(&c, &c);
		if (sym__num_cmp(&c, &lo) < 0)
			r = sym_expr_rel(s->ctx, SYM_REL_LE, Q, s->ctx->zero);
	}
done:
	sym__num_clear(&lo);
	sym__num_clear(&c);
	return r ? r : e;
}

/* g*A + B + c <= 0 with 0 <= B <= g - 1 proven and -c == g*q + g - 1:
 * the relation is A <= q (B cannot carry past the multiple of g), so
 * 8*x + y < 16 is x <= 1 for 0 <= y < 8.  g runs over the term
 * coefficients; B holds the terms g does not divide. */
static const sym_expr *rw_rel_small_part(simp *s, const sym_expr *e)
{
	sym_ctx *ctx = s->ctx;
	const sym_expr *d = node_kid(e);
	sym_lin v;
	sym_num g, t, q;
	size_t i;
	const sym_expr *r = e;
	steps st;
	if (e->kind != SYM_KIND_LE || !sym__is_int(d))
		return e;
	sym__lin_view(d, &v);
	if (v.n < 2)
		return e;
	st.n = 0;
	sym__num_init(&g);
	sym__num_init(&t);
	sym__num_init(&q);
	for (i = 0; i < v.n && r == e; i++) {
		const sym_expr *A, *B;
		sym__num_abs(&g, sym__lin_coef(&v, i));
		if (sym__num_is_one(&g))
			continue;
		/* -c == g*q + g - 1, checked before the split */
		sym__num_neg(&t, v.c);
		sym__num_add(&t, &t, &(sym_num){{1}, 1});
		sym__num_div(&q, &t, &g); /* (-c + 1)/g = q + 1 */
		if (!sym__num_is_int(&q) || !new_step(&st, &g, v.n))
			continue;
		sym__num_sub(&q, &q, &(sym_num){{1}, 1});
		A = multiples_of(ctx, &v, &g, 0);
		B = sym_expr_sub(ctx, sym_expr_sub(ctx, d, sym__scale(ctx, &g, A)), sym__num_node(ctx, v.c));
		if (!A || !B || B->kind == SYM_KIND_NUM)
			continue;
		if (below_step(s, B, &g))
			r = sym_expr_rel(ctx, SYM_REL_LE, A, sym__num_node(ctx, &q));
	}
	steps_clear(&st);
	sym__num_clear(&g);
	sym__num_clear(&t);
	sym__num_clear(&q);
	return r ? r : e;
}

static const sym_expr *rw_rel(simp *s, const sym_expr *e)
{
	const sym_expr *r;
	sym_truth t = sym__decide_rel(s->ctx, s->f, (sym_kind)e->kind, node_kid(e));
	if (t == SYM_TRUE || t == SYM_FALSE)
		return sym_expr_bool(s->ctx, t == SYM_TRUE);
	if ((r = rw_rel_small_part(s, e)) != e)
		return r;
	return rw_rel_factor(s, e);
}

/* Whether the relation r (integer "d <= 0" or "d == 0") follows from the
 * relations given[] and the facts. */
static int implied_by(simp *s, const sym_expr *r, size_t n, const sym_expr *const *given)
{
	const sym_expr *d = node_kid(r);
	if (!sym__is_int(d))
		return 0;
	if (r->kind == SYM_KIND_LE)
		return sym__fm_prove_le_given(s->ctx, s->f, d, n, given);
	if (r->kind == SYM_KIND_EQ)
		return sym__fm_prove_le_given(s->ctx, s->f, d, n, given) &&
		       sym__fm_prove_le_given(s->ctx, s->f, sym_expr_neg(s->ctx, d), n, given);
	return 0;
}

#define MAX_CONJ 12

/* A relation of a conjunction over an integer linear form: lhs (a node,
 * the relation's expression without its constant) compared with the
 * integer k: kind LE is lhs <= k, GE lhs >= k, EQ and NE as named. */
typedef struct lrel {
	const sym_expr *lhs, *k;
	int kind; /* SYM_KIND_LE, SYM_KIND_EQ, SYM_KIND_NE or -1 for lhs >= k */
} lrel;

/* Reads relation p as an lrel over an integer form; 0 when it is not one. */
static int lrel_of(sym_ctx *ctx, const sym_expr *p, lrel *out)
{
	sym_lin w;
	size_t i;
	const sym_expr *c;
	if (p->kind != SYM_KIND_LE && p->kind != SYM_KIND_EQ && p->kind != SYM_KIND_NE)
		return 0;
	sym__lin_view(node_kid(p), &w);
	if (!w.n || !sym__lin_int_monos(&w) || !sym__num_is_int(w.c))
		return 0;
	for (i = 0; i < w.n; i++)
		if (!sym__num_is_int(sym__lin_coef(&w, i)))
			return 0;
	/* d + c <op> 0 is d <op> -c */
	if (!(c = sym__num_node(ctx, w.c)) || !(out->lhs = sym_expr_sub(ctx, node_kid(p), c)) ||
	    !(out->k = sym_expr_neg(ctx, c)))
		return -1;
	out->kind = p->kind;
	return 1;
}

/* a and b (one's form possibly the other's negated, which flips b) as one
 * relation: x <= k && x >= k is x == k, x != k && x <= k is x <= k - 1,
 * x != k && x >= k is x >= k + 1; NULL with no error when they do not
 * merge. */
static const sym_expr *lrel_merge(sym_ctx *ctx, lrel a, lrel b)
{
	const sym_expr *one = ctx->one;
	if (b.lhs != a.lhs) {
		const sym_expr *n = sym_expr_neg(ctx, b.lhs);
		if (n != a.lhs)
			return NULL;
		b.lhs = n, b.k = sym_expr_neg(ctx, b.k);
		b.kind = b.kind == SYM_KIND_LE ? -1 : b.kind == -1 ? SYM_KIND_LE : b.kind;
	}
	if (a.kind == SYM_KIND_NE) {
		lrel t = a;
		a = b, b = t;
	}
	if (b.kind == SYM_KIND_NE && b.k == a.k && (a.kind == SYM_KIND_LE || a.kind == -1))
		return a.kind == SYM_KIND_LE
		           ? sym_expr_rel(ctx, SYM_REL_LE, a.lhs, sym_expr_sub(ctx, a.k, one))
		           : sym_expr_rel(ctx, SYM_REL_GE, a.lhs, sym_expr_add(ctx, a.k, one));
	if (a.k == b.k &&
	    ((a.kind == SYM_KIND_LE && b.kind == -1) || (a.kind == -1 && b.kind == SYM_KIND_LE)))
		return sym_expr_rel(ctx, SYM_REL_EQ, a.lhs, a.k);
	return NULL;
}

/* The conjunction neg[0..n) with two relations over one integer form
 * merged into one (see lrel_merge), as e's kind (a disjunction is given
 * by its negations); e when no two merge. */
static const sym_expr *rw_conn_merge(simp *s, const sym_expr *e, const sym_expr *const *neg, size_t n)
{
	lrel l[MAX_CONJ];
	int ok[MAX_CONJ];
	size_t i, j, q;
	int is_and = e->kind == SYM_KIND_AND;
	for (i = 0; i < n; i++)
		if ((ok[i] = lrel_of(s->ctx, neg[i], &l[i])) < 0)
			return NULL;
	for (i = 0; i < n; i++)
		for (j = i + 1; ok[i] && j < n; j++) {
			const sym_expr *m, *r;
			if (!ok[j])
				continue;
			if (!(m = lrel_merge(s->ctx, l[i], l[j]))) {
				if (sym__failed(s->ctx))
					return NULL;
				continue;
			}
			r = is_and ? m : sym_expr_not(s->ctx, m);
			for (q = 0; q < n && r; q++)
				if (q != i && q != j)
					r = is_and ? sym_expr_and(s->ctx, r, neg[q])
					           : sym_expr_or(s->ctx, r, sym_expr_not(s->ctx, neg[q]));
			return r;
		}
	return e;
}

/* p && q: false when the relations cannot hold together, and a relation
 * implied by the others is dropped.  p || q: true when the negations
 * cannot hold together (x <= y || y < x), and a relation implying another
 * is dropped. */
static const sym_expr *rw_conn(simp *s, const sym_expr *e)
{
	const sym_expr *v[MAX_CONJ], *neg[MAX_CONJ], *r;
	size_t n = e->n, i, j, m = 0;
	int is_and = e->kind == SYM_KIND_AND;
	if (n > MAX_CONJ)
		return e;
	for (i = 0; i < n; i++) {
		v[i] = node_kids(e)[i];
		/* reason on the negations for a disjunction */
		neg[i] = is_and ? v[i] : sym_expr_not(s->ctx, v[i]);
		if (!neg[i])
			return NULL;
	}
	/* two relations over one form that are one: a <= 2 && a >= 2 is a == 2 */
	if ((r = rw_conn_merge(s, e, neg, n)) != e)
		return r;
	/* x == c && P is x == c && P[x := c]; x != c || P is x != c || P[x := c] */
	for (i = 0; i < n; i++) {
		sym_lin w;
		int changed = 0;
		const sym_expr *x, *c;
		if (neg[i]->kind != SYM_KIND_EQ)
			continue;
		sym__lin_view(node_kid(neg[i]), &w);
		if (w.n != 1 || sym__lin_mono(&w, 0)->kind != SYM_KIND_SYM ||
		    !sym__num_is_one(sym__lin_coef(&w, 0)))
			continue;
		x = sym__lin_mono(&w, 0);
		c = sym__num_node(s->ctx, w.c);
		c = sym_expr_neg(s->ctx, c);
		if (!c)
			return NULL;
		for (j = 0; j < n; j++) {
			const sym_expr *t;
			if (j == i)
				continue;
			t = sym_expr_subst(s->ctx, v[j], 1, &x, &c);
			if (!t) {
				if (sym_ctx_last_error(s->ctx) == SYM_ENOMEM)
					return NULL;
				sym_ctx_clear_error(s->ctx);
				continue;
			}
			if (t != v[j])
				v[j] = t, changed = 1;
		}
		if (changed) {
			r = is_and ? s->ctx->btrue : s->ctx->bfalse;
			for (j = 0; j < n && r; j++)
				r = is_and ? sym_expr_and(s->ctx, r, v[j]) : sym_expr_or(s->ctx, r, v[j]);
			return r;
		}
	}
	/* all together impossible? 1 <= 0 follows */
	if (sym__fm_prove_le_given(s->ctx, s->f, s->ctx->one, n, neg))
		return s->ctx->bfalse == NULL ? NULL : (is_and ? s->ctx->bfalse : s->ctx->btrue);
	for (i = 0; i < n; i++) {
		const sym_expr *others[MAX_CONJ];
		size_t k = 0;
		if (neg[i]->kind != SYM_KIND_LE && neg[i]->kind != SYM_KIND_EQ)
			continue;
		for (j = 0; j < n; j++)
			if (j != i && neg[j])
				others[k++] = neg[j];
		if (k && implied_by(s, neg[i], k, others))
			neg[i] = NULL, v[i] = NULL; /* redundant (by the others still kept) */
	}
	r = is_and ? s->ctx->btrue : s->ctx->bfalse;
	for (i = 0; i < n && r; i++)
		if (v[i])
			r = is_and ? sym_expr_and(s->ctx, r, v[i]) : sym_expr_or(s->ctx, r, v[i]), m++;
	return r;
}

/* Nodes of the tree of e, counted up to cap. */
static size_t tree_size(const sym_expr *e, size_t cap)
{
	size_t i, n = sym__nslots(e), t = 1;
	for (i = 0; i < n && t < cap; i++)
		t += tree_size(sym__slot(e, i), cap - t);
	return t;
}

/* Two min/max terms of a sum that cancel: c*min(a, b) + c*max(a, b) is
 * c*(a + b), and c*M1 - c*M2 is c*k when M1 and M2 are of one kind with as
 * many arguments and each argument of M1 is one of M2 plus k (the
 * arguments of a min differ by no constant, so the match is one to one).
 * e when there are none. */
static const sym_expr *rw_sum_minmax_pair(simp *s, const sym_expr *e)
{
	sym_ctx *ctx = s->ctx;
	sym_lin v;
	size_t i, j, l;
	sym_num k, d, t;
	const sym_expr *r = e;
	if (e->n > 16)
		return e;
	sym__lin_view(e, &v);
	sym__num_init(&k);
	sym__num_init(&d);
	sym__num_init(&t);
	for (i = 0; i < v.n && r == e; i++) {
		const sym_expr *A = sym__lin_mono(&v, i);
		if (A->kind != SYM_KIND_MIN && A->kind != SYM_KIND_MAX)
			continue;
		for (j = i + 1; j < v.n && r == e; j++) {
			const sym_expr *B = sym__lin_mono(&v, j), *rest;
			if ((B->kind != SYM_KIND_MIN && B->kind != SYM_KIND_MAX) || A->n != B->n)
				continue;
			rest = sym_expr_sub(ctx, e,
			                    sym_expr_add(ctx, sym__scale(ctx, sym__lin_coef(&v, i), A),
			                                 sym__scale(ctx, sym__lin_coef(&v, j), B)));
			if (!rest)
				break;
			if (A->kind != B->kind && A->n == 2 &&
			    sym__num_equal(sym__lin_coef(&v, i), sym__lin_coef(&v, j)) &&
			    node_kids(A)[0] == node_kids(B)[0] && node_kids(A)[1] == node_kids(B)[1]) {
				r = sym_expr_add(
				    ctx, rest,
				    sym__scale(ctx, sym__lin_coef(&v, i),
				               sym_expr_add(ctx, node_kids(A)[0], node_kids(A)[1])));
				break;
			}
			sym__num_add(&t, sym__lin_coef(&v, i), sym__lin_coef(&v, j));
			if (A->kind != B->kind || !sym__num_is_zero(&t))
				continue;
			for (l = 0; l < A->n; l++) {
				size_t q;
				int found = 0;
				for (q = 0; q < B->n && !found; q++) {
					const sym_expr *df =
					    sym_expr_sub(ctx, node_kids(A)[l], node_kids(B)[q]);
					if (!df)
						break;
					found = df->kind == SYM_KIND_NUM &&
					        (!l || sym__num_equal(node_num(df), &k));
					if (found)
						sym__num_set(&k, node_num(df));
				}
				if (!found)
					break;
			}
			if (l == A->n) {
				sym__num_mul(&d, &k, sym__lin_coef(&v, i));
				r = sym__add_num(ctx, rest, &d);
			}
		}
	}
	sym__num_clear(&k);
	sym__num_clear(&d);
	sym__num_clear(&t);
	return r;
}

/* min(a, b)**k * max(a, b)**k == (a*b)**k in a monomial. */
static const sym_expr *rw_mul_minmax_pair(simp *s, const sym_expr *e)
{
	size_t i, j;
	for (i = 0; i < e->n; i++) {
		const sym_factor *fi = &node_factors(e)[i];
		if (fi->base->kind != SYM_KIND_MIN || fi->base->n != 2)
			continue;
		for (j = 0; j < e->n; j++) {
			const sym_factor *fj = &node_factors(e)[j];
			const sym_expr *ab, *out;
			if (fj->base->kind != SYM_KIND_MAX || fj->base->n != 2 || fj->exp != fi->exp ||
			    node_kids(fj->base)[0] != node_kids(fi->base)[0] ||
			    node_kids(fj->base)[1] != node_kids(fi->base)[1])
				continue;
			ab = sym_expr_mul(s->ctx, node_kids(fi->base)[0], node_kids(fi->base)[1]);
			out = sym_expr_div(s->ctx, e,
			                   sym_expr_mul(s->ctx, sym_expr_pow_si(s->ctx, fi->base, fi->exp),
			                                sym_expr_pow_si(s->ctx, fj->base, fj->exp)));
			return sym_expr_mul(s->ctx, out, sym_expr_pow_si(s->ctx, ab, fi->exp));
		}
	}
	return e;
}

/* c*min(a_1, ..., a_n) + T == c*min(a_1 + T/c, ..., a_n + T/c) for any
 * c != 0: the other terms of a sum move into its one min or max when the
 * result is smaller (max(0, 1 - 4*x) + 4*x is max(4*x, 1)). */
static const sym_expr *rw_sum_into_minmax(simp *s, const sym_expr *e)
{
	sym_ctx *ctx = s->ctx;
	sym_lin v;
	size_t i, j, at = SIZE_MAX, sz;
	const sym_expr *M, *T, *r, *args[16];
	sym_num ic;
	if (e->n > 8)
		return e;
	sym__lin_view(e, &v);
	for (i = 0; i < v.n; i++)
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_MIN ||
		    sym__lin_mono(&v, i)->kind == SYM_KIND_MAX) {
			if (at != SIZE_MAX)
				return e;
			at = i;
		}
	if (at == SIZE_MAX || sym__lin_mono(&v, at)->n > 16)
		return e;
	M = sym__lin_mono(&v, at);
	T = sym_expr_sub(ctx, e, sym__scale(ctx, sym__lin_coef(&v, at), M));
	if (!T)
		return NULL;
	sym__num_init(&ic);
	sym__num_div(&ic, &(sym_num){{1}, 1}, sym__lin_coef(&v, at));
	T = sym__scale(ctx, &ic, T);
	for (j = 0; j < M->n && T; j++)
		args[j] = sym_expr_add(ctx, node_kids(M)[j], T);
	r = T ? (M->kind == SYM_KIND_MIN ? sym_expr_min : sym_expr_max)(ctx, M->n, args) : NULL;
	r = sym__scale(ctx, sym__lin_coef(&v, at), r);
	sym__num_clear(&ic);
	if (!r)
		return NULL;
	sz = tree_size(e, 256);
	return tree_size(r, sz) < sz ? r : e;
}

static const sym_expr *rewrite(simp *s, const sym_expr *e)
{
	switch (e->kind) {
	case SYM_KIND_ADD: {
		const sym_expr *r = rw_sum_minmax_pair(s, e);
		return r != e ? r : rw_sum_into_minmax(s, e);
	}
	case SYM_KIND_MUL:
		return rw_mul_minmax_pair(s, e);
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		return rw_conn(s, e);
	case SYM_KIND_FLOOR:
		return rw_floor(s, e);
	case SYM_KIND_ABS:
		return rw_abs(s, e);
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
		return rw_minmax(s, e);
	case SYM_KIND_EQ:
	case SYM_KIND_NE:
	case SYM_KIND_LE:
	case SYM_KIND_LT:
		return rw_rel(s, e);
	default:
		return e;
	}
}

/* Whether symbol x is its own result: no range under the facts is one
 * value (sym_facts.points). */
static inline int sym_stays(const simp *s, const sym_expr *x)
{
	return x->kind == SYM_KIND_SYM && (!s->f || !s->f->points);
}

/* e (of n slots) rebuilt from its simplified children: e itself when none
 * changes; NULL on error. */
static const sym_expr *simp_children(simp *s, const sym_expr *e, size_t n)
{
	const sym_expr *r, *stack[16], **k;
	size_t i;
	int same = 1;
	/* a min or max of symbols that all stay (sym_stays) has itself for
	 * children, without a look at each */
	if ((e->flags & SYM_F_SYMARGS) && (!s->f || !s->f->points))
		return e;
	/* a min or max of many dims is passed over without a call per dim */
	k = n <= 16 ? stack : sym__alloc(s->ctx, n * sizeof(*k));
	if (!k)
		return NULL;
	for (i = 0; i < n; i++) {
		const sym_expr *x = sym__slot(e, i);
		k[i] = sym_stays(s, x) ? x : simp_node(s, x);
		if (!k[i])
			break;
		if (k[i] != x)
			same = 0;
	}
	r = i < n ? NULL : same ? e : sym__rebuild(s->ctx, e, k);
	if (k != stack)
		sym__free(s->ctx, k, n * sizeof(*k));
	return r;
}

static const sym_expr *simp_node(simp *s, const sym_expr *e)
{
	const sym_expr *r;
	size_t i, n;
	if (!e || sym__failed(s->ctx))
		return NULL;
	if (sym_stays(s, e))
		return e;
	if ((r = sym__memo_get(s->memo, e)))
		return r;
	n = sym__nslots(e);
	if (n == 0) {
		r = e;
		if (e->kind == SYM_KIND_SYM && s->f) {
			/* a symbol the facts pin to one value is that value */
			sym_ival iv;
			sym__ival_init(&iv);
			sym__facts_sym_range(s->f, e, &iv);
			if (!iv.lo.inf && !iv.hi.inf && sym__num_equal(&iv.lo.v, &iv.hi.v))
				r = sym__num_node(s->ctx, &iv.lo.v);
			sym__ival_clear(&iv);
		}
	} else {
		r = simp_children(s, e, n);
		/* rewrite until this node is stable */
		for (i = 0; r && i < MAX_ROUNDS; i++) {
			const sym_expr *r2 = rewrite(s, r);
			if (r2 == r)
				break;
			r = r2 && r2->kind == r->kind ? r2 : simp_node(s, r2);
		}
	}
	if (r && !sym__memo_put(s->memo, e, r))
		return NULL;
	return r;
}

const sym_expr *sym_simplify(sym_ctx *ctx, sym_facts *f, const sym_expr *e)
{
	simp s;
	sym_memo own;
	const sym_expr *r;
	int round;
	if (!e || sym__failed(ctx))
		return NULL;
	r = sym__facts_apply_defs(ctx, f, e);
	s.ctx = ctx;
	s.f = f;
	s.kept = kept_state(ctx, f);
	s.memo = s.kept ? &s.kept->memo : NULL;
	if (!s.memo) {
		sym__memo_init(&own, ctx);
		s.memo = &own;
	}
	for (round = 0; r && round < MAX_ROUNDS; round++) {
		const sym_expr *r2 = simp_node(&s, r);
		if (r2 == r)
			break;
		r = r2;
	}
	if (s.memo == &own)
		sym__memo_clear(&own);
	else if (!r || sym__failed(ctx))
		sym__memo_clear(s.memo);
	return r;
}
