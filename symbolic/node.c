/* The context: arena, hash-cons table, errors; node interning. */
#define _DEFAULT_SOURCE /* madvise */
#include "node_private.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* From this size on, a block of the default allocator asks for huge pages
 * (Linux's transparent huge pages, where they are on "madvise"): the
 * intern table and the simplifier's memos of a context of millions of
 * nodes are read at random, and with 4 KB pages most of those reads miss
 * the TLB too (1,000,000 broadcasts of fresh dims: 81 -> 55 us per node). */
#define HUGE_BLOCK ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

void sym__advise_huge(void *p, size_t n)
{
#if defined(MADV_HUGEPAGE)
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* advice only: no error */
#else
	(void)p, (void)n;
#endif
}

static void *default_realloc(void *ud, void *p, size_t old, size_t n)
{
	void *r;
	(void)ud, (void)old;
	if (n == 0) {
		free(p);
		return NULL;
	}
	r = realloc(p, n);
	if (r && n >= HUGE_BLOCK)
		sym__advise_huge(r, n);
	return r;
}

void *sym__realloc(sym_ctx *ctx, void *p, size_t old, size_t n)
{
	void *r = ctx->alloc.realloc_fn(ctx->alloc.ud, p, old, n);
	if (!r && n)
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	return r;
}

void *sym__alloc(sym_ctx *ctx, size_t n)
{
	return sym__realloc(ctx, NULL, 0, n);
}

void sym__free(sym_ctx *ctx, void *p, size_t n)
{
	if (p)
		ctx->alloc.realloc_fn(ctx->alloc.ud, p, n, 0);
}

const sym_expr *sym__error(sym_ctx *ctx, sym_status st, long pos, const char *fmt, ...)
{
	va_list ap;
	int k;
	if (ctx->err != SYM_EOK)
		return NULL;
	ctx->err = st;
	ctx->err_pos = pos;
	va_start(ap, fmt);
	k = vsnprintf(ctx->err_msg, sizeof(ctx->err_msg), fmt, ap);
	va_end(ap);
	/* no allocation here: out of memory is recorded like any error */
	if (k < 0)
		ctx->err_msg[0] = 0;
	else if ((size_t)k >= sizeof(ctx->err_msg))
		memcpy(ctx->err_msg + sizeof(ctx->err_msg) - 4, "...", 4);
	sym__escape_controls(ctx->err_msg, sizeof(ctx->err_msg));
	return NULL;
}

void sym__escape_controls(char *s, size_t size)
{
	char tmp[sizeof(((sym_ctx *)0)->err_msg)];
	size_t i, w = 0, n = strlen(s);
	for (i = 0; i < n && s[i] && (unsigned char)s[i] >= 0x20 && s[i] != 0x7f; i++)
		;
	if (i == n)
		return; /* the common case: nothing to escape */
	for (i = 0; s[i] && w + 5 < sizeof(tmp) && w + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			w += (size_t)snprintf(tmp + w, sizeof(tmp) - w, "\\x%02x", c);
		else
			tmp[w++] = (char)c;
	}
	tmp[w] = 0;
	memcpy(s, tmp, w + 1);
}

static const char *const status_msgs[] = {
#define SYM__STATUS_MSG(name, msg) msg,
    SYM_STATUS_MAP(SYM__STATUS_MSG)
#undef SYM__STATUS_MSG
};

const char *sym_status_message(sym_status st)
{
	if ((unsigned)st >= sizeof(status_msgs) / sizeof(status_msgs[0]))
		return "unknown status";
	return status_msgs[st];
}

sym_status sym_ctx_last_error(const sym_ctx *ctx)
{
	return ctx->err;
}
const char *sym_ctx_last_message(const sym_ctx *ctx)
{
	return ctx->err == SYM_EOK ? "no error" : ctx->err_msg;
}
long sym_ctx_last_position(const sym_ctx *ctx)
{
	return ctx->err == SYM_EOK ? -1 : ctx->err_pos;
}
void sym_ctx_clear_error(sym_ctx *ctx)
{
	ctx->err = SYM_EOK;
	ctx->err_pos = -1;
	ctx->err_msg[0] = 0;
}

size_t sym_ctx_node_count(const sym_ctx *ctx, size_t *bytes)
{
	if (bytes)
		*bytes = ctx->node_bytes;
	return ctx->nnodes;
}

static void *arena_alloc(sym_ctx *ctx, size_t n)
{
	sym_chunk *c = ctx->chunks;
	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		/* 64 KB chunks, 4 MB ones (huge pages) once the nodes fill 16 MB */
		size_t least = ctx->node_bytes >= ((size_t)16 << 20) ? HUGE_BLOCK : 65536;
		size_t sz = n + sizeof(sym_chunk) > least ? n + sizeof(sym_chunk) : least;
		c = sym__alloc(ctx, sz);
		if (!c)
			return NULL;
		c->next = ctx->chunks;
		c->size = sz;
		c->used = (sizeof(sym_chunk) + 7) & ~(size_t)7;
		ctx->chunks = c;
	}
	{
		void *p = (char *)c + c->used;
		c->used += n;
		return p;
	}
}

sym_ctx *sym_ctx_new_with_allocator(const sym_allocator *alloc)
{
	sym_allocator a = {default_realloc, NULL};
	sym_ctx *ctx;
	if (alloc)
		a = *alloc;
	ctx = a.realloc_fn(a.ud, NULL, 0, sizeof(*ctx));
	if (!ctx)
		return NULL;
	memset(ctx, 0, sizeof(*ctx));
	ctx->alloc = a;
	ctx->err_pos = -1;
	ctx->zero = sym__num_node_si(ctx, 0);
	ctx->one = sym__num_node_si(ctx, 1);
	ctx->minus_one = sym__num_node_si(ctx, -1);
	ctx->btrue = sym_expr_bool(ctx, 1);
	ctx->bfalse = sym_expr_bool(ctx, 0);
	if (sym__failed(ctx)) {
		sym_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

sym_ctx *sym_ctx_new(void)
{
	return sym_ctx_new_with_allocator(NULL);
}

void sym_ctx_free(sym_ctx *ctx)
{
	sym_chunk *c, *next;
	sym_bigref *b;
	if (!ctx)
		return;
	for (b = ctx->bigs; b; b = b->next)
		sym__num_clear(b->num);
	sym__ptext_free(ctx);
	sym__pcache_free(ctx);
	for (c = ctx->chunks; c; c = next) {
		next = c->next;
		sym__free(ctx, c, c->size);
	}
	sym__free(ctx, ctx->table, ctx->cap * (sizeof(*ctx->table) + 1));
	sym__free(ctx, ctx->scratch, ctx->scratch_cap);
	{
		sym_allocator a = ctx->alloc;
		a.realloc_fn(a.ud, ctx, sizeof(*ctx), 0);
	}
}

#define SMALL1(v)                                                                                            \
	{                                                                                                    \
		{(v)}, 1                                                                                     \
	}
#define SMALL4(v) SMALL1(v), SMALL1((v) + 1), SMALL1((v) + 2), SMALL1((v) + 3)
#define SMALL16(v) SMALL4(v), SMALL4((v) + 4), SMALL4((v) + 8), SMALL4((v) + 12)
#define SMALL64(v) SMALL16(v), SMALL16((v) + 16), SMALL16((v) + 32), SMALL16((v) + 48)
const sym_num sym__small_nums[256] = {SMALL64(-128), SMALL64(-64), SMALL64(0), SMALL64(64)};

/* One multiply per word; the final avalanche happens once per node. */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

static inline uint64_t num_word(const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a))
		return (uint64_t)a->p * 0x9e3779b97f4a7c15ULL ^ (uint64_t)a->q;
	return sym__num_hash(a);
}

static inline uint64_t avalanche(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* The hash of the sum of constant c and n terms t (its payload's hash). */
static inline uint64_t hash_sum(size_t n, const sym_num *c, const sym_term *t)
{
	uint64_t x = mix(SYM_KIND_ADD * 0x100000001b3ULL, n);
	size_t i;
	x = mix(x, num_word(c));
	for (i = 0; i < n; i++)
		x = mix(mix(x, num_word(&t[i].coef)), t[i].m->hash);
	return avalanche(x);
}

static uint64_t hash_payload(const struct sym_expr *h, const void *pl, size_t size)
{
	uint64_t x = mix(h->kind * 0x100000001b3ULL, h->n);
	const sym_expr *const *kids = pl;
	size_t i;
	switch (h->kind) {
	case SYM_KIND_NUM:
		return avalanche(mix(x, num_word(pl)));
	case SYM_KIND_SYM: {
		const unsigned char *s = pl;
		for (i = 0; i < h->n; i++)
			x = (x ^ s[i]) * 0x100000001b3ULL;
		return avalanche(mix(x, h->n));
	}
	case SYM_KIND_MUL: {
		const sym_factor *f = pl;
		for (i = 0; i < h->n; i++)
			x = mix(mix(x, f[i].base->hash), (uint64_t)f[i].exp);
		return avalanche(x);
	}
	case SYM_KIND_BOOL:
		return avalanche(mix(x, *(const int64_t *)pl));
	default:
		(void)size;
		for (i = 0; i < h->n; i++)
			x = mix(x, kids[i]->hash);
		return avalanche(x);
	}
}

/* Whether sum node e (of the candidate's term count) is constant c plus
 * terms t. */
static int sum_equal(const sym_expr *e, const sym_num *c, const sym_term *t)
{
	size_t i;
	const sym_term *u = (const sym_term *)((const sym_num *)NODE_PAYLOAD(e) + 1);
	if (e->flags & SYM_F_SMALL) {
		const sym_expr *const *m = node_small_monos(e);
		const int8_t *k = node_small_coefs(e);
		/* a big number has q == 0 */
		if (c->q != 1 || c->p != k[0])
			return 0;
		for (i = 0; i < e->n; i++)
			if (t[i].m != m[i] || t[i].coef.q != 1 || t[i].coef.p != k[i + 1])
				return 0;
		return 1;
	}
	if (!sym__num_equal(NODE_PAYLOAD(e), c))
		return 0;
	for (i = 0; i < e->n; i++)
		if (t[i].m != u[i].m || !sym__num_equal(&t[i].coef, &u[i].coef))
			return 0;
	return 1;
}

static int payload_equal(const sym_expr *e, const struct sym_expr *h, const void *pl, size_t size)
{
	if (e->kind != h->kind || e->n != h->n)
		return 0;
	switch (h->kind) {
	case SYM_KIND_NUM:
		return sym__num_equal(node_num(e), pl);
	default:
		return memcmp(NODE_PAYLOAD(e), pl, size) == 0;
	}
}

/* The control byte of a node of this hash. */
static inline uint8_t ctrl_tag(uint32_t hash)
{
	return (uint8_t)(0x80 | (hash >> 25));
}

/* The node of slot j when its control byte is tag and its hash is hash,
 * else NULL: the slot and the node are read only when the tags agree. */
static inline const sym_expr *slot_match(const sym_ctx *ctx, size_t j, uint8_t tag, uint32_t hash)
{
	const sym_expr *o;
	if (ctx->ctrl[j] != tag)
		return NULL;
	o = ctx->table[j];
	return o->hash == hash ? o : NULL;
}

static int table_grow(sym_ctx *ctx)
{
	size_t ncap = ctx->cap ? ctx->cap * 2 : 1024, i;
	const sym_expr **nt = sym__alloc(ctx, ncap * (sizeof(*nt) + 1));
	uint8_t *nc;
	if (!nt)
		return 0;
	nc = (uint8_t *)(nt + ncap);
	/* only the control bytes need clearing: a slot is read only where its
	 * byte says it is full */
	memset(nc, 0, ncap);
	for (i = 0; i < ctx->cap; i++) {
		if (ctx->ctrl[i]) {
			size_t j = ctx->table[i]->hash & (ncap - 1);
			while (nc[j])
				j = (j + 1) & (ncap - 1);
			nt[j] = ctx->table[i];
			nc[j] = ctx->ctrl[i];
		}
	}
	sym__free(ctx, ctx->table, ctx->cap * (sizeof(*ctx->table) + 1));
	ctx->table = nt;
	ctx->ctrl = nc;
	ctx->cap = ncap;
	return 1;
}

/* Copies a number into context-owned storage. */
static int own_num(sym_ctx *ctx, sym_num *dst, const sym_num *src)
{
	if (!SYM_NUM_IS_BIG(src)) {
		*dst = *src;
		return 1;
	}
	{
		sym_bigref *b = arena_alloc(ctx, sizeof(*b));
		if (!b)
			return 0;
		sym__num_init(dst);
		sym__num_set(dst, src);
		b->num = dst;
		b->next = ctx->bigs;
		ctx->bigs = b;
	}
	return 1;
}

/* Whether a is an integer that a compact sum stores (int8_t). */
static int is_small(const sym_num *a)
{
	return a->q == 1 && a->p >= INT8_MIN && a->p <= INT8_MAX;
}

/* Sets h's depth, degree and flags from its payload. */
static void node_props(struct sym_expr *h, const void *pl)
{
	size_t i;
	unsigned depth = 0;
	int isint = 1, symargs = 1;
	h->flags = 0;
	h->degree = 1;
	switch (h->kind) {
	case SYM_KIND_NUM:
		isint = sym__num_is_int(pl);
		break;
	case SYM_KIND_SYM:
		break;
	case SYM_KIND_ADD: {
		const sym_num *c = pl;
		const sym_term *t = (const sym_term *)(c + 1);
		int small = is_small(c);
		isint = sym__num_is_int(c);
		for (i = 0; i < h->n; i++) {
			if (t[i].m->depth > depth)
				depth = t[i].m->depth;
			if (!sym__is_int(t[i].m) || !sym__num_is_int(&t[i].coef))
				isint = 0;
			small = small && is_small(&t[i].coef);
		}
		if (small)
			h->flags |= SYM_F_SMALL;
		break;
	}
	case SYM_KIND_MUL: {
		const sym_factor *f = pl;
		int64_t deg = 0;
		for (i = 0; i < h->n; i++) {
			if (f[i].base->depth > depth)
				depth = f[i].base->depth;
			if (f[i].exp < 0 || !sym__is_int(f[i].base))
				isint = 0;
			deg += f[i].exp;
		}
		h->degree = deg > INT32_MAX ? INT32_MAX : deg < -INT32_MAX ? -INT32_MAX : (int32_t)deg;
		break;
	}
	case SYM_KIND_BOOL:
		break;
	default: {
		const sym_expr *const *k = pl;
		for (i = 0; i < h->n; i++) {
			if (k[i]->depth > depth)
				depth = k[i]->depth;
			if (!sym__is_int(k[i]))
				isint = 0;
			if (k[i]->kind != SYM_KIND_SYM)
				symargs = 0;
		}
		break;
	}
	}
	if (h->kind == SYM_KIND_FLOOR)
		isint = 1;
	h->depth = (uint16_t)(depth + 1 > 65535 ? 65535 : depth + 1);
	h->flags &= SYM_F_SMALL;
	if ((h->kind == SYM_KIND_MIN || h->kind == SYM_KIND_MAX) && symargs)
		h->flags |= SYM_F_SYMARGS;
	if (h->kind >= SYM_KIND_BOOL) {
		h->flags = SYM_F_PRED;
		isint = 0;
	}
	if (isint)
		h->flags |= SYM_F_INT;
}

/* Numbers stored in nodes stay below the size limit. */
static int num_in_limit(const sym_num *v)
{
	/* small numbers (at most 128 bits) never reach the limit */
	return !SYM_NUM_IS_BIG(v) || sym__num_bits(v) <= SYM_MAX_BITS;
}

static int nums_in_limit(const struct sym_expr *h, const void *pl)
{
	size_t i;
	if (h->kind == SYM_KIND_NUM)
		return num_in_limit(pl);
	if (h->kind == SYM_KIND_ADD) {
		const sym_term *t = (const sym_term *)((const char *)pl + sizeof(sym_num));
		if (!num_in_limit(pl))
			return 0;
		for (i = 0; i < h->n; i++)
			if (!num_in_limit(&t[i].coef))
				return 0;
	}
	return 1;
}

#ifdef __GNUC__
#define SYM_NOINLINE __attribute__((noinline))
#else
#define SYM_NOINLINE
#endif

/* Adds node e of payload size bytes at free slot j of the table. */
static const sym_expr *interned(sym_ctx *ctx, const sym_expr *e, size_t size, size_t j)
{
	ctx->node_bytes += sizeof(struct sym_expr) + ((size + 7) & ~(size_t)7);
	ctx->nnodes++;
	ctx->table[j] = e;
	ctx->ctrl[j] = ctrl_tag(e->hash);
	ctx->count++;
	return e;
}

/* Makes a symbol, min or max of header h (its properties set) at free slot
 * j: the payload, then its key. */
static const sym_expr *keyed_new(sym_ctx *ctx, struct sym_expr h, const void *payload, size_t size,
                                 uint64_t key, size_t j)
{
	struct sym_expr *e = arena_alloc(ctx, sizeof(struct sym_expr) + size + sizeof(key));
	if (!e)
		return NULL;
	*e = h;
	memcpy(NODE_PAYLOAD(e), payload, size);
	memcpy((char *)NODE_PAYLOAD(e) + size, &key, sizeof(key));
	return interned(ctx, e, size + sizeof(key), j);
}

/* Makes the node the lookup did not find, at free slot j of the table:
 * out of the lookup's way, which most calls end in. */
static SYM_NOINLINE const sym_expr *intern_new(sym_ctx *ctx, struct sym_expr h, const void *payload,
                                               size_t size, size_t j)
{
	size_t i;
	struct sym_expr *e;
	node_props(&h, payload);
	if (!(h.flags & SYM_F_SMALL) && !nums_in_limit(&h, payload))
		return sym__error(ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)", SYM_MAX_BITS);
	if (h.depth > SYM_MAX_DEPTH)
		return sym__error(ctx, SYM_ELIMIT, -1, "expression nested deeper than %d levels",
		                  SYM_MAX_DEPTH);
	if (h.flags & SYM_F_SMALL) {
		const sym_num *c = payload;
		const sym_term *t = (const sym_term *)(c + 1);
		const sym_expr **m;
		int8_t *k;
		size = h.n * sizeof(*m) + h.n + 1;
		e = arena_alloc(ctx, sizeof(struct sym_expr) + size);
		if (!e)
			return NULL;
		*e = h;
		m = NODE_PAYLOAD(e);
		k = (int8_t *)(m + h.n);
		k[0] = (int8_t)c->p;
		for (i = 0; i < h.n; i++)
			m[i] = t[i].m, k[i + 1] = (int8_t)t[i].coef.p;
		goto interned;
	}
	if (h.kind == SYM_KIND_SYM || h.kind == SYM_KIND_MIN || h.kind == SYM_KIND_MAX) {
		/* the payload, then an order key (a symbol) or the key of the
		 * arguments (a min or max, sym__minmax_key) */
		uint64_t key = h.kind;
		if (h.kind == SYM_KIND_SYM)
			key = sym__name_key(payload);
		else
			for (i = 0; i < h.n; i++)
				key += sym__arg_mix(((const sym_expr *const *)payload)[i]);
		return keyed_new(ctx, h, payload, size, key, j);
	}
	e = arena_alloc(ctx, sizeof(struct sym_expr) + size);
	if (!e)
		return NULL;
	*e = h;
	memcpy(NODE_PAYLOAD(e), payload, size);
	/* numbers inside the payload must be owned by the context */
	if (h.kind == SYM_KIND_NUM) {
		if (!own_num(ctx, NODE_PAYLOAD(e), payload))
			return NULL;
	} else if (h.kind == SYM_KIND_ADD) {
		sym_num *c = NODE_PAYLOAD(e);
		sym_term *t = (sym_term *)(c + 1);
		const sym_term *st = (const sym_term *)((const sym_num *)payload + 1);
		if (!own_num(ctx, c, payload))
			return NULL;
		for (i = 0; i < h.n; i++)
			if (!own_num(ctx, &t[i].coef, &st[i].coef))
				return NULL;
	}
interned:
	/* the free slot the lookup ended on */
	return interned(ctx, e, size, j);
}

/* Sets h's hash and looks the node up: the node, or NULL with *j the free
 * slot the lookup ended on (SIZE_MAX when the table cannot grow).  The
 * hash and the equality read only kind, n and the payload: a node found
 * here has passed the checks of intern_new already. */
static const sym_expr *lookup(sym_ctx *ctx, struct sym_expr *h, const void *payload, size_t size, size_t *j)
{
	uint8_t tag;
	const sym_expr *o;
	h->hash = (uint32_t)hash_payload(h, payload, size);
	*j = SIZE_MAX;
	if (ctx->count * 2 >= ctx->cap && !table_grow(ctx))
		return NULL;
	tag = ctrl_tag(h->hash);
	for (*j = h->hash & (ctx->cap - 1); ctx->ctrl[*j]; *j = (*j + 1) & (ctx->cap - 1))
		if ((o = slot_match(ctx, *j, tag, h->hash)) && payload_equal(o, h, payload, size))
			return o;
	return NULL;
}

const sym_expr *sym__intern_symbol_minmax(sym_ctx *ctx, const sym_expr *base, const sym_expr *const *v,
                                          size_t m, uint64_t key)
{
	struct sym_expr h = *base;
	size_t j, size = m * sizeof(*v);
	const sym_expr *o;
	if (sym__failed(ctx))
		return NULL;
	h.n = (uint32_t)m;
	if ((o = lookup(ctx, &h, v, size, &j)) || j == SIZE_MAX)
		return o;
	/* base's kind, flags, depth and degree are the new node's: every
	 * argument of both is a symbol */
	return keyed_new(ctx, h, v, size, key, j);
}

const sym_expr *sym__intern(sym_ctx *ctx, const struct sym_expr *hdr, const void *payload, size_t size)
{
	struct sym_expr h = *hdr;
	size_t j;
	const sym_expr *o;
	if (h.kind == SYM_KIND_ADD) /* its constant, then its terms */
		return sym__intern_sum(ctx, payload, (const sym_term *)((const sym_num *)payload + 1), h.n);
	if (sym__failed(ctx))
		return NULL;
	if ((o = lookup(ctx, &h, payload, size, &j)) || j == SIZE_MAX)
		return o;
	return intern_new(ctx, h, payload, size, j);
}

const sym_expr *sym__intern_sum(sym_ctx *ctx, const sym_num *c, const sym_term *t, size_t n)
{
	struct sym_expr h = {0};
	size_t j, size;
	uint8_t tag;
	const sym_expr *o;
	char *buf;
	if (sym__failed(ctx))
		return NULL;
	h.kind = SYM_KIND_ADD;
	h.n = (uint32_t)n;
	h.hash = (uint32_t)hash_sum(n, c, t);
	if (ctx->count * 2 >= ctx->cap && !table_grow(ctx))
		return NULL;
	j = h.hash & (ctx->cap - 1);
	tag = ctrl_tag(h.hash);
	for (; ctx->ctrl[j]; j = (j + 1) & (ctx->cap - 1))
		if ((o = slot_match(ctx, j, tag, h.hash)) && o->kind == SYM_KIND_ADD && o->n == n &&
		    sum_equal(o, c, t))
			return o;
	/* a new node: its payload in one piece */
	size = sizeof(sym_num) + n * sizeof(sym_term);
	if (size > ctx->scratch_cap &&
	    sym__grow(ctx, &ctx->scratch, &ctx->scratch_cap, size, 1, size * 2) < 0)
		return NULL;
	buf = ctx->scratch;
	/* memmove: a payload given to sym__intern may sit there already */
	memmove(buf, c, sizeof(sym_num));
	memmove(buf + sizeof(sym_num), t, n * sizeof(sym_term));
	return intern_new(ctx, h, buf, size, j);
}

/* The number node of v kept at hand, or NULL (not made yet, or v is not
 * among those kept). */
static inline const sym_expr *small_int(const sym_ctx *ctx, int64_t v)
{
	if (v < SYM_SMALL_INT_MIN || v > SYM_SMALL_INT_MAX || sym__failed(ctx))
		return NULL;
	return ctx->small_ints[v - SYM_SMALL_INT_MIN];
}

const sym_expr *sym__num_node(sym_ctx *ctx, const sym_num *v)
{
	struct sym_expr h = {0};
	const sym_expr **slot = NULL, *r;
	if (v->q == 1 && v->p >= SYM_SMALL_INT_MIN && v->p <= SYM_SMALL_INT_MAX) {
		if ((r = small_int(ctx, v->p)))
			return r;
		slot = &ctx->small_ints[v->p - SYM_SMALL_INT_MIN];
	}
	h.kind = SYM_KIND_NUM;
	r = sym__intern(ctx, &h, v, sizeof(*v));
	if (slot && r)
		*slot = r;
	return r;
}

const sym_expr *sym__num_node_si(sym_ctx *ctx, int64_t v)
{
	sym_num n;
	const sym_expr *r = small_int(ctx, v);
	if (r)
		return r;
	sym__num_init(&n);
	sym__num_set_si(&n, v);
	r = sym__num_node(ctx, &n);
	sym__num_clear(&n);
	return r;
}

const sym_expr *sym_expr_from_si(sym_ctx *ctx, long long v)
{
	return sym__num_node_si(ctx, v);
}

const sym_expr *sym_expr_from_frac(sym_ctx *ctx, long long p, long long q)
{
	sym_num n;
	const sym_expr *r;
	if (q == 0)
		return sym__error(ctx, SYM_EDIVZERO, -1, "division by zero in %lld/0", p);
	sym__num_init(&n);
	if (p == INT64_MIN || q == INT64_MIN) {
		sym_num a, b;
		sym__num_init(&a);
		sym__num_init(&b);
		sym__num_set_si(&a, p);
		sym__num_set_si(&b, q);
		sym__num_div(&n, &a, &b);
		sym__num_clear(&a);
		sym__num_clear(&b);
	} else {
		sym__num_set_frac(&n, p, q);
	}
	r = sym__num_node(ctx, &n);
	sym__num_clear(&n);
	return r;
}

const sym_expr *sym_expr_from_dec(sym_ctx *ctx, const char *digits)
{
	sym_num n;
	const sym_expr *r;
	if (sym__failed(ctx))
		return NULL;
	sym__num_init(&n);
	if (!digits || !sym__num_set_str(&n, digits, strlen(digits)))
		return sym__error(ctx, SYM_EDOMAIN, -1, "not a decimal integer: '%s'",
		                  digits ? digits : "(null)");
	r = sym__num_node(ctx, &n);
	sym__num_clear(&n);
	return r;
}

static int valid_name(const char *s)
{
	size_t i;
	if (!s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; s[i]; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return i <= 255;
}

const sym_expr *sym_expr_symbol(sym_ctx *ctx, const char *name)
{
	struct sym_expr h = {0};
	char buf[256 + 8];
	size_t len;
	if (sym__failed(ctx))
		return NULL;
	if (!valid_name(name) || !strcmp(name, "true") || !strcmp(name, "false") || !strcmp(name, "min") ||
	    !strcmp(name, "max") || !strcmp(name, "abs") || !strcmp(name, "floor") || !strcmp(name, "ceil"))
		return sym__error(ctx, SYM_EDOMAIN, -1, "invalid symbol name '%s'", name ? name : "(null)");
	len = strlen(name);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, name, len);
	h.kind = SYM_KIND_SYM;
	h.n = (uint32_t)len;
	return sym__intern(ctx, &h, buf, (len + 8) & ~(size_t)7);
}

int sym__symbol_exists(const sym_ctx *ctx, const char *name)
{
	struct sym_expr h = {0};
	char buf[256 + 8];
	size_t len = strlen(name), j;
	uint8_t tag;
	if (len > 255 || !ctx->cap)
		return 0;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, name, len);
	h.kind = SYM_KIND_SYM;
	h.n = (uint32_t)len;
	h.hash = (uint32_t)hash_payload(&h, buf, (len + 8) & ~(size_t)7);
	tag = ctrl_tag(h.hash);
	for (j = h.hash & (ctx->cap - 1); ctx->ctrl[j]; j = (j + 1) & (ctx->cap - 1)) {
		const sym_expr *o = slot_match(ctx, j, tag, h.hash);
		if (o && o->kind == SYM_KIND_SYM && o->n == len && !memcmp(node_name(o), name, len))
			return 1;
	}
	return 0;
}

const sym_expr *sym_expr_bool(sym_ctx *ctx, int value)
{
	struct sym_expr h = {0};
	int64_t v = value != 0;
	if (ctx->btrue && ctx->bfalse)
		return v ? ctx->btrue : ctx->bfalse;
	h.kind = SYM_KIND_BOOL;
	return sym__intern(ctx, &h, &v, sizeof(v));
}

sym_kind sym_expr_kind(const sym_expr *e)
{
	return (sym_kind)e->kind;
}
int sym_expr_is_pred(const sym_expr *e)
{
	return (e->flags & SYM_F_PRED) != 0;
}
uint64_t sym_expr_hash(const sym_expr *e)
{
	return e->hash;
}
const char *sym_expr_symbol_name(const sym_expr *e)
{
	return e && e->kind == SYM_KIND_SYM ? node_name(e) : NULL;
}

int sym_expr_get_si(const sym_expr *e, long long *out)
{
	int64_t v;
	if (!e || e->kind != SYM_KIND_NUM)
		return 0;
	if (!sym__num_get_si(node_num(e), &v))
		return 2;
	*out = v;
	return 1;
}

/* ---- the seam's context services (seam.h) ------------------------------- */

int(sym__failed)(const sym_ctx *ctx)
{
	return ctx->err != SYM_EOK;
}

const sym_expr *sym__zero(const sym_ctx *ctx)
{
	return ctx->zero;
}
const sym_expr *sym__one(const sym_ctx *ctx)
{
	return ctx->one;
}
const sym_expr *sym__minus_one(const sym_ctx *ctx)
{
	return ctx->minus_one;
}
const sym_expr *sym__true(const sym_ctx *ctx)
{
	return ctx->btrue;
}
const sym_expr *sym__false(const sym_ctx *ctx)
{
	return ctx->bfalse;
}
int sym__expr_is_int(const sym_expr *e)
{
	return sym__is_int(e);
}

int sym__grow(sym_ctx *ctx, void *p, size_t *cap, size_t need, size_t elem, size_t min)
{
	void **arr = p;
	size_t nc = *cap ? *cap : (min ? min : 1);
	void *nb;
	if (need <= *cap)
		return 0;
	while (nc < need) {
		if (nc > SIZE_MAX / 2) {
			nc = need;
			break;
		}
		nc *= 2;
	}
	if (elem && nc > SIZE_MAX / elem) {
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return -1;
	}
	nb = sym__realloc(ctx, *arr, *cap * elem, nc * elem);
	if (!nb)
		return -1;
	*arr = nb, *cap = nc;
	return 0;
}
