/* symshape: exact symbolic shape expressions.
 *
 * Every expression lives in a context (sym_ctx) that owns it.  Expressions are
 * immutable and hash-consed: two expressions with the same canonical form are
 * the same pointer, so equality of canonical forms is pointer comparison.
 * Functions that can fail return NULL (or SYM_ERROR) and record the first error
 * in the context; a NULL operand gives a NULL result without overwriting that
 * first error, so a nest of constructors needs one check at the end. */
#ifndef SYMSHAPE_EXPR_H
#define SYMSHAPE_EXPR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SYM_API
#elif defined(__GNUC__)
#define SYM_API __attribute__((visibility("default")))
#else
#define SYM_API
#endif

/* Ownership annotations (empty): SYM_GIVE the caller frees the result,
 * SYM_TAKE the callee consumes the argument even on failure, SYM_KEEP
 * borrowed. */
#define SYM_GIVE
#define SYM_TAKE
#define SYM_KEEP

typedef struct sym_ctx sym_ctx;
typedef struct sym_expr sym_expr;

/* Status codes with their messages, generated from one list: the errors a
 * context records and the outcomes of running a program (sym_program_run,
 * sym_model_program_run): SYM_EOK, SYM_EGUARD (a guard failed), SYM_EINPUT
 * (the input dims contradict the declared shapes or the symbols' ranges),
 * SYM_EOVERFLOW, SYM_EDIVZERO, SYM_EINEXACT (a value is not an integer),
 * SYM_ENOMEM.  New codes are appended: the values are stable. */
#define SYM_STATUS_MAP(X)                                                                                    \
	X(OK, "no error")                                                                                    \
	X(NOMEM, "out of memory")                                                                            \
	X(SYNTAX, "syntax error")                                                                            \
	X(DOMAIN, "invalid operand")                                                                         \
	X(DIVZERO, "division by zero")                                                                       \
	X(UNBOUND, "unbound symbol")                                                                         \
	X(LIMIT, "limit exceeded")                                                                           \
	X(OVERFLOW, "overflow")                                                                              \
	X(CONTRADICTION, "contradicting assumptions")                                                        \
	X(MISUSE, "invalid use of the API")                                                                  \
	X(GUARD, "a guard failed")                                                                           \
	X(INPUT, "invalid input dims")                                                                       \
	X(INEXACT, "inexact value")

typedef enum sym_status {
#define SYM__STATUS_ENUM(name, msg) SYM_E##name,
	SYM_STATUS_MAP(SYM__STATUS_ENUM)
#undef SYM__STATUS_ENUM
} sym_status;

/* Three-valued truth with an error state, returned by predicates. */
typedef enum sym_truth { SYM_FALSE = 0, SYM_TRUE = 1, SYM_UNKNOWN = 2, SYM_ERROR = -1 } sym_truth;

/* Node kinds of the canonical form, generated from one list. */
#define SYM_KIND_MAP(X)                                                                                      \
	X(NUM, "num")                                                                                        \
	X(SYM, "sym")                                                                                        \
	X(ADD, "add")                                                                                        \
	X(MUL, "mul")                                                                                        \
	X(FLOOR, "floor")                                                                                    \
	X(ABS, "abs")                                                                                        \
	X(MIN, "min")                                                                                        \
	X(MAX, "max")                                                                                        \
	X(BOOL, "bool")                                                                                      \
	X(EQ, "eq")                                                                                          \
	X(NE, "ne")                                                                                          \
	X(LE, "le")                                                                                          \
	X(LT, "lt")                                                                                          \
	X(AND, "and")                                                                                        \
	X(OR, "or")

typedef enum sym_kind {
#define SYM__KIND_ENUM(name, str) SYM_KIND_##name,
	SYM_KIND_MAP(SYM__KIND_ENUM)
#undef SYM__KIND_ENUM
} sym_kind;

/* Relation operators accepted by sym_expr_rel. */
typedef enum sym_relop { SYM_REL_EQ, SYM_REL_NE, SYM_REL_LT, SYM_REL_LE, SYM_REL_GT, SYM_REL_GE } sym_relop;

/* Optional allocator for a context: every allocation of the context (nodes,
 * tables, strings, compiled programs) goes through it.  realloc_fn(ud, NULL, 0, n) allocates and
 * realloc_fn(ud, p, old, 0) frees.  GMP's own limb allocations are not routed
 * here (that would need process-global hooks). */
typedef struct sym_allocator {
	void *(*realloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);
	void *ud;
} sym_allocator;

/* Returns a new empty context, or NULL when memory runs out.  Free it with
 * sym_ctx_free. */
SYM_API SYM_GIVE sym_ctx *sym_ctx_new(void);
/* Same as sym_ctx_new with a caller allocator (copied; must outlive the
 * context and every program compiled in it, which keep a copy).  NULL
 * alloc means the C library allocator. */
SYM_API SYM_GIVE sym_ctx *sym_ctx_new_with_allocator(const sym_allocator *alloc);
/* Frees the context and every expression and string it owns. */
SYM_API void sym_ctx_free(SYM_TAKE sym_ctx *ctx);

/* Returns the first recorded error (SYM_EOK when none). */
SYM_API sym_status sym_ctx_last_error(const sym_ctx *ctx);
/* Returns the message of the first recorded error; "no error" when none.
 * The string is owned by the context and valid until the next reset. */
SYM_API const char *sym_ctx_last_message(const sym_ctx *ctx);
/* Returns the byte offset in the parsed text of the first error, or -1 when
 * the error has no position. */
SYM_API long sym_ctx_last_position(const sym_ctx *ctx);
/* Clears the recorded error so the context can be used after a failure. */
SYM_API void sym_ctx_clear_error(sym_ctx *ctx);
/* Returns the fixed message for a status code. */
SYM_API const char *sym_status_message(sym_status st);
/* Returns the number of distinct nodes in the context and, when bytes is
 * non-NULL, the bytes they occupy (node storage, not tables). */
SYM_API size_t sym_ctx_node_count(const sym_ctx *ctx, size_t *bytes);

/* Constructors.  Each returns the canonical node, owned by the context, or
 * NULL on error (recorded in ctx).  NULL operands give NULL. */
SYM_API const sym_expr *sym_expr_from_si(sym_ctx *ctx, long long v);
/* Returns the rational p/q; q == 0 is a division-by-zero error. */
SYM_API const sym_expr *sym_expr_from_frac(sym_ctx *ctx, long long p, long long q);
/* Returns the integer written in decimal (optional sign), of any size. */
SYM_API const sym_expr *sym_expr_from_dec(sym_ctx *ctx, const char *digits);
/* Returns the integer symbol called name ([A-Za-z_][A-Za-z0-9_]*). */
SYM_API const sym_expr *sym_expr_symbol(sym_ctx *ctx, const char *name);
SYM_API const sym_expr *sym_expr_add(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
SYM_API const sym_expr *sym_expr_sub(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
SYM_API const sym_expr *sym_expr_neg(sym_ctx *ctx, const sym_expr *a);
SYM_API const sym_expr *sym_expr_mul(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
/* Exact rational division; dividing by the constant 0 is an error. */
SYM_API const sym_expr *sym_expr_div(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
/* Floor division floor(a / b) (Python's //). */
SYM_API const sym_expr *sym_expr_floordiv(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
/* Floor modulo a - b*floor(a/b) (Python's %); the sign follows b. */
SYM_API const sym_expr *sym_expr_mod(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
/* Returns a**n for an integer n; 0**negative is a division by zero. */
SYM_API const sym_expr *sym_expr_pow_si(sym_ctx *ctx, const sym_expr *a, long long n);
SYM_API const sym_expr *sym_expr_floor(sym_ctx *ctx, const sym_expr *a);
SYM_API const sym_expr *sym_expr_ceil(sym_ctx *ctx, const sym_expr *a);
SYM_API const sym_expr *sym_expr_abs(sym_ctx *ctx, const sym_expr *a);
/* n-ary min and max; n must be at least 1. */
SYM_API const sym_expr *sym_expr_min(sym_ctx *ctx, size_t n, const sym_expr *const *args);
SYM_API const sym_expr *sym_expr_max(sym_ctx *ctx, size_t n, const sym_expr *const *args);

/* Predicates: relations between numeric expressions and connectives. */
SYM_API const sym_expr *sym_expr_bool(sym_ctx *ctx, int value);
SYM_API const sym_expr *sym_expr_rel(sym_ctx *ctx, sym_relop op, const sym_expr *a, const sym_expr *b);
SYM_API const sym_expr *sym_expr_and(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
SYM_API const sym_expr *sym_expr_or(sym_ctx *ctx, const sym_expr *a, const sym_expr *b);
SYM_API const sym_expr *sym_expr_not(sym_ctx *ctx, const sym_expr *a);

/* Inspection. */
SYM_API sym_kind sym_expr_kind(const sym_expr *e);
/* Returns nonzero when e is a predicate (bool, relation or connective). */
SYM_API int sym_expr_is_pred(const sym_expr *e);
/* Returns nonzero when e is a numeric constant; stores it in *out when it is
 * an integer that fits a long long, returning 1, or returns 2 when it is a
 * constant that does not fit (or is not an integer). */
SYM_API int sym_expr_get_si(const sym_expr *e, long long *out);
/* Returns the symbol's name, or NULL when e is not a symbol. */
SYM_API const char *sym_expr_symbol_name(const sym_expr *e);
/* Returns a structural hash of e, equal across contexts and runs. */
SYM_API uint64_t sym_expr_hash(const sym_expr *e);
/* Total structural order (-1, 0, 1) of canonical forms, independent of
 * construction order and addresses. */
SYM_API int sym_expr_cmp(const sym_expr *a, const sym_expr *b);
/* Collects the distinct symbols of e in canonical order into out (up to cap
 * entries) and returns how many there are. */
SYM_API size_t sym_expr_symbols(sym_ctx *ctx, const sym_expr *e, const sym_expr **out, size_t cap);

/* Text.  sym_expr_from_str parses the expression syntax (SPEC §5); on error it
 * returns NULL with the byte position in sym_ctx_last_position. */
SYM_API const sym_expr *sym_expr_from_str(sym_ctx *ctx, const char *text);
/* Parses text with the symbols names[i] replaced by the numeric expressions
 * vals[i] as they are read, so every operation is evaluated as written: a
 * division by something that is zero at the point is an error even where
 * the canonical form of the symbolic text would cancel it (x//x). */
SYM_API const sym_expr *sym_expr_from_str_subst(sym_ctx *ctx, const char *text, size_t n,
                                                const char *const *names, const sym_expr *const *vals);
/* The longest text the printer writes, in bytes (without the NUL), and the
 * most nodes (objects) of a tree written by sym_expr_to_json: both write a
 * shared subexpression at each of its uses. */
#define SYM_MAX_TEXT_BYTES ((size_t)1 << 20)
#define SYM_MAX_JSON_NODES ((size_t)1 << 16)
/* The largest dim: every shape symbol of a model's inference (and of a rules
 * session over its own facts) is at most 2**62, and a compiled model program
 * rejects a larger dim as invalid input.  No tensor has such a dim (its
 * elements could not be addressed), and the bound lets the sentinels of
 * exporters (a Slice end of -9223372036854775807) fold away exactly.  Plain
 * symbols of a fact store are unbounded. */
#define SYM_DIM_MAX INT64_C(4611686018427387904)

/* Returns the canonical text of e (re-parses to the same pointer), allocated
 * with the context allocator; free it with sym_str_free.  A text longer than
 * SYM_MAX_TEXT_BYTES is an error (SYM_ELIMIT), found before it is written. */
SYM_API SYM_GIVE char *sym_expr_to_str(sym_ctx *ctx, const sym_expr *e);
SYM_API void sym_str_free(sym_ctx *ctx, SYM_TAKE char *s);

/* Evaluation.  Substitutes the integer values vals[i] for the symbols
 * syms[i] and returns the canonical result: a constant when every symbol is
 * bound.  Division by zero is an error (SYM_EDIVZERO). */
SYM_API const sym_expr *sym_expr_eval_si(sym_ctx *ctx, const sym_expr *e, size_t n,
                                         const sym_expr *const *syms, const long long *vals);
/* Substitutes the expressions by[i] for the symbols syms[i] (simultaneously)
 * and returns the canonical result. */
SYM_API const sym_expr *sym_expr_subst(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms,
                                       const sym_expr *const *by);

#ifdef __cplusplus
}
#endif
#endif
