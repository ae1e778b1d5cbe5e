/* The guard cache: variants kept in most-recently-used order, evicting the
 * least recently used when full.  The cache is made without a context, so
 * its own blocks are malloc'd; the programs it holds free themselves
 * through their copies of the allocator hook. */
#include "symshape/cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct variant {
	long id;
	sym_model_program *mp;
	char *label;
} variant;

struct sym_guard_cache {
	variant *v;                  /* v[0] is the most recently used; vcap slots */
	sym_model_program *validity; /* compiled without hints, or NULL */
	size_t n, vcap, cap;         /* cap: the most variants held */
	long next_id;
	int64_t *out; /* output buffer of the runs */
	size_t outcap;
	char reason[320];
};

sym_guard_cache *sym_guard_cache_new(size_t capacity)
{
	sym_guard_cache *c;
	if (capacity == 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cap = capacity; /* the slots grow as variants are added */
	return c;
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
	if (nc > SIZE_MAX / sizeof(*nv) || !(nv = realloc(c->v, nc * sizeof(*nv))))
		return -1;
	c->v = nv, c->vcap = nc;
	return 0;
}

void sym_guard_cache_free(sym_guard_cache *c)
{
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		sym_model_program_free(c->v[i].mp);
		free(c->v[i].label);
	}
	sym_model_program_free(c->validity);
	free(c->v);
	free(c->out);
	free(c);
}

static int reserve_out(sym_guard_cache *c, const sym_model_program *mp)
{
	size_t need = sym_model_program_num_out_dims(mp) + 1;
	if (need > c->outcap) {
		int64_t *no = realloc(c->out, need * sizeof(*no));
		if (!no)
			return -1;
		c->out = no, c->outcap = need;
	}
	return 0;
}

int sym_guard_cache_set_validity(sym_guard_cache *c, sym_model_program *mp)
{
	if (!mp || reserve_out(c, mp) < 0) {
		sym_model_program_free(mp);
		return -1;
	}
	sym_model_program_free(c->validity);
	c->validity = mp;
	return 0;
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
	nv.label = strdup(label ? label : "");
	if (!nv.label) {
		sym_model_program_free(mp);
		return -1;
	}
	if (c->n < c->cap && reserve_variant(c) < 0) {
		free(nv.label);
		sym_model_program_free(mp);
		return -1;
	}
	nv.id = c->next_id++;
	if (c->n == c->cap) {
		/* evict the least recently used */
		sym_model_program_free(c->v[c->n - 1].mp);
		free(c->v[c->n - 1].label);
		c->n--;
	}
	memmove(c->v + 1, c->v, c->n * sizeof(*c->v));
	c->v[0] = nv;
	c->n++;
	return nv.id;
}

/* States why run res rejected the input, for the caller's *reason. */
static sym_cache_answer invalid(sym_guard_cache *c, const sym_model_run *res, const char **reason)
{
	if (res->status == SYM_EGUARD)
		snprintf(c->reason, sizeof(c->reason), "guard %s failed (node %s)", res->message, res->node);
	else
		snprintf(c->reason, sizeof(c->reason), "%s", res->message ? res->message : "invalid input");
	if (reason)
		*reason = c->reason;
	return SYM_CACHE_INVALID;
}

sym_cache_answer sym_guard_cache_lookup(sym_guard_cache *c, const int64_t *dims, long *id,
                                        const char **reason)
{
	size_t i;
	if (reason)
		*reason = NULL;
	for (i = 0; i < c->n; i++) {
		sym_model_run res;
		sym_model_program_run(c->v[i].mp, dims, c->out, &res);
		if (res.status == SYM_EOK) {
			variant hit = c->v[i];
			memmove(c->v + 1, c->v, i * sizeof(*c->v));
			c->v[0] = hit;
			if (id)
				*id = hit.id;
			return SYM_CACHE_HIT;
		}
		if (res.status == SYM_EGUARD && !strcmp(res.kind, "expect"))
			continue; /* this variant's specialisation does not fit */
		if (c->validity && res.status != SYM_EINPUT)
			continue; /* a specialised variant's asserts may lean on its
			             expects: the validity program decides below */
		return invalid(c, &res, reason);
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
