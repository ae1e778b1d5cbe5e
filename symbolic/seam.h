/* The seam between the expression core and the code above it.
 *
 * src/ and rules/ use the core through the public headers plus this one
 * header, never a struct layout of the core: the context's services
 * (allocation through its hook, the growth helper, errors), named
 * constants, the string builder and printing into it, bounds as
 * expressions, and the few facts services rules and inference need.
 * docs/architecture.md ("The seam") lists what is here and why.
 *
 * Lowering into runtime code (src/runtime/lower.c) and the model bindings
 * (src/runtime/bind.c) read nodes and fact stores through the functions of
 * the last section, never through a layout. */
#ifndef SYM_SEAM_H
#define SYM_SEAM_H

#include "symshape/expr.h"
#include "symshape/facts.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- memory: every allocation goes through the context's hook ------------ */

/* Memory through the context allocator; NULL with SYM_ENOMEM recorded when
 * it fails.  sym__free takes the size that was allocated. */
void *sym__alloc(sym_ctx *ctx, size_t n);
void *sym__realloc(sym_ctx *ctx, void *p, size_t old, size_t n);
void sym__free(sym_ctx *ctx, void *p, size_t n);

/* The growth helper of every growable array (Lua's luaM_growvector): makes
 * room for at least need elements of size elem in *p, whose capacity is
 * *cap, doubling from min; returns 0, or -1 with SYM_ENOMEM recorded (and
 * *p, *cap untouched) when memory runs out or the size overflows. */
int sym__grow(sym_ctx *ctx, void *p, size_t *cap, size_t need, size_t elem, size_t min);
/* sym__grow for an array variable: SYM_GROW(ctx, r->tensors, r->ntensors + 1,
 * r->captensors, 64).  The common case, room enough, costs no call (need
 * and cap are read twice: no side effects in them). */
#define SYM_GROW(ctx, arr, need, cap, min)                                                                   \
	((size_t)(need) <= (cap) ? 0                                                                         \
	                         : sym__grow((ctx), (void *)&(arr), &(cap), (need), sizeof(*(arr)), (min)))

/* Blocks carved from chunks owned by one holder (a model, an inference
 * session) and freed all at once with sym__carve_free: no call, header
 * or size record per block.  A zeroed sym_carver is empty. */
typedef struct sym_carver {
	struct sym_carve_chunk *chunks; /* the current chunk first */
	char *at;                       /* the current chunk's free bytes */
	size_t left, next;              /* their count; the size of the last chunk made */
} sym_carver;
/* Returns n bytes (16-byte aligned, not cleared) owned by c, or NULL with
 * SYM_ENOMEM recorded. */
void *sym__carve(sym_ctx *ctx, sym_carver *c, size_t n);
/* sym__carve with the n bytes cleared. */
void *sym__carve_zeroed(sym_ctx *ctx, sym_carver *c, size_t n);
/* Returns a copy of s owned by c, or NULL with SYM_ENOMEM recorded. */
char *sym__carve_strdup(sym_ctx *ctx, sym_carver *c, const char *s);
/* Frees every block of c and empties it. */
void sym__carve_free(sym_ctx *ctx, sym_carver *c);

/* ---- errors ------------------------------------------------------------------ */

/* Records an error unless one is already recorded; returns NULL.  Control
 * characters in the message are escaped, so every message is one line.
 * Recording never allocates (out of memory is recorded like any error); a
 * message over 4095 bytes is cut and ends in "...". */
const sym_expr *sym__error(sym_ctx *ctx, sym_status st, long pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Whether an error is recorded in ctx. */
int sym__failed(const sym_ctx *ctx);

/* ---- named constants ----------------------------------------------------- */

/* The context's own 0, 1, -1, true and false nodes (never NULL once the
 * context exists). */
const sym_expr *sym__zero(const sym_ctx *ctx);
const sym_expr *sym__one(const sym_ctx *ctx);
const sym_expr *sym__minus_one(const sym_ctx *ctx);
const sym_expr *sym__true(const sym_ctx *ctx);
const sym_expr *sym__false(const sym_ctx *ctx);
/* Whether the symbol called name already exists in the context. */
int sym__symbol_exists(const sym_ctx *ctx, const char *name);
/* Whether e is integer-valued for every integer assignment of its symbols. */
int sym__expr_is_int(const sym_expr *e);

/* ---- the string builder ------------------------------------------------------ */

/* A growable string allocated through the context, or, without one,
 * through a copy of an allocator hook (what a compiled program keeps): the
 * one string builder of the library.  Errors stick: after a failure every
 * append is a no-op and fail says why; with a context, out of memory is
 * also recorded there. */
typedef struct sym_sbuf {
	sym_ctx *ctx;       /* NULL: allocate through hook */
	sym_allocator hook; /* used when ctx is NULL */
	char *s;
	size_t n, cap;
	int fail;  /* 1 out of memory, 2 longer than SYM_MAX_TEXT_BYTES (count) */
	int count; /* count the bytes only, up to SYM_MAX_TEXT_BYTES */
} sym_sbuf;

void sym__sbuf_init(sym_sbuf *b, sym_ctx *ctx);
/* Starts a builder that allocates through (a copy of) the hook a, without
 * a context; sym__print needs a context and fails on such a builder. */
void sym__sbuf_init_hook(sym_sbuf *b, const sym_allocator *a);
void sym__sbuf_clear(sym_sbuf *b);
/* Hands the text over: a block of exactly strlen + 1 bytes from the
 * builder's allocator (so it is freed with that size), "" when nothing was
 * written; NULL (and the builder cleared) after a failure or when the
 * final block cannot be had.  The builder is empty afterwards. */
SYM_GIVE char *sym__sbuf_take(sym_sbuf *b);
void sym__sbuf_put(sym_sbuf *b, const char *s, size_t len);
void sym__sbuf_puts(sym_sbuf *b, const char *s);
/* Makes room for len more bytes and the NUL at once (a failure sticks as
 * in sym__sbuf_put). */
void sym__sbuf_reserve(sym_sbuf *b, size_t len);
/* Appends printf-formatted text of any length. */
void sym__sbuf_printf(sym_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sym__sbuf_vprintf(sym_sbuf *b, const char *fmt, va_list ap);
/* Appends the canonical text of e; returns 0 on failure.  A text longer than
 * SYM_MAX_TEXT_BYTES is a SYM_ELIMIT error recorded before anything is
 * written. */
int sym__print(sym_sbuf *b, const sym_expr *e);

/* ---- bounds and facts -------------------------------------------------------- */

/* Asks for huge pages (Linux's madvise(MADV_HUGEPAGE); advice only, no
 * error) for the 2 MiB-aligned part of the n bytes at p: the default
 * allocator does for its blocks of 4 MiB and more, the CLI's pool for its
 * regions. */
void sym__advise_huge(void *p, size_t n);

/* Keeps p among f's assumptions without working it into the store:
 * sym_facts_assume simplifies p under every fact first, to find the
 * relations in it, which for a disjunction over a min or max of many dims
 * costs hundreds of prover calls.  p then proves itself (sym_prove) and
 * filters witnesses, and gives the prover nothing else: fewer facts, so
 * never a wrong proof.  For the guard pruner, which assumes each
 * disjunction once per other guard. */
sym_status sym__facts_remember(sym_facts *f, const sym_expr *p);
/* The sum e[0] + ... + e[n-1], gathered and canonicalised once (n log n,
 * where adding one at a time rebuilds the sum n times); NULL with the
 * error recorded when one is NULL or on error. */
const sym_expr *sym__expr_sum(sym_ctx *ctx, size_t n, const sym_expr *const *e);
/* The interval bounds of a numeric e under f as constant nodes (*lo or *hi
 * NULL: unbounded that way).  Returns 0 on error (recorded in ctx); a
 * predicate or an expression without bounds gives 1 with both NULL. */
int sym__bounds_expr(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, const sym_expr **lo,
                     const sym_expr **hi);
/* Exempts s from the default minimum (a data-dependent dim may be 0 where
 * input dims are >= 1). */
sym_status sym__facts_exempt_default(sym_facts *f, const sym_expr *s);
/* The default minimum of f in *lo; returns 0 when f has none. */
int sym__facts_default_min(const sym_facts *f, int64_t *lo);
/* Makes every symbol of f a dim: at most SYM_DIM_MAX for the prover, the
 * simplifier and the bounds analysis (the printed bounds above and
 * sym__facts_symbol_range keep an open upper end open).  Whoever bounds
 * dims so must check the bound at run time. */
sym_status sym__facts_bound_dims(sym_facts *f);
/* Whether f bounds its symbols as dims. */
int sym__facts_dims_bounded(const sym_facts *f);

/* ---- reading nodes: what lowering into runtime code needs ------------------ */

/* Lowering walks nodes through these functions, never through the node
 * layout: sym_expr_kind, sym_expr_hash and sym_expr_symbol_name (public)
 * plus the operands below.  A boolean is sym__true or sym__false. */

/* The number of operands of e: the terms of a sum, the factors of a
 * product, the children of min, max, && and ||; 1 for floor, abs and a
 * relation (which compares its child with 0); 0 for a number, a symbol and
 * a boolean. */
size_t sym__expr_nargs(const sym_expr *e);
/* Operand i < sym__expr_nargs(e) of e: the monomial of term i of a sum,
 * the base of factor i of a product, child i otherwise. */
const sym_expr *sym__expr_arg(const sym_expr *e, size_t i);
/* The exponent (a nonzero integer) of factor i of the product e. */
int64_t sym__expr_factor_exp(const sym_expr *e, size_t i);
/* The number e as numerator *p and positive denominator *q; returns 1, or
 * 0 with SYM_EOVERFLOW ("constant V does not fit int64") recorded. */
int sym__expr_num_si(sym_ctx *ctx, const sym_expr *e, int64_t *p, int64_t *q);
/* The least common denominator of the constant and the coefficients of
 * the sum e in *L; returns 1, or 0 with SYM_EOVERFLOW recorded when it does
 * not fit int64. */
int sym__sum_denom_si(sym_ctx *ctx, const sym_expr *e, int64_t *L);
/* L times coefficient i of the sum e (0: its constant; i >= 1: the
 * coefficient of term i - 1), L a multiple of its denominator, in *k;
 * returns 1, or 0 with SYM_EOVERFLOW recorded when it does not fit int64. */
int sym__sum_coef_si(sym_ctx *ctx, const sym_expr *e, size_t i, int64_t L, int64_t *k);
/* The coefficient c of the symbol s where e = c*s + (terms without that
 * monomial) as a constant node in *coef: returns 1, 0 when s is no linear
 * term of e (*coef NULL), -1 on error (recorded). */
int sym__linear_coef(sym_ctx *ctx, const sym_expr *e, const sym_expr *s, const sym_expr **coef);
/* The range of the symbol s under f (its bounds and the default minimum)
 * as constant nodes (*lo or *hi NULL: unbounded that way); returns 0 on
 * error (recorded in ctx). */
int sym__facts_symbol_range(sym_ctx *ctx, const sym_facts *f, const sym_expr *s, const sym_expr **lo,
                            const sym_expr **hi);
/* The allocator hook of ctx, as a value to keep (a compiled program keeps
 * a copy to free its blocks and to emit). */
sym_allocator sym__ctx_allocator(const sym_ctx *ctx);

#endif
