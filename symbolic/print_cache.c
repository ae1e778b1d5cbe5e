/* The printer's spelling cache: the text chosen for a small root, kept by
 * the root's pattern (its nodes with the symbols numbered in the order they
 * are met, each symbol's name length and its rank in the symbol order).
 *
 * The printer's text is a function of the node alone, and the canonical
 * form depends on symbol names only through their order and the printer's
 * choice only through their lengths: two roots of one pattern print alike
 * with their own names.  Choosing a spelling parses candidate texts back,
 * tens of thousands of instructions for a byte size `32*((d + 7)//8)`; a
 * model prints the same patterns over many symbols.  A text from the cache
 * is written only when it parses back to the root, as every text is. */
#include "print_private.h"

#include <stdint.h>
#include <string.h>

struct sym_pcache {
	uint64_t hash; /* of the key; 0: a free slot */
	uint32_t klen; /* the key's bytes, then the template's, in blob */
	uint32_t tlen;
	unsigned char *blob;
};

/* Patterns with more nodes, symbols or key bytes, and texts longer than
 * PCACHE_TEXT, are printed as they are.  PCACHE_SLOTS bounds the table:
 * once half full, it is emptied. */
#define PCACHE_NODES 48
#define PCACHE_TEXT 256
#define PCACHE_SLOTS 8192

typedef struct keyer {
	sym_pkey *k;
	const sym_expr *seen[PCACHE_NODES];
	size_t nseen;
	int ok, sums;
} keyer;

static void kput(keyer *b, const void *p, size_t n)
{
	if (b->k->n + n > SYM_PKEY_BYTES) {
		b->ok = 0;
		return;
	}
	memcpy(b->k->k + b->k->n, p, n);
	b->k->n += n;
}

static void kput_num(keyer *b, const sym_num *v)
{
	if (SYM_NUM_IS_BIG(v)) {
		b->ok = 0;
		return;
	}
	kput(b, &v->p, sizeof(v->p));
	kput(b, &v->q, sizeof(v->q));
}

/* Appends node e: a reference to it when met before, else its kind, its
 * size and its parts. */
static void kvisit(keyer *b, const sym_expr *e)
{
	unsigned char t[1 + sizeof(uint32_t)];
	uint32_t n = e->n;
	size_t i;
	if (!b->ok)
		return;
	for (i = 0; i < b->nseen; i++)
		if (b->seen[i] == e) {
			t[0] = 0xff, t[1] = (unsigned char)i;
			kput(b, t, 2);
			return;
		}
	if (b->nseen == PCACHE_NODES || n > PCACHE_NODES) {
		b->ok = 0;
		return;
	}
	b->seen[b->nseen++] = e;
	t[0] = e->kind;
	memcpy(t + 1, &n, sizeof(n));
	/* a symbol's n is the length of its name: it is part of the key */
	kput(b, t, sizeof(t));
	switch (e->kind) {
	case SYM_KIND_NUM:
		kput_num(b, node_num(e));
		break;
	case SYM_KIND_SYM:
		if (b->k->nsym == SYM_PKEY_SYMS) {
			b->ok = 0;
			break;
		}
		b->k->sym[b->k->nsym++] = e;
		break;
	case SYM_KIND_ADD:
		b->sums = 1;
		kput_num(b, node_add_const(e));
		for (i = 0; i < n && b->ok; i++) {
			kput_num(b, node_coef(e, i));
			kvisit(b, node_mono(e, i));
		}
		break;
	case SYM_KIND_MUL:
		for (i = 0; i < n && b->ok; i++) {
			kvisit(b, node_factors(e)[i].base);
			kput(b, &node_factors(e)[i].exp, sizeof(int64_t));
		}
		break;
	case SYM_KIND_BOOL:
		kput(b, NODE_PAYLOAD(e), sizeof(int64_t));
		break;
	default:
		for (i = 0; i < n && b->ok; i++)
			kvisit(b, node_kids(e)[i]);
		break;
	}
}

static uint64_t key_hash(const unsigned char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	h ^= h >> 29;
	return h ? h : 1;
}

int sym__pcache_key(const sym_expr *e, sym_pkey *k)
{
	keyer b;
	size_t i, j;
	unsigned char rank;
	k->n = 0;
	k->nsym = 0;
	b.k = k;
	b.nseen = 0;
	b.ok = 1;
	b.sums = 0;
	kvisit(&b, e);
	/* only a root with a sum has spellings to choose among */
	if (!b.ok || !b.sums || !k->nsym)
		return 0;
	for (i = 0; i < k->nsym; i++) {
		for (rank = 0, j = 0; j < k->nsym; j++)
			rank += sym_expr_cmp(k->sym[j], k->sym[i]) < 0;
		kput(&b, &rank, 1);
	}
	if (!b.ok)
		return 0;
	k->hash = key_hash(k->k, k->n);
	return 1;
}

static const struct sym_pcache *pcache_find(const sym_ctx *ctx, const sym_pkey *k)
{
	size_t j;
	const struct sym_pcache *t;
	if (!ctx->pcache_cap)
		return NULL;
	for (j = k->hash & (ctx->pcache_cap - 1); (t = &ctx->pcache[j])->hash;
	     j = (j + 1) & (ctx->pcache_cap - 1))
		if (t->hash == k->hash && t->klen == k->n && !memcmp(t->blob, k->k, k->n))
			return t;
	return NULL;
}

static int ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int sym__pcache_print(sym_sbuf *b, const sym_expr *e, const sym_pkey *k)
{
	sym_ctx *ctx = b->ctx;
	const struct sym_pcache *t = pcache_find(ctx, k);
	char text[PCACHE_TEXT + 1];
	const unsigned char *s;
	size_t i, n = 0;
	const sym_expr *back;
	if (!t || sym__failed(ctx))
		return 0;
	/* the template with k's names: as long as the text it was made from,
	 * since the names are as long */
	s = t->blob + t->klen;
	for (i = 0; i < t->tlen; i++) {
		if (s[i] >= 1 && s[i] <= SYM_PKEY_SYMS) {
			const sym_expr *x = k->sym[s[i] - 1];
			if (n + x->n > PCACHE_TEXT)
				return 0;
			memcpy(text + n, node_name(x), x->n);
			n += x->n;
		} else {
			if (n == PCACHE_TEXT)
				return 0;
			text[n++] = (char)s[i];
		}
	}
	text[n] = 0;
	back = sym_expr_from_str(ctx, text);
	if (!back) {
		sym_ctx_clear_error(ctx);
		return 0;
	}
	if (back != e)
		return 0;
	sym__sbuf_put(b, text, n);
	return 1;
}

/* Empties the cache, keeping its table. */
static void pcache_empty(sym_ctx *ctx)
{
	size_t i;
	for (i = 0; i < ctx->pcache_cap; i++)
		if (ctx->pcache[i].hash) {
			sym__free(ctx, ctx->pcache[i].blob, ctx->pcache[i].klen + ctx->pcache[i].tlen);
			ctx->pcache[i].hash = 0;
		}
	ctx->pcache_count = 0;
}

void sym__pcache_free(sym_ctx *ctx)
{
	pcache_empty(ctx);
	sym__free(ctx, ctx->pcache, ctx->pcache_cap * sizeof(*ctx->pcache));
	ctx->pcache = NULL;
	ctx->pcache_cap = 0;
}

/* Doubles the table (the allocator itself: no room for the cache is no
 * error); 0 when there is no room. */
static int pcache_grow(sym_ctx *ctx)
{
	size_t cap = ctx->pcache_cap ? 2 * ctx->pcache_cap : 64, i, j;
	struct sym_pcache *t = ctx->alloc.realloc_fn(ctx->alloc.ud, NULL, 0, cap * sizeof(*t));
	if (!t)
		return 0;
	memset(t, 0, cap * sizeof(*t));
	for (i = 0; i < ctx->pcache_cap; i++) {
		if (!ctx->pcache[i].hash)
			continue;
		for (j = ctx->pcache[i].hash & (cap - 1); t[j].hash; j = (j + 1) & (cap - 1))
			;
		t[j] = ctx->pcache[i];
	}
	sym__free(ctx, ctx->pcache, ctx->pcache_cap * sizeof(*ctx->pcache));
	ctx->pcache = t, ctx->pcache_cap = cap;
	return 1;
}

void sym__pcache_add(sym_ctx *ctx, const sym_pkey *k, const char *text, size_t n)
{
	unsigned char tmpl[PCACHE_TEXT];
	size_t i, m = 0, j, len;
	struct sym_pcache *t;
	if (n > PCACHE_TEXT || pcache_find(ctx, k))
		return;
	/* the template: each name of k's symbols (a whole identifier) becomes
	 * the byte 1 + its number; the text has no control bytes */
	for (i = 0; i < n; i++) {
		if (ident_char(text[i]) && !(text[i] >= '0' && text[i] <= '9') &&
		    (i == 0 || !ident_char(text[i - 1]))) {
			for (len = 1; i + len < n && ident_char(text[i + len]); len++)
				;
			for (j = 0; j < k->nsym; j++)
				if (k->sym[j]->n == len && !memcmp(node_name(k->sym[j]), text + i, len))
					break;
			if (j < k->nsym) {
				tmpl[m++] = (unsigned char)(j + 1);
			} else {
				memcpy(tmpl + m, text + i, len);
				m += len;
			}
			i += len - 1;
			continue;
		}
		if ((unsigned char)text[i] <= SYM_PKEY_SYMS)
			return;
		tmpl[m++] = (unsigned char)text[i];
	}
	if (2 * (ctx->pcache_count + 1) > ctx->pcache_cap) {
		if (ctx->pcache_cap >= PCACHE_SLOTS)
			pcache_empty(ctx);
		else if (!pcache_grow(ctx))
			return;
	}
	for (j = k->hash & (ctx->pcache_cap - 1); ctx->pcache[j].hash; j = (j + 1) & (ctx->pcache_cap - 1))
		;
	t = &ctx->pcache[j];
	if (!(t->blob = ctx->alloc.realloc_fn(ctx->alloc.ud, NULL, 0, k->n + m)))
		return;
	memcpy(t->blob, k->k, k->n);
	memcpy(t->blob + k->n, tmpl, m);
	t->hash = k->hash;
	t->klen = (uint32_t)k->n;
	t->tlen = (uint32_t)m;
	ctx->pcache_count++;
}
