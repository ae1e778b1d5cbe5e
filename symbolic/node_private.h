/* Node layout and context internals of the expression core. */
#ifndef SYM_NODE_PRIVATE_H
#define SYM_NODE_PRIVATE_H

#include "seam.h"
#include "symshape/expr.h"
#include "num.h"

#include <stdint.h>
#include <string.h>

/* Node flags. */
enum {
	SYM_F_INT = 1,     /* integer-valued for every integer assignment */
	SYM_F_PRED = 2,    /* a predicate */
	SYM_F_SMALL = 4,   /* a sum stored compactly (see the layout below) */
	SYM_F_SYMARGS = 8, /* a min or max of symbols only */
};

/* A term of a sum: coefficient times monomial (never a number or a sum). */
typedef struct sym_term {
	sym_num coef;
	const sym_expr *m;
} sym_term;

/* A factor of a product: base (an atom, or a normalised sum with a negative
 * exponent) to a nonzero integer power. */
typedef struct sym_factor {
	const sym_expr *base;
	int64_t exp;
} sym_factor;

/* The node header; the payload follows, 8-byte aligned:
 *   NUM   sym_num
 *   SYM   n name bytes plus NUL, padded to 8 bytes, then its order key
 *         (sym__name_key)
 *   ADD   sym_num constant, then n sym_term; or, flagged SYM_F_SMALL when
 *         the constant and every coefficient are integers in [-128, 127]
 *         (one layout per value, chosen when the node is interned): n
 *         monomial pointers, then the constant and the n coefficients as
 *         int8_t, 9 bytes a term instead of 24
 *   MUL   n sym_factor
 *   FLOOR, ABS, EQ, NE, LE, LT (compared with 0): one child
 *   MIN, MAX: n children, then their key (sym__minmax_key)
 *   AND, OR: n children
 *   BOOL  aux is the value */
struct sym_expr {
	uint8_t kind;
	uint8_t flags;
	uint16_t depth;
	uint32_t n;
	int32_t degree; /* total degree for term ordering */
	uint32_t hash;  /* structural: equal across contexts and runs */
};

#define SYM_MAX_DEPTH 2000

/* The arguments from which the text of a min or max of symbols is kept
 * by the context, and the bytes all its texts may take. */
#define SYM_PTEXT_MIN_ARGS 16
#define SYM_PTEXT_MAX_BYTES ((size_t)32 << 20)

/* Slots of the context's memo of monomial products (a power of two). */
#define SYM_MONO_MEMO 512

/* The integers whose number nodes the context keeps at hand. */
#define SYM_SMALL_INT_MIN (-128)
#define SYM_SMALL_INT_MAX 1023

/* The bytes of the context's error message, with its NUL: a message that
 * is longer is cut and ends in "..." (the one documented cut of a message,
 * docs/memory-and-errors.md). */
#define SYM_ERR_MSG_BYTES 4096

#define NODE_PAYLOAD(e) ((void *)((char *)(e) + sizeof(struct sym_expr)))
/* A symbol's order key: the first 7 bytes of an encoding of its name whose
 * byte order is sym__name_cmp's (a digit run becomes its digit count, then
 * its digits without leading zeros), above the count of leading bytes
 * that are exact. */
uint64_t sym__name_key(const char *name);
static inline uint64_t node_name_key(const sym_expr *e)
{
	uint64_t k;
	memcpy(&k, (const char *)NODE_PAYLOAD(e) + ((e->n + 8) & ~(size_t)7), sizeof(k));
	return k;
}
/* Compares two symbols by their keys: -1 or 1, or 0 when the keys cannot
 * tell (sym__name_cmp then decides). */
static inline int sym__name_key_cmp(uint64_t a, uint64_t b)
{
	uint64_t x = (a ^ b) >> 8;
	int at;
	if (!x)
		return 0;
	at = (__builtin_clzll(x) - 8) / 8; /* the first byte that differs */
	if (at >= (int)(a & 0xff) || at >= (int)(b & 0xff))
		return 0;
	return a < b ? -1 : 1;
}

static inline const sym_num *node_num(const sym_expr *e)
{
	return (const sym_num *)NODE_PAYLOAD(e);
}
static inline const char *node_name(const sym_expr *e)
{
	return (const char *)NODE_PAYLOAD(e);
}
/* The sym_num of every int8_t value v, at sym__small_nums[v + 128]: what
 * a compact sum's constant and coefficients read as. */
extern const sym_num sym__small_nums[256];

static inline const sym_expr *const *node_small_monos(const sym_expr *e)
{
	return (const sym_expr *const *)NODE_PAYLOAD(e);
}
/* A compact sum's constant at [0], then its coefficients. */
static inline const int8_t *node_small_coefs(const sym_expr *e)
{
	return (const int8_t *)(node_small_monos(e) + e->n);
}
static inline const sym_num *node_add_const(const sym_expr *e)
{
	if (e->flags & SYM_F_SMALL)
		return &sym__small_nums[node_small_coefs(e)[0] + 128];
	return (const sym_num *)NODE_PAYLOAD(e);
}
/* Term i of sum e: its coefficient and its monomial. */
static inline const sym_num *node_coef(const sym_expr *e, size_t i)
{
	if (e->flags & SYM_F_SMALL)
		return &sym__small_nums[node_small_coefs(e)[i + 1] + 128];
	return &((const sym_term *)((const char *)NODE_PAYLOAD(e) + sizeof(sym_num)))[i].coef;
}
static inline const sym_expr *node_mono(const sym_expr *e, size_t i)
{
	if (e->flags & SYM_F_SMALL)
		return node_small_monos(e)[i];
	return ((const sym_term *)((const char *)NODE_PAYLOAD(e) + sizeof(sym_num)))[i].m;
}
/* Term i of sum e as a sym_term with a borrowed coefficient. */
static inline sym_term node_term(const sym_expr *e, size_t i)
{
	sym_term t;
	t.coef = *node_coef(e, i);
	t.m = node_mono(e, i);
	return t;
}
static inline const sym_factor *node_factors(const sym_expr *e)
{
	return (const sym_factor *)NODE_PAYLOAD(e);
}
static inline const sym_expr *const *node_kids(const sym_expr *e)
{
	return (const sym_expr *const *)NODE_PAYLOAD(e);
}
static inline const sym_expr *node_kid(const sym_expr *e)
{
	return node_kids(e)[0];
}

/* A min or max under the sum of its arguments' mixed hashes: one that
 * extends another by an argument has that argument's share more, which
 * caches of min and max results (simplify.c, analysis.c) look up. */
static inline uint64_t sym__arg_mix(const sym_expr *a)
{
	uint64_t x = a->hash + 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The key of min or max e: its kind plus its arguments' shares, made
 * when the node is (stored after its children). */
static inline uint64_t sym__minmax_key(const sym_expr *e)
{
	uint64_t k;
	memcpy(&k, node_kids(e) + e->n, sizeof(k));
	return k;
}

/* The argument a lookup of the min or max that e extends tries k-th
 * (k < n): the last first, since a chain that grows a min or max by fresh
 * dims adds them after the others, then the rest in order. */
static inline size_t sym__minmax_probe_at(size_t n, size_t k)
{
	return k == 0 ? n - 1 : k - 1;
}

/* Whether M's arguments are e's without its argument at (M of e's kind). */
static inline int sym__minmax_is_without(const sym_expr *M, const sym_expr *e, size_t at)
{
	size_t i, t = 0;
	if (M->kind != e->kind || M->n + 1 != e->n)
		return 0;
	for (i = 0; i < e->n; i++)
		if (i != at && node_kids(M)[t++] != node_kids(e)[i])
			return 0;
	return 1;
}
static inline int node_is_rel(const sym_expr *e)
{
	return e->kind >= SYM_KIND_EQ && e->kind <= SYM_KIND_LT;
}

/* Arena chunk. */
typedef struct sym_chunk {
	struct sym_chunk *next;
	size_t size, used;
} sym_chunk;

/* A big number owned by the context (cleared when the context is freed). */
typedef struct sym_bigref {
	struct sym_bigref *next;
	sym_num *num;
} sym_bigref;

/* The hash-cons table: open addressing with a control byte per slot
 * beside the slots (SwissTable's layout): 0 for an empty slot, else 0x80
 * and the top seven bits of the node's hash.  A probe reads the control
 * bytes, an eighth of the table, and reads a slot and its node only when
 * the tags agree: a lookup that makes a new node (most of them) reads no
 * slot at all, and once the nodes outgrow the cache, the control bytes
 * stay in it far longer than the slots. */
struct sym_ctx {
	sym_allocator alloc;
	sym_chunk *chunks;
	size_t node_bytes, nnodes;
	const sym_expr **table; /* open addressing, power-of-two capacity */
	uint8_t *ctrl;          /* its control bytes, in the same block after the slots */
	size_t cap, count;
	sym_bigref *bigs;
	/* first error */
	sym_status err;
	long err_pos;
	/* bounded but large (docs/memory-and-errors.md): recording an error
	 * never allocates, so out of memory is always recorded cleanly; a
	 * longer message ends in "..." */
	char err_msg[SYM_ERR_MSG_BYTES];
	/* scratch buffer for building candidate nodes */
	void *scratch;
	size_t scratch_cap;
	const sym_expr *zero, *one, *minus_one, *btrue, *bfalse;
	/* the number nodes of SYM_SMALL_INT_MIN..SYM_SMALL_INT_MAX, filled as
	 * they are first made */
	const sym_expr *small_ints[SYM_SMALL_INT_MAX - SYM_SMALL_INT_MIN + 1];
	/* recent products of two monomials (sym__mono_mul), direct-mapped by
	 * the operands' hashes: a pure function of interned nodes */
	struct {
		const sym_expr *a, *b, *r;
	} mono_memo[SYM_MONO_MEMO];
	/* texts of printed long min/max of symbols (print.c): the same dims
	 * print in a tensor's shape, bytes, guards and merge key; open
	 * addressing by node, emptied when the texts pass SYM_PTEXT_MAX_BYTES */
	struct sym_ptext {
		const sym_expr *e;
		char *s;
		size_t n;
	} * ptext;
	size_t ptext_cap, ptext_count, ptext_bytes;
	/* the texts the printer chose for small roots, by their pattern: the
	 * root with its symbols numbered (print_cache.c) */
	struct sym_pcache *pcache;
	size_t pcache_cap, pcache_count;
	/* recent integer multiples k*m of monomials (sym__scale), likewise */
	struct {
		int64_t k;
		const sym_expr *m, *r;
	} scale_memo[SYM_MONO_MEMO];
};

/* sym__alloc, sym__realloc, sym__free, sym__grow, sym__error: seam.h. */

/* Rewrites the control characters of the message s (a buffer of size
 * bytes, at most the size of the context's message) as \xNN escapes, so
 * that every recorded message is one line whatever text it quotes. */
void sym__escape_controls(char *s, size_t size);

/* Inside the core, sym__failed (seam.h) reads the context directly. */
#define sym__failed(ctx) ((ctx)->err != SYM_EOK)

/* Interns the candidate node: header fields kind, flags, n, degree, depth
 * set; payload of the given size.  Hash is computed here. Returns the
 * canonical node or NULL. */
const sym_expr *sym__intern(sym_ctx *ctx, const struct sym_expr *hdr, const void *payload, size_t size);

/* sym__intern of the sum of constant c and the n sorted, distinct,
 * nonzero terms t, read where they are. */
const sym_expr *sym__intern_sum(sym_ctx *ctx, const sym_num *c, const sym_term *t, size_t n);

/* sym__intern of the min or max like base (a min or max of symbols, the
 * kind and flags of the result) of the m sorted, distinct symbols v, whose
 * key (sym__minmax_key) is key: the node's properties are base's, so only
 * its hash passes over v. */
const sym_expr *sym__intern_symbol_minmax(sym_ctx *ctx, const sym_expr *base, const sym_expr *const *v,
                                          size_t m, uint64_t key);

/* Frees the texts of min and max the printer keeps in ctx (print.c). */
void sym__ptext_free(sym_ctx *ctx);
/* Frees the printer's spelling cache (print_cache.c). */
void sym__pcache_free(sym_ctx *ctx);

/* Whether the symbol called name already exists in the context. */
int sym__symbol_exists(const sym_ctx *ctx, const char *name);

/* Leaf constructors. */
const sym_expr *sym__num_node(sym_ctx *ctx, const sym_num *v);
const sym_expr *sym__num_node_si(sym_ctx *ctx, int64_t v);

/* Canonical order (order.c). */
int sym__cmp_full(const sym_expr *a, const sym_expr *b);
/* The structural order: two symbols by their order keys inline, the rest
 * (and symbols the keys cannot tell) by sym__cmp_full. */
static inline int sym__cmp(const sym_expr *a, const sym_expr *b)
{
	if (a == b)
		return 0;
	if (a->kind == SYM_KIND_SYM && b->kind == SYM_KIND_SYM) {
		int c = sym__name_key_cmp(node_name_key(a), node_name_key(b));
		if (c)
			return c;
	}
	return sym__cmp_full(a, b);
}
/* sym__cmp on two const sym_expr * array elements, for qsort. */
int sym__cmp_q(const void *a, const void *b);
/* The order of a sum's terms: higher degree first, then sym__cmp. */
static inline int sym__term_cmp(const sym_expr *a, const sym_expr *b)
{
	if (a == b)
		return 0;
	if (a->degree != b->degree)
		return a->degree > b->degree ? -1 : 1;
	return sym__cmp(a, b);
}
int sym__name_cmp(const char *a, const char *b);

/* Linear view of any numeric node: constant + terms, without allocation.
 * Read term i with sym__lin_coef and sym__lin_mono: the terms are either
 * an array of sym_term (tf) or a compact sum's monomials and int8_t
 * coefficients (tm, tk). */
typedef struct sym_lin {
	const sym_num *c;
	const sym_term *tf;
	const sym_expr *const *tm;
	const int8_t *tk;
	size_t n;
	sym_term one; /* storage when the node is a single monomial */
	sym_num zero;
} sym_lin;
static inline const sym_num *sym__lin_coef(const sym_lin *v, size_t i)
{
	return v->tf ? &v->tf[i].coef : &sym__small_nums[v->tk[i] + 128];
}
static inline const sym_expr *sym__lin_mono(const sym_lin *v, size_t i)
{
	return v->tf ? v->tf[i].m : v->tm[i];
}
/* Term i as a sym_term whose coefficient is borrowed (never cleared). */
static inline sym_term sym__lin_term(const sym_lin *v, size_t i)
{
	sym_term t;
	t.coef = *sym__lin_coef(v, i);
	t.m = sym__lin_mono(v, i);
	return t;
}
void sym__lin_view(const sym_expr *e, sym_lin *v);
/* Sets d to the lcm of the denominators of the term coefficients and of
 * the constant: d*e has integer coefficients. */
void sym__lin_denom(const sym_lin *v, sym_num *d);
/* Whether every monomial of v is integer-valued (v is then an
 * integer-valued expression over a constant denominator). */
int sym__lin_int_monos(const sym_lin *v);
/* Checks that e is a number (not a predicate) and that no error is
 * recorded; records the error otherwise. */
int sym__check_num(sym_ctx *ctx, const sym_expr *e);

/* Sum construction (add.c). */
#define SYM_SUMB_INLINE 16

typedef struct sym_sumb {
	sym_ctx *ctx;
	sym_num c;
	sym_term *t;
	size_t n, cap;
	int sorted;
	sym_term inl[SYM_SUMB_INLINE]; /* terms before the first allocation */
} sym_sumb;
void sym__sumb_init(sym_sumb *b, sym_ctx *ctx);
void sym__sumb_clear(sym_sumb *b);
/* Adds k * e (k NULL means 1). */
int sym__sumb_add(sym_sumb *b, const sym_num *k, const sym_expr *e);
int sym__sumb_add_term(sym_sumb *b, const sym_num *k, const sym_expr *m);
const sym_expr *sym__sumb_finish(sym_sumb *b);
const sym_expr *sym__scale(sym_ctx *ctx, const sym_num *k, const sym_expr *e);
const sym_expr *sym__add_num(sym_ctx *ctx, const sym_expr *e, const sym_num *k);

/* Products (mul.c). */
const sym_expr *sym__monomial(sym_ctx *ctx, const sym_factor *f, size_t n);
const sym_expr *sym__mono_mul(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
/* Whether e is a product of atoms (no number, sum or predicate; no sum as a
 * factor): what sym__mul_list multiplies in one sort. */
int sym__mul_gatherable(const sym_expr *e);
/* The product ops[0]*ops[1]*...*ops[n-1], equal to multiplying left to
 * right; products of atoms are merged in one sort (n log n), without the
 * intermediate products.  NULL on error. */
const sym_expr *sym__mul_list(sym_ctx *ctx, size_t n, const sym_expr *const *ops);

/* Properties. */
int sym__floor_is_plain(const sym_expr *a, const sym_num *D);
static inline int sym__is_int(const sym_expr *e)
{
	return (e->flags & SYM_F_INT) != 0;
}

#define SYM_MAX_TERMS 2000000
/* The largest number a node or an evaluation may hold: 2**20 bits, about
 * 315,000 decimal digits, so that every number prints within
 * SYM_MAX_TEXT_BYTES and one exact evaluation of a short text stays within
 * milliseconds (a shape never needs more). */
#define SYM_MAX_BITS (1UL << 20)

#endif
