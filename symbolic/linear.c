/* Linear arithmetic over the integers: Fourier-Motzkin elimination with
 * integer tightening, over atoms (symbols and nonlinear subterms treated as
 * opaque integers with their bounds and defining inequalities).  Used to
 * prove "d <= 0"; an infeasible relaxation is a sound proof. */
#include "facts_private.h"

/* The prover's bounds per call: at most MAX_VARS atoms (a larger system is
 * "not proven", which is sound) and MAX_ROWS rows after any elimination
 * step.  Only the linear facts connected to the goal's atoms take part, so
 * a call costs the same whatever the size of the fact store. */
#define MAX_VARS 24
#define MAX_ROWS 600
/* A min or max brings a row and a variable per argument: past
 * MAX_MINMAX_ARGS of them the system is too large to pay (a goal over the
 * max of 24 dims cost some 100k instructions a call, and a chain of 24
 * broadcasts makes hundreds of such calls), so it is "not proven". */
#define MAX_MINMAX_ARGS 8

/* What the prover keeps in a fact store between calls: an index from each
 * atom to the linear facts it occurs in (appended to as facts arrive; the
 * store only grows), and the results of the calls without extra
 * relations under the current version of the facts. */
typedef struct fm_slot {
	const sym_expr *atom;
	size_t head; /* first link + 1; 0: none */
} fm_slot;

typedef struct fm_link {
	size_t fact, next; /* next: the following link + 1 */
} fm_link;

typedef struct fm_result {
	const sym_expr *d;
	int proven;
} fm_result;

struct sym_fmstate {
	size_t indexed; /* linear facts indexed so far */
	fm_slot *slots;
	size_t scap, scount;
	fm_link *links;
	size_t nlinks, caplinks;
	unsigned *mark; /* per linear fact: the call that added it */
	size_t capmark;
	unsigned call;
	unsigned long version; /* of the facts the results hold under */
	fm_result *res;
	size_t rcap, rcount;
};

#define FM_RESULTS_CAP 16384

typedef struct row {
	sym_num *a; /* nv coefficients */
	sym_num c;  /* sum a_i x_i + c <= 0 */
} row;

typedef struct lp {
	sym_ctx *ctx;
	const sym_facts *f;
	const sym_expr *var[MAX_VARS];
	size_t nv, done; /* atoms; atoms whose constraints were added */
	row *rows;
	size_t nrows, cap;
	int overflow;
	struct sym_fmstate *st; /* NULL: every linear fact is added up front */
} lp;

static void row_free(row *r, size_t nv)
{
	size_t i;
	for (i = 0; i < nv; i++)
		sym__num_clear(&r->a[i]);
	sym__num_clear(&r->c);
}

static long var_index(lp *p, const sym_expr *atom)
{
	size_t i;
	for (i = 0; i < p->nv; i++)
		if (p->var[i] == atom)
			return (long)i;
	if (p->nv == MAX_VARS) {
		p->overflow = 1;
		return -1;
	}
	p->var[p->nv] = atom;
	return (long)p->nv++;
}

/* Adds "k * e + c0 <= 0" for an integer-valued linear view of e; returns 0
 * when e has non-integer parts. */
static int add_le(lp *p, const sym_expr *e, const sym_num *k, const sym_num *c0)
{
	sym_lin v;
	sym_num l, t;
	row r;
	size_t i;
	long idx[64];
	if (!e || p->overflow)
		return 0;
	sym__lin_view(e, &v);
	if (v.n > MAX_VARS) {
		p->overflow = 1;
		return 0;
	}
	for (i = 0; i < v.n; i++) {
		if (!sym__is_int(sym__lin_mono(&v, i)))
			return 0;
		idx[i] = var_index(p, sym__lin_mono(&v, i));
		if (idx[i] < 0)
			return 0;
	}
	if (SYM_GROW(p->ctx, p->rows, p->nrows + 1, p->cap, 32) < 0) {
		p->overflow = 1;
		return 0;
	}
	r.a = sym__alloc(p->ctx, MAX_VARS * sizeof(*r.a));
	if (!r.a) {
		p->overflow = 1;
		return 0;
	}
	for (i = 0; i < MAX_VARS; i++)
		sym__num_init(&r.a[i]);
	sym__num_init(&r.c);
	sym__num_init(&l);
	sym__num_init(&t);
	/* scale to integer coefficients: multiply by the lcm of denominators */
	sym__num_set_si(&l, 1);
	for (i = 0; i < v.n; i++) {
		sym__num_mul(&t, sym__lin_coef(&v, i), k);
		sym__num_denom(&t, &t);
		sym__num_lcm(&l, &l, &t);
	}
	for (i = 0; i < v.n; i++) {
		sym__num_mul(&t, sym__lin_coef(&v, i), k);
		sym__num_mul(&t, &t, &l);
		sym__num_add(&r.a[idx[i]], &r.a[idx[i]], &t);
	}
	sym__num_mul(&t, v.c, k);
	if (c0)
		sym__num_add(&t, &t, c0);
	sym__num_mul(&t, &t, &l);
	sym__num_ceil(&r.c, &t); /* integer left side: ceil keeps the set */
	sym__num_clear(&l);
	sym__num_clear(&t);
	p->rows[p->nrows++] = r;
	return 1;
}

/* Adds the bounds and defining inequalities of atom x. */
static void add_atom_facts(lp *p, const sym_expr *x)
{
	static const sym_num one = {{1}, 1}, mone = {{-1}, 1};
	sym_ctx *ctx = p->ctx;
	sym_ival iv;
	size_t i;
	int ok, was;
	sym__ival_init(&iv);
	/* the largest dim is no row: an upper end on every dim would multiply
	 * the eliminations, and the bound analysis decides with it already */
	was = p->f ? p->f->dims_open : 0;
	if (p->f)
		((sym_facts *)p->f)->dims_open = 1;
	ok = sym__bounds(ctx, p->f, x, &iv);
	if (p->f)
		((sym_facts *)p->f)->dims_open = was;
	if (ok) {
		sym_num t;
		sym__num_init(&t);
		if (!iv.lo.inf) { /* lo - x <= 0 */
			sym__num_set(&t, &iv.lo.v);
			add_le(p, x, &mone, &t);
		}
		if (!iv.hi.inf) { /* x - hi <= 0 */
			sym__num_neg(&t, &iv.hi.v);
			add_le(p, x, &one, &t);
		}
		sym__num_clear(&t);
	}
	sym__ival_clear(&iv);
	switch (x->kind) {
	case SYM_KIND_FLOOR: {
		/* floor(E) <= E and E - floor(E) <= 1 - 1/q for E = P/q */
		const sym_expr *E = node_kid(x);
		sym_lin v;
		sym_num q, t;
		sym__lin_view(E, &v);
		if (!sym__lin_int_monos(&v))
			return;
		sym__num_init(&q);
		sym__num_init(&t);
		sym__num_denom(&q, v.c);
		for (i = 0; i < v.n; i++) {
			sym__num_denom(&t, sym__lin_coef(&v, i));
			sym__num_lcm(&q, &q, &t);
		}
		add_le(p, sym_expr_sub(ctx, x, E), &one, NULL);
		sym__num_div(&t, &one, &q);
		sym__num_sub(&t, &t, &one);
		add_le(p, sym_expr_sub(ctx, E, x), &one, &t);
		sym__num_clear(&q);
		sym__num_clear(&t);
		break;
	}
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
		if (x->n > MAX_MINMAX_ARGS || p->nv + x->n > MAX_VARS + 1) {
			p->overflow = 1; /* too many arguments: no row is built */
			return;
		}
		for (i = 0; i < x->n; i++) {
			const sym_expr *d = x->kind == SYM_KIND_MIN ? sym_expr_sub(ctx, x, node_kids(x)[i])
			                                            : sym_expr_sub(ctx, node_kids(x)[i], x);
			add_le(p, d, &one, NULL);
		}
		break;
	case SYM_KIND_ABS:
		add_le(p, sym_expr_sub(ctx, node_kid(x), x), &one, NULL);
		add_le(p, sym_expr_add(ctx, node_kid(x), x), &mone, NULL);
		break;
	case SYM_KIND_MUL: {
		/* M = R*floor(P/R) with an integer-valued R >= 1 and P:
		 * P - R + 1 <= M <= P (the quotient times a symbolic divisor,
		 * as in x % y = x - y*(x//y)) */
		const sym_expr *F = NULL, *R, *P;
		sym_ival rb;
		for (i = 0; i < x->n && !F; i++)
			if (node_factors(x)[i].base->kind == SYM_KIND_FLOOR && node_factors(x)[i].exp == 1)
				F = node_factors(x)[i].base;
		if (!F)
			break;
		R = sym_expr_div(ctx, x, F);
		P = R ? sym_expr_mul(ctx, node_kid(F), R) : NULL;
		if (!P || !sym__is_int(R) || !sym__is_int(P))
			break;
		sym__ival_init(&rb);
		if (sym__bounds(ctx, p->f, R, &rb) && !rb.lo.inf && sym__num_cmp(&rb.lo.v, &one) >= 0) {
			add_le(p, sym_expr_sub(ctx, x, P), &one, NULL);
			add_le(p, sym_expr_sub(ctx, sym_expr_sub(ctx, P, x), R), &one, &one);
		}
		sym__ival_clear(&rb);
		break;
	}
	default:
		break;
	}
}

static void normalize(row *r, size_t nv)
{
	sym_num g;
	size_t i;
	sym__num_init(&g);
	for (i = 0; i < nv; i++)
		if (!sym__num_is_zero(&r->a[i]))
			sym__num_gcd(&g, &g, &r->a[i]);
	if (!sym__num_is_zero(&g) && !sym__num_is_one(&g)) {
		for (i = 0; i < nv; i++)
			sym__num_div(&r->a[i], &r->a[i], &g);
		sym__num_div(&r->c, &r->c, &g);
		sym__num_ceil(&r->c, &r->c);
	}
	sym__num_clear(&g);
}

static int row_contradicts(const row *r, size_t nv)
{
	size_t i;
	for (i = 0; i < nv; i++)
		if (!sym__num_is_zero(&r->a[i]))
			return 0;
	return sym__num_sgn(&r->c) > 0;
}

/* Returns 1 when the rows are infeasible over the integers (proven), 0 when
 * elimination ends without a contradiction or exceeds its limits. */
static int infeasible(lp *p)
{
	size_t nv = p->nv, i, j, k, v;
	int eliminated[MAX_VARS] = {0};
	for (i = 0; i < p->nrows; i++) {
		normalize(&p->rows[i], nv);
		if (row_contradicts(&p->rows[i], nv))
			return 1;
	}
	for (k = 0; k < nv; k++) {
		size_t best = nv, bestcost = (size_t)-1, np, nn, ncap;
		row *nr;
		size_t nnr = 0;
		for (v = 0; v < nv; v++) {
			if (eliminated[v])
				continue;
			np = nn = 0;
			for (i = 0; i < p->nrows; i++) {
				int s = sym__num_sgn(&p->rows[i].a[v]);
				np += s > 0, nn += s < 0;
			}
			if (np * nn < bestcost)
				bestcost = np * nn, best = v;
		}
		if (best == nv)
			break;
		v = best;
		eliminated[v] = 1;
		np = nn = 0;
		for (i = 0; i < p->nrows; i++) {
			int s = sym__num_sgn(&p->rows[i].a[v]);
			np += s > 0, nn += s < 0;
		}
		if (p->nrows - np - nn + np * nn > MAX_ROWS)
			return 0;
		ncap = p->nrows - np - nn + np * nn + 1;
		nr = sym__alloc(p->ctx, ncap * sizeof(*nr));
		if (!nr)
			return 0;
		for (i = 0; i < p->nrows; i++) {
			if (sym__num_sgn(&p->rows[i].a[v]) == 0) {
				nr[nnr++] = p->rows[i];
				continue;
			}
			if (sym__num_sgn(&p->rows[i].a[v]) < 0)
				continue;
			for (j = 0; j < p->nrows; j++) {
				row r;
				size_t x;
				sym_num ai, bj, t;
				if (sym__num_sgn(&p->rows[j].a[v]) >= 0)
					continue;
				r.a = sym__alloc(p->ctx, MAX_VARS * sizeof(*r.a));
				if (!r.a)
					break;
				sym__num_init(&ai);
				sym__num_init(&bj);
				sym__num_init(&t);
				sym__num_set(&ai, &p->rows[i].a[v]); /* > 0 */
				sym__num_neg(&bj, &p->rows[j].a[v]); /* > 0 */
				for (x = 0; x < MAX_VARS; x++) {
					sym__num_init(&r.a[x]);
					if (x >= nv)
						continue;
					sym__num_mul(&r.a[x], &bj, &p->rows[i].a[x]);
					sym__num_mul(&t, &ai, &p->rows[j].a[x]);
					sym__num_add(&r.a[x], &r.a[x], &t);
				}
				sym__num_init(&r.c);
				sym__num_mul(&r.c, &bj, &p->rows[i].c);
				sym__num_mul(&t, &ai, &p->rows[j].c);
				sym__num_add(&r.c, &r.c, &t);
				sym__num_clear(&ai);
				sym__num_clear(&bj);
				sym__num_clear(&t);
				normalize(&r, nv);
				nr[nnr++] = r;
			}
		}
		/* free the eliminated rows */
		for (i = 0; i < p->nrows; i++)
			if (sym__num_sgn(&p->rows[i].a[v]) != 0) {
				row_free(&p->rows[i], p->nv);
				sym__free(p->ctx, p->rows[i].a, MAX_VARS * sizeof(sym_num));
			}
		sym__free(p->ctx, p->rows, p->cap * sizeof(*p->rows));
		p->rows = nr;
		p->nrows = nnr;
		p->cap = ncap;
		for (i = 0; i < p->nrows; i++)
			if (row_contradicts(&p->rows[i], nv))
				return 1;
	}
	return 0;
}

/* ---- the state kept in the fact store ----------------------------------- */

void sym__fm_state_free(sym_facts *f)
{
	struct sym_fmstate *st = f->fm;
	if (!st)
		return;
	sym__free(f->ctx, st->slots, st->scap * sizeof(*st->slots));
	sym__free(f->ctx, st->links, st->caplinks * sizeof(*st->links));
	sym__free(f->ctx, st->mark, st->capmark * sizeof(*st->mark));
	sym__free(f->ctx, st->res, st->rcap * sizeof(*st->res));
	sym__free(f->ctx, st, sizeof(*st));
	f->fm = NULL;
}

static size_t slot_find(const fm_slot *slots, size_t cap, const sym_expr *atom)
{
	size_t j;
	for (j = atom->hash & (cap - 1); slots[j].atom && slots[j].atom != atom; j = (j + 1) & (cap - 1))
		;
	return j;
}

static int slots_grow(sym_ctx *ctx, struct sym_fmstate *st)
{
	size_t cap = st->scap ? st->scap * 2 : 64, i;
	fm_slot *ns = sym__alloc(ctx, cap * sizeof(*ns));
	if (!ns)
		return 0;
	memset(ns, 0, cap * sizeof(*ns));
	for (i = 0; i < st->scap; i++)
		if (st->slots[i].atom)
			ns[slot_find(ns, cap, st->slots[i].atom)] = st->slots[i];
	sym__free(ctx, st->slots, st->scap * sizeof(*st->slots));
	st->slots = ns;
	st->scap = cap;
	return 1;
}

/* Indexes the linear facts that arrived since the last call.  0 when out of
 * memory. */
static int index_facts(sym_ctx *ctx, const sym_facts *f, struct sym_fmstate *st)
{
	if (st->capmark < f->nlin) {
		size_t cap = f->caplin;
		unsigned *nm = sym__alloc(ctx, cap * sizeof(*nm));
		if (!nm)
			return 0;
		memset(nm, 0, cap * sizeof(*nm));
		if (st->capmark)
			memcpy(nm, st->mark, st->capmark * sizeof(*nm));
		sym__free(ctx, st->mark, st->capmark * sizeof(*st->mark));
		st->mark = nm;
		st->capmark = cap;
	}
	for (; st->indexed < f->nlin; st->indexed++) {
		sym_lin v;
		size_t k, j;
		sym__lin_view(node_kid(f->lin[st->indexed]), &v);
		for (k = 0; k < v.n; k++) {
			if ((st->scount + 1) * 2 > st->scap && !slots_grow(ctx, st))
				return 0;
			if (SYM_GROW(ctx, st->links, st->nlinks + 1, st->caplinks, 64) < 0)
				return 0;
			j = slot_find(st->slots, st->scap, sym__lin_mono(&v, k));
			if (!st->slots[j].atom) {
				st->slots[j].atom = sym__lin_mono(&v, k);
				st->scount++;
			}
			st->links[st->nlinks].fact = st->indexed;
			st->links[st->nlinks].next = st->slots[j].head;
			st->slots[j].head = ++st->nlinks;
		}
	}
	return 1;
}

/* The state of f, created on first use, its index brought up to date; NULL
 * when there is no fact store or memory runs out (the prover then adds
 * every linear fact up front). */
static struct sym_fmstate *fm_state(sym_ctx *ctx, const sym_facts *cf)
{
	sym_facts *f = (sym_facts *)cf; /* the state is not part of the facts' value */
	if (!f)
		return NULL;
	if (!f->fm) {
		f->fm = sym__alloc(ctx, sizeof(*f->fm));
		if (!f->fm) {
			sym_ctx_clear_error(ctx);
			return NULL;
		}
		memset(f->fm, 0, sizeof(*f->fm));
		f->fm->version = f->version;
	}
	if (!index_facts(ctx, f, f->fm)) {
		sym_ctx_clear_error(ctx);
		sym__fm_state_free(f);
		return NULL;
	}
	if (f->fm->version != f->version) {
		if (f->fm->rcap)
			memset(f->fm->res, 0, f->fm->rcap * sizeof(*f->fm->res));
		f->fm->rcount = 0;
		f->fm->version = f->version;
	}
	return f->fm;
}

static fm_result *result_slot(sym_ctx *ctx, struct sym_fmstate *st, const sym_expr *d, int insert)
{
	size_t j, i;
	if (st->rcap) {
		for (j = d->hash & (st->rcap - 1); st->res[j].d; j = (j + 1) & (st->rcap - 1))
			if (st->res[j].d == d)
				return &st->res[j];
	}
	if (!insert)
		return NULL;
	if ((st->rcount + 1) * 2 > st->rcap) {
		size_t cap = st->rcap ? st->rcap * 2 : 64;
		fm_result *nr;
		if (cap > FM_RESULTS_CAP || !(nr = sym__alloc(ctx, cap * sizeof(*nr)))) {
			sym_ctx_clear_error(ctx);
			return NULL; /* the cache is optional */
		}
		memset(nr, 0, cap * sizeof(*nr));
		for (i = 0; i < st->rcap; i++)
			if (st->res[i].d) {
				for (j = st->res[i].d->hash & (cap - 1); nr[j].d; j = (j + 1) & (cap - 1))
					;
				nr[j] = st->res[i];
			}
		sym__free(ctx, st->res, st->rcap * sizeof(*st->res));
		st->res = nr;
		st->rcap = cap;
	}
	for (j = d->hash & (st->rcap - 1); st->res[j].d; j = (j + 1) & (st->rcap - 1))
		;
	st->res[j].d = d;
	st->rcount++;
	return &st->res[j];
}

/* Adds the linear facts that mention atom x and are not in yet. */
static void add_facts_of(lp *p, const sym_expr *x)
{
	static const sym_num one = {{1}, 1};
	struct sym_fmstate *st = p->st;
	size_t j, l;
	if (!st->scap)
		return;
	j = slot_find(st->slots, st->scap, x);
	for (l = st->slots[j].atom ? st->slots[j].head : 0; l && !p->overflow; l = st->links[l - 1].next) {
		size_t fact = st->links[l - 1].fact;
		if (st->mark[fact] == st->call)
			continue;
		st->mark[fact] = st->call;
		add_le(p, node_kid(p->f->lin[fact]), &one, NULL);
	}
}

int sym__fm_atom_in_facts(sym_ctx *ctx, const sym_facts *f, const sym_expr *atom)
{
	struct sym_fmstate *st;
	size_t j;
	if (!f || !f->nlin)
		return 0;
	if (!(st = fm_state(ctx, f)))
		return 1; /* no index: say it may occur */
	if (!st->scap)
		return 0;
	j = slot_find(st->slots, st->scap, atom);
	return st->slots[j].atom && st->slots[j].head;
}

int sym__fm_prove_le(sym_ctx *ctx, const sym_facts *f, const sym_expr *d)
{
	return sym__fm_prove_le_given(ctx, f, d, 0, NULL);
}

/* Whether the system of goal d is sure to pass the prover's bounds: more
 * atoms than MAX_VARS, or an atom that is a min or max of more than
 * MAX_MINMAX_ARGS arguments (the goal's atoms are all visited before any
 * elimination, and such a one overflows the variables there, see
 * add_atom_facts).  Tells so before any bounds are computed or rows built. */
static int goal_too_large(const sym_expr *d)
{
	sym_lin v;
	size_t i;
	sym__lin_view(d, &v);
	if (v.n > MAX_VARS)
		return 1;
	for (i = 0; i < v.n; i++)
		if ((sym__lin_mono(&v, i)->kind == SYM_KIND_MIN ||
		     sym__lin_mono(&v, i)->kind == SYM_KIND_MAX) &&
		    sym__lin_mono(&v, i)->n > MAX_MINMAX_ARGS)
			return 1;
	return 0;
}

int sym__fm_prove_le_given(sym_ctx *ctx, const sym_facts *f, const sym_expr *d, size_t ngiven,
                           const sym_expr *const *given)
{
	static const sym_num one = {{1}, 1}, mone = {{-1}, 1};
	lp p;
	size_t i;
	int proven = 0;
	fm_result *cached = NULL;
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.f = f;
	if (!d || sym__failed(ctx) || goal_too_large(d))
		return 0;
	p.st = fm_state(ctx, f);
	if (p.st && !ngiven) {
		if ((cached = result_slot(ctx, p.st, d, 0)))
			return cached->proven;
	}
	if (p.st && ++p.st->call == 0 && p.st->capmark) { /* the marks wrapped around */
		memset(p.st->mark, 0, p.st->capmark * sizeof(*p.st->mark));
		p.st->call = 1;
	}
	/* the negation: d >= 1, i.e. -d + 1 <= 0 (d is integer-valued) */
	if (!add_le(&p, d, &mone, &one))
		goto done;
	for (i = 0; !p.st && f && i < f->nlin; i++)
		add_le(&p, node_kid(f->lin[i]), &one, NULL);
	for (i = 0; i < ngiven; i++)
		if (given[i]->kind == SYM_KIND_LE)
			add_le(&p, node_kid(given[i]), &one, NULL);
		else if (given[i]->kind == SYM_KIND_EQ) {
			add_le(&p, node_kid(given[i]), &one, NULL);
			add_le(&p, node_kid(given[i]), &mone, NULL);
		}
	/* every atom brings its bounds, its defining inequalities and the
	 * linear facts it occurs in; their atoms follow */
	while (p.done < p.nv && !p.overflow) {
		const sym_expr *x = p.var[p.done++];
		if (p.st)
			add_facts_of(&p, x);
		if (!p.overflow)
			add_atom_facts(&p, x);
	}
	if (!p.overflow && !sym__failed(ctx))
		proven = infeasible(&p);
done:
	for (i = 0; i < p.nrows; i++) {
		row_free(&p.rows[i], p.nv);
		sym__free(ctx, p.rows[i].a, MAX_VARS * sizeof(sym_num));
	}
	sym__free(ctx, p.rows, p.cap * sizeof(*p.rows));
	if (sym__failed(ctx) && sym_ctx_last_error(ctx) != SYM_ENOMEM)
		sym_ctx_clear_error(ctx);
	if (p.st && !ngiven && !sym__failed(ctx) && f->version == p.st->version &&
	    (cached = result_slot(ctx, p.st, d, 1)))
		cached->proven = proven;
	return proven;
}
