/* The rule context: session storage, attributes, inputs, outputs, guards
 * and hints, and running one rule. */
#include "rules_private.h"
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- session ------------------------------------------------------------ */

int sym__infer_init(sym_infer *inf, sym_ctx *ctx, sym_facts *facts)
{
	memset(inf, 0, sizeof(*inf));
	inf->ctx = ctx;
	inf->facts = facts;
	return 0;
}

void sym__infer_clear(sym_infer *inf)
{
	sym__carve_free(inf->ctx, &inf->blocks);
	sym__free(inf->ctx, inf->guards, inf->capguards * sizeof(*inf->guards));
	sym__free(inf->ctx, inf->gix, inf->gix_cap * sizeof(*inf->gix));
	sym__free(inf->ctx, inf->hint_syms, inf->caphints * sizeof(*inf->hint_syms));
	sym__free(inf->ctx, inf->fresh_syms, inf->capfresh * sizeof(*inf->fresh_syms));
	sym__free(inf->ctx, inf->fresh_src, inf->capfresh * sizeof(*inf->fresh_src));
	sym__free(inf->ctx, inf->fresh_lo, inf->capfresh * sizeof(*inf->fresh_lo));
	sym__free(inf->ctx, inf->fresh_hi, inf->capfresh * sizeof(*inf->fresh_hi));
	sym__free(inf->ctx, inf->hint_vals, inf->caphints * sizeof(*inf->hint_vals));
	sym__free(inf->ctx, inf->rules, inf->nrules * sizeof(*inf->rules));
	memset(inf, 0, sizeof(*inf));
}

/* Grows the k parallel arrays *arr[i] (elements of size[i]) from cap to nc
 * elements, all or none: on failure every array keeps its old block and
 * capacity, so the sizes freed later stay the sizes allocated.  The hints
 * and the fresh symbols stay parallel arrays (sym_expr_eval_si takes the
 * hints so, the runtime binding reads the fresh symbols so), which one
 * SYM_GROW per array cannot grow all or none. */
static int grow_parallel(sym_ctx *ctx, void **const *arr, const size_t *size, size_t k, size_t cap, size_t nc)
{
	void *nb[4];
	size_t i;
	for (i = 0; i < k; i++) {
		if (!(nb[i] = sym__alloc(ctx, nc * size[i]))) {
			while (i-- > 0)
				sym__free(ctx, nb[i], nc * size[i]);
			return -1;
		}
		if (cap)
			memcpy(nb[i], *arr[i], cap * size[i]);
	}
	for (i = 0; i < k; i++) {
		sym__free(ctx, *arr[i], cap * size[i]);
		*arr[i] = nb[i];
	}
	return 0;
}

void *sym__infer_alloc(sym_infer *inf, size_t n)
{
	return sym__carve_zeroed(inf->ctx, &inf->blocks, n);
}

void *sym__rc_alloc(sym_rule_ctx *rc, size_t n)
{
	return sym__infer_alloc(rc->inf, n);
}

char *sym__infer_strdup(sym_infer *inf, const char *s)
{
	return sym__carve_strdup(inf->ctx, &inf->blocks, s ? s : "");
}

char *sym__infer_vprintf(sym_infer *inf, const char *fmt, va_list ap)
{
	sym_sbuf b;
	char *r;
	sym__sbuf_init(&b, inf->ctx);
	sym__sbuf_vprintf(&b, fmt, ap);
	r = b.fail || !b.s ? NULL : sym__infer_strdup(inf, b.s);
	sym__sbuf_clear(&b);
	if (!r)
		sym__error(inf->ctx, SYM_ENOMEM, -1, "out of memory");
	return r;
}

char *sym__infer_printf(sym_infer *inf, const char *fmt, ...)
{
	va_list ap;
	char *r;
	va_start(ap, fmt);
	r = sym__infer_vprintf(inf, fmt, ap);
	va_end(ap);
	return r;
}

int sym__infer_add_hint(sym_infer *inf, const sym_expr *sym, int64_t v)
{
	size_t i;
	for (i = 0; i < inf->nhints; i++)
		if (inf->hint_syms[i] == sym) {
			inf->hint_vals[i] = v;
			return 0;
		}
	if (inf->nhints == inf->caphints) {
		size_t nc = inf->caphints ? inf->caphints * 2 : 8;
		void **const arr[] = {(void **)&inf->hint_syms, (void **)&inf->hint_vals};
		const size_t size[] = {sizeof(*inf->hint_syms), sizeof(*inf->hint_vals)};
		if (grow_parallel(inf->ctx, arr, size, 2, inf->caphints, nc) < 0)
			return -1;
		inf->caphints = nc;
	}
	inf->hint_syms[inf->nhints] = sym;
	inf->hint_vals[inf->nhints++] = v;
	return 0;
}

/* ---- the guards by predicate ------------------------------------------- */

/* The slot of p in the index, or the free slot where it would go. */
static size_t gix_slot(const sym_infer *inf, const sym_expr *p)
{
	size_t mask = inf->gix_cap - 1, j;
	for (j = sym_expr_hash(p) & mask; inf->gix[j].pred && inf->gix[j].pred != p; j = (j + 1) & mask)
		;
	return j;
}

/* Whether slot j names a guard that is still where it was indexed. */
static int gix_valid(const sym_infer *inf, size_t j)
{
	const struct sym_guard_slot *g = &inf->gix[j];
	return g->pred && g->pos < inf->gix_upto && inf->guards[g->pos].pred == g->pred;
}

static int gix_grow(sym_infer *inf)
{
	size_t cap = inf->gix_cap ? inf->gix_cap * 2 : 64, i, j;
	struct sym_guard_slot *nt = sym__alloc(inf->ctx, cap * sizeof(*nt));
	if (!nt)
		return 0;
	memset(nt, 0, cap * sizeof(*nt));
	inf->gix_count = 0;
	for (i = 0; i < inf->gix_cap; i++) {
		if (!gix_valid(inf, i))
			continue; /* a slot that counts as none is dropped */
		for (j = sym_expr_hash(inf->gix[i].pred) & (cap - 1); nt[j].pred; j = (j + 1) & (cap - 1))
			;
		nt[j] = inf->gix[i];
		inf->gix_count++;
	}
	sym__free(inf->ctx, inf->gix, inf->gix_cap * sizeof(*inf->gix));
	inf->gix = nt;
	inf->gix_cap = cap;
	return 1;
}

/* Indexes guards[gix_upto..n), in order: a predicate whose slot still
 * names an earlier guard keeps it (the first one; positions below
 * gix_upto have not changed since they were indexed), any other takes
 * the position at hand.  0 when out of memory. */
static int guard_index_to(sym_infer *inf, size_t n)
{
	for (; inf->gix_upto < n; inf->gix_upto++) {
		const sym_expr *p = inf->guards[inf->gix_upto].pred;
		size_t j;
		if ((inf->gix_count + 1) * 2 > inf->gix_cap && !gix_grow(inf))
			return 0;
		j = gix_slot(inf, p);
		if (gix_valid(inf, j))
			continue;
		if (!inf->gix[j].pred)
			inf->gix_count++;
		inf->gix[j].pred = p;
		inf->gix[j].pos = inf->gix_upto;
	}
	return 1;
}

long sym__infer_guard_find(sym_infer *inf, const sym_expr *p, size_t n)
{
	size_t i;
	if (n > inf->nguards)
		n = inf->nguards;
	if (guard_index_to(inf, n)) {
		size_t j;
		if (!inf->gix_cap)
			return -1;
		/* a slot at n or past it is the first guard of p: none before n */
		j = gix_slot(inf, p);
		return gix_valid(inf, j) && inf->gix[j].pos < n ? (long)inf->gix[j].pos : -1;
	}
	/* out of memory: the index is optional */
	sym_ctx_clear_error(inf->ctx);
	sym__free(inf->ctx, inf->gix, inf->gix_cap * sizeof(*inf->gix));
	inf->gix = NULL;
	inf->gix_cap = inf->gix_count = inf->gix_upto = 0;
	for (i = 0; i < n; i++)
		if (inf->guards[i].pred == p)
			return (long)i;
	return -1;
}

void sym__infer_guards_changed(sym_infer *inf, size_t from)
{
	if (inf->gix_upto > from)
		inf->gix_upto = from;
}

const sym_expr *sym__infer_fresh(sym_infer *inf, const char *prefix)
{
	char name[64];
	/* never a name the context already has (the model's own symbols), or
	 * with name_taken, one the session's owner has */
	for (;;) {
		snprintf(name, sizeof(name), "%s%u", prefix, inf->fresh++);
		if (!sym__symbol_exists(inf->ctx, name))
			break;
		if (inf->name_taken) {
			const sym_expr *s = sym_expr_symbol(inf->ctx, name);
			if (!s)
				return NULL;
			if (!inf->name_taken(inf, s))
				return s;
		}
	}
	return sym_expr_symbol(inf->ctx, name);
}

const sym_expr *sym__infer_fresh_dim(sym_infer *inf, const char *prefix, const sym_expr *lo,
                                     const sym_expr *hi, const char *src)
{
	sym_ctx *ctx = inf->ctx;
	const sym_expr *u = sym__infer_fresh(inf, prefix), *p;
	char *s;
	if (!u || !lo)
		return NULL;
	if (sym__facts_exempt_default(inf->facts, u) != SYM_EOK)
		return NULL;
	p = sym_expr_rel(ctx, SYM_REL_GE, u, lo);
	if (hi)
		p = sym_expr_and(ctx, p, sym_expr_rel(ctx, SYM_REL_LE, u, hi));
	if (!p || sym_facts_assume(inf->facts, p) != SYM_EOK)
		return NULL;
	if (inf->nfresh == inf->capfresh) {
		size_t nc = inf->capfresh ? inf->capfresh * 2 : 8;
		void **const arr[] = {(void **)&inf->fresh_syms, (void **)&inf->fresh_src,
		                      (void **)&inf->fresh_lo, (void **)&inf->fresh_hi};
		const size_t size[] = {sizeof(*inf->fresh_syms), sizeof(*inf->fresh_src),
		                       sizeof(*inf->fresh_lo), sizeof(*inf->fresh_hi)};
		if (grow_parallel(ctx, arr, size, 4, inf->capfresh, nc) < 0)
			return NULL;
		inf->capfresh = nc;
	}
	if (!(s = sym__infer_strdup(inf, src)))
		return NULL;
	inf->fresh_syms[inf->nfresh] = u;
	inf->fresh_lo[inf->nfresh] = lo;
	inf->fresh_hi[inf->nfresh] = hi;
	inf->fresh_src[inf->nfresh] = s;
	inf->nfresh++;
	return u;
}

const sym_expr *sym__rc_fresh_dim(sym_rule_ctx *rc, const sym_expr *lo, const sym_expr *hi, const char *what)
{
	sym_infer *inf = rc->inf;
	const char *src;
	const sym_expr *u;
	if (!lo || !(src = sym__infer_printf(inf, "%s of node '%s' (%s)", what, rc->node, rc->op)))
		return NULL;
	if (!(u = sym__infer_fresh_dim(inf, "u", lo, hi, src)) && !sym__failed(inf->ctx))
		sym__rc_error(rc, "cannot record the range of a data-dependent dim");
	return u;
}

/* ---- errors and attributes --------------------------------------------- */

int sym__rc_error(sym_rule_ctx *rc, const char *fmt, ...)
{
	sym_sbuf b;
	va_list ap;
	sym__sbuf_init(&b, rc->inf->ctx);
	sym__sbuf_printf(&b, "node '%s' (%s): ", rc->node, rc->op);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.fail && b.s)
		sym__error(rc->inf->ctx, SYM_EDOMAIN, -1, "%s", b.s);
	else
		sym__error(rc->inf->ctx, SYM_ENOMEM, -1, "out of memory");
	sym__sbuf_clear(&b);
	return -1;
}

const char *sym__rc_text(sym_rule_ctx *rc, const char *fmt, ...)
{
	va_list ap;
	char *r;
	va_start(ap, fmt);
	r = sym__infer_vprintf(rc->inf, fmt, ap);
	va_end(ap);
	return r;
}

const sym_attr *sym__rc_attr(const sym_rule_ctx *rc, const char *name)
{
	size_t i;
	for (i = 0; i < rc->nattr; i++)
		if (!strcmp(rc->attrs[i].name, name))
			return &rc->attrs[i];
	return NULL;
}

int sym__rc_attr_pos(sym_rule_ctx *rc, const char *name, int64_t *out)
{
	if (!sym__rc_attr(rc, name))
		return sym__rc_error(rc, "attribute '%s' is required", name);
	if (sym__rc_attr_int(rc, name, 1, out) < 0)
		return -1;
	if (*out < 1)
		return sym__rc_error(rc, "attribute '%s' must be at least 1, not %lld", name,
		                     (long long)*out);
	return 0;
}

static const char *attr_type_name(sym_attr_type t)
{
	static const char *const names[] = {"an integer", "a list of integers", "a float", "a list of floats",
	                                    "a string",   "a list of strings",  "a tensor"};
	return names[t];
}

static int attr_of(sym_rule_ctx *rc, const char *name, sym_attr_type want, const sym_attr **out)
{
	const sym_attr *a = sym__rc_attr(rc, name);
	*out = a;
	if (!a)
		return 0;
	if (a->type != want && !(want == SYM_ATTR_FLOAT && a->type == SYM_ATTR_INT) &&
	    !(want == SYM_ATTR_FLOATS && a->type == SYM_ATTR_INTS))
		return sym__rc_error(rc, "attribute '%s' must be %s, not %s", name, attr_type_name(want),
		                     attr_type_name(a->type));
	return 1;
}

int sym__rc_attr_int(sym_rule_ctx *rc, const char *name, int64_t def, int64_t *out)
{
	const sym_attr *a;
	int r = attr_of(rc, name, SYM_ATTR_INT, &a);
	if (r < 0)
		return -1;
	*out = r ? a->ints[0] : def;
	return 0;
}

int sym__rc_attr_float(sym_rule_ctx *rc, const char *name, double def, double *out)
{
	const sym_attr *a;
	int r = attr_of(rc, name, SYM_ATTR_FLOAT, &a);
	if (r < 0)
		return -1;
	*out = r ? (a->type == SYM_ATTR_INT ? (double)a->ints[0] : a->floats[0]) : def;
	return 0;
}

int sym__rc_attr_string(sym_rule_ctx *rc, const char *name, const char *def, const char **out)
{
	const sym_attr *a;
	int r = attr_of(rc, name, SYM_ATTR_STRING, &a);
	if (r < 0)
		return -1;
	*out = r ? a->strs[0] : def;
	return 0;
}

int sym__rc_attr_ints(sym_rule_ctx *rc, const char *name, size_t *n, const int64_t **v)
{
	const sym_attr *a;
	int r = attr_of(rc, name, SYM_ATTR_INTS, &a);
	if (r <= 0) {
		*n = 0, *v = NULL;
		return r;
	}
	*n = a->n, *v = a->ints;
	return 1;
}

int sym__rc_attr_floats(sym_rule_ctx *rc, const char *name, size_t *n, const double **v)
{
	const sym_attr *a;
	int r = attr_of(rc, name, SYM_ATTR_FLOATS, &a);
	if (r <= 0) {
		*n = 0, *v = NULL;
		return r;
	}
	if (a->type == SYM_ATTR_INTS)
		return sym__rc_error(rc, "attribute '%s' must be a list of floats", name);
	*n = a->n, *v = a->floats;
	return 1;
}

/* ---- inputs ------------------------------------------------------------- */

const sym_tval *sym__rc_in(const sym_rule_ctx *rc, size_t i)
{
	if (i >= rc->nin || !rc->in[i].present)
		return NULL;
	return &rc->in[i];
}

const sym_tval *sym__rc_need(sym_rule_ctx *rc, size_t i)
{
	const sym_tval *t = sym__rc_in(rc, i);
	if (!t)
		sym__rc_error(rc, "input %zu is required", i);
	return t;
}

const sym_tval *sym__rc_need_rank(sym_rule_ctx *rc, size_t i)
{
	const sym_tval *t = sym__rc_need(rc, i);
	if (t && t->rank < 0) {
		sym__rc_error(rc, "cannot infer: input %zu has unknown rank and the operator needs it", i);
		return NULL;
	}
	return t;
}

/* The expect under which float arithmetic on shape values is exact (cond
 * NULL: nothing to require).  Here, below the value rules (values.c), so
 * that the input accessors and they share it without calling each other. */
int sym__rc_require_float_exact(sym_rule_ctx *rc, const sym_expr *cond)
{
	if (!cond)
		return 0;
	return sym__rc_require(rc, cond, SYM_GUARD_EXPECT,
	                       "float shape arithmetic is exact only for integers up to 2**24");
}

int sym__rc_value_exact(sym_rule_ctx *rc, const sym_tval *t)
{
	size_t i;
	if (!t->fmeta)
		return 1;
	for (i = 0; i < t->nvalue; i++)
		if (t->fmeta[i].err)
			return 0;
	for (i = 0; i < t->nvalue; i++)
		if (sym__rc_require_float_exact(rc, t->fmeta[i].cond) < 0)
			return -1;
	return 1;
}

int sym__rc_in_value(sym_rule_ctx *rc, size_t i, size_t *n, const sym_expr *const **v)
{
	const sym_tval *t = sym__rc_need(rc, i);
	int r;
	if (!t)
		return -1;
	if (!t->has_value)
		return sym__rc_error(
		    rc, "the value of input %zu must be known (a constant or a shape computation)", i);
	if ((r = sym__rc_value_exact(rc, t)) < 0)
		return -1;
	if (!r)
		return sym__rc_error(rc,
		                     "the value of input %zu must be known exactly (float rounding of a "
		                     "computed value is not)",
		                     i);
	*n = t->nvalue;
	*v = t->value;
	return 0;
}

int sym__rc_in_ints(sym_rule_ctx *rc, size_t i, size_t *n, int64_t **v)
{
	const sym_expr *const *e = NULL;
	size_t k;
	if (sym__rc_in_value(rc, i, n, &e) < 0)
		return -1;
	*v = sym__rc_alloc(rc, (*n ? *n : 1) * sizeof(**v));
	if (!*v)
		return -1;
	for (k = 0; k < *n; k++) {
		long long x;
		if (sym_expr_get_si(e[k], &x) != 1)
			return sym__rc_error(rc, "element %zu of input %zu must be a constant integer", k, i);
		(*v)[k] = x;
	}
	return 0;
}

int sym__rc_require_divisible(sym_rule_ctx *rc, const sym_expr *d, const sym_expr *k, const char *reason)
{
	sym_ctx *ctx = rc->inf->ctx;
	return sym__rc_require(rc, sym_expr_rel(ctx, SYM_REL_EQ, sym_expr_mod(ctx, d, k), sym__zero(ctx)),
	                       SYM_GUARD_ASSERT, reason);
}

/* ---- axes ------------------------------------------------------------- */

int sym__rc_axes(sym_rule_ctx *rc, size_t in, size_t *n, const int64_t **v)
{
	const sym_tval *a = sym__rc_in(rc, in);
	int64_t *iv;
	if (a) {
		if (a->rank > 1)
			return sym__rc_error(rc, "the axes input must be 1-D, not of rank %d", a->rank);
		if (sym__rc_in_ints(rc, in, n, &iv) < 0)
			return -1;
		*v = iv;
		return 1;
	}
	return sym__rc_attr_ints(rc, "axes", n, v);
}

int sym__rc_axes_mask(sym_rule_ctx *rc, size_t n, const int64_t *v, int rank, char *mask)
{
	size_t i;
	int a = 0;
	memset(mask, 0, (size_t)(rank ? rank : 1));
	for (i = 0; i < n; i++) {
		if (sym__rc_axis(rc, v[i], rank, "axis", &a) < 0)
			return -1;
		if (mask[a])
			return sym__rc_error(rc, "axis %lld is repeated", (long long)v[i]);
		mask[a] = 1;
	}
	return 0;
}

/* ---- outputs ------------------------------------------------------------ */

static int check_out(sym_rule_ctx *rc, size_t i)
{
	if (i >= rc->nout)
		return sym__rc_error(rc, "the node has no output %zu", i);
	return 0;
}

int sym__rc_set_shape(sym_rule_ctx *rc, size_t i, int rank, const sym_expr *const *dims)
{
	const sym_expr **d;
	int k;
	if (check_out(rc, i) < 0)
		return -1;
	if (rank < 0)
		return sym__rc_set_unknown_rank(rc, i);
	d = sym__rc_alloc(rc, (size_t)(rank ? rank : 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < rank; k++) {
		if (!dims[k])
			return -1;
		d[k] = sym__rc_simplify(rc, dims[k]);
		if (!d[k])
			return -1;
	}
	rc->out[i].rank = rank;
	rc->out[i].dims = d;
	return 0;
}

int sym__rc_set_unknown_rank(sym_rule_ctx *rc, size_t i)
{
	if (check_out(rc, i) < 0)
		return -1;
	rc->out[i].rank = -1;
	rc->out[i].dims = NULL;
	return 0;
}

int sym__rc_set_dtype(sym_rule_ctx *rc, size_t i, int dtype)
{
	if (check_out(rc, i) < 0)
		return -1;
	rc->out[i].dtype = dtype;
	return 0;
}

int sym__rc_set_out(sym_rule_ctx *rc, size_t i, int n, const sym_expr *const *d, int dtype)
{
	if (i >= rc->nout)
		return 0;
	if (sym__rc_set_shape(rc, i, n, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, i, dtype);
}

int sym__rc_set_value(sym_rule_ctx *rc, size_t i, size_t n, const sym_expr *const *v)
{
	const sym_expr **d;
	size_t k;
	if (check_out(rc, i) < 0)
		return -1;
	d = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*d));
	if (!d)
		return -1;
	for (k = 0; k < n; k++) {
		if (!v[k])
			return -1;
		d[k] = sym__rc_simplify(rc, v[k]);
		if (!d[k])
			return -1;
		/* a decided predicate is the bool element 1 or 0 */
		if (d[k] == sym__true(rc->ctx))
			d[k] = sym__one(rc->ctx);
		else if (d[k] == sym__false(rc->ctx))
			d[k] = sym__zero(rc->ctx);
	}
	rc->out[i].has_value = 1;
	rc->out[i].nvalue = n;
	rc->out[i].value = d;
	return 0;
}

int sym__rc_copy_shape(sym_rule_ctx *rc, size_t i, const sym_tval *in)
{
	if (sym__rc_set_shape(rc, i, in->rank, in->dims) < 0)
		return -1;
	return sym__rc_set_dtype(rc, i, in->dtype);
}

/* ---- facts, guards, hints ---------------------------------------------- */

const sym_expr *sym__rc_simplify(sym_rule_ctx *rc, const sym_expr *e)
{
	return sym_simplify(rc->inf->ctx, rc->inf->facts, e);
}

sym_truth sym__rc_prove(sym_rule_ctx *rc, const sym_expr *pred)
{
	return sym_prove(rc->inf->ctx, rc->inf->facts, pred);
}

int sym__rc_require(sym_rule_ctx *rc, const sym_expr *pred, sym_guard_kind kind, const char *reason)
{
	sym_infer *inf = rc->inf;
	const sym_expr *p = sym__rc_simplify(rc, pred);
	sym_guard *g;
	if (!p)
		return -1;
	if (p == sym__true(inf->ctx))
		return 0;
	if (p == sym__false(inf->ctx)) {
		inf->fatal = 1;
		return sym__rc_error(rc, "%s (never holds)", reason);
	}
	if (sym__infer_guard_find(inf, p, inf->nguards) >= 0)
		return 0; /* the first node that needs it keeps it */
	if (SYM_GROW(inf->ctx, inf->guards, inf->nguards + 1, inf->capguards, 16) < 0)
		return -1;
	g = &inf->guards[inf->nguards];
	g->pred = p;
	g->kind = kind;
	g->node = sym__infer_strdup(inf, rc->node);
	g->reason = sym__infer_strdup(inf, reason);
	if (!g->node || !g->reason)
		return -1;
	inf->nguards++;
	/* later rules may use what the guard states */
	if (sym_facts_assume(inf->facts, p) != SYM_EOK)
		return sym__rc_error(rc, "%s: contradicts an earlier guard", reason);
	return 0;
}

int sym__rc_has_hints(const sym_rule_ctx *rc)
{
	return rc->inf->nhints > 0;
}

int sym__rc_const_dims(const sym_tval *t, long long *dims, int cap, long long *numel)
{
	int k;
	*numel = 1;
	if (t->rank < 0 || t->rank > cap)
		return 0;
	for (k = 0; k < t->rank; k++) {
		if (sym_expr_get_si(t->dims[k], &dims[k]) != 1 || dims[k] < 0 || dims[k] > SYM_RC_VALUE_LIMIT)
			return 0;
		*numel *= dims[k];
		if (*numel > SYM_RC_VALUE_LIMIT)
			return 0;
	}
	return 1;
}

int sym__rc_unibroadcast(sym_rule_ctx *rc, int rank, const sym_expr *const *d, int n,
                         const sym_expr *const *target, const char *reason)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	int k;
	for (k = 0; k < rank; k++) {
		const sym_expr *t = target[n - rank + k];
		if (d[k] == sym__one(ctx) || d[k] == t)
			continue;
		if (sym__rc_require(rc,
		                    sym_expr_or(ctx, sym_expr_rel(ctx, SYM_REL_EQ, d[k], sym__one(ctx)),
		                                sym_expr_rel(ctx, SYM_REL_EQ, d[k], t)),
		                    SYM_GUARD_ASSERT, reason) < 0)
			return -1;
	}
	return 0;
}

int sym__rc_hint_value(sym_rule_ctx *rc, const sym_expr *e, int64_t *v)
{
	sym_infer *inf = rc->inf;
	const sym_expr *r;
	long long x;
	sym_ctx *ctx = inf->ctx;
	if (!inf->nhints)
		return sym_expr_get_si(e, &x) == 1 ? (*v = x, 1) : 0;
	r = sym_expr_eval_si(ctx, e, inf->nhints, inf->hint_syms, inf->hint_vals);
	if (!r) {
		sym_ctx_clear_error(ctx);
		return 0;
	}
	if (sym_expr_get_si(r, &x) != 1)
		return 0;
	*v = x;
	return 1;
}

/* ---- shapes ------------------------------------------------------------- */

int sym__rc_axis(sym_rule_ctx *rc, int64_t axis, int rank, const char *what, int *out)
{
	if (axis < -(int64_t)rank || axis >= (int64_t)rank)
		return sym__rc_error(rc, "%s %lld is out of range for rank %d", what, (long long)axis, rank);
	*out = (int)(axis < 0 ? axis + rank : axis);
	return 0;
}

/* ---- running one rule --------------------------------------------------- */

/* Whether t's value holds only elements of its type: a bool value 0, 1
 * or predicates (rules/elementwise.c), any other no predicate, and an
 * integer one constants within the type. */
static int value_holds(const sym_tval *t)
{
	size_t k;
	int isbool = t->dtype == SYM_DT_BOOL, isint = sym__dtype_is_int(t->dtype);
	for (k = 0; k < t->nvalue; k++) {
		long long c;
		if (sym_expr_is_pred(t->value[k])) {
			if (!isbool)
				return 0;
			continue;
		}
		if (sym_expr_kind(t->value[k]) != SYM_KIND_NUM) {
			if (isbool)
				return 0;
			continue;
		}
		if (isint && (sym_expr_get_si(t->value[k], &c) != 1 || !sym__dtype_holds(t->dtype, c)))
			return 0;
	}
	return 1;
}

int sym__rc_has_predicates(const sym_tval *t)
{
	size_t k;
	if (!t->present || !t->has_value || t->dtype != SYM_DT_BOOL)
		return 0;
	for (k = 0; k < t->nvalue; k++)
		if (sym_expr_is_pred(t->value[k]))
			return 1;
	return 0;
}

/* The inputs as a rule that reads no predicate elements sees them: a bool
 * value with a predicate is not known to it (it would compute with it as
 * a number).  in itself when there is none; NULL out of memory. */
static const sym_tval *hide_predicates(sym_infer *inf, size_t nin, const sym_tval *in)
{
	sym_tval *c;
	size_t k;
	for (k = 0; k < nin && !sym__rc_has_predicates(&in[k]); k++)
		;
	if (k == nin)
		return in;
	if (!(c = sym__infer_alloc(inf, nin * sizeof(*c))))
		return NULL;
	memcpy(c, in, nin * sizeof(*c));
	for (; k < nin; k++)
		if (sym__rc_has_predicates(&c[k]))
			c[k].has_value = 0, c[k].nvalue = 0, c[k].value = NULL, c[k].fmeta = NULL;
	return c;
}

int sym__rule_run(sym_infer *inf, const char *domain, const char *op, const char *node, int opset, size_t nin,
                  const sym_tval *in, size_t nattr, const sym_attr *attrs, size_t nout, sym_tval *out)
{
	const sym_rule_slot *slot;
	const sym_rule_entry *e;
	sym_rule_ctx rc;
	size_t i;
	int since;
	if (sym__failed(inf->ctx))
		return -1;
	for (i = 0; i < nout; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].present = 1;
		out[i].rank = -1;
	}
	if (!inf->rules && inf->nscanned >= SYM_RULE_INDEX_AFTER &&
	    sym__rule_index_new(inf->ctx, &inf->rules, &inf->nrules) < 0)
		return -1;
	if (inf->rules) {
		slot = sym__rule_index_find(inf->rules, inf->nrules, domain, op);
		e = slot ? slot->e : NULL;
		since = !slot || (domain && *domain) ? 1 : slot->since; /* as sym__rule_since */
	} else {
		inf->nscanned++;
		e = sym__rule_find(domain, op);
		since = e ? sym__rule_since(domain, op) : 1;
	}
	if (!e) {
		sym__error(inf->ctx, SYM_EDOMAIN, -1, "node '%s': unsupported operator '%s%s%s'", node,
		           domain && *domain ? domain : "", domain && *domain ? "::" : "", op);
		return -1;
	}
	if (opset < since) {
		sym__error(inf->ctx, SYM_EDOMAIN, -1,
		           "node '%s' (%s): unsupported opset %d (%s is read from opset %d)", node, op, opset,
		           op, since);
		return -1;
	}
	rc.ctx = inf->ctx;
	rc.inf = inf;
	rc.node = node ? node : "";
	rc.op = op;
	rc.domain = domain ? domain : "";
	rc.opset = opset;
	rc.nin = nin;
	rc.in = e->flags & SYM_RULE_PREDICATES ? in : hide_predicates(inf, nin, in);
	if (!rc.in && in)
		return -1;
	rc.nattr = nattr;
	rc.attrs = attrs;
	rc.nout = nout;
	rc.out = out;
	if (e->fn(&rc) < 0) {
		if (!sym__failed(inf->ctx))
			sym__rc_error(&rc, "inference failed");
		return -1;
	}
	/* a float value is kept only with what the rule says of its rounding;
	 * an integer value only when every constant element is a value of the
	 * type: exact arithmetic past the type's range is not what the runtime
	 * computes (it wraps); predicates only in a bool value */
	for (i = 0; i < nout; i++) {
		if (!sym__dtype_is_float(out[i].dtype))
			out[i].fmeta = NULL;
		else if (out[i].has_value && !out[i].fmeta)
			out[i].has_value = 0, out[i].nvalue = 0, out[i].value = NULL;
		if (out[i].has_value && !value_holds(&out[i]))
			out[i].has_value = 0, out[i].nvalue = 0, out[i].value = NULL;
	}
	return sym__failed(inf->ctx) ? -1 : 0;
}
