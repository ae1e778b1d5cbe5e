/* A small harness for rule tests: tensors and attributes from text, one
 * rule run, printed shapes and guards, and the property check that a rule
 * run on symbolic dims agrees with the same rule on concrete dims. */
#ifndef SYM_RULE_HARNESS_H
#define SYM_RULE_HARNESS_H

#include "rules_private.h"
#include "session.h"

#include <stdint.h>

typedef struct rt {
	sym_ctx *ctx;
	sym_facts *facts;
	sym_infer inf;
	long long dim_min;
	int opset; /* the opset rules run at: 18 unless a test sets it */
} rt;

/* A session whose symbols are dims: >= dim_min (1, or 0 to allow empty) and
 * at most SYM_DIM_MAX. */
void rt_init(rt *t, long long dim_min);
void rt_free(rt *t);

/* Tensors: shape "[s0, 3, (h + 1)//2]" or "*" (unknown rank); dtype name
 * (NULL: float32); value "[0, 0, 12, -1]" or NULL. */
sym_tval rt_t(rt *t, const char *shape, const char *dtype, const char *value);
sym_tval rt_absent(void);

/* Attributes (storage owned by the session). */
sym_attr rt_i(rt *t, const char *name, long long v);
sym_attr rt_is(rt *t, const char *name, const char *list);
sym_attr rt_f(rt *t, const char *name, double v);
sym_attr rt_fs(rt *t, const char *name, const char *list);
sym_attr rt_s(rt *t, const char *name, const char *v);

/* Runs the rule; returns 0 or -1 (message in sym_ctx_last_message). */
int rt_run(rt *t, const char *op, const char *domain, size_t nin, const sym_tval *in, size_t na,
           const sym_attr *a, size_t nout, sym_tval *out);

/* Text of a result (owned by the session): "[s0, s1, 12, 64]", "*" for
 * unknown rank; values likewise; guards "assert s0 % 2 == 0; expect a == b"
 * in order ("" when none). */
const char *rt_shape(rt *t, const sym_tval *v);
const char *rt_value(rt *t, const sym_tval *v);
const char *rt_guards(rt *t);

/* Inputs from shape texts (float32, no value; "" for an absent input):
 * in[0..n) for the NULL-terminated list, n returned (at most cap). */
size_t rt_shapes(rt *t, const char *const *shapes, sym_tval *in, size_t cap);
/* Runs the rule and returns what it gave, owned by the session: the output
 * shapes joined by " ", or the rule's message when it fails (the error is
 * cleared). */
const char *rt_outcome(rt *t, const char *op, const char *domain, size_t nin, const sym_tval *in, size_t na,
                       const sym_attr *a, size_t nout, sym_tval *out);
/* The NULL-terminated list of its arguments, for rt_shapes. */
#define RT_LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A seeded generator for concrete checks: rt_rand_seed (from SYM_TEST_SEED),
 * then rt_rand in [lo, hi]. */
void rt_rand_seed(uint64_t *st);
long long rt_rand(uint64_t *st, long long lo, long long hi);

/* Property: runs op on the symbolic inputs, then at iters random points
 * (every symbol in [lo, hi]) on the concrete inputs: the concrete run must
 * succeed exactly when every guard holds, and then give the symbolic
 * shapes and values evaluated at the point.  Fails the test otherwise. */
void rt_property(rt *t, const char *op, const char *domain, size_t nin, const sym_tval *in, size_t na,
                 const sym_attr *a, size_t nout, int iters, long long lo, long long hi);

#endif
