/* The inference result container: creation, the tensor table, symbols,
 * diagnostics, freeing, and the public accessors of model.h.  The passes
 * that fill it are in the other files of this folder (passes.h). */
#include "infer/result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 32-bit hash of a tensor name; the table keeps it beside the index, so
 * that a probe compares names only when their hashes are equal. */
static uint32_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

#define SLOT_HASH(e) ((uint32_t)((e) >> 32))
#define SLOT_INDEX(e) ((size_t)((e)&0xffffffffu) - 1)

/* The tensor named name of hash h, or -1 with *slot the free slot its
 * probe ended on (the table has room). */
static size_t find_hashed(const sym_graph_result *r, const char *name, uint32_t h, size_t *slot)
{
	size_t j;
	for (j = h & (r->tcap - 1); r->table[j]; j = (j + 1) & (r->tcap - 1))
		if (SLOT_HASH(r->table[j]) == h && !strcmp(r->tensors[SLOT_INDEX(r->table[j])].name, name))
			return SLOT_INDEX(r->table[j]);
	*slot = j;
	return (size_t)-1;
}

size_t sym__graph_find(const sym_graph_result *r, const char *name)
{
	size_t j;
	return r->tcap ? find_hashed(r, name, hash_str(name), &j) : (size_t)-1;
}

int sym__result_nomem(sym_graph_result *r)
{
	sym__error(r->ctx, SYM_ENOMEM, -1, "out of memory");
	return -1;
}

int sym__result_fail(sym_graph_result *r, const char *fmt, ...)
{
	sym_sbuf b;
	va_list ap;
	sym__sbuf_init(&b, r->ctx);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.fail && b.s)
		sym__error(r->ctx, SYM_EDOMAIN, -1, "%s", b.s);
	else
		sym__result_nomem(r);
	sym__sbuf_clear(&b);
	return -1;
}

int sym__result_refail(sym_graph_result *r, const char *fmt, ...)
{
	sym_sbuf b;
	va_list ap;
	sym__sbuf_init(&b, r->ctx);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	sym__sbuf_printf(&b, ": %s", sym_ctx_last_message(r->ctx));
	if (b.fail || !b.s || sym_ctx_last_error(r->ctx) == SYM_ENOMEM) {
		sym__sbuf_clear(&b);
		return -1; /* the first error stands */
	}
	sym_ctx_clear_error(r->ctx);
	sym__error(r->ctx, SYM_EDOMAIN, -1, "%s", b.s);
	sym__sbuf_clear(&b);
	return -1;
}

static int table_rehash(sym_graph_result *r, size_t ncap)
{
	uint64_t *nt = sym__alloc(r->ctx, ncap * sizeof(*nt));
	size_t i, j;
	if (!nt)
		return -1;
	memset(nt, 0, ncap * sizeof(*nt));
	for (i = 0; i < r->tcap; i++) {
		if (!r->table[i])
			continue;
		for (j = SLOT_HASH(r->table[i]) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = r->table[i];
	}
	sym__free(r->ctx, r->table, r->tcap * sizeof(*r->table));
	r->table = nt, r->tcap = ncap;
	return 0;
}

int sym__result_reserve(sym_graph_result *r, size_t n)
{
	size_t cap = r->tcap ? r->tcap : 256;
	if (n > SIZE_MAX / 4 / sizeof(*r->tensors)) {
		sym__error(r->ctx, SYM_ELIMIT, -1, "model: too many tensors (%zu)", n);
		return -1;
	}
	if (n > r->captensors) {
		gtensor *t = sym__realloc(r->ctx, r->tensors, r->captensors * sizeof(*t), n * sizeof(*t));
		if (!t)
			return -1;
		r->tensors = t, r->captensors = n;
	}
	while ((n + 1) * 2 > cap)
		cap *= 2;
	return cap > r->tcap ? table_rehash(r, cap) : 0;
}

/* Adds a tensor; a name defined twice is an error. */
gtensor *sym__result_add_tensor(sym_graph_result *r, const char *name, long producer, const char *what)
{
	gtensor *t;
	size_t j = 0;
	uint32_t h = hash_str(name);
	if ((r->ntensors + 1) * 2 > r->tcap && table_rehash(r, r->tcap ? r->tcap * 2 : 256) < 0)
		return NULL;
	if (find_hashed(r, name, h, &j) != (size_t)-1) {
		if (producer >= 0)
			sym__result_fail(r, "model: tensor '%s' is defined twice (an output of node '%s')",
			                 name, r->model->nodes[producer].name);
		else
			sym__result_fail(r, "model: tensor '%s' is defined twice (%s)", name, what);
		return NULL;
	}
	if (SYM_GROW(r->ctx, r->tensors, r->ntensors + 1, r->captensors, 64) < 0)
		return NULL;
	t = &r->tensors[r->ntensors];
	memset(t, 0, sizeof(*t));
	t->name = sym__infer_strdup(&r->inf, name);
	if (!t->name) {
		sym__result_nomem(r);
		return NULL;
	}
	t->producer = producer;
	t->tv.present = 1;
	t->tv.rank = -2;
	if (r->ntensors >= 0xffffffffu) {
		sym__result_fail(r, "model: more than 2**32 - 1 tensors");
		return NULL;
	}
	/* j: the free slot of the probe above */
	r->table[j] = (uint64_t)h << 32 | (uint64_t)(++r->ntensors);
	return t;
}

static char *dup_or_null(sym_graph_result *r, const char *s, int *bad)
{
	char *d = s ? sym__infer_strdup(&r->inf, s) : NULL;
	if (s && !d)
		*bad = 1;
	return d;
}

int sym__result_add_diag(sym_graph_result *r, const char *node, const char *op, const char *tensor,
                         const char *fmt, ...)
{
	sym_diag *d;
	sym_sbuf b;
	va_list ap;
	int bad = 0;
	if (SYM_GROW(r->ctx, r->diags, r->ndiags + 1, r->capdiags, 8) < 0)
		return -1;
	sym__sbuf_init(&b, r->ctx);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	d = &r->diags[r->ndiags];
	d->node = dup_or_null(r, node, &bad);
	d->op = dup_or_null(r, op, &bad);
	d->tensor = dup_or_null(r, tensor, &bad);
	d->msg = b.fail || !b.s ? NULL : sym__infer_strdup(&r->inf, b.s);
	sym__sbuf_clear(&b);
	if (bad || !d->msg)
		return sym__result_nomem(r);
	r->ndiags++;
	return 0;
}

gsym *sym__graph_find_sym(const sym_graph_result *r, const sym_expr *s)
{
	size_t j;
	if (!r->symcap)
		return NULL;
	for (j = sym_expr_hash(s) & (r->symcap - 1); r->symtab[j]; j = (j + 1) & (r->symcap - 1))
		if (r->syms[r->symtab[j] - 1].sym == s)
			return &r->syms[r->symtab[j] - 1];
	return NULL;
}

/* Rebuilds the symbol index with ncap slots (a power of two). */
static int symtab_rehash(sym_graph_result *r, size_t ncap)
{
	size_t *nt = sym__alloc(r->ctx, ncap * sizeof(*nt)), i, j;
	if (!nt)
		return -1;
	memset(nt, 0, ncap * sizeof(*nt));
	for (i = 0; i < r->nsyms; i++) {
		for (j = sym_expr_hash(r->syms[i].sym) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = i + 1;
	}
	sym__free(r->ctx, r->symtab, r->symcap * sizeof(*r->symtab));
	r->symtab = nt;
	r->symcap = ncap;
	return 0;
}

int sym__result_add_sym(sym_graph_result *r, const sym_expr *s, const char *source)
{
	gsym *g;
	size_t j;
	if (sym__graph_find_sym(r, s))
		return 0;
	if (SYM_GROW(r->ctx, r->syms, r->nsyms + 1, r->capsyms, 16) < 0)
		return -1;
	if ((r->nsyms + 1) * 2 > r->symcap && symtab_rehash(r, r->symcap ? r->symcap * 2 : 64) < 0)
		return -1;
	g = &r->syms[r->nsyms++];
	g->sym = s;
	g->source = sym__infer_strdup(&r->inf, source);
	g->min = g->max = NULL;
	for (j = sym_expr_hash(s) & (r->symcap - 1); r->symtab[j]; j = (j + 1) & (r->symcap - 1))
		;
	r->symtab[j] = r->nsyms;
	return g->source ? 0 : sym__result_nomem(r);
}

int sym__graph_ext_get(sym_graph_result *r)
{
	if (!r->ext && !(r->ext = sym__infer_alloc(&r->inf, sizeof(*r->ext))))
		return -1;
	return 0;
}

sym_graph_result *sym__result_new(sym_ctx *ctx, const sym_model *m, int allow_empty)
{
	sym_graph_result *r = sym__alloc(ctx, sizeof(*r));
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->model = m;
	r->facts = sym_facts_new(ctx);
	if (!r->facts) {
		sym__free(ctx, r, sizeof(*r));
		return NULL;
	}
	sym_facts_set_default_min(r->facts, allow_empty ? 0 : 1);
	sym__facts_bound_dims(r->facts); /* checked by the program (bind.c) */
	sym__infer_init(&r->inf, ctx, r->facts);
	return r;
}

void sym_graph_result_free(sym_graph_result *r)
{
	sym_ctx *ctx;
	if (!r)
		return;
	ctx = r->ctx;
	sym__infer_clear(&r->inf); /* guards, keys, order, node keys, ext */
	sym_facts_free(r->facts);
	sym__free(ctx, r->syms, r->capsyms * sizeof(*r->syms));
	sym__free(ctx, r->tensors, r->captensors * sizeof(*r->tensors));
	sym__free(ctx, r->table, r->tcap * sizeof(*r->table));
	sym__free(ctx, r->symtab, r->symcap * sizeof(*r->symtab));
	sym__free(ctx, r->diags, r->capdiags * sizeof(*r->diags));
	sym__free(ctx, r, sizeof(*r));
}

/* ---- accessors ---------------------------------------------------------- */

size_t sym_graph_num_symbols(const sym_graph_result *r)
{
	return r->nsyms;
}

const sym_expr *sym_graph_symbol(const sym_graph_result *r, size_t i, const char **source,
                                 const sym_expr **min, const sym_expr **max)
{
	if (i >= r->nsyms)
		return NULL;
	if (source)
		*source = r->syms[i].source;
	if (min)
		*min = r->syms[i].min;
	if (max)
		*max = r->syms[i].max;
	return r->syms[i].sym;
}

size_t sym_graph_num_tensors(const sym_graph_result *r)
{
	return r->ntensors;
}

const char *sym_graph_tensor(const sym_graph_result *r, size_t i, int *rank, const sym_expr *const **dims,
                             const char **dtype)
{
	if (i >= r->ntensors)
		return NULL;
	if (rank)
		*rank = r->tensors[i].tv.rank;
	if (dims)
		*dims = r->tensors[i].tv.dims;
	if (dtype)
		*dtype = sym__dtype_name(r->tensors[i].tv.dtype);
	return r->tensors[i].name;
}

size_t sym_graph_find_tensor(const sym_graph_result *r, const char *name)
{
	return sym__graph_find(r, name);
}
size_t sym_graph_num_guards(const sym_graph_result *r)
{
	return r->nguards;
}

const sym_expr *sym_graph_guard(const sym_graph_result *r, size_t i, const char **kind, const char **node,
                                const char **reason)
{
	if (i >= r->nguards)
		return NULL;
	if (kind)
		*kind = r->guards[i].kind == SYM_GUARD_ASSERT ? "assert" : "expect";
	if (node)
		*node = r->guards[i].node;
	if (reason)
		*reason = r->guards[i].reason;
	return r->guards[i].pred;
}

size_t sym_graph_num_merge_keys(const sym_graph_result *r)
{
	return r->nkeys;
}

const char *sym_graph_merge_key(const sym_graph_result *r, size_t i, size_t *nnodes,
                                const char *const **nodes)
{
	if (i >= r->nkeys)
		return NULL;
	if (nnodes)
		*nnodes = r->keys[i].n;
	if (nodes)
		*nodes = r->keys[i].nodes;
	return r->keys[i].key;
}

size_t sym_graph_num_diagnostics(const sym_graph_result *r)
{
	return r->ndiags;
}

const char *sym_graph_diagnostic(const sym_graph_result *r, size_t i, const char **node, const char **op,
                                 const char **tensor)
{
	if (i >= r->ndiags)
		return NULL;
	if (node)
		*node = r->diags[i].node;
	if (op)
		*op = r->diags[i].op;
	if (tensor)
		*tensor = r->diags[i].tensor;
	return r->diags[i].msg;
}

size_t sym_graph_num_errors(const sym_graph_result *r)
{
	return sym_graph_num_diagnostics(r);
}

const char *sym_graph_error(const sym_graph_result *r, size_t i, const char **node)
{
	return sym_graph_diagnostic(r, i, node, NULL, NULL);
}
