/* Control flow (SPEC §6): If, Loop and Scan run their subgraphs.  The
 * driver hands a node with subgraphs here; its bodies' nodes run through
 * the rules like the main graph's, in a scope that sees every tensor of
 * the graphs enclosing it.  Rules never see a graph: this file is the
 * control-flow operators' rule, on the driver's side.
 *
 * A body runs in a frame: facts of its own (the input ranges and every
 * guard stated so far), no hints (a hinted choice inside a body could not
 * be stated unconditionally), and the fresh symbols it makes stay its own.
 * When the frame closes, its guards are kept when the body surely runs,
 * become "cond -> g" when it runs under a known predicate, and are dropped
 * otherwise; a guard naming a symbol of the body is dropped.  An output dim
 * naming a symbol of the body becomes a fresh runtime-bound symbol of the
 * node, with the range the body's facts give. */
#include "infer/passes.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scopes ------------------------------------------------------------------ */

/* The tensors of one body; parent NULL: the main graph's (r->tensors).
 * cond: the predicate under which the body runs, NULL when none is known. */
typedef struct scope {
	const struct scope *parent;
	const sym_expr *cond;
	size_t n, cap;
	const char **names;
	sym_tval *tv;
} scope;

static const sym_tval *scope_find(const sym_graph_result *r, const scope *s, const char *name)
{
	size_t t;
	for (; s; s = s->parent) {
		size_t i = s->n;
		while (i-- > 0)
			if (!strcmp(s->names[i], name))
				return &s->tv[i];
	}
	t = sym__graph_find(r, name);
	return t == (size_t)-1 ? NULL : &r->tensors[t].tv;
}

static int scope_set(sym_graph_result *r, scope *s, const char *name, const sym_tval *tv)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		const char **nn = sym__alloc(r->ctx, nc * sizeof(*nn));
		sym_tval *nt = nn ? sym__alloc(r->ctx, nc * sizeof(*nt)) : NULL;
		if (!nt) {
			sym__free(r->ctx, nn, nc * sizeof(*nn));
			return -1;
		}
		if (s->n) {
			memcpy(nn, s->names, s->n * sizeof(*nn));
			memcpy(nt, s->tv, s->n * sizeof(*nt));
		}
		sym__free(r->ctx, s->names, s->cap * sizeof(*s->names));
		sym__free(r->ctx, s->tv, s->cap * sizeof(*s->tv));
		s->names = nn, s->tv = nt, s->cap = nc;
	}
	s->names[s->n] = name;
	s->tv[s->n++] = *tv;
	return 0;
}

static void scope_clear(sym_graph_result *r, scope *s)
{
	sym__free(r->ctx, s->names, s->cap * sizeof(*s->names));
	sym__free(r->ctx, s->tv, s->cap * sizeof(*s->tv));
}

/* ---- frames ------------------------------------------------------------------ */

typedef enum guard_mode {
	GUARDS_KEEP, /* the body surely runs */
	GUARDS_COND, /* it runs when the frame's cond holds */
	GUARDS_DROP  /* it may not run, under no predicate known */
} guard_mode;

typedef struct frame {
	sym_facts *outer, *body;
	size_t nhints, nguards, nfresh;
	unsigned counter; /* the session's fresh-name counter */
	int fatal;
} frame;

/* Opens a frame for a body that runs under cond (NULL: none known) inside
 * the scope s: its facts hold what is known there (the ranges, the guards
 * so far, cond and the conditions of the enclosing bodies). */
static int frame_enter(sym_graph_result *r, frame *f, const scope *s, const sym_expr *cond)
{
	sym_infer *inf = &r->inf;
	size_t i;
	f->outer = inf->facts;
	f->nhints = inf->nhints, f->nguards = inf->nguards, f->nfresh = inf->nfresh, f->fatal = inf->fatal;
	f->counter = inf->fresh;
	if (!(f->body = sym__graph_range_facts(r)))
		return -1;
	for (i = 0; i < inf->nguards; i++)
		if (sym_facts_assume(f->body, inf->guards[i].pred) != SYM_EOK) {
			if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM) {
				sym_facts_free(f->body);
				return -1;
			}
			sym_ctx_clear_error(r->ctx);
		}
	for (; cond || s; cond = s ? s->cond : NULL, s = s ? s->parent : NULL)
		if (cond && sym_facts_assume(f->body, cond) != SYM_EOK) {
			if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM) {
				sym_facts_free(f->body);
				return -1;
			}
			sym_ctx_clear_error(r->ctx); /* a body that never runs */
		}
	inf->facts = f->body;
	inf->nhints = 0;
	return 0;
}

/* Whether e names a symbol made inside the frame f. */
static int is_local(const sym_graph_result *r, const frame *f, const sym_expr *e)
{
	const sym_expr *found[32];
	size_t n, i, j;
	if (r->inf.nfresh == f->nfresh)
		return 0;
	n = sym_expr_symbols(r->ctx, e, found, 32);
	if (n > 32)
		return 1;
	for (i = 0; i < n; i++)
		for (j = f->nfresh; j < r->inf.nfresh; j++)
			if (found[i] == r->inf.fresh_syms[j])
				return 1;
	return 0;
}

/* Closes the frame: the body's guards by mode (cond: the predicate under
 * which the body runs), its symbols forgotten, the enclosing facts back. */
static int frame_exit(sym_graph_result *r, frame *f, guard_mode mode, const sym_expr *cond)
{
	sym_infer *inf = &r->inf;
	sym_ctx *ctx = r->ctx;
	size_t i, k = f->nguards;
	int st = 0;
	inf->facts = f->outer;
	inf->nhints = f->nhints;
	/* the body's guards move down and change in place */
	sym__infer_guards_changed(inf, f->nguards);
	for (i = f->nguards; i < inf->nguards && st == 0; i++) {
		sym_guard g = inf->guards[i];
		if (mode == GUARDS_DROP || is_local(r, f, g.pred))
			continue;
		if (mode == GUARDS_COND && !(g.pred = sym_expr_or(ctx, sym_expr_not(ctx, cond), g.pred))) {
			st = -1;
			break;
		}
		if (!(g.pred = sym_simplify(ctx, inf->facts, g.pred))) {
			st = -1;
			break;
		}
		if (g.pred == sym__true(ctx))
			continue;
		/* implied by the facts ("!c || c" when the branch asserts
		 * its own condition) */
		{
			sym_truth t = sym_prove(ctx, inf->facts, g.pred);
			if (t == SYM_ERROR) {
				if (sym_ctx_last_error(ctx) == SYM_ENOMEM) {
					st = -1;
					break;
				}
				sym_ctx_clear_error(ctx);
			}
			if (t == SYM_TRUE)
				continue;
		}
		if (sym__infer_guard_find(inf, g.pred, k) >= 0)
			continue;
		inf->guards[k++] = g;
		if (sym_facts_assume(inf->facts, g.pred) != SYM_EOK) {
			if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
				st = -1;
			else
				sym_ctx_clear_error(ctx);
		}
	}
	inf->nguards = k;
	inf->nfresh = f->nfresh;
	inf->fresh = f->counter; /* names the body used stay taken */
	inf->fatal = f->fatal;
	sym_facts_free(f->body);
	f->body = NULL;
	return st;
}

/* ---- running a body ------------------------------------------------------------ */

static int control(sym_graph_result *r, const scope *s, const sym_mnode *nd, const sym_tval *ins,
                   sym_tval *outs, const char **why);

/* Sets *why to the text (session memory) and returns 1; -1 when out of
 * memory. */
static int not_inferred(sym_graph_result *r, const char **why, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int not_inferred(sym_graph_result *r, const char **why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*why = sym__infer_vprintf(&r->inf, fmt, ap);
	va_end(ap);
	return *why ? 1 : -1;
}

/* The rule failure just recorded as *why (the error cleared); -1 when it
 * is fatal for the whole inference (out of memory). */
static int rule_failed(sym_graph_result *r, const char **why)
{
	sym_ctx *ctx = r->ctx;
	if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
		return -1;
	*why = sym__infer_strdup(&r->inf, sym_ctx_last_message(ctx));
	sym_ctx_clear_error(ctx);
	return *why ? 1 : -1;
}

/* Runs the nodes of graph g with its inputs bound to ins[0..nin) (fewer
 * than its inputs leave the rest unknown) in a scope below parent; fills
 * outs[0..g->noutputs).  Returns 0, 1 with *why set, or -1. */
static int run_graph(sym_graph_result *r, const scope *parent, const sym_expr *cond, const sym_mgraph *g,
                     size_t nin, const sym_tval *ins, sym_tval *outs, const char **why)
{
	scope s;
	size_t i, j, left = g->nnodes, cap = 0;
	char *done = NULL;
	sym_tval *nin_tv = NULL, *nout_tv = NULL;
	size_t capin = 0, capout = 0;
	int st = 0;
	memset(&s, 0, sizeof(s));
	s.parent = parent, s.cond = cond;
	for (i = 0; i < g->ninputs && st == 0; i++) {
		sym_tval u;
		memset(&u, 0, sizeof(u));
		u.present = 1, u.rank = -1, u.dtype = g->inputs[i].dtype;
		if (scope_set(r, &s, g->inputs[i].name, i < nin ? &ins[i] : &u) < 0)
			st = -1;
	}
	for (i = 0; i < g->ninits && st == 0; i++) {
		sym_tval tv;
		if (sym__init_tval(r, &g->inits[i], &tv) < 0 || scope_set(r, &s, g->inits[i].name, &tv) < 0)
			st = -1;
	}
	if (st == 0 && !(done = sym__alloc(r->ctx, (cap = g->nnodes + 1))))
		st = -1;
	if (done)
		memset(done, 0, cap);
	/* sweeps in file order: a node runs once every tensor it reads is
	 * there; a sweep without progress means a tensor nothing defines */
	while (st == 0 && left) {
		size_t ran = 0;
		for (i = 0; i < g->nnodes && st == 0; i++) {
			const sym_mnode *b = &g->nodes[i];
			int ready = 1;
			if (done[i])
				continue;
			for (j = 0; j < b->nin && ready; j++)
				if (*b->in[j] && !scope_find(r, &s, b->in[j]))
					ready = 0;
			for (j = 0; j < b->nouter && ready; j++)
				if (!scope_find(r, &s, b->outer[j]))
					ready = 0;
			if (!ready)
				continue;
			done[i] = 1, left--, ran++;
			if (SYM_GROW(r->ctx, nin_tv, b->nin + 1, capin, 4) < 0 ||
			    SYM_GROW(r->ctx, nout_tv, b->nout + 1, capout, 4) < 0) {
				st = -1;
				break;
			}
			for (j = 0; j < b->nin; j++) {
				if (!*b->in[j]) {
					memset(&nin_tv[j], 0, sizeof(nin_tv[j]));
					nin_tv[j].rank = -1;
					continue;
				}
				nin_tv[j] = *scope_find(r, &s, b->in[j]);
				if (nin_tv[j].rank == -2) {
					st = not_inferred(r, why, "node '%s' (%s): input '%s' is unknown",
					                  b->name, b->op, b->in[j]);
					break;
				}
			}
			if (st)
				break;
			if (b->ngraphs) {
				if ((st = control(r, &s, b, nin_tv, nout_tv, why)) == 1)
					st = not_inferred(r, why, "node '%s' (%s): %s", b->name, b->op, *why);
			} else if (sym__rule_run(&r->inf, b->domain, b->op, b->name, r->model->opset, b->nin,
			                         nin_tv, b->nattr, b->attrs, b->nout, nout_tv) < 0)
				st = rule_failed(r, why);
			for (j = 0; j < b->nout && st == 0; j++)
				if (scope_set(r, &s, b->out[j], &nout_tv[j]) < 0)
					st = -1;
		}
		if (st == 0 && !ran) {
			/* every name a body reads is defined somewhere (the
			 * driver checked the outer references): a cycle */
			for (i = 0; i < g->nnodes && done[i]; i++)
				;
			st =
			    not_inferred(r, why, "the graph has a cycle through node '%s'", g->nodes[i].name);
		}
	}
	for (i = 0; i < g->noutputs && st == 0; i++) {
		const sym_tval *tv = scope_find(r, &s, g->outputs[i]);
		if (!tv)
			st = not_inferred(r, why, "output '%s' is not a tensor of the graph", g->outputs[i]);
		else if (tv->rank == -2)
			st = not_inferred(r, why, "output '%s' is unknown", g->outputs[i]);
		else
			outs[i] = *tv;
	}
	sym__free(r->ctx, done, cap);
	sym__free(r->ctx, nin_tv, capin * sizeof(*nin_tv));
	sym__free(r->ctx, nout_tv, capout * sizeof(*nout_tv));
	scope_clear(r, &s);
	return st;
}

/* ---- output dims ------------------------------------------------------------- */

/* One output as the body left it, seen from outside the frame: dims that
 * name a symbol of the body are NULL with the bounds the body's facts give
 * them (lo, hi; NULL hi: open); a value naming one is dropped. */
typedef struct bout {
	sym_tval tv;
	const sym_expr **lo, **hi;
} bout;

static int export_out(sym_graph_result *r, const frame *f, const sym_tval *tv, bout *o)
{
	int k;
	size_t i;
	o->tv = *tv;
	o->lo = o->hi = NULL;
	if (tv->rank > 0) {
		const sym_expr **d = sym__infer_alloc(&r->inf, (size_t)tv->rank * sizeof(*d));
		o->lo = sym__infer_alloc(&r->inf, (size_t)tv->rank * sizeof(*o->lo));
		o->hi = sym__infer_alloc(&r->inf, (size_t)tv->rank * sizeof(*o->hi));
		if (!d || !o->lo || !o->hi)
			return -1;
		for (k = 0; k < tv->rank; k++) {
			const sym_expr *lo = NULL, *hi = NULL;
			if (!is_local(r, f, tv->dims[k])) {
				d[k] = tv->dims[k];
				continue;
			}
			sym__bounds_expr(r->ctx, r->inf.facts, tv->dims[k], &lo, &hi);
			if (sym__failed(r->ctx))
				return -1;
			if (lo && is_local(r, f, lo))
				lo = NULL;
			if (hi && is_local(r, f, hi))
				hi = NULL;
			d[k] = NULL, o->lo[k] = lo ? lo : sym__zero(r->ctx), o->hi[k] = hi;
		}
		o->tv.dims = d;
	}
	for (i = 0; tv->has_value && i < tv->nvalue; i++)
		if (is_local(r, f, tv->value[i])) {
			o->tv.has_value = 0, o->tv.nvalue = 0, o->tv.value = NULL;
			break;
		}
	return 0;
}

/* A fresh runtime-bound symbol for dim k of output i of nd, lo <= u <= hi. */
static const sym_expr *fresh_dim(sym_graph_result *r, const sym_mnode *nd, size_t i, int k,
                                 const sym_expr *lo, const sym_expr *hi)
{
	const char *src = sym__infer_printf(&r->inf, "dim %d of output '%s' of node '%s' (%s)", k, nd->out[i],
	                                    nd->name, nd->op);
	const sym_expr *u;
	if (!src)
		return NULL;
	if (!(u = sym__infer_fresh_dim(&r->inf, "u", lo, hi, src)) && !sym__failed(r->ctx))
		sym__error(r->ctx, SYM_EDOMAIN, -1,
		           "node '%s' (%s): cannot record the range of a runtime-bound dim", nd->name,
		           nd->op);
	return u;
}

/* The output: the body's dims, a fresh symbol where the body's was its own,
 * named after the output's dim: body dim k is the output's k0 + k, one
 * more from the body's dim skip on (a scan output's axis goes there). */
static int finish_out_at(sym_graph_result *r, const sym_mnode *nd, size_t i, const bout *o, sym_tval *out,
                         int k0, int skip)
{
	int k;
	*out = o->tv;
	for (k = 0; k < o->tv.rank; k++)
		if (!o->tv.dims[k] &&
		    !(o->tv.dims[k] = fresh_dim(r, nd, i, k0 + k + (k >= skip), o->lo[k], o->hi[k])))
			return -1;
	return 0;
}

static int finish_out(sym_graph_result *r, const sym_mnode *nd, size_t i, const bout *o, sym_tval *out,
                      int k0)
{
	return finish_out_at(r, nd, i, o, out, k0, INT_MAX);
}

/* Runs body g in a frame on the inputs; fills o[0..g->noutputs).  Guards
 * by mode and cond.  Returns 0, 1 with *why, -1. */
static int run_body(sym_graph_result *r, const scope *s, const sym_mgraph *g, size_t nin, const sym_tval *ins,
                    guard_mode mode, const sym_expr *cond, bout *o, const char **why, int *never)
{
	frame f;
	sym_tval *outs;
	size_t i;
	int st;
	if (frame_enter(r, &f, s, mode == GUARDS_COND ? cond : NULL) < 0)
		return -1;
	if (!(outs = sym__infer_alloc(&r->inf, (g->noutputs + 1) * sizeof(*outs))))
		st = -1;
	else
		st = run_graph(r, s, mode == GUARDS_COND ? cond : NULL, g, nin, ins, outs, why);
	for (i = 0; st == 0 && i < g->noutputs; i++)
		if (export_out(r, &f, &outs[i], &o[i]) < 0)
			st = -1;
	/* a guard of the body proven false: it never runs on a valid input */
	if (never)
		*never = st == 1 && r->inf.fatal;
	if (frame_exit(r, &f, st == 0 ? mode : GUARDS_DROP, cond) < 0)
		return -1;
	return st;
}

static const sym_mgraph *graph_attr(const sym_mnode *nd, const char *name)
{
	size_t i;
	for (i = 0; i < nd->ngraphs; i++)
		if (!strcmp(nd->graphs[i].name, name))
			return nd->graphs[i].graph;
	return NULL;
}

/* The scalar constant value of t in *v: 1, or 0 when it has none, -1 when
 * memory runs out. */
static int const_scalar(sym_graph_result *r, const sym_tval *t, long long *v)
{
	const sym_expr *e;
	if (!t || !t->present || !t->has_value || t->nvalue != 1)
		return 0;
	if (!(e = sym_simplify(r->ctx, r->inf.facts, t->value[0]))) {
		if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
			return -1;
		sym_ctx_clear_error(r->ctx);
		return 0;
	}
	if (e == sym__true(r->ctx))
		return *v = 1, 1;
	if (e == sym__false(r->ctx))
		return *v = 0, 1;
	return sym_expr_get_si(e, v) == 1;
}

static int proven_equal(sym_graph_result *r, const sym_expr *a, const sym_expr *b)
{
	sym_truth t;
	if (a == b)
		return 1;
	t = sym_prove(r->ctx, r->inf.facts, sym_expr_rel(r->ctx, SYM_REL_EQ, a, b));
	if (t == SYM_ERROR) {
		if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
			return -1;
		sym_ctx_clear_error(r->ctx);
	}
	return t == SYM_TRUE;
}

/* Adds the guard p (simplified) of node nd, of the kind, with the reason
 * (made in the session's memory), assumed from here on; 0 when p holds or
 * is added, 1 when it never holds (nothing added), -1 out of memory. */
static int push_guard(sym_graph_result *r, const sym_mnode *nd, const sym_expr *p, sym_guard_kind kind,
                      char *reason)
{
	sym_infer *inf = &r->inf;
	sym_ctx *ctx = r->ctx;
	sym_guard *g;
	if (!p || !reason || !(p = sym_simplify(ctx, inf->facts, p)))
		return -1;
	if (p == sym__true(ctx))
		return 0;
	if (p == sym__false(ctx))
		return 1;
	if (sym__infer_guard_find(inf, p, inf->nguards) >= 0)
		return 0;
	if (SYM_GROW(ctx, inf->guards, inf->nguards + 1, inf->capguards, 16) < 0)
		return -1;
	g = &inf->guards[inf->nguards];
	g->pred = p;
	g->kind = kind;
	g->node = sym__infer_strdup(inf, nd->name);
	g->reason = reason;
	if (!g->node)
		return -1;
	inf->nguards++;
	if (sym_facts_assume(inf->facts, p) != SYM_EOK) {
		if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
			return -1;
		sym_ctx_clear_error(ctx);
	}
	return 0;
}

/* The assert guard a == b of node nd (what: the dims it equates); a == b
 * proven false is an error naming the node. */
static int assert_equal(sym_graph_result *r, const sym_mnode *nd, const sym_expr *a, const sym_expr *b,
                        const char *what)
{
	int st = push_guard(r, nd, sym_expr_rel(r->ctx, SYM_REL_EQ, a, b), SYM_GUARD_ASSERT,
	                    sym__infer_printf(&r->inf, "%s must be equal", what));
	if (st == 1) {
		r->inf.fatal = 1;
		sym__error(r->ctx, SYM_EDOMAIN, -1, "node '%s' (%s): %s differ", nd->name, nd->op, what);
		return -1;
	}
	return st;
}

/* ---- If ---------------------------------------------------------------------- */

/* The assert guard p of If node nd: the branch name never runs on a valid
 * input (why: the guard of it that never holds). */
static int assert_branch(sym_graph_result *r, const sym_mnode *nd, const sym_expr *p, const char *name,
                         const char *why)
{
	int st = push_guard(r, nd, p, SYM_GUARD_ASSERT,
	                    sym__infer_printf(&r->inf, "%s never runs on a valid input: %s", name, why));
	if (st == 1) {
		r->inf.fatal = 1;
		sym__error(r->ctx, SYM_EDOMAIN, -1,
		           "node '%s' (If): neither branch runs on a valid input (%s)", nd->name, why);
		return -1;
	}
	return st;
}

/* With hints that decide the condition pred of If node nd: the branch
 * they select in *b (0 then, 1 else) with the expect guard that states
 * the choice; returns 1, or 0 when the hints do not decide it (or the
 * choice contradicts the guards so far), -1 on error. */
static int hinted_branch(sym_graph_result *r, const sym_mnode *nd, const sym_expr *pred, size_t *b)
{
	sym_infer *inf = &r->inf;
	sym_ctx *ctx = r->ctx;
	const sym_expr *hv;
	int st;
	if (!inf->nhints)
		return 0;
	if (!(hv = sym_expr_eval_si(ctx, pred, inf->nhints, inf->hint_syms, inf->hint_vals))) {
		if (sym_ctx_last_error(ctx) == SYM_ENOMEM)
			return -1;
		sym_ctx_clear_error(ctx);
		return 0;
	}
	if (hv != sym__true(ctx) && hv != sym__false(ctx))
		return 0;
	*b = hv == sym__true(ctx) ? 0 : 1;
	/* the branch's condition as an expect guard; one that never holds
	 * takes no branch */
	st = push_guard(r, nd, *b ? sym_expr_not(ctx, pred) : pred, SYM_GUARD_EXPECT,
	                sym__infer_printf(inf, "the hints take %s", *b ? "else_branch" : "then_branch"));
	return st < 0 ? -1 : st == 1 ? 0 : 1;
}

static int run_if(sym_graph_result *r, const scope *s, const sym_mnode *nd, const sym_tval *ins,
                  sym_tval *outs, const char **why)
{
	sym_ctx *ctx = r->ctx;
	const sym_mgraph *g[2] = {graph_attr(nd, "then_branch"), graph_attr(nd, "else_branch")};
	const char *names[2] = {"then_branch", "else_branch"};
	const sym_expr *pred = NULL, *e;
	bout *o[2];
	long long c;
	size_t i, b;
	int st, k;
	if (!g[0] || !g[1])
		return not_inferred(r, why, "needs the graph attributes then_branch and else_branch");
	if (nd->nin < 1 || !ins[0].present)
		return not_inferred(r, why, "needs the input cond");
	if (ins[0].rank > 0 && ins[0].dims) {
		for (k = 0; k < ins[0].rank; k++)
			if (proven_equal(r, ins[0].dims[k], sym__one(ctx)) != 1)
				return not_inferred(r, why, "cond must hold one element");
	}
	for (b = 0; b < 2; b++)
		if (g[b]->noutputs != nd->nout)
			return not_inferred(r, why, "%s has %zu outputs, the node %zu", names[b],
			                    g[b]->noutputs, nd->nout);
	if (!(o[0] = sym__infer_alloc(&r->inf, (nd->nout + 1) * sizeof(*o[0]))) ||
	    !(o[1] = sym__infer_alloc(&r->inf, (nd->nout + 1) * sizeof(*o[1]))))
		return -1;
	if ((st = const_scalar(r, &ins[0], &c)) < 0)
		return -1;
	if (st) {
		/* the branch that runs */
		b = c ? 0 : 1;
		if ((st = run_body(r, s, g[b], 0, NULL, GUARDS_KEEP, NULL, o[b], why, NULL)) != 0)
			return st < 0 ? -1 : not_inferred(r, why, "%s: %s", names[b], *why);
		for (i = 0; i < nd->nout; i++)
			if (finish_out(r, nd, i, &o[b][i], &outs[i], 0) < 0)
				return -1;
		return 0;
	}
	if (ins[0].has_value && ins[0].nvalue == 1) {
		e = ins[0].value[0];
		pred = sym_expr_is_pred(e) ? e : sym_expr_rel(ctx, SYM_REL_NE, e, sym__zero(ctx));
		if (!pred)
			return -1;
	}
	if (pred && (st = hinted_branch(r, nd, pred, &b)) != 0) {
		/* the branch the hints select, under an expect guard */
		const sym_expr *cb = b ? sym_expr_not(ctx, pred) : pred;
		if (st < 0 || !cb)
			return -1;
		if ((st = run_body(r, s, g[b], 0, NULL, GUARDS_COND, cb, o[b], why, NULL)) != 0)
			return st < 0 ? -1 : not_inferred(r, why, "%s: %s", names[b], *why);
		for (i = 0; i < nd->nout; i++)
			if (finish_out(r, nd, i, &o[b][i], &outs[i], 0) < 0)
				return -1;
		return 0;
	}
	{
		int never[2] = {0, 0};
		const char *whyb[2] = {NULL, NULL};
		for (b = 0; b < 2; b++) {
			const sym_expr *cb = pred && b ? sym_expr_not(ctx, pred) : pred;
			if (pred && !cb)
				return -1;
			st = run_body(r, s, g[b], 0, NULL, pred ? GUARDS_COND : GUARDS_DROP, cb, o[b],
			              &whyb[b], &never[b]);
			if (st < 0)
				return -1;
			if (st && !never[b])
				return not_inferred(r, why, "%s: %s", names[b], whyb[b]);
		}
		if (never[0] && never[1])
			return not_inferred(r, why, "%s: %s", names[0], whyb[0]);
		if (never[0] || never[1]) {
			/* one branch states a guard that never holds: a valid
			 * input takes the other, which the condition asserts */
			b = never[0] ? 1 : 0;
			if (pred && assert_branch(r, nd, b ? sym_expr_not(ctx, pred) : pred, names[1 - b],
			                          whyb[1 - b]) < 0)
				return -1;
			for (i = 0; i < nd->nout; i++)
				if (finish_out(r, nd, i, &o[b][i], &outs[i], 0) < 0)
					return -1;
			return 0;
		}
	}
	/* each dim: the branches' where they agree, else a fresh symbol
	 * whose range is the union of theirs */
	for (i = 0; i < nd->nout; i++) {
		const sym_tval *t = &o[0][i].tv, *f = &o[1][i].tv;
		sym_tval *out = &outs[i];
		memset(out, 0, sizeof(*out));
		out->present = 1;
		out->dtype = t->dtype != SYM_DT_UNDEFINED ? t->dtype : f->dtype;
		if (t->rank < 0 || f->rank < 0 || t->rank != f->rank) {
			out->rank = -1;
			continue;
		}
		out->rank = t->rank;
		if (!(out->dims = sym__infer_alloc(&r->inf, (size_t)(t->rank + 1) * sizeof(*out->dims))))
			return -1;
		for (k = 0; k < t->rank; k++) {
			const sym_expr *lo[2], *hi[2];
			int eq = 0;
			if (t->dims[k] && f->dims[k] && (eq = proven_equal(r, t->dims[k], f->dims[k])) < 0)
				return -1;
			if (eq) {
				out->dims[k] = t->dims[k];
				continue;
			}
			for (b = 0; b < 2; b++) {
				const bout *ob = &o[b][i];
				lo[b] = ob->tv.dims[k] ? ob->tv.dims[k] : ob->lo[k];
				hi[b] = ob->tv.dims[k] ? ob->tv.dims[k] : ob->hi[k];
			}
			/* the lower end: the constant bound of the smaller (a dim
			 * is never negative), the upper: the larger */
			e = sym_expr_min(ctx, 2, lo);
			if (!e || !(e = sym_simplify(ctx, r->inf.facts, e)))
				return -1;
			{
				const sym_expr *clo = NULL, *chi = NULL;
				long long v;
				sym__bounds_expr(ctx, r->inf.facts, e, &clo, &chi);
				if (sym__failed(ctx))
					return -1;
				if (!clo || sym_expr_get_si(clo, &v) != 1 || v < 0)
					clo = sym__zero(ctx);
				e = clo;
			}
			{
				const sym_expr *h = NULL;
				if (hi[0] && hi[1] &&
				    (!(h = sym_expr_max(ctx, 2, hi)) ||
				     !(h = sym_simplify(ctx, r->inf.facts, h))))
					return -1;
				if (!(out->dims[k] = fresh_dim(r, nd, i, k, e, h)))
					return -1;
			}
		}
		/* a value both branches give */
		if (t->has_value && f->has_value && t->nvalue == f->nvalue) {
			size_t j;
			for (j = 0; j < t->nvalue && t->value[j] == f->value[j]; j++)
				;
			if (j == t->nvalue)
				out->has_value = 1, out->nvalue = t->nvalue, out->value = t->value;
		}
	}
	return 0;
}

/* ---- loop-carried shapes ---------------------------------------------------------- */

/* The loop-carried tensors of a Loop or Scan: their initial shapes, which
 * dims are proven invariant, which ranks may change. */
typedef struct carried {
	size_t n;
	const sym_tval *init; /* n */
	char **variant;       /* per tensor, per dim */
	char *rank_variant;   /* per tensor */
} carried;

/* The body inputs of a pass: the carried tensors with their variant dims
 * as fresh symbols of the frame (values dropped: they change). */
static int carried_inputs(sym_graph_result *r, const carried *c, sym_tval *in)
{
	size_t i;
	int k;
	for (i = 0; i < c->n; i++) {
		in[i] = c->init[i];
		in[i].has_value = 0, in[i].nvalue = 0, in[i].value = NULL;
		if (c->rank_variant[i]) {
			in[i].rank = -1, in[i].dims = NULL;
			continue;
		}
		if (in[i].rank <= 0)
			continue;
		if (!(in[i].dims = sym__infer_alloc(&r->inf, (size_t)in[i].rank * sizeof(*in[i].dims))))
			return -1;
		for (k = 0; k < in[i].rank; k++) {
			in[i].dims[k] = c->init[i].dims[k];
			if (c->variant[i][k] &&
			    !(in[i].dims[k] = sym__infer_fresh_dim(&r->inf, "carried", sym__zero(r->ctx),
			                                           NULL, "a loop-carried dim")))
				return -1;
		}
	}
	return 0;
}

/* Compares the carried outputs with the inputs of the pass (under the
 * body's facts); marks what changes.  Returns 1 when something newly
 * changed, 0 at the fixpoint, -1. */
static int carried_check(sym_graph_result *r, carried *c, const sym_tval *in, const sym_tval *out)
{
	size_t i;
	int k, changed = 0, eq;
	for (i = 0; i < c->n; i++) {
		if (c->rank_variant[i])
			continue;
		if (in[i].rank < 0 || out[i].rank != in[i].rank) {
			c->rank_variant[i] = 1, changed = 1;
			continue;
		}
		for (k = 0; k < in[i].rank; k++) {
			if (c->variant[i][k])
				continue;
			if ((eq = proven_equal(r, in[i].dims[k], out[i].dims[k])) < 0)
				return -1;
			if (!eq)
				c->variant[i][k] = 1, changed = 1;
		}
	}
	return changed;
}

static int carried_init(sym_graph_result *r, carried *c, size_t n, const sym_tval *init)
{
	size_t i;
	c->n = n, c->init = init;
	if (!(c->variant = sym__infer_alloc(&r->inf, (n + 1) * sizeof(*c->variant))) ||
	    !(c->rank_variant = sym__infer_alloc(&r->inf, n + 1)))
		return -1;
	for (i = 0; i < n; i++) {
		if (!init[i].present)
			c->rank_variant[i] = 1;
		if (!(c->variant[i] =
		          sym__infer_alloc(&r->inf, (size_t)(init[i].rank > 0 ? init[i].rank : 1))))
			return -1;
	}
	return 0;
}

/* The final carried output i: the initial dims where invariant, fresh
 * runtime-bound symbols where not, unknown rank where the rank changes. */
static int carried_final(sym_graph_result *r, const sym_mnode *nd, const carried *c, size_t i, sym_tval *out,
                         int k0)
{
	int k;
	memset(out, 0, sizeof(*out));
	out->present = 1;
	out->dtype = c->init[i].dtype;
	out->rank = -1;
	if (c->rank_variant[i] || c->init[i].rank < 0)
		return 0;
	out->rank = c->init[i].rank;
	if (!(out->dims = sym__infer_alloc(&r->inf, (size_t)(out->rank + 1) * sizeof(*out->dims))))
		return -1;
	for (k = 0; k < out->rank; k++)
		if (!(out->dims[k] = c->variant[i][k] ? fresh_dim(r, nd, i, k0 + k, sym__zero(r->ctx), NULL)
		                                      : c->init[i].dims[k]))
			return -1;
	return 0;
}

/* Runs the body of a Loop or Scan to the fixpoint of its carried shapes:
 * body inputs are pre[0..npre) (the iteration's own), the carried ones,
 * then post[0..npost); the carried outputs start at body output coff.
 * The last pass closes with the guard mode that mode_of gives (its
 * argument: the body outputs of that pass).  Fills o. */
typedef struct loopk {
	size_t npre, npost, coff;
	const sym_tval *pre, *post;
	carried c;
	/* Loop: whether the body's cond output is constant true */
	int cond_true;
	/* Loop: pre[0] is the iteration number, a body-local symbol in
	 * [0, iter_hi] (iter_hi NULL: no upper end); iter_src names it */
	int iter;
	const sym_expr *iter_hi;
	const char *iter_src;
} loopk;

static int run_loop_body(sym_graph_result *r, const scope *s, const sym_mgraph *g, loopk *L, guard_mode mode,
                         const sym_expr *cond, int cond_mode, bout *o, const char **why)
{
	size_t nin = L->npre + L->c.n + L->npost, i, pass;
	sym_tval *in = sym__infer_alloc(&r->inf, (nin + 1) * sizeof(*in));
	sym_tval *outs = sym__infer_alloc(&r->inf, (g->noutputs + 1) * sizeof(*outs));
	if (!in || !outs)
		return -1;
	for (pass = 0;; pass++) {
		frame f;
		int st, ch = 0;
		guard_mode m = GUARDS_DROP;
		long long v;
		if (frame_enter(r, &f, s, mode == GUARDS_COND ? cond : NULL) < 0)
			return -1;
		for (i = 0; i < L->npre; i++)
			in[i] = L->pre[i];
		for (i = 0; i < L->npost; i++)
			in[L->npre + L->c.n + i] = L->post[i];
		st = carried_inputs(r, &L->c, in + L->npre);
		if (st == 0 && L->iter) {
			/* the iteration number, known to the body only as a
			 * symbol of its own (exported dims that use it become
			 * runtime-bound) */
			const sym_expr **v = sym__infer_alloc(&r->inf, sizeof(*v));
			if (!v || !(v[0] = sym__infer_fresh_dim(&r->inf, "u", sym__zero(r->ctx), L->iter_hi,
			                                        L->iter_src)))
				st = -1;
			else
				in[0].has_value = 1, in[0].nvalue = 1, in[0].value = v;
		}
		if (st == 0)
			st = run_graph(r, s, mode == GUARDS_COND ? cond : NULL, g, nin, in, outs, why);
		if (st == 0 && (ch = carried_check(r, &L->c, in + L->npre, outs + L->coff)) < 0)
			st = -1;
		if (st == 0 && !ch) {
			int cs = cond_mode ? const_scalar(r, &outs[0], &v) : 0;
			if (cs < 0)
				st = -1;
			L->cond_true = cs > 0 && v;
			for (i = 0; i < g->noutputs && st == 0; i++)
				if (export_out(r, &f, &outs[i], &o[i]) < 0)
					st = -1;
			m = mode;
			if (cond_mode && !L->cond_true)
				m = GUARDS_DROP;
		}
		if (frame_exit(r, &f, st == 0 ? m : GUARDS_DROP, cond) < 0)
			return -1;
		if (st != 0 || !ch)
			return st;
		if (pass > 4096)
			return not_inferred(r, why, "the loop-carried shapes do not settle");
	}
}

/* ---- Loop ------------------------------------------------------------------------- */

static int run_loop(sym_graph_result *r, const scope *s, const sym_mnode *nd, const sym_tval *ins,
                    sym_tval *outs, const char **why)
{
	sym_ctx *ctx = r->ctx;
	const sym_mgraph *g = graph_attr(nd, "body");
	const sym_tval *M = nd->nin > 0 && ins[0].present ? &ins[0] : NULL;
	const sym_tval *cond = nd->nin > 1 && ins[1].present ? &ins[1] : NULL;
	const sym_expr *m = NULL, *trip = NULL, *run1 = NULL;
	sym_tval pre[2];
	loopk L;
	bout *o;
	size_t N, K, i;
	long long cv = 1;
	int st, k, exact, cond_known;
	guard_mode mode;
	if (!g)
		return not_inferred(r, why, "needs the graph attribute body");
	N = nd->nin > 2 ? nd->nin - 2 : 0;
	if (g->ninputs != N + 2)
		return not_inferred(r, why, "the body has %zu inputs, not %zu (iteration, cond, %zu carried)",
		                    g->ninputs, N + 2, N);
	if (g->noutputs < N + 1 || nd->nout != g->noutputs - 1)
		return not_inferred(r, why,
		                    "the body has %zu outputs for %zu carried tensors and %zu outputs",
		                    g->noutputs, N, nd->nout);
	K = nd->nout - N;
	if (M && M->has_value && M->nvalue == 1) {
		const sym_expr *z[2] = {M->value[0], sym__zero(ctx)};
		if (!(m = sym_expr_max(ctx, 2, z)) || !(m = sym_simplify(ctx, r->inf.facts, m)))
			return -1;
	}
	if ((cond_known = cond ? const_scalar(r, cond, &cv) : 0) < 0)
		return -1;
	if (cond_known && !cv)
		m = sym__zero(ctx); /* never runs */
	memset(pre, 0, sizeof(pre));
	pre[0].present = pre[1].present = 1;
	pre[0].rank = pre[1].rank = 0;
	pre[0].dtype = SYM_DT_INT64, pre[1].dtype = SYM_DT_BOOL;
	if (cond) {
		/* an iteration runs only while cond is true: the body's cond
		 * input is true whenever the body runs */
		const sym_expr **one = sym__infer_alloc(&r->inf, sizeof(*one));
		if (!one)
			return -1;
		one[0] = sym__one(ctx);
		pre[1].has_value = 1, pre[1].nvalue = 1, pre[1].value = one;
	}
	memset(&L, 0, sizeof(L));
	L.npre = 2, L.pre = pre, L.coff = 1;
	L.iter = 1;
	if (m) {
		/* the iteration number is below the trip count */
		sym_truth runs =
		    sym_prove(ctx, r->inf.facts, sym_expr_rel(ctx, SYM_REL_GE, m, sym__one(ctx)));
		if (runs == SYM_ERROR)
			return -1;
		if (runs != SYM_FALSE && !(L.iter_hi = sym_expr_sub(ctx, m, sym__one(ctx))))
			return -1;
	}
	if (!(L.iter_src = sym__infer_printf(&r->inf, "the iteration number of node '%s' (Loop)", nd->name)))
		return -1;
	if (carried_init(r, &L.c, N, ins + 2) < 0)
		return -1;
	for (i = 0; i < N; i++)
		if (!ins[2 + i].present)
			return not_inferred(r, why, "carried input %zu is omitted", i);
	/* without cond the loop runs max(M, 0) times; with cond, as often
	 * while the body's cond output is constant true and cond is */
	if (m && (!cond || cv)) {
		if (!(run1 = sym_expr_rel(ctx, SYM_REL_GE, m, sym__one(ctx))))
			return -1;
		mode = GUARDS_COND;
	} else {
		mode = GUARDS_DROP;
	}
	if (!(o = sym__infer_alloc(&r->inf, (g->noutputs + 1) * sizeof(*o))))
		return -1;
	if (cond && !cond_known)
		mode = GUARDS_DROP;
	if ((st = run_loop_body(r, s, g, &L, mode, run1, cond != NULL, o, why)) != 0)
		return st < 0 ? -1 : not_inferred(r, why, "body: %s", *why);
	/* the count is exact without cond, or with cond constant true at
	 * the start and after every iteration */
	exact = m && (!cond || (cond_known && cv && L.cond_true) || m == sym__zero(ctx));
	if (exact)
		trip = m;
	else if (K && !(trip = fresh_dim(r, nd, N, 0, sym__zero(ctx), m)))
		return -1;
	for (i = 0; i < N; i++)
		if (carried_final(r, nd, &L.c, i, &outs[i], 0) < 0)
			return -1;
	for (i = 0; i < K; i++) {
		const bout *b = &o[1 + N + i];
		sym_tval *out = &outs[N + i];
		if (finish_out(r, nd, N + i, b, out, 1) < 0)
			return -1;
		out->has_value = 0, out->nvalue = 0, out->value = NULL;
		if (out->rank < 0)
			continue;
		{
			const sym_expr **d = sym__infer_alloc(&r->inf, (size_t)(out->rank + 2) * sizeof(*d));
			if (!d)
				return -1;
			d[0] = trip;
			for (k = 0; k < out->rank; k++)
				d[k + 1] = out->dims[k];
			out->dims = d, out->rank++;
		}
	}
	return 0;
}

/* ---- Scan -------------------------------------------------------------------------- */

static int attr_ints(const sym_mnode *nd, const char *name, size_t *n, const int64_t **v)
{
	size_t i;
	for (i = 0; i < nd->nattr; i++)
		if (!strcmp(nd->attrs[i].name, name)) {
			if (nd->attrs[i].type != SYM_ATTR_INTS && nd->attrs[i].type != SYM_ATTR_INT)
				return -1;
			*n = nd->attrs[i].n, *v = nd->attrs[i].ints;
			return 1;
		}
	return 0;
}

/* t without its first `drop` axes (and without a value), in *out. */
static int strip_axes(sym_graph_result *r, const sym_tval *t, int drop, sym_tval *out)
{
	int k;
	*out = *t;
	out->has_value = 0, out->nvalue = 0, out->value = NULL;
	if (!t->present || t->rank < 0)
		return 0;
	out->rank = t->rank - drop;
	if (!(out->dims = sym__infer_alloc(&r->inf, (size_t)(out->rank + 1) * sizeof(*out->dims))))
		return -1;
	for (k = 0; k < out->rank; k++)
		out->dims[k] = t->dims[k + drop];
	return 0;
}

/* out with the dims lead[0..n) put in front. */
static int prepend_dims(sym_graph_result *r, sym_tval *out, int n, const sym_expr *const *lead)
{
	const sym_expr **d;
	int k;
	if (out->rank < 0)
		return 0;
	if (!(d = sym__infer_alloc(&r->inf, (size_t)(out->rank + n + 1) * sizeof(*d))))
		return -1;
	for (k = 0; k < n; k++)
		d[k] = lead[k];
	for (k = 0; k < out->rank; k++)
		d[n + k] = out->dims[k];
	out->dims = d, out->rank += n;
	return 0;
}

/* Scan of opset 8: input 0 is the optional sequence_lens, and every other
 * input and every output has the batch at axis 0; the scan inputs have the
 * sequence at axis 1.  The body sees one batch element: the states without
 * the batch axis, the scan elements without the batch and sequence axes.
 * The final states are [batch, ...], the scan outputs [batch, sequence,
 * ...] (a sequence that sequence_lens makes shorter is padded). */
static int run_scan8(sym_graph_result *r, const scope *s, const sym_mnode *nd, const sym_tval *ins,
                     sym_tval *outs, const char **why)
{
	sym_ctx *ctx = r->ctx;
	const sym_mgraph *g = graph_attr(nd, "body");
	const int64_t *nscan_v, *dirs = NULL;
	size_t nn, nd_dirs = 0, M, N, K, i;
	const sym_expr *batch = NULL, *trip = NULL, *run1, *lead[2];
	sym_tval *states, *slices;
	loopk L;
	bout *o;
	int st;
	if (!g)
		return not_inferred(r, why, "needs the graph attribute body");
	if (nd->nin < 2 || attr_ints(nd, "num_scan_inputs", &nn, &nscan_v) != 1 || nn != 1 ||
	    nscan_v[0] < 1 || (size_t)nscan_v[0] > nd->nin - 1)
		return not_inferred(r, why, "needs num_scan_inputs, an integer in [1, %zu]",
		                    nd->nin > 1 ? nd->nin - 1 : 0);
	M = (size_t)nscan_v[0], N = nd->nin - 1 - M;
	if (attr_ints(nd, "directions", &nd_dirs, &dirs) < 0 || (dirs && nd_dirs != M))
		return not_inferred(r, why, "directions must list one direction per scan input");
	for (i = 0; dirs && i < M; i++)
		if (dirs[i] != 0 && dirs[i] != 1)
			return not_inferred(r, why, "directions[%zu] = %lld is not 0 or 1", i,
			                    (long long)dirs[i]);
	if (g->ninputs != N + M || g->noutputs < N || nd->nout != g->noutputs)
		return not_inferred(r, why,
		                    "the body has %zu inputs and %zu outputs for %zu state, "
		                    "%zu scan inputs and %zu outputs",
		                    g->ninputs, g->noutputs, N, M, nd->nout);
	K = nd->nout - N;
	if (!(states = sym__infer_alloc(&r->inf, (N + 1) * sizeof(*states))) ||
	    !(slices = sym__infer_alloc(&r->inf, (M + 1) * sizeof(*slices))))
		return -1;
	for (i = 0; i < N + M; i++) {
		const sym_tval *t = &ins[1 + i];
		int scan = i >= N;
		if (!t->present || t->rank < (scan ? 2 : 1))
			return not_inferred(r, why, "%s %zu needs a known rank of at least %d (batch%s)",
			                    scan ? "scan input" : "state", scan ? i - N : i, scan ? 2 : 1,
			                    scan ? ", sequence" : "");
		if (!batch)
			batch = t->dims[0];
		else if (assert_equal(r, nd, batch, t->dims[0], "batch sizes (dim 0 of every input)") < 0)
			return -1;
		if (scan && !trip)
			trip = t->dims[1];
		else if (scan && assert_equal(r, nd, trip, t->dims[1],
		                              "sequence lengths (dim 1 of the scan inputs)") < 0)
			return -1;
		if (strip_axes(r, t, scan ? 2 : 1, scan ? &slices[i - N] : &states[i]) < 0)
			return -1;
	}
	if (ins[0].present) {
		if (ins[0].rank >= 0 && ins[0].rank != 1)
			return not_inferred(r, why, "sequence_lens has rank %d, not 1", ins[0].rank);
		if (ins[0].rank == 1 && assert_equal(r, nd, batch, ins[0].dims[0],
		                                     "sequence_lens' length and the batch size") < 0)
			return -1;
	}
	memset(&L, 0, sizeof(L));
	L.npre = 0, L.npost = M, L.post = slices, L.coff = 0;
	if (carried_init(r, &L.c, N, states) < 0)
		return -1;
	if (!(o = sym__infer_alloc(&r->inf, (g->noutputs + 1) * sizeof(*o))) ||
	    !(run1 = sym_expr_and(ctx, sym_expr_rel(ctx, SYM_REL_GE, batch, sym__one(ctx)),
	                          sym_expr_rel(ctx, SYM_REL_GE, trip, sym__one(ctx)))))
		return -1;
	/* the body runs when there is a batch element and a step; with
	 * sequence_lens, only for a length of at least 1, which the shapes do
	 * not tell: its guards are then dropped */
	if ((st = run_loop_body(r, s, g, &L, ins[0].present ? GUARDS_DROP : GUARDS_COND, run1, 0, o, why)) !=
	    0)
		return st < 0 ? -1 : not_inferred(r, why, "body: %s", *why);
	lead[0] = batch, lead[1] = trip;
	for (i = 0; i < N; i++)
		if (carried_final(r, nd, &L.c, i, &outs[i], 1) < 0 || prepend_dims(r, &outs[i], 1, lead) < 0)
			return -1;
	for (i = 0; i < K; i++) {
		sym_tval *out = &outs[N + i];
		if (finish_out(r, nd, N + i, &o[N + i], out, 2) < 0)
			return -1;
		out->has_value = 0, out->nvalue = 0, out->value = NULL;
		if (prepend_dims(r, out, 2, lead) < 0)
			return -1;
	}
	return 0;
}

static int run_scan(sym_graph_result *r, const scope *s, const sym_mnode *nd, const sym_tval *ins,
                    sym_tval *outs, const char **why)
{
	sym_ctx *ctx = r->ctx;
	const sym_mgraph *g = graph_attr(nd, "body");
	const int64_t *nscan_v, *in_axes = NULL, *out_axes = NULL;
	size_t nn, nia = 0, noa = 0, M, N, K, i;
	const sym_expr *trip = NULL, *run1;
	sym_tval *slices;
	loopk L;
	bout *o;
	int st, k;
	if (!g)
		return not_inferred(r, why, "needs the graph attribute body");
	if (r->model->opset < 9)
		return run_scan8(r, s, nd, ins, outs, why);
	if (attr_ints(nd, "num_scan_inputs", &nn, &nscan_v) != 1 || nn != 1 || nscan_v[0] < 1 ||
	    (size_t)nscan_v[0] > nd->nin)
		return not_inferred(r, why, "needs num_scan_inputs, an integer in [1, %zu]", nd->nin);
	M = (size_t)nscan_v[0], N = nd->nin - M;
	if (attr_ints(nd, "scan_input_axes", &nia, &in_axes) < 0 || (in_axes && nia != M) ||
	    attr_ints(nd, "scan_output_axes", &noa, &out_axes) < 0)
		return not_inferred(r, why, "scan_input_axes must list one axis per scan input");
	if (g->ninputs != N + M || g->noutputs < N || nd->nout != g->noutputs)
		return not_inferred(r, why,
		                    "the body has %zu inputs and %zu outputs for %zu state, "
		                    "%zu scan inputs and %zu outputs",
		                    g->ninputs, g->noutputs, N, M, nd->nout);
	K = nd->nout - N;
	if (out_axes && noa != K)
		return not_inferred(r, why, "scan_output_axes must list one axis per scan output");
	if (!(slices = sym__infer_alloc(&r->inf, (M + 1) * sizeof(*slices))))
		return -1;
	for (i = 0; i < M; i++) {
		const sym_tval *t = &ins[N + i];
		int64_t ax = in_axes ? in_axes[i] : 0;
		int j = 0;
		if (!t->present || t->rank < 1)
			return not_inferred(r, why, "scan input %zu needs a known rank of at least 1", i);
		if (ax < -t->rank || ax >= t->rank)
			return not_inferred(r, why, "scan_input_axes[%zu] = %lld is out of range for rank %d",
			                    i, (long long)ax, t->rank);
		if (ax < 0)
			ax += t->rank;
		slices[i] = *t;
		slices[i].has_value = 0, slices[i].nvalue = 0, slices[i].value = NULL;
		slices[i].rank = t->rank - 1;
		if (!(slices[i].dims = sym__infer_alloc(&r->inf, (size_t)t->rank * sizeof(*slices[i].dims))))
			return -1;
		for (k = 0; k < t->rank; k++)
			if (k != ax)
				slices[i].dims[j++] = t->dims[k];
		if (!trip)
			trip = t->dims[ax];
		else if (assert_equal(r, nd, trip, t->dims[ax],
		                      "sequence lengths (the scan inputs' dims at their scan_input_axes)") <
		         0)
			return -1;
	}
	memset(&L, 0, sizeof(L));
	L.npre = 0, L.npost = M, L.post = slices, L.coff = 0;
	if (carried_init(r, &L.c, N, ins) < 0)
		return -1;
	if (!(o = sym__infer_alloc(&r->inf, (g->noutputs + 1) * sizeof(*o))) ||
	    !(run1 = sym_expr_rel(ctx, SYM_REL_GE, trip, sym__one(ctx))))
		return -1;
	if ((st = run_loop_body(r, s, g, &L, GUARDS_COND, run1, 0, o, why)) != 0)
		return st < 0 ? -1 : not_inferred(r, why, "body: %s", *why);
	for (i = 0; i < N; i++)
		if (carried_final(r, nd, &L.c, i, &outs[i], 0) < 0)
			return -1;
	for (i = 0; i < K; i++) {
		sym_tval *out = &outs[N + i];
		int64_t ax = out_axes ? out_axes[i] : 0;
		int j = 0, rank = o[N + i].tv.rank;
		if (rank >= 0 && (ax < -(rank + 1) || ax > rank))
			return not_inferred(r, why,
			                    "scan_output_axes[%zu] = %lld is out of range for rank %d", i,
			                    (long long)ax, rank + 1);
		if (ax < 0)
			ax += rank + 1;
		if (finish_out_at(r, nd, N + i, &o[N + i], out, 0, rank >= 0 ? (int)ax : INT_MAX) < 0)
			return -1;
		out->has_value = 0, out->nvalue = 0, out->value = NULL;
		if (out->rank < 0)
			continue;
		{
			const sym_expr **d = sym__infer_alloc(&r->inf, (size_t)(out->rank + 2) * sizeof(*d));
			if (!d)
				return -1;
			for (k = 0; k <= out->rank; k++)
				d[k] = k == ax ? trip : out->dims[j++];
			out->dims = d, out->rank++;
		}
	}
	return 0;
}

/* ---- the entry ---------------------------------------------------------------------- */

static int control(sym_graph_result *r, const scope *s, const sym_mnode *nd, const sym_tval *ins,
                   sym_tval *outs, const char **why)
{
	size_t i;
	for (i = 0; i < nd->nout; i++) {
		memset(&outs[i], 0, sizeof(outs[i]));
		outs[i].present = 1, outs[i].rank = -1;
	}
	if (*nd->domain)
		return not_inferred(r, why, "subgraphs of domain '%s' are not read", nd->domain);
	if (!strcmp(nd->op, "If"))
		return run_if(r, s, nd, ins, outs, why);
	if (!strcmp(nd->op, "Loop"))
		return run_loop(r, s, nd, ins, outs, why);
	if (!strcmp(nd->op, "Scan"))
		return run_scan(r, s, nd, ins, outs, why);
	return not_inferred(r, why, "the subgraphs of this operator are not read");
}

int sym__subgraph_node(sym_graph_result *r, const sym_mnode *nd, const sym_tval *ins, sym_tval *outs)
{
	const char *why = NULL;
	int st = control(r, NULL, nd, ins, outs, &why);
	if (st <= 0)
		return st;
	if (sym__result_add_diag(r, nd->name, nd->op, NULL, "node '%s' (%s): not inferred: %s", nd->name,
	                         nd->op, why) < 0)
		return -1;
	return 1;
}
