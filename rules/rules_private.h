/* The rule context: what an InferShape rule sees and may do.  A rule sees
 * its inputs, attributes and outputs (values.h) and the helpers below; the
 * session it runs in (session.h) is opaque here. */
#ifndef SYM_RULES_PRIVATE_H
#define SYM_RULES_PRIVATE_H

#include "values.h"

#include <stdint.h>

typedef struct sym_infer sym_infer; /* the session, session.h */

typedef struct sym_rule_ctx {
	sym_ctx *ctx;
	sym_infer *inf; /* opaque to rules: reached through the helpers below */
	const char *node, *op, *domain;
	int opset;
	size_t nin;
	const sym_tval *in;
	size_t nattr;
	const sym_attr *attrs;
	size_t nout;
	sym_tval *out; /* preset: present = 1, rank = -1, dtype = UNDEFINED */
} sym_rule_ctx;

typedef int (*sym_rule_fn)(sym_rule_ctx *rc);

/* One registry entry: operator name, domain ("" for ONNX, "cann",
 * "com.microsoft"), rule. */
typedef struct sym_rule_entry {
	const char *name;
	const char *domain;
	sym_rule_fn fn;
	unsigned flags;
} sym_rule_entry;

enum {
	SYM_RULE_ANY_DOMAIN = 1, /* an ONNX or CANN rule also found under the other of the two */
	/* the rule reads bool values with predicate elements (it moves them,
	 * or computes with them as truths); others see such a value unknown */
	SYM_RULE_PREDICATES = 2
};

/* Registry lookup; NULL when unknown.  A scan of every entry: the rule
 * session looks up through its index (session.h) instead. */
const sym_rule_entry *sym__rule_find(const char *domain, const char *name);
/* Iterates the registry: returns entry i, or NULL past the end. */
const sym_rule_entry *sym__rule_at(size_t i);
/* The oldest opset whose version of the ONNX operator name its rule reads
 * (1 for other domains); older opsets are an error. */
int sym__rule_since(const char *domain, const char *name);

/* ---- helpers for rule authors (rules/context.c) --------------------------
 * Every function returning int gives 0 on success and -1 on error, with a
 * message naming the node and the operator recorded in the context. */
int sym__rc_error(sym_rule_ctx *rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The printf-formatted text (a guard's reason, say) in session memory, of
 * any length; NULL with SYM_ENOMEM recorded. */
const char *sym__rc_text(sym_rule_ctx *rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline sym_ctx *sym__rc_ctx(const sym_rule_ctx *rc)
{
	return rc->ctx;
}
/* Zeroed memory for what a rule hands to the setters or keeps while it
 * runs, owned by the session; NULL with SYM_ENOMEM recorded. */
void *sym__rc_alloc(sym_rule_ctx *rc, size_t n);

/* Attributes: the default applies when the attribute is absent; a present
 * attribute of the wrong type is an error. */
int sym__rc_attr_int(sym_rule_ctx *rc, const char *name, int64_t def, int64_t *out);
int sym__rc_attr_float(sym_rule_ctx *rc, const char *name, double def, double *out);
int sym__rc_attr_string(sym_rule_ctx *rc, const char *name, const char *def, const char **out);
/* Returns 1 when present (n, v set), 0 when absent, -1 on a type error. */
int sym__rc_attr_ints(sym_rule_ctx *rc, const char *name, size_t *n, const int64_t **v);
int sym__rc_attr_floats(sym_rule_ctx *rc, const char *name, size_t *n, const double **v);
const sym_attr *sym__rc_attr(const sym_rule_ctx *rc, const char *name);
/* A required int attribute of at least 1 (an error naming it otherwise). */
int sym__rc_attr_pos(sym_rule_ctx *rc, const char *name, int64_t *out);

/* Input i, or NULL when it is absent (past the end or omitted). */
const sym_tval *sym__rc_in(const sym_rule_ctx *rc, size_t i);
/* Input i must be present: returns it, or NULL with an error. */
const sym_tval *sym__rc_need(sym_rule_ctx *rc, size_t i);
/* Input i must have a known rank (error "needs a known rank" otherwise). */
const sym_tval *sym__rc_need_rank(sym_rule_ctx *rc, size_t i);
/* The symbolic value of input i (integer tensor); error when unknown:
 * "the value of input i must be known (a constant or a shape computation)". */
int sym__rc_in_value(sym_rule_ctx *rc, size_t i, size_t *n, const sym_expr *const **v);
/* The value as int64 constants; error when an element is symbolic. */
int sym__rc_in_ints(sym_rule_ctx *rc, size_t i, size_t *n, int64_t **v);

/* The axes of a node: from input `in` when the node carries it (opsets that
 * moved them to an input), else the 'axes' attribute.  Returns 1 with n, v
 * set, 0 when there are none, -1 on error. */
int sym__rc_axes(sym_rule_ctx *rc, size_t in, size_t *n, const int64_t **v);
/* Normalises axes against rank into mask (rank bytes); a repeated axis is
 * an error. */
int sym__rc_axes_mask(sym_rule_ctx *rc, size_t n, const int64_t *v, int rank, char *mask);

/* Outputs (copied into the session). */
int sym__rc_set_shape(sym_rule_ctx *rc, size_t i, int rank, const sym_expr *const *dims);
int sym__rc_set_unknown_rank(sym_rule_ctx *rc, size_t i);
int sym__rc_set_dtype(sym_rule_ctx *rc, size_t i, int dtype);
/* Output i with rank n and dtype, when the node has an output i (0 and
 * nothing set otherwise: an optional output the node leaves out). */
int sym__rc_set_out(sym_rule_ctx *rc, size_t i, int n, const sym_expr *const *d, int dtype);
int sym__rc_set_value(sym_rule_ctx *rc, size_t i, size_t n, const sym_expr *const *v);
/* Whether t is a bool value with a predicate element (only bool values
 * hold predicates: rules/context.c drops any other). */
int sym__rc_has_predicates(const sym_tval *t);
/* ---- values of any rank (rules/values.c) ---------------------------------
 * A value's elements are row-major over the tensor's dims; rules that move
 * elements (Reshape, Slice, Transpose, Concat, Gather, ...) move their
 * float rounding records (fmeta) with them through these helpers. */
/* Stores the dims of t in dims[] when t has a value laid out over constant
 * dims (rank <= cap, nvalue the product); returns 1 then, 0 otherwise. */
int sym__rc_value_dims(const sym_tval *t, long long *dims, int cap, long long *numel);
/* The constant dims of a result (rank <= SYM_RC_VALUE_RANK, at most
 * SYM_RC_VALUE_LIMIT elements): 1 with dims and numel set, 0 otherwise. */
int sym__rc_out_layout(const sym_tval *o, long long *dims, long long *numel);
/* For each of the on elements of a result of rank orank and dims odims,
 * the index of the element of x it reads under numpy broadcasting (x's
 * dims right-aligned, a dim 1 repeated), in a new array *map: returns 1,
 * 0 when x has no value or its dims do not broadcast, -1 on error. */
int sym__rc_bcast_map(sym_rule_ctx *rc, const sym_tval *x, int orank, const long long *odims, long long on,
                      size_t **map);
/* The rounding record of element i of t (exact when t has none). */
sym_fmeta sym__rc_fmeta_at(const sym_tval *t, size_t i);
/* Output i takes x's value and records unchanged. */
int sym__rc_pass_value(sym_rule_ctx *rc, size_t i, const sym_tval *x);
/* Output i takes the n elements x[idx[k]] (with their records). */
int sym__rc_pick_value(sym_rule_ctx *rc, size_t i, const sym_tval *x, size_t n, const size_t *idx);
/* Output i takes n elements with their records (m NULL: every element
 * exact, which the caller vouches for). */
int sym__rc_set_fvalue(sym_rule_ctx *rc, size_t i, size_t n, const sym_expr *const *v, const sym_fmeta *m);
/* 1 when every element of t's value is computed exactly at run time (the
 * conditions that needs become expect guards), 0 when some is rounded,
 * -1 on error. */
int sym__rc_value_exact(sym_rule_ctx *rc, const sym_tval *t);
/* Requires cond (an expect) for exact float shape arithmetic; 0 when cond
 * is NULL, -1 on error. */
int sym__rc_require_float_exact(sym_rule_ctx *rc, const sym_expr *cond);

/* Float arithmetic on value elements (rules/values.c): the exact rational
 * result and its rounding record for the runtime's dtype; returns 1 with
 * *r and *rm set, 0 when the result cannot be told (no value), -1 on
 * error. */
typedef enum sym_fop {
	SYM_FOP_ADD,
	SYM_FOP_SUB,
	SYM_FOP_MUL,
	SYM_FOP_DIV,
	SYM_FOP_MIN,
	SYM_FOP_MAX,
	SYM_FOP_NEG,
	SYM_FOP_ABS,
	SYM_FOP_RECIP,
	SYM_FOP_FLOOR,
	SYM_FOP_CEIL,
	SYM_FOP_ROUND,     /* half to even */
	SYM_FOP_TRUNC,     /* toward zero: a cast to an integer type */
	SYM_FOP_ROUND_AWAY /* half away from zero (C's round) */
} sym_fop;
int sym__rc_fop(sym_rule_ctx *rc, sym_fop op, int dtype, const sym_expr *a, sym_fmeta ma, const sym_expr *b,
                sym_fmeta mb, const sym_expr **r, sym_fmeta *rm);
/* An integer element cast to the float dtype. */
int sym__rc_fcast_from_int(sym_rule_ctx *rc, int dtype, const sym_expr *a, const sym_expr **r, sym_fmeta *rm);
/* The exact rational value of a finite double (an error otherwise). */
const sym_expr *sym__rc_from_double(sym_rule_ctx *rc, double v);

/* Copies shape and dtype (not the value) of in to output i. */
int sym__rc_copy_shape(sym_rule_ctx *rc, size_t i, const sym_tval *in);

/* Guards: pred proven true is dropped; proven false is an error naming the
 * reason; otherwise it is recorded with its kind. */
int sym__rc_require(sym_rule_ctx *rc, const sym_expr *pred, sym_guard_kind kind, const char *reason);
sym_truth sym__rc_prove(sym_rule_ctx *rc, const sym_expr *pred);
/* The assert guard d % k == 0.  The canonical form states it reduced
 * ([s0, 7] split by 2 asks s0 % 2 == 0) and drops it when it is proven. */
int sym__rc_require_divisible(sym_rule_ctx *rc, const sym_expr *d, const sym_expr *k, const char *reason);
const sym_expr *sym__rc_simplify(sym_rule_ctx *rc, const sym_expr *e);
/* Stores the dims of t as constants in dims[] and their product in *numel
 * and returns 1 when the rank is at most cap and every dim, and the
 * product, is a constant in [0, SYM_RC_VALUE_LIMIT]; 0 otherwise. */
int sym__rc_const_dims(const sym_tval *t, long long *dims, int cap, long long *numel);
/* Guards that each of the rank dims d[] (aligned right against the n dims
 * target[], rank <= n) is 1 or the target dim, with reason. */
int sym__rc_unibroadcast(sym_rule_ctx *rc, int rank, const sym_expr *const *d, int n,
                         const sym_expr *const *target, const char *reason);
/* The value of e under the hints; returns 1 when every symbol is hinted. */
int sym__rc_hint_value(sym_rule_ctx *rc, const sym_expr *e, int64_t *v);
int sym__rc_has_hints(const sym_rule_ctx *rc);

/* A fresh data-dependent dim u with lo <= u (<= hi when hi is given),
 * exempt from the default minimum, recorded with the source "what of node
 * N (Op)"; the runtime program takes its value as an input bound after the
 * producing kernel ran. */
const sym_expr *sym__rc_fresh_dim(sym_rule_ctx *rc, const sym_expr *lo, const sym_expr *hi, const char *what);

/* Axis in [-rank, rank) normalised to [0, rank); error otherwise. */
int sym__rc_axis(sym_rule_ctx *rc, int64_t axis, int rank, const char *what, int *out);
/* Product of the dims of t (1 for a scalar). */
const sym_expr *sym__rc_numel(sym_rule_ctx *rc, const sym_tval *t);
const sym_expr *sym__rc_num(sym_rule_ctx *rc, int64_t v);

/* Multidirectional (numpy) broadcasting of n shapes into output i: exact
 * result max(a, b)*min(a, b, 1) (max(a, b) for dims >= 1) with the assert
 * guard a == b || a == 1 || b == 1, or the branch the hints select as an
 * expect guard.  Unknown rank anywhere gives unknown rank. */
int sym__rc_broadcast(sym_rule_ctx *rc, size_t n, const sym_tval *const *ins, size_t out);
/* numpy matmul of a and b into output 0 with dtype (rules/matmul.c): 1-D
 * promotion, batch broadcasting, the contracted dims guarded equal; the
 * last two dims of an operand of rank >= 2 swapped when ta (tb) is set. */
int sym__rc_matmul(sym_rule_ctx *rc, const sym_tval *a, const sym_tval *b, int ta, int tb, int dtype);
/* Conv(X, W, B) into output 0 (rules/conv.c), X's type: channels first
 * (X [N, C, in...], W [M, C/group, k...]) or, with channels_last, X
 * [N, in..., C], W [M, k..., C/group] and the output [N, out..., M]. */
int sym__rc_conv(sym_rule_ctx *rc, int channels_last);
/* The statistics output i of a normalization (rules/norm.c): x's dims,
 * those from axis on 1, of type dtype; unknown rank passes on; nothing
 * when the node has no output i. */
int sym__rc_norm_stats(sym_rule_ctx *rc, size_t i, const sym_tval *x, int axis, int dtype);
/* A layer normalization's attributes axis (default -1; normalised against
 * x, -1 for unknown rank) and stash_type (default float32) (rules/norm.c). */
int sym__rc_norm_axis_stash(sym_rule_ctx *rc, const sym_tval *x, int *axis, int *dtype);
/* The attribute qkv_hidden_sizes of an attention node with heads heads
 * (rules/microsoft_attention.c): 1 with its three values in *hs, each a
 * positive multiple of heads, 0 when it is absent, -1 on error. */
int sym__rc_qkv_hidden_sizes(sym_rule_ctx *rc, int64_t heads, const int64_t **hs);
/* Broadcasts two dims; stores the result dim. */
int sym__rc_broadcast_dim(sym_rule_ctx *rc, const sym_expr *a, const sym_expr *b, const sym_expr **out);

/* Family tables, one per file. */
#define SYM_RULE_FAMILIES(X)                                                                                 \
	X(elementwise)                                                                                       \
	X(shapeops)                                                                                          \
	X(reshape)                                                                                           \
	X(squeeze)                                                                                           \
	X(concat)                                                                                            \
	X(transpose)                                                                                         \
	X(expand)                                                                                            \
	X(slice)                                                                                             \
	X(gather)                                                                                            \
	X(reduce)                                                                                            \
	X(misc)                                                                                              \
	X(resize)                                                                                            \
	X(einsum)                                                                                            \
	X(datadep)                                                                                           \
	X(matmul)                                                                                            \
	X(norm)                                                                                              \
	X(conv)                                                                                              \
	X(recurrent)                                                                                         \
	X(loss)                                                                                              \
	X(spatial)                                                                                           \
	X(signal)                                                                                            \
	X(quantize)                                                                                          \
	X(random)                                                                                            \
	X(microsoft)                                                                                         \
	X(microsoft_attention)                                                                               \
	X(microsoft_norm)                                                                                    \
	X(microsoft_conv)                                                                                    \
	X(microsoft_quant)                                                                                   \
	X(microsoft_moe)                                                                                     \
	X(microsoft_dropout)                                                                                 \
	X(sequence)

#define SYM__FAMILY_DECL(fam)                                                                                \
	extern const sym_rule_entry sym__rules_##fam[];                                                      \
	extern const size_t sym__rules_##fam##_count;
SYM_RULE_FAMILIES(SYM__FAMILY_DECL)
#undef SYM__FAMILY_DECL

#endif
