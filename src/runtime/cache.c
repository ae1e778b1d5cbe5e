/* The guard cache: variants kept in most-recently-used order, evicting the
 * least recently used when full, and their checks compiled into one
 * dispatch program (cache_dispatch.c, cache_private.h) that a lookup runs
 * once.  The cache is made without a context: its own blocks come from its
 * allocator hook (the C library's by default); the programs it holds free
 * themselves through their copies of their hook. */
#include "cache_private.h"
#include "model_program_private.h"
#include "program_private.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct variant {
	long id;
	sym_model_program *mp;
	char *label;
	sym__dvariant dv;
} variant;

struct sym_guard_cache {
	sym_allocator alloc;
	variant *v;                  /* v[0] is the most recently used; vcap slots */
	sym_model_program *validity; /* compiled without hints, or NULL */
	sym__dvariant vdv;           /* the validity program's part in d */
	size_t n, vcap, cap;         /* cap: the most variants held */
	size_t nown;                 /* variants outside the dispatch program */
	int eager;                   /* rebuild at any garbage (the tests) */
	long next_id;
	sym__dispatch d;
	int64_t *out; /* output buffer of the runs */
	size_t outcap;
	char *reason; /* the last invalid answer's reason; reasoncap bytes */
	size_t reasoncap;
};

sym_guard_cache *sym__guard_cache_new_with_allocator(size_t capacity, const sym_allocator *a)
{
	sym_guard_cache *c;
	if (capacity == 0 || !(c = a->realloc_fn(a->ud, NULL, 0, sizeof(*c))))
		return NULL;
	memset(c, 0, sizeof(*c));
	c->alloc = *a;
	c->cap = capacity; /* the slots grow as variants are added */
	sym__dispatch_init(&c->d, a);
	return c;
}

sym_guard_cache *sym_guard_cache_new(size_t capacity)
{
	return sym__guard_cache_new_with_allocator(capacity, &sym__libc_allocator);
}

/* Makes room for one more variant (below the capacity); -1 when memory
 * runs out. */
static int reserve_variant(sym_guard_cache *c)
{
	size_t nc;
	variant *nv;
	if (c->n < c->vcap)
		return 0;
	nc = c->vcap ? c->vcap * 2 : 4;
	if (nc > c->cap || nc < c->vcap)
		nc = c->cap;
	if (nc > SIZE_MAX / sizeof(*nv) ||
	    !(nv = c->alloc.realloc_fn(c->alloc.ud, c->v, c->vcap * sizeof(*nv), nc * sizeof(*nv))))
		return -1;
	c->v = nv, c->vcap = nc;
	return 0;
}

/* Frees a variant: its part in the dispatch, its program and label. */
static void drop_variant(sym_guard_cache *c, variant *v)
{
	c->nown -= v->dv.own;
	sym__dispatch_remove(&c->d, &v->dv);
	sym_model_program_free(v->mp);
	sym__hook_free_str(&c->alloc, v->label);
}

void sym_guard_cache_free(sym_guard_cache *c)
{
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		drop_variant(c, &c->v[i]);
	sym__dispatch_remove(&c->d, &c->vdv);
	sym_model_program_free(c->validity);
	sym__dispatch_clear(&c->d);
	sym__hook_free(&c->alloc, c->v, c->vcap * sizeof(*c->v));
	sym__hook_free(&c->alloc, c->out, c->outcap * sizeof(*c->out));
	sym__hook_free(&c->alloc, c->reason, c->reasoncap);
	sym__hook_free(&c->alloc, c, sizeof(*c));
}

/* The text of an invalid answer for a failed guard of text g and node n. */
#define GUARD_REASON "guard %s failed (node %s)"

/* Makes room for the runs of mp: its output dims, and the reason of any
 * guard of it that fails (so a lookup never allocates). */
static int reserve_out(sym_guard_cache *c, const sym_model_program *mp)
{
	size_t need = sym_model_program_num_out_dims(mp) + 1;
	size_t rneed = sym__model_program_longest_guard(mp) + sizeof(GUARD_REASON);
	if (need > c->outcap) {
		int64_t *no;
		if (need > SIZE_MAX / sizeof(*no) ||
		    !(no = c->alloc.realloc_fn(c->alloc.ud, c->out, c->outcap * sizeof(*no),
		                               need * sizeof(*no))))
			return -1;
		c->out = no, c->outcap = need;
	}
	if (rneed > c->reasoncap) {
		char *nr = c->alloc.realloc_fn(c->alloc.ud, c->reason, c->reasoncap, rneed);
		if (!nr)
			return -1;
		c->reason = nr, c->reasoncap = rneed;
	}
	return 0;
}

/* Compiles the dispatch program again from the programs held, when what
 * removed variants left behind outweighs the live code: each removal
 * leaves at most its own size behind, so the rebuilds cost, amortised, the
 * size of the variants removed.  When memory runs out the old program
 * stays: it is still exact, only larger. */
static void compact(sym_guard_cache *c)
{
	sym__dispatch nd;
	sym__dvariant *ndv, nvdv;
	size_t i, k = 0, bytes = (c->n + 1) * sizeof(*ndv), garbage = sym__dispatch_garbage(&c->d);
	int due = c->eager ? garbage > 0
	                   : garbage > SYM__CACHE_REBUILD_FLOOR && garbage > sym__dispatch_live(&c->d);
	if (!due || !(ndv = c->alloc.realloc_fn(c->alloc.ud, NULL, 0, bytes)))
		return;
	sym__dispatch_init(&nd, &c->alloc);
	memset(&nvdv, 0, sizeof(nvdv));
	if (c->validity && sym__dispatch_add(&nd, c->validity, &nvdv) < 0)
		goto undo;
	for (k = 0; k < c->n; k++)
		if (sym__dispatch_add(&nd, c->v[k].mp, &ndv[k]) < 0)
			goto undo;
	c->nown = 0;
	for (i = 0; i < c->n; i++) {
		sym__dispatch_remove(&c->d, &c->v[i].dv);
		c->v[i].dv = ndv[i];
		c->nown += ndv[i].own;
	}
	sym__dispatch_remove(&c->d, &c->vdv);
	c->vdv = nvdv;
	sym__dispatch_clear(&c->d);
	c->d = nd;
	sym__hook_free(&c->alloc, ndv, bytes);
	return;
undo:
	while (k > 0)
		sym__dispatch_remove(&nd, &ndv[--k]);
	sym__dispatch_remove(&nd, &nvdv);
	sym__dispatch_clear(&nd);
	sym__hook_free(&c->alloc, ndv, bytes);
}

int sym_guard_cache_set_validity(sym_guard_cache *c, sym_model_program *mp)
{
	sym__dvariant dv;
	if (!mp || reserve_out(c, mp) < 0 || sym__dispatch_add(&c->d, mp, &dv) < 0) {
		sym_model_program_free(mp);
		return -1;
	}
	sym__dispatch_remove(&c->d, &c->vdv);
	sym_model_program_free(c->validity);
	c->validity = mp;
	c->vdv = dv;
	compact(c);
	return 0;
}

void sym__guard_cache_set_eager_rebuild(sym_guard_cache *c, int eager)
{
	c->eager = eager;
}

const sym__dispatch *sym__guard_cache_dispatch(const sym_guard_cache *c)
{
	return &c->d;
}

size_t sym_guard_cache_size(const sym_guard_cache *c)
{
	return c->n;
}

const char *sym_guard_cache_label(const sym_guard_cache *c, long id)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		if (c->v[i].id == id)
			return c->v[i].label;
	return NULL;
}

/* A copy of s from the cache's hook (freed with sym__hook_free_str). */
static char *copy_str(sym_guard_cache *c, const char *s)
{
	size_t n = strlen(s) + 1;
	char *r = c->alloc.realloc_fn(c->alloc.ud, NULL, 0, n);
	if (r)
		memcpy(r, s, n);
	return r;
}

long sym_guard_cache_add(sym_guard_cache *c, sym_model_program *mp, const char *label)
{
	variant nv;
	if (!mp)
		return -1;
	if (c->n && sym_model_program_num_dims(c->v[0].mp) != sym_model_program_num_dims(mp)) {
		sym_model_program_free(mp);
		return -1;
	}
	if (reserve_out(c, mp) < 0) {
		sym_model_program_free(mp);
		return -1;
	}
	nv.mp = mp;
	nv.label = copy_str(c, label ? label : "");
	if (!nv.label) {
		sym_model_program_free(mp);
		return -1;
	}
	if ((c->n < c->cap && reserve_variant(c) < 0) || sym__dispatch_add(&c->d, mp, &nv.dv) < 0) {
		sym__hook_free_str(&c->alloc, nv.label);
		sym_model_program_free(mp);
		return -1;
	}
	nv.id = c->next_id++;
	c->nown += nv.dv.own;
	if (c->n == c->cap) {
		/* evict the least recently used */
		drop_variant(c, &c->v[c->n - 1]);
		c->n--;
	}
	memmove(c->v + 1, c->v, c->n * sizeof(*c->v));
	c->v[0] = nv;
	c->n++;
	compact(c);
	return nv.id;
}

/* Why run res rejected the input: a failed guard's text and node in
 * c->reason (room made when its program was added), else the run's
 * message (static storage of the program). */
static const char *reason_text(sym_guard_cache *c, const sym_model_run *res)
{
	if (res->status != SYM_EGUARD)
		return res->message ? res->message : "invalid input";
	snprintf(c->reason, c->reasoncap, GUARD_REASON, res->message, res->node);
	return c->reason;
}

/* States why run res rejected the input, for the caller's *reason. */
static sym_cache_answer invalid(sym_guard_cache *c, const sym_model_run *res, const char **reason)
{
	if (reason)
		*reason = reason_text(c, res);
	return SYM_CACHE_INVALID;
}

/* Makes variant i the most recently used and answers a hit. */
static sym_cache_answer hit(sym_guard_cache *c, size_t i, long *id)
{
	variant h = c->v[i];
	memmove(c->v + 1, c->v, i * sizeof(*c->v));
	c->v[0] = h;
	if (id)
		*id = h.id;
	return SYM_CACHE_HIT;
}

/* What a lookup does with a variant's run: 1 stop (a hit, or invalid input
 * in *a), 0 try the next variant. */
static int judge_run(sym_guard_cache *c, size_t i, const sym_model_run *res, long *id, const char **reason,
                     sym_cache_answer *a)
{
	if (res->status == SYM_EOK) {
		*a = hit(c, i, id);
		return 1;
	}
	if (res->status == SYM_EGUARD && !strcmp(res->kind, "expect"))
		return 0; /* this variant's specialisation does not fit */
	if (c->validity && res->status != SYM_EINPUT)
		return 0; /* a specialised variant's asserts may lean on its
		             expects: the validity program decides */
	*a = invalid(c, res, reason);
	return 1;
}

sym_cache_answer sym__guard_cache_lookup_sequential(sym_guard_cache *c, const int64_t *dims, long *id,
                                                    const char **reason)
{
	size_t i;
	sym_cache_answer a;
	if (reason)
		*reason = NULL;
	for (i = 0; i < c->n; i++) {
		sym_model_run res;
		sym_model_program_run(c->v[i].mp, dims, c->out, &res);
		if (judge_run(c, i, &res, id, reason, &a))
			return a;
	}
	if (c->validity) {
		/* no specialisation fits: is the input valid at all? */
		sym_model_run res;
		sym_model_program_run(c->validity, dims, c->out, &res);
		if (res.status != SYM_EOK)
			return invalid(c, &res, reason);
	}
	return SYM_CACHE_RECOMPILE;
}

/* The lookup through the dispatch program: one pass over the shared
 * checks tells each variant's outcome; a variant the lookup stops at runs
 * its shapes segment (a hit) or, for invalid input, its own program once
 * more for the reason's words.  Whatever fails to compute (an overflow, a
 * division by zero, in the shared code or the segment) sends the lookup
 * to the sequential one, which then reports it exactly as before. */
sym_cache_answer sym_guard_cache_lookup(sym_guard_cache *c, const int64_t *dims, long *id,
                                        const char **reason)
{
	sym_model_run res;
	sym_cache_answer a;
	size_t i;
	if (reason)
		*reason = NULL;
	if (sym__dispatch_pass(&c->d, dims, !c->validity) < 0)
		return sym__guard_cache_lookup_sequential(c, dims, id, reason);
	/* the walk finds the first variant the lookup stops at: none, often */
	for (i = c->nown || sym__dispatch_any_stops(&c->d, &c->vdv) ? 0 : c->n; i < c->n; i++) {
		const variant *v = &c->v[i];
		int cls;
		if (v->dv.own) {
			sym_model_program_run(v->mp, dims, c->out, &res);
			if (judge_run(c, i, &res, id, reason, &a))
				return a;
			continue;
		}
		if (!sym__dispatch_stops(&c->d, &v->dv))
			continue;
		cls = sym__dispatch_class(&c->d, &v->dv);
		if (cls == SYM__DV_OK) {
			if (sym__dispatch_segment(&c->d, &v->dv) < 0)
				return sym__guard_cache_lookup_sequential(c, dims, id, reason);
			return hit(c, i, id);
		}
		sym_model_program_run(v->mp, dims, c->out, &res);
		return invalid(c, &res, reason);
	}
	if (c->validity) {
		if (c->vdv.own) {
			sym_model_program_run(c->validity, dims, c->out, &res);
			if (res.status != SYM_EOK)
				return invalid(c, &res, reason);
		} else if (sym__dispatch_class(&c->d, &c->vdv) != SYM__DV_OK) {
			sym_model_program_run(c->validity, dims, c->out, &res);
			return invalid(c, &res, reason);
		} else if (sym__dispatch_segment(&c->d, &c->vdv) < 0) {
			return sym__guard_cache_lookup_sequential(c, dims, id, reason);
		}
	}
	return SYM_CACHE_RECOMPILE;
}
