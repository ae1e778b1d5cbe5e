/* Equivalence of two models (symshape diff): both results are read over
 * one set of program inputs, model A's input dim positions, to which model
 * B's positions are renamed by input and axis.  Each model accepts the dims
 * that pass its binding checks and its guards; the models are the same when
 * each acceptance implies the other (proven under the other's facts) and
 * every output dim is proven equal where both accept.  Otherwise a witness
 * is searched and checked by running both model programs; an answer that
 * no run confirms stays unknown. */
#include "seam.h"
#include "bind_private.h"
#include "infer/result.h"
#include "symshape/diff.h"

#include <stdlib.h>
#include <string.h>

struct sym_model_diff {
	sym_ctx *ctx;
	sym_truth answer;
	sym_sbuf reason;
	size_t nin;
	char **names;
	int *ranks;
	int64_t **dims;
};

/* One model seen over A's positions. */
typedef struct side {
	const sym_graph_result *r;
	const char *tag; /* "A" or "B" */
	sym__binding b;
	sym__elist acc;   /* the checks, then the guards, over A's positions */
	size_t nchecks;   /* acc.v[k] for k < nchecks is check what[k] */
	size_t *what;     /* index of b.texts (checks) or of the guard */
	size_t nwhat;     /* what's room */
	sym__elist dimat; /* the declared dim of each of A's positions, over them */
	size_t *in_of;    /* A's input i is this side's input in_of[i] */
	size_t *off;      /* the first position of this side's input j (its own order) */
	sym_model_program *mp;
	int64_t *pdims, *out; /* the run's dims (own order) and output dims */
} side;

/* What could not be proven; the first one is the reason of unknown. */
typedef struct pending {
	sym_sbuf text;
	int found; /* 1 once a pending item is recorded */
	int proven_false;
} pending;

typedef struct diffrun {
	sym_ctx *ctx;
	side s[2];
	size_t nin, np; /* A's inputs, A's input dim positions */
	const sym_expr **pos;
	size_t *outb; /* A's output i is B's output outb[i] */
	size_t nout;
	sym__elist ren_from, ren_to; /* B's positions -> A's */
	sym_facts *fa, *fb, *fab;    /* facts: A accepts, B accepts, both */
	int empty[2];                /* the side accepts nothing (its facts contradict) */
	sym_witness w;
	pending pend;
	size_t rank_differs; /* A's input i with a rank B's partner lacks: i + 1 */
	size_t np_b;         /* B's own input dim positions */
	int64_t *vals;       /* candidate values of A's positions */
	size_t nvals;
	int64_t *cand; /* the values searched */
	size_t ncand;
	sym_model_diff *d;
} diffrun;

static const char *mapped(const sym_diff_options *opt, const char *name)
{
	size_t i;
	for (i = 0; opt && i < opt->nmap; i++)
		if (!strcmp(opt->map_a[i], name))
			return opt->map_b[i];
	return name;
}

static int nomem(sym_ctx *ctx)
{
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	return -1;
}

/* The expression of side s over A's positions. */
static const sym_expr *over_a(diffrun *dr, int s, const sym_expr *e)
{
	const side *sd = &dr->s[s];
	e = sym_expr_subst(dr->ctx, e, sd->b.from.n, sd->b.from.v, sd->b.to.v);
	if (s == 1)
		e = sym_expr_subst(dr->ctx, e, dr->ren_from.n, dr->ren_from.v, dr->ren_to.v);
	return e;
}

/* The first symbol of e that is not one of A's positions (a data-dependent
 * symbol), NULL when there is none; *err is set on failure. */
static const sym_expr *foreign_symbol(diffrun *dr, const sym_expr *e, int *err)
{
	const sym_expr *buf[16], **v = buf, *bad = NULL;
	size_t n = sym_expr_symbols(dr->ctx, e, buf, 16), i, k;
	if (n > 16) {
		if (!(v = sym__alloc(dr->ctx, n * sizeof(*v))))
			return *err = 1, NULL;
		sym_expr_symbols(dr->ctx, e, v, n);
	}
	for (i = 0; i < n && !bad; i++) {
		for (k = 0; k < dr->np && dr->pos[k] != v[i]; k++)
			;
		if (k == dr->np)
			bad = v[i];
	}
	if (v != buf)
		sym__free(dr->ctx, v, n * sizeof(*v));
	return bad;
}

/* Records the first thing that could not be proven. */
static void pend(diffrun *dr, int proven_false, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pend(diffrun *dr, int proven_false, const char *fmt, ...)
{
	va_list ap;
	if (dr->pend.found)
		return;
	dr->pend.found = 1;
	dr->pend.proven_false = proven_false;
	va_start(ap, fmt);
	sym__sbuf_vprintf(&dr->pend.text, fmt, ap);
	va_end(ap);
}

/* The text of e (in the caller's sbuf); "?" for a text over the limit,
 * whose error is cleared (out of memory stays: the sbuf fails too). */
static void put_expr(sym_sbuf *b, const sym_expr *e)
{
	if (!e || !sym__print(b, e)) {
		if (sym_ctx_last_error(b->ctx) != SYM_ENOMEM)
			sym_ctx_clear_error(b->ctx);
		sym__sbuf_puts(b, "?");
	}
}

/* ---- pairing -------------------------------------------------------------- */

static int input_rank(const sym_graph_result *r, const char *name)
{
	int rank;
	const sym_expr *const *dims;
	sym_graph_tensor(r, sym_graph_find_tensor(r, name), &rank, &dims, NULL);
	return rank;
}

/* Pairs the inputs and outputs of A with B's, fills the positions and the
 * renaming of B's positions.  Returns 0 or -1 with an error in ctx. */
static int pair(diffrun *dr, const sym_diff_options *opt)
{
	sym_ctx *ctx = dr->ctx;
	const sym_model *ma = dr->s[0].r->model, *mb = dr->s[1].r->model;
	size_t na = sym_model_num_inputs(ma), nb = sym_model_num_inputs(mb), i, j, p;
	int k;
	if (na != nb) {
		sym__error(ctx, SYM_EDOMAIN, -1, "A has %zu inputs and B %zu: every input needs a partner",
		           na, nb);
		return -1;
	}
	dr->nin = na;
	dr->s[0].in_of = sym__alloc(ctx, (na + 1) * sizeof(size_t));
	dr->s[1].in_of = sym__alloc(ctx, (na + 1) * sizeof(size_t));
	dr->s[0].off = sym__alloc(ctx, (na + 1) * sizeof(size_t));
	dr->s[1].off = sym__alloc(ctx, (na + 1) * sizeof(size_t));
	if (!dr->s[0].in_of || !dr->s[1].in_of || !dr->s[0].off || !dr->s[1].off)
		return -1;
	for (i = 0; i < na; i++) {
		const char *an = sym_model_input_name(ma, i), *bn = mapped(opt, an);
		int ra, rb;
		for (j = 0; j < nb && strcmp(sym_model_input_name(mb, j), bn); j++)
			;
		if (j == nb) {
			sym__error(ctx, SYM_EDOMAIN, -1,
			           "input '%s' of A has no partner in B (no input '%s')", an, bn);
			return -1;
		}
		for (p = 0; p < i; p++)
			if (dr->s[1].in_of[p] == j) {
				sym__error(ctx, SYM_EDOMAIN, -1,
				           "inputs '%s' and '%s' of A both pair with '%s' of B",
				           sym_model_input_name(ma, p), an, bn);
				return -1;
			}
		ra = input_rank(dr->s[0].r, an);
		rb = input_rank(dr->s[1].r, bn);
		if (ra < 0 || rb < 0) {
			sym__error(ctx, SYM_EDOMAIN, -1, "input '%s' has unknown rank in %s",
			           ra < 0 ? an : bn, ra < 0 ? "A" : "B");
			return -1;
		}
		if (ra != rb && !dr->rank_differs)
			dr->rank_differs = i + 1;
		dr->s[0].in_of[i] = i;
		dr->s[1].in_of[i] = j;
	}
	for (j = 0, p = 0; j < na; j++) {
		dr->s[0].off[j] = p;
		p += (size_t)input_rank(dr->s[0].r, sym_model_input_name(ma, j));
	}
	dr->np = p;
	for (j = 0, p = 0; j < nb; j++) {
		dr->s[1].off[j] = p;
		p += (size_t)input_rank(dr->s[1].r, sym_model_input_name(mb, j));
	}
	dr->np_b = p;
	/* outputs */
	dr->nout = sym_model_num_outputs(ma);
	if (dr->nout != sym_model_num_outputs(mb)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "A has %zu outputs and B %zu: every output needs a partner",
		           dr->nout, sym_model_num_outputs(mb));
		return -1;
	}
	if (!(dr->outb = sym__alloc(ctx, (dr->nout + 1) * sizeof(size_t))))
		return -1;
	for (i = 0; i < dr->nout; i++) {
		const char *an = sym_model_output_name(ma, i), *bn = mapped(opt, an);
		for (j = 0; j < dr->nout && strcmp(sym_model_output_name(mb, j), bn); j++)
			;
		if (j == dr->nout) {
			sym__error(ctx, SYM_EDOMAIN, -1,
			           "output '%s' of A has no partner in B (no output '%s')", an, bn);
			return -1;
		}
		for (p = 0; p < i; p++)
			if (dr->outb[p] == j) {
				sym__error(ctx, SYM_EDOMAIN, -1,
				           "outputs '%s' and '%s' of A both pair with '%s' of B",
				           sym_model_output_name(ma, p), an, bn);
				return -1;
			}
		dr->outb[i] = j;
	}
	dr->pos = dr->s[0].b.ins.v;
	if (dr->rank_differs)
		return 0; /* no common positions */
	/* B's position of (input in_of[i], axis k) is A's position of (i, k) */
	for (i = 0; i < na; i++) {
		int rank = input_rank(dr->s[0].r, sym_model_input_name(ma, i));
		for (k = 0; k < rank; k++)
			if (sym__elist_push(ctx, &dr->ren_from,
			                    dr->s[1].b.ins.v[dr->s[1].off[dr->s[1].in_of[i]] + k]) < 0 ||
			    sym__elist_push(ctx, &dr->ren_to, dr->s[0].b.ins.v[dr->s[0].off[i] + k]) < 0)
				return -1;
	}
	dr->pos = dr->s[0].b.ins.v;
	return 0;
}

/* ---- acceptance ------------------------------------------------------------ */

/* Fills the acceptance predicates and declared dims of side s over A's
 * positions; a data-dependent guard is recorded as undecided. */
static int side_fill(diffrun *dr, int s)
{
	sym_ctx *ctx = dr->ctx;
	side *sd = &dr->s[s];
	size_t k, ng = sym_graph_num_guards(sd->r), i;
	int err = 0, d;
	sd->what = sym__alloc(ctx, (sd->b.checks.n + ng + 1) * sizeof(size_t));
	if (!sd->what)
		return -1;
	sd->nwhat = sd->b.checks.n + ng + 1;
	/* the range checks of data-dependent dims hold by the kernels that
	 * produce them; only the input dims' checks say what a model accepts */
	for (k = 0; k < sd->b.checks.n; k++) {
		const sym_expr *c = over_a(dr, s, sd->b.checks.v[k]);
		if (!c)
			return -1;
		if (foreign_symbol(dr, c, &err))
			continue;
		if (err)
			return -1;
		sd->what[sd->acc.n] = k;
		if (sym__elist_push(ctx, &sd->acc, c) < 0)
			return -1;
	}
	sd->nchecks = sd->acc.n;
	for (k = 0; k < ng; k++) {
		const char *kind, *node, *reason;
		const sym_expr *g = sym_graph_guard(sd->r, k, &kind, &node, &reason), *ga = over_a(dr, s, g),
		               *u;
		if (!ga)
			return -1;
		if ((u = foreign_symbol(dr, ga, &err)) != NULL) {
			pend(dr, 0, "%s's guard ", sd->tag);
			put_expr(&dr->pend.text, g);
			sym__sbuf_printf(&dr->pend.text, " (%s, node %s) depends on the data-dependent %s",
			                 kind, node ? node : "?", sym_expr_symbol_name(u));
			continue;
		}
		if (err)
			return -1;
		sd->what[sd->acc.n] = k;
		if (sym__elist_push(ctx, &sd->acc, ga) < 0)
			return -1;
	}
	/* the declared dim of each of A's positions, over A's positions */
	for (i = 0; i < dr->nin; i++) {
		const char *name = sym_model_input_name(sd->r->model, sd->in_of[i]);
		int rank;
		const sym_expr *const *dims;
		sym_graph_tensor(sd->r, sym_graph_find_tensor(sd->r, name), &rank, &dims, NULL);
		for (d = 0; d < rank; d++)
			if (sym__elist_push(ctx, &sd->dimat, over_a(dr, s, dims[d])) < 0)
				return -1;
	}
	return 0;
}

/* Facts with every position a dim (>= 0) and the acceptance of the sides
 * in mask (1: A, 2: B) assumed; *empty is set when they contradict. */
static sym_facts *facts_of(diffrun *dr, int mask, int *empty)
{
	sym_facts *f = sym_facts_new(dr->ctx);
	size_t k;
	int s;
	*empty = 0;
	if (!f)
		return NULL;
	/* the programs reject every dim above SYM_DIM_MAX (bind.c) */
	if (sym__facts_bound_dims(f) != SYM_EOK)
		goto fail;
	for (k = 0; k < dr->np; k++)
		if (sym_facts_set_range(f, dr->pos[k], sym__zero(dr->ctx), NULL) != SYM_EOK)
			goto fail;
	for (s = 0; s < 2; s++)
		for (k = 0; (mask & (1 << s)) && k < dr->s[s].acc.n; k++) {
			sym_status st = sym_facts_assume(f, dr->s[s].acc.v[k]);
			if (st == SYM_ECONTRADICTION) {
				sym_ctx_clear_error(dr->ctx);
				*empty = 1;
				return f;
			}
			if (st == SYM_ENOMEM)
				goto fail;
			if (st != SYM_EOK) /* a fact left out only weakens what is proven */
				sym_ctx_clear_error(dr->ctx);
		}
	return f;
fail:
	sym_facts_free(f);
	return NULL;
}

/* Describes acceptance item k of side s. */
static void put_item(diffrun *dr, sym_sbuf *b, int s, size_t k)
{
	const side *sd = &dr->s[s];
	if (k < sd->nchecks) {
		sym__sbuf_printf(b, "%s's input check '%s'", sd->tag, sd->b.texts.v[sd->what[k]]);
	} else {
		const char *kind, *node, *reason;
		const sym_expr *g = sym_graph_guard(sd->r, sd->what[k], &kind, &node, &reason);
		sym__sbuf_printf(b, "%s's guard ", sd->tag);
		put_expr(b, g);
		sym__sbuf_printf(b, " (%s, node %s)", kind, node ? node : "?");
	}
}

/* Whether every input side 1-s accepts passes side s's checks and guards;
 * the first that is not proven is recorded. */
static int implied(diffrun *dr, int s)
{
	side *sd = &dr->s[s];
	sym_facts *f = s == 1 ? dr->fa : dr->fb;
	size_t k;
	if (dr->empty[1 - s])
		return 0;
	for (k = 0; k < sd->acc.n; k++) {
		sym_truth t = sym_prove(dr->ctx, f, sd->acc.v[k]);
		if (t == SYM_ERROR) {
			if (sym_ctx_last_error(dr->ctx) == SYM_ENOMEM)
				return -1;
			sym_ctx_clear_error(dr->ctx);
		}
		if (t == SYM_TRUE)
			continue;
		if (dr->pend.found)
			return 0;
		if (t == SYM_FALSE)
			sym__sbuf_printf(&dr->pend.text, "%s never passes ", dr->s[1 - s].tag);
		else
			sym__sbuf_printf(&dr->pend.text,
			                 "cannot decide whether every input %s accepts passes ",
			                 dr->s[1 - s].tag);
		put_item(dr, &dr->pend.text, s, k);
		dr->pend.found = 1;
		dr->pend.proven_false = t == SYM_FALSE;
		return 0;
	}
	return 0;
}

/* Proves the output dims equal where both models accept; records the first
 * that is not, and keeps equal()'s witness in dr->w. */
static int dims_equal(diffrun *dr)
{
	sym_ctx *ctx = dr->ctx;
	size_t i;
	int d;
	if (dr->empty[0] || dr->empty[1])
		return 0;
	for (i = 0; i < dr->nout; i++) {
		const char *an = sym_model_output_name(dr->s[0].r->model, i);
		const char *bn = sym_model_output_name(dr->s[1].r->model, dr->outb[i]);
		int ra, rb, err = 0;
		const sym_expr *const *da, *const *db;
		sym_graph_tensor(dr->s[0].r, sym_graph_find_tensor(dr->s[0].r, an), &ra, &da, NULL);
		sym_graph_tensor(dr->s[1].r, sym_graph_find_tensor(dr->s[1].r, bn), &rb, &db, NULL);
		if (ra < 0 || rb < 0) {
			pend(dr, 0, "output '%s' has %s in %s", ra < 0 ? an : bn,
			     (ra < 0 ? ra : rb) == -1 ? "unknown rank" : "no inferred shape",
			     ra < 0 ? "A" : "B");
			continue;
		}
		if (ra != rb) {
			pend(dr, 1, "output '%s' has rank %d in A and %d in B", an, ra, rb);
			continue;
		}
		for (d = 0; d < ra; d++) {
			const sym_expr *x = over_a(dr, 0, da[d]), *y = over_a(dr, 1, db[d]), *u;
			sym_truth t;
			if (!x || !y)
				return -1;
			if ((u = foreign_symbol(dr, x, &err)) ||
			    (!err && (u = foreign_symbol(dr, y, &err)))) {
				pend(dr, 0, "output '%s' dim %d depends on the data-dependent %s", an, d,
				     sym_expr_symbol_name(u));
				continue;
			}
			if (err)
				return -1;
			t = sym_equal(ctx, dr->fab, x, y, dr->w.n ? NULL : &dr->w);
			if (t == SYM_ERROR) {
				if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
					return -1;
				sym_ctx_clear_error(ctx);
			}
			if (t == SYM_TRUE || dr->pend.found)
				continue;
			if (t == SYM_FALSE)
				sym__sbuf_printf(&dr->pend.text, "output '%s' dim %d differs: ", an, d);
			else
				sym__sbuf_printf(&dr->pend.text,
				                 "cannot decide whether output '%s' dim %d is equal: ", an,
				                 d);
			put_expr(&dr->pend.text, da[d]);
			sym__sbuf_puts(&dr->pend.text, " in A, ");
			put_expr(&dr->pend.text, db[d]);
			sym__sbuf_puts(&dr->pend.text, " in B");
			dr->pend.found = 1;
			dr->pend.proven_false = t == SYM_FALSE;
		}
	}
	return 0;
}

/* ---- the witness search ------------------------------------------------------ */

/* The most values searched per position, and the random points per side. */
enum { MAX_CANDIDATES = 96, RANDOM_POINTS = 1500 };

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void add_cand(diffrun *dr, int64_t v)
{
	if (v >= 0 && v <= ((int64_t)1 << 40) && dr->ncand < 4 * MAX_CANDIDATES)
		dr->cand[dr->ncand++] = v;
}

/* The constants written in the text of e (not the digits of a name), and
 * their neighbours: the boundaries of guards and ranges. */
static int add_constants_of(diffrun *dr, const sym_expr *e)
{
	char *t = sym_expr_to_str(dr->ctx, e), *p;
	if (!t) {
		if (sym_ctx_last_error(dr->ctx) == SYM_ENOMEM)
			return -1;
		sym_ctx_clear_error(dr->ctx); /* a text over the limit: no constants */
		return 0;
	}
	for (p = t; *p; p++) {
		if (*p >= '0' && *p <= '9' &&
		    (p == t || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
		                 (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9')))) {
			char *end;
			long long c = strtoll(p, &end, 10);
			if (c < ((long long)1 << 40)) {
				add_cand(dr, c - 1), add_cand(dr, c), add_cand(dr, c + 1);
				add_cand(dr, 2 * c), add_cand(dr, c / 2), add_cand(dr, c / 2 + 1);
			}
			p = end - 1;
		}
	}
	sym_str_free(dr->ctx, t);
	return 0;
}

/* The values tried for a free position: small dims, powers of two and
 * their neighbours, the constants of the checks, guards and output dims. */
static int candidates(diffrun *dr)
{
	static const int64_t base[] = {1,   2,   3,   4,   5,  6,   7,   8,   9,    10,   11,   12,  13,
	                               15,  16,  17,  24,  31, 32,  33,  63,  64,   65,   100,  127, 128,
	                               129, 255, 256, 257, 0,  511, 512, 513, 1000, 1023, 1024, 1025};
	size_t k, i, n;
	int s, d;
	if (!(dr->cand = sym__alloc(dr->ctx, 4 * MAX_CANDIDATES * sizeof(int64_t))))
		return -1;
	for (k = 0; k < sizeof(base) / sizeof(base[0]); k++)
		add_cand(dr, base[k]);
	for (s = 0; s < 2; s++) {
		for (k = 0; k < dr->s[s].acc.n; k++)
			if (add_constants_of(dr, dr->s[s].acc.v[k]) < 0)
				return -1;
		for (i = 0; i < dr->nout; i++) {
			const sym_graph_result *r = dr->s[s].r;
			const char *name = sym_model_output_name(r->model, s ? dr->outb[i] : i);
			int rank;
			const sym_expr *const *dims;
			sym_graph_tensor(r, sym_graph_find_tensor(r, name), &rank, &dims, NULL);
			for (d = 0; d < rank; d++)
				if (add_constants_of(dr, dims[d]) < 0)
					return -1;
		}
	}
	/* the small and boundary values first, each once */
	qsort(dr->cand + 1, dr->ncand - 1, sizeof(int64_t), cmp_i64);
	for (i = 1, n = 1; i < dr->ncand; i++)
		if (dr->cand[i] != dr->cand[n - 1] && dr->cand[i] != dr->cand[0])
			dr->cand[n++] = dr->cand[i];
	dr->ncand = n < MAX_CANDIDATES ? n : MAX_CANDIDATES;
	return 0;
}

/* Completes dr->vals from the free positions of side s (set in vals
 * already): every other position is its declared dim.  Returns 0, 1 when
 * a dim is no nonnegative int64 there, -1 when memory runs out. */
static int complete(diffrun *dr, int s, const sym_expr **fs, long long *fv, size_t nf)
{
	const side *sd = &dr->s[s];
	size_t p;
	for (p = 0; p < dr->np; p++) {
		const sym_expr *e = sd->dimat.v[p], *v;
		long long c;
		if (e == dr->pos[p])
			continue;
		v = sym_expr_get_si(e, &c) == 1 ? e : sym_expr_eval_si(dr->ctx, e, nf, fs, fv);
		if (!v) {
			if (sym_ctx_last_error(dr->ctx) == SYM_ENOMEM)
				return -1;
			sym_ctx_clear_error(dr->ctx);
			return 1;
		}
		if (sym_expr_get_si(v, &c) != 1 || c < 0)
			return 1;
		dr->vals[p] = c;
	}
	return 0;
}

/* Runs both programs at dr->vals.  Returns 1 and fills the answer when they
 * disagree there, 0 when they agree (or a run fails otherwise than by a
 * check or a guard: no witness), -1 on error. */
static int try_point(diffrun *dr)
{
	sym_model_run res[2];
	int ok[2], s;
	size_t i, k;
	for (s = 0; s < 2; s++) {
		side *sd = &dr->s[s];
		for (i = 0; i < dr->nin; i++) {
			int rank = input_rank(dr->s[0].r, sym_model_input_name(dr->s[0].r->model, i));
			for (k = 0; k < (size_t)rank; k++)
				sd->pdims[sd->off[sd->in_of[i]] + k] = dr->vals[dr->s[0].off[i] + k];
		}
		sym_model_program_run(sd->mp, sd->pdims, sd->out, &res[s]);
		if (res[s].status != SYM_EOK && res[s].status != SYM_EGUARD && res[s].status != SYM_EINPUT)
			return 0;
		ok[s] = res[s].status == SYM_EOK;
	}
	if (ok[0] != ok[1]) {
		int bad = ok[0] ? 1 : 0;
		sym__sbuf_printf(&dr->d->reason, "%s accepts it, %s rejects it: %s", dr->s[1 - bad].tag,
		                 dr->s[bad].tag, res[bad].message ? res[bad].message : "?");
		if (res[bad].status == SYM_EGUARD)
			sym__sbuf_printf(&dr->d->reason, " (%s, node %s)",
			                 res[bad].kind ? res[bad].kind : "?",
			                 res[bad].node ? res[bad].node : "?");
		return 1;
	}
	if (!ok[0])
		return 0;
	{
		size_t offa = 0, o, nb = sym_model_program_num_tensors(dr->s[1].mp);
		for (o = 0; o < dr->nout; o++) {
			int ra, rb, d;
			size_t offb = 0, j;
			sym_model_program_tensor(dr->s[0].mp, o, &ra);
			for (j = 0; j < dr->outb[o] && j < nb; j++) {
				int r;
				sym_model_program_tensor(dr->s[1].mp, j, &r);
				offb += (size_t)r;
			}
			sym_model_program_tensor(dr->s[1].mp, dr->outb[o], &rb);
			if (ra != rb) {
				sym__sbuf_printf(&dr->d->reason, "output '%s' has rank %d in A and %d in B",
				                 sym_model_output_name(dr->s[0].r->model, o), ra, rb);
				return 1;
			}
			for (d = 0; d < ra; d++)
				if (dr->s[0].out[offa + d] != dr->s[1].out[offb + d]) {
					sym__sbuf_printf(&dr->d->reason,
					                 "output '%s' dim %d is %lld in A and %lld in B",
					                 sym_model_output_name(dr->s[0].r->model, o), d,
					                 (long long)dr->s[0].out[offa + d],
					                 (long long)dr->s[1].out[offb + d]);
					return 1;
				}
			offa += (size_t)ra;
		}
	}
	return 0;
}

/* The free positions of side s: those bound to a symbol (or solved for
 * one); the others follow from their declared dims. */
static size_t free_positions(diffrun *dr, int s, const sym_expr **fs, size_t *fp)
{
	size_t p, n = 0;
	for (p = 0; p < dr->np; p++)
		if (dr->s[s].dimat.v[p] == dr->pos[p])
			fs[n] = dr->pos[p], fp[n++] = p;
	return n;
}

/* Sets the free positions to fv, completes and tries the point. */
static int try_free(diffrun *dr, int s, const sym_expr **fs, const size_t *fp, long long *fv, size_t nf)
{
	size_t k;
	int st;
	for (k = 0; k < nf; k++)
		dr->vals[fp[k]] = fv[k];
	st = complete(dr, s, fs, fv, nf);
	return st ? (st < 0 ? -1 : 0) : try_point(dr);
}

/* Searches a witness: equal()'s witness of a differing dim first, then
 * from each side's free positions all at one value, one at a time, and at
 * seeded random combinations of the candidate values.  Returns 1 when
 * found (answer filled), 0 when not, -1 on error. */
static int search(diffrun *dr)
{
	sym_ctx *ctx = dr->ctx;
	const sym_expr **fs = sym__alloc(ctx, (dr->np + 1) * sizeof(*fs));
	size_t *fp = sym__alloc(ctx, (dr->np + 1) * sizeof(*fp)), nf, k, j, b;
	long long *fv = sym__alloc(ctx, (dr->np + 1) * sizeof(*fv));
	uint64_t seed = 0x9e3779b97f4a7c15u;
	int s, st = -1;
	if (!fs || !fp || !fv || candidates(dr) < 0)
		goto done;
	for (s = 0; s < 2; s++) {
		static const long long bases[] = {1, 2, 3, 8, 16};
		nf = free_positions(dr, s, fs, fp);
		if (nf == 0) { /* every dim is constant: one point */
			if ((st = try_free(dr, s, fs, fp, fv, 0)) != 0)
				goto done;
			continue;
		}
		/* equal()'s witness, the other free positions at a base value */
		for (b = 0; dr->w.n && b < sizeof(bases) / sizeof(bases[0]); b++) {
			for (k = 0; k < nf; k++) {
				fv[k] = bases[b];
				for (j = 0; j < dr->w.n; j++)
					if (dr->w.syms[j] == fs[k])
						sym_expr_get_si(dr->w.vals[j], &fv[k]);
			}
			if ((st = try_free(dr, s, fs, fp, fv, nf)) != 0)
				goto done;
		}
		for (j = 0; j < dr->ncand; j++) {
			for (k = 0; k < nf; k++)
				fv[k] = dr->cand[j];
			if ((st = try_free(dr, s, fs, fp, fv, nf)) != 0)
				goto done;
		}
		for (b = 0; b < sizeof(bases) / sizeof(bases[0]); b++)
			for (k = 0; k < nf; k++)
				for (j = 0; j < dr->ncand; j++) {
					size_t q;
					for (q = 0; q < nf; q++)
						fv[q] = q == k ? dr->cand[j] : bases[b];
					if ((st = try_free(dr, s, fs, fp, fv, nf)) != 0)
						goto done;
				}
		for (j = 0; nf > 1 && j < RANDOM_POINTS; j++) {
			for (k = 0; k < nf; k++) {
				seed = seed * 6364136223846793005u + 1442695040888963407u;
				fv[k] =
				    dr->cand[(seed >> 33) % (dr->ncand < 24 || (seed & 1) ? dr->ncand : 24)];
			}
			if ((st = try_free(dr, s, fs, fp, fv, nf)) != 0)
				goto done;
		}
	}
	st = 0;
done:
	if (st < 0 && !sym__failed(ctx))
		nomem(ctx);
	sym__free(ctx, fs, (dr->np + 1) * sizeof(*fs));
	sym__free(ctx, fp, (dr->np + 1) * sizeof(*fp));
	sym__free(ctx, fv, (dr->np + 1) * sizeof(*fv));
	return st;
}

/* Compiles both programs for the search; NULL programs (an output of
 * unknown rank, say) leave the search out. */
static int compile_both(diffrun *dr)
{
	int s;
	for (s = 0; s < 2; s++) {
		side *sd = &dr->s[s];
		if (!(sd->mp = sym_graph_compile(dr->ctx, sd->r, 0))) {
			if (sym_ctx_last_error(dr->ctx) == SYM_ENOMEM)
				return -1;
			sym__sbuf_printf(&dr->pend.text, " (no witness can be run: %s: %s)", sd->tag,
			                 sym_ctx_last_message(dr->ctx));
			sym_ctx_clear_error(dr->ctx);
			return 0;
		}
		sd->pdims = sym__alloc(dr->ctx, (sym_model_program_num_dims(sd->mp) + 1) * sizeof(int64_t));
		sd->out = sym__alloc(dr->ctx, (sym_model_program_num_out_dims(sd->mp) + 1) * sizeof(int64_t));
		if (!sd->pdims || !sd->out)
			return -1;
		memset(sd->pdims, 0, (sym_model_program_num_dims(sd->mp) + 1) * sizeof(int64_t));
	}
	/* a program that also takes data-dependent values (a NonZero's count)
	 * accepts or rejects by what its kernels computed, not by the input
	 * shapes alone: no run of it is a witness about shapes */
	for (s = 0; s < 2; s++)
		if (sym_model_program_num_dims(dr->s[s].mp) != dr->np) {
			sym__sbuf_printf(&dr->pend.text,
			                 " (no witness can be run: %s's program takes data-dependent values)",
			                 dr->s[s].tag);
			return 0;
		}
	return 1;
}

static int keep_witness(diffrun *dr, int s);

/* ---- inputs whose ranks differ --------------------------------------------------- */

/* An input of A has a rank its partner in B lacks: every shape one model
 * takes for it the other rejects, so the models differ as soon as one of
 * them accepts anything.  Searches each side alone (its own positions, the
 * same schedule of values), running only its own program: the other
 * rejects the point by its rank.  Fills the answer; returns 0 or -1. */
static int rank_differs(diffrun *dr)
{
	sym_ctx *ctx = dr->ctx;
	size_t i = dr->rank_differs - 1, np = dr->np > dr->np_b ? dr->np : dr->np_b, k, j, nf, p;
	const char *an = sym_model_input_name(dr->s[0].r->model, i);
	const char *bn = sym_model_input_name(dr->s[1].r->model, dr->s[1].in_of[i]);
	const sym_expr **fs = sym__alloc(ctx, (np + 1) * sizeof(*fs));
	long long *fv = sym__alloc(ctx, (np + 1) * sizeof(*fv));
	uint64_t seed = 0x9e3779b97f4a7c15u;
	int s, st = -1, found = 0, d;
	static const long long bases[] = {1, 2, 3, 8, 16};
	dr->vals = sym__alloc(ctx, (np + 1) * sizeof(int64_t));
	dr->nvals = np + 1;
	if (!fs || !fv || !dr->vals || candidates(dr) < 0)
		goto done;
	for (s = 0; s < 2 && !found; s++) {
		side *sd = &dr->s[s];
		size_t nps = s ? dr->np_b : dr->np, nin = sym_model_num_inputs(sd->r->model);
		sym_model_run res;
		/* this side's own positions and declared dims */
		dr->pos = sd->b.ins.v, dr->np = nps;
		for (j = 0; j < nin; j++) {
			int rank;
			const sym_expr *const *dims;
			sym_graph_tensor(sd->r,
			                 sym_graph_find_tensor(sd->r, sym_model_input_name(sd->r->model, j)),
			                 &rank, &dims, NULL);
			for (d = 0; d < rank; d++)
				if (sym__elist_push(ctx, &sd->dimat,
				                    sym_expr_subst(ctx, dims[d], sd->b.from.n, sd->b.from.v,
				                                   sd->b.to.v)) < 0)
					goto done;
		}
		if (!(sd->mp = sym_graph_compile(ctx, sd->r, 0))) {
			if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
				goto done;
			sym_ctx_clear_error(ctx);
			continue;
		}
		if (sym_model_program_num_dims(sd->mp) != nps)
			continue; /* data-dependent values: no run is about shapes */
		if (!(sd->out =
		          sym__alloc(ctx, (sym_model_program_num_out_dims(sd->mp) + 1) * sizeof(int64_t))))
			goto done;
		sd->pdims = sym__alloc(ctx, (nps + 1) * sizeof(int64_t));
		if (!sd->pdims)
			goto done;
		for (nf = 0, p = 0; p < nps; p++)
			if (sd->dimat.v[p] == dr->pos[p])
				fs[nf++] = dr->pos[p];
		/* the schedule of search(): all at one value, one at a time, random */
		for (k = 0; !found && k < dr->ncand + 5 * nf * dr->ncand + (nf > 1 ? RANDOM_POINTS : 0);
		     k++) {
			size_t q, at = 0;
			if (k < dr->ncand) {
				for (q = 0; q < nf; q++)
					fv[q] = dr->cand[k];
			} else if (k < dr->ncand + 5 * nf * dr->ncand) {
				size_t r = k - dr->ncand;
				for (q = 0; q < nf; q++)
					fv[q] = q == (r / dr->ncand) % nf ? dr->cand[r % dr->ncand]
					                                  : bases[r / (nf * dr->ncand)];
			} else {
				for (q = 0; q < nf; q++) {
					seed = seed * 6364136223846793005u + 1442695040888963407u;
					fv[q] = dr->cand[(seed >> 33) % dr->ncand];
				}
			}
			for (p = 0; p < nps; p++)
				if (sd->dimat.v[p] == dr->pos[p])
					dr->vals[p] = fv[at++];
			if ((st = complete(dr, s, fs, fv, nf)) < 0)
				goto done;
			if (st)
				continue;
			memcpy(sd->pdims, dr->vals, nps * sizeof(int64_t));
			sym_model_program_run(sd->mp, sd->pdims, sd->out, &res);
			found = res.status == SYM_EOK;
		}
		if (found) {
			sym__sbuf_printf(
			    &dr->d->reason,
			    "%s accepts it, %s rejects it: input '%s' has rank %d in A and '%s' rank %d in B",
			    sd->tag, dr->s[1 - s].tag, an, input_rank(dr->s[0].r, an), bn,
			    input_rank(dr->s[1].r, bn));
			dr->d->answer = SYM_FALSE;
			if (keep_witness(dr, s) < 0)
				goto done;
		}
	}
	if (!found) {
		dr->d->answer = SYM_UNKNOWN;
		sym__sbuf_printf(&dr->d->reason,
		                 "input '%s' has rank %d in A and '%s' rank %d in B, and no run found a "
		                 "shape either model accepts",
		                 an, input_rank(dr->s[0].r, an), bn, input_rank(dr->s[1].r, bn));
	}
	st = 0;
done:
	if (st < 0 && !sym__failed(ctx))
		nomem(ctx);
	sym__free(ctx, fs, (np + 1) * sizeof(*fs));
	sym__free(ctx, fv, (np + 1) * sizeof(*fv));
	return st;
}

/* ---- the answer --------------------------------------------------------------- */

/* Keeps dr->vals as the witness: the positions of side s (its own order
 * when the ranks differ, A's otherwise), named by A's inputs. */
static int keep_witness(diffrun *dr, int s)
{
	sym_model_diff *d = dr->d;
	const sym_model *m = dr->s[0].r->model;
	const side *sd = &dr->s[s];
	size_t i;
	char **names = sym__alloc(dr->ctx, (dr->nin + 1) * sizeof(char *));
	int *ranks = sym__alloc(dr->ctx, (dr->nin + 1) * sizeof(int));
	int64_t **dims = sym__alloc(dr->ctx, (dr->nin + 1) * sizeof(int64_t *));
	if (!names || !ranks || !dims) {
		sym__free(dr->ctx, names, names ? (dr->nin + 1) * sizeof(char *) : 0);
		sym__free(dr->ctx, ranks, ranks ? (dr->nin + 1) * sizeof(int) : 0);
		sym__free(dr->ctx, dims, dims ? (dr->nin + 1) * sizeof(int64_t *) : 0);
		return -1;
	}
	memset(names, 0, (dr->nin + 1) * sizeof(char *));
	memset(dims, 0, (dr->nin + 1) * sizeof(int64_t *));
	d->nin = dr->nin, d->names = names, d->ranks = ranks, d->dims = dims;
	for (i = 0; i < dr->nin; i++) {
		const char *name = sym_model_input_name(m, i);
		int rank = input_rank(sd->r, sym_model_input_name(sd->r->model, sd->in_of[i]));
		size_t len = strlen(name) + 1, off = s ? sd->off[sd->in_of[i]] : sd->off[i];
		d->ranks[i] = rank;
		if (!(d->names[i] = sym__alloc(dr->ctx, len)))
			return -1;
		memcpy(d->names[i], name, len);
		if (!(d->dims[i] = sym__alloc(dr->ctx, ((size_t)rank + 1) * sizeof(int64_t))))
			return -1;
		memcpy(d->dims[i], dr->vals + off, (size_t)rank * sizeof(int64_t));
	}
	return 0;
}

static void run_free(diffrun *dr)
{
	int s;
	for (s = 0; s < 2; s++) {
		side *sd = &dr->s[s];
		sym__binding_free(dr->ctx, &sd->b);
		sym__elist_free(dr->ctx, &sd->acc);
		sym__elist_free(dr->ctx, &sd->dimat);
		sym__free(dr->ctx, sd->what, sd->nwhat * sizeof(size_t));
		sym__free(dr->ctx, sd->in_of, (dr->nin + 1) * sizeof(size_t));
		sym__free(dr->ctx, sd->off, (dr->nin + 1) * sizeof(size_t));
		if (sd->mp) {
			sym__free(dr->ctx, sd->pdims,
			          (sym_model_program_num_dims(sd->mp) + 1) * sizeof(int64_t));
			sym__free(dr->ctx, sd->out,
			          (sym_model_program_num_out_dims(sd->mp) + 1) * sizeof(int64_t));
		}
		sym_model_program_free(sd->mp);
	}
	sym__free(dr->ctx, dr->outb, (dr->nout + 1) * sizeof(size_t));
	sym__elist_free(dr->ctx, &dr->ren_from);
	sym__elist_free(dr->ctx, &dr->ren_to);
	sym_facts_free(dr->fa), sym_facts_free(dr->fb), sym_facts_free(dr->fab);
	sym_witness_clear(dr->ctx, &dr->w);
	sym__sbuf_clear(&dr->pend.text);
	sym__free(dr->ctx, dr->vals, dr->nvals * sizeof(int64_t));
	sym__free(dr->ctx, dr->cand, 4 * MAX_CANDIDATES * sizeof(int64_t));
}

sym_model_diff *sym_graph_diff(sym_ctx *ctx, const sym_graph_result *a, const sym_graph_result *b,
                               const sym_diff_options *opt)
{
	diffrun dr;
	sym_model_diff *d = NULL;
	int s, st;
	if (!ctx || sym__failed(ctx))
		return NULL;
	if (!a || !b || a->ctx != ctx || b->ctx != ctx) {
		sym__error(ctx, SYM_EMISUSE, -1, "sym_graph_diff: both results must be inferred in ctx");
		return NULL;
	}
	memset(&dr, 0, sizeof(dr));
	dr.ctx = ctx;
	sym__sbuf_init(&dr.pend.text, ctx);
	dr.s[0].r = a, dr.s[0].tag = "A";
	dr.s[1].r = b, dr.s[1].tag = "B";
	if (!(d = sym__alloc(ctx, sizeof(*d))))
		goto fail;
	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	sym__sbuf_init(&d->reason, ctx);
	dr.d = d;
	for (s = 0; s < 2; s++)
		if (sym__bind_inputs(ctx, dr.s[s].r, &dr.s[s].b) < 0) {
			const char *msg = sym_ctx_last_message(ctx);
			sym_sbuf t;
			if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
				goto fail;
			sym__sbuf_init(&t, ctx);
			sym__sbuf_printf(&t, "%s: %s", dr.s[s].tag, msg);
			sym_ctx_clear_error(ctx);
			sym__error(ctx, SYM_EDOMAIN, -1, "%s", t.s ? t.s : "out of memory");
			sym__sbuf_clear(&t);
			goto fail;
		}
	if (pair(&dr, opt) < 0)
		goto fail;
	/* a node inference went around left its guards and shapes out: what
	 * the result accepts is not what the model accepts, so neither a
	 * proof nor a run says anything about the model */
	for (s = 0; s < 2; s++)
		if (sym_graph_num_diagnostics(dr.s[s].r)) {
			d->answer = SYM_UNKNOWN;
			sym__sbuf_printf(&d->reason, "%s is not inferred completely: %s", dr.s[s].tag,
			                 sym_graph_diagnostic(dr.s[s].r, 0, NULL, NULL, NULL));
			goto done;
		}
	if (dr.rank_differs) {
		if ((st = rank_differs(&dr)) < 0)
			goto fail;
		goto done;
	}
	if (side_fill(&dr, 0) < 0 || side_fill(&dr, 1) < 0)
		goto fail;
	if (!(dr.vals = sym__alloc(ctx, (dr.np + 1) * sizeof(int64_t))))
		goto fail;
	dr.nvals = dr.np + 1;
	if (!(dr.fa = facts_of(&dr, 1, &dr.empty[0])) || !(dr.fb = facts_of(&dr, 2, &dr.empty[1])))
		goto fail;
	{
		int both_empty;
		if (!(dr.fab = facts_of(&dr, 3, &both_empty)))
			goto fail;
		if (both_empty && !dr.empty[0] && !dr.empty[1])
			pend(&dr, 1, "no input is accepted by both A and B");
	}
	if (implied(&dr, 1) < 0 || implied(&dr, 0) < 0 || dims_equal(&dr) < 0)
		goto fail;
	if (!dr.pend.found) {
		d->answer = SYM_TRUE;
		goto done;
	}
	if ((st = compile_both(&dr)) < 0)
		goto fail;
	if (st && (st = search(&dr)) < 0)
		goto fail;
	if (st) {
		d->answer = SYM_FALSE;
		if (keep_witness(&dr, 0) < 0)
			goto fail;
		goto done;
	}
	d->answer = SYM_UNKNOWN;
	if (dr.pend.proven_false)
		sym__sbuf_puts(&d->reason, "proven to differ, but no run found a witness: ");
	sym__sbuf_puts(&d->reason, dr.pend.text.s ? dr.pend.text.s : "");
done:
	if (d->reason.fail || dr.pend.text.fail)
		goto fail;
	run_free(&dr);
	return d;
fail:
	if (!sym__failed(ctx))
		nomem(ctx);
	run_free(&dr);
	sym_model_diff_free(d);
	return NULL;
}

void sym_model_diff_free(sym_model_diff *d)
{
	size_t i;
	if (!d)
		return;
	for (i = 0; d->names && i < d->nin; i++) {
		if (d->names[i])
			sym__free(d->ctx, d->names[i], strlen(d->names[i]) + 1);
		if (d->dims[i])
			sym__free(d->ctx, d->dims[i], ((size_t)d->ranks[i] + 1) * sizeof(int64_t));
	}
	if (d->names) {
		sym__free(d->ctx, d->names, (d->nin + 1) * sizeof(char *));
		sym__free(d->ctx, d->ranks, (d->nin + 1) * sizeof(int));
		sym__free(d->ctx, d->dims, (d->nin + 1) * sizeof(int64_t *));
	}
	sym__sbuf_clear(&d->reason);
	sym__free(d->ctx, d, sizeof(*d));
}

sym_truth sym_model_diff_answer(const sym_model_diff *d)
{
	return d ? d->answer : SYM_ERROR;
}

const char *sym_model_diff_reason(const sym_model_diff *d)
{
	return d && d->reason.s ? d->reason.s : "";
}

size_t sym_model_diff_num_inputs(const sym_model_diff *d)
{
	return d && d->answer == SYM_FALSE ? d->nin : 0;
}

const char *sym_model_diff_input(const sym_model_diff *d, size_t i, int *rank, const int64_t **dims)
{
	if (!d || d->answer != SYM_FALSE || i >= d->nin)
		return NULL;
	if (rank)
		*rank = d->ranks[i];
	if (dims)
		*dims = d->dims[i];
	return d->names[i];
}
