/* Shared by the libFuzzer targets: the failure check, a generator seeded
 * from the input bytes, exact evaluation at a point, and the check of a
 * compiled model program against the exact evaluation of the inference
 * result.  Define FUZZ_NAME (the target's name, a string) before including
 * it.  Every helper is static inline so that a target uses what it needs. */
#ifndef SYM_FUZZ_UTIL_H
#define SYM_FUZZ_UTIL_H

#include "infer/result.h"
#include "symshape/symshape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz_util.h"
#endif

/* Reports a broken invariant and aborts, so that the fuzzer records the
 * input as a crash. */
#define FUZZ_CHECK(cond, ...)                                                                                \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, FUZZ_NAME ": check failed: %s: ", #cond);                            \
			fprintf(stderr, __VA_ARGS__);                                                        \
			fprintf(stderr, "\n");                                                               \
			abort();                                                                             \
		}                                                                                            \
	} while (0)

/* A call that returned NULL must leave an error with a message of one line. */
static inline void fuzz_check_error(sym_ctx *ctx)
{
	const char *msg = sym_ctx_last_message(ctx);
	FUZZ_CHECK(sym_ctx_last_error(ctx) != SYM_EOK, "NULL without an error");
	FUZZ_CHECK(msg && *msg && !strchr(msg, '\n'), "message is not one line: '%s'", msg ? msg : "(null)");
}

/* FNV-1a of the input: the seed of the values a target derives from it. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	return h;
}

/* splitmix64 */
static inline uint64_t fuzz_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (hi >= lo, hi - lo < 2**63). */
static inline long long fuzz_range(uint64_t *state, long long lo, long long hi)
{
	return lo + (long long)(fuzz_next(state) % ((uint64_t)(hi - lo) + 1));
}

/* Evaluates e with syms[i] = vals[i].  Returns the constant (a number or a
 * truth value), or NULL when the evaluation fails (the error is cleared) or
 * leaves a symbol that the point does not bind. */
static inline const sym_expr *fuzz_eval(sym_ctx *ctx, const sym_expr *e, size_t n,
                                        const sym_expr *const *syms, const long long *vals)
{
	const sym_expr *r = sym_expr_eval_si(ctx, e, n, syms, vals);
	if (!r) {
		sym_ctx_clear_error(ctx);
		return NULL;
	}
	if (sym_expr_kind(r) != SYM_KIND_NUM && sym_expr_kind(r) != SYM_KIND_BOOL)
		return NULL;
	return r;
}

/* Evaluates e at the point; 1 with the value in *out when it is an integer
 * within long long. */
static inline int fuzz_eval_si(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms,
                               const long long *vals, long long *out)
{
	const sym_expr *v = fuzz_eval(ctx, e, n, syms, vals);
	return v && sym_expr_kind(v) == SYM_KIND_NUM && sym_expr_get_si(v, out) == 1;
}

/* Prints e for a message; the caller frees with sym_str_free. */
static inline char *fuzz_str(sym_ctx *ctx, const sym_expr *e)
{
	char *s = sym_expr_to_str(ctx, e);
	if (!s)
		sym_ctx_clear_error(ctx);
	return s;
}

/* Picks a value for a graph symbol within its range: mostly small, now and
 * then the lower end or a large value.  *known is cleared when an end of the
 * range is not a constant (the point may then be outside it). */
static inline long long fuzz_symbol_value(uint64_t *st, const sym_expr *min, const sym_expr *max, int *known)
{
	long long lo = 1, hi;
	if (min && sym_expr_get_si(min, &lo) != 1)
		*known = 0, lo = 1;
	if (max && sym_expr_get_si(max, &hi) != 1)
		*known = 0, max = NULL;
	if (!max)
		hi = lo > INT64_MAX - (1LL << 40) ? INT64_MAX : lo + (1LL << 40);
	if (hi < lo)
		return lo;
	switch (fuzz_next(st) % 8) {
	case 0:
		return lo;
	case 1:
		return fuzz_range(st, lo, hi);
	default:
		return fuzz_range(st, lo, hi - lo > 40 ? lo + 40 : hi);
	}
}

/* Compiles the result into a model program and runs it at npoints points
 * derived from seed.  At a point the symbols get values within their ranges
 * and the input dims are the exact values of the inputs' dims there; then
 * the program must not contradict the exact evaluation: it must accept the
 * dims (unless the model has data-dependent dims, whose ranges may be
 * narrower than the symbols' ones); when it says ok,
 * every dim it writes equals the exact value of the tensor's inferred dim
 * and no guard is false; when a guard fails, the guards before it are not
 * false and that guard is not true.  Some points perturb a dim, which only
 * checks that the run reports an outcome. */
static inline void fuzz_check_model_program(sym_ctx *ctx, const sym_graph_result *r, int all_tensors,
                                            uint64_t seed, int npoints)
{
	sym_model_program *mp = sym_graph_compile(ctx, r, all_tensors);
	const sym_model *m = r->model;
	size_t nd, no, ns, i, j, p, q;
	const sym_expr **syms;
	long long *vals;
	int64_t *dims, *out;
	int pt;
	if (!mp) {
		fuzz_check_error(ctx);
		sym_ctx_clear_error(ctx);
		return;
	}
	nd = sym_model_program_num_dims(mp);
	no = sym_model_program_num_out_dims(mp);
	ns = sym_graph_num_symbols(r);
	syms = calloc(ns + 1, sizeof(*syms));
	vals = calloc(ns + 1, sizeof(*vals));
	dims = calloc(nd + 1, sizeof(*dims));
	out = calloc(no + 1, sizeof(*out));
	if (!syms || !vals || !dims || !out)
		goto done;
	for (pt = 0; pt < npoints; pt++) {
		sym_model_run res;
		int exact = 1;
		memset(&res, 0, sizeof(res));
		for (i = 0; i < ns; i++) {
			const sym_expr *min, *max;
			syms[i] = sym_graph_symbol(r, i, NULL, &min, &max);
			vals[i] = fuzz_symbol_value(&seed, min, max, &exact);
		}
		/* the input dims, then the data-dependent dims */
		p = 0;
		for (i = 0; i < m->ninputs && p < nd; i++) {
			const sym_expr *const *td;
			int rank, d;
			sym_graph_tensor(r, sym_graph_find_tensor(r, m->inputs[i].name), &rank, &td, NULL);
			for (d = 0; d < rank && p < nd; d++, p++) {
				long long v;
				if (fuzz_eval_si(ctx, td[d], ns, syms, vals, &v))
					dims[p] = v;
				else
					dims[p] = 1, exact = 0;
			}
		}
		for (j = 0; p < nd; p++, j++) {
			long long v;
			if (j < r->inf.nfresh && fuzz_eval_si(ctx, r->inf.fresh_syms[j], ns, syms, vals, &v))
				dims[p] = v;
			else
				dims[p] = 1, exact = 0;
		}
		if (nd && fuzz_next(&seed) % 8 == 0) {
			dims[fuzz_next(&seed) % nd] = fuzz_range(&seed, -2, 64);
			exact = 0;
		}
		sym_model_program_run(mp, dims, out, &res);
		FUZZ_CHECK(res.status == SYM_EOK || res.status == SYM_EGUARD || res.status == SYM_EINPUT ||
		               res.status == SYM_EOVERFLOW || res.status == SYM_EDIVZERO ||
		               res.status == SYM_EINEXACT || res.status == SYM_ENOMEM,
		           "run status %d", res.status);
		FUZZ_CHECK(res.status == SYM_EOK || (res.message && *res.message),
		           "status %d without a message", res.status);
		if (!exact)
			continue;
		/* the ranges of data-dependent dims are not all in the result's
		 * symbols, so a point may lie outside them */
		FUZZ_CHECK(res.status != SYM_EINPUT || r->inf.nfresh,
		           "dims computed from admissible symbol values contradict the inputs: %s",
		           res.message);
		if (res.status == SYM_EGUARD) {
			const sym_expr *g;
			const sym_expr *v;
			FUZZ_CHECK(res.failed < sym_graph_num_guards(r), "failed guard %zu of %zu",
			           res.failed, sym_graph_num_guards(r));
			g = sym_graph_guard(r, res.failed, NULL, NULL, NULL);
			v = fuzz_eval(ctx, g, ns, syms, vals);
			if (v == sym_expr_bool(ctx, 1)) {
				char *t = fuzz_str(ctx, g);
				FUZZ_CHECK(v != sym_expr_bool(ctx, 1),
				           "guard %zu '%s' reported failed holds exactly", res.failed,
				           t ? t : "?");
			}
		}
		if (res.status == SYM_EOK || res.status == SYM_EGUARD) {
			size_t upto = res.status == SYM_EOK ? sym_graph_num_guards(r) : res.failed;
			for (j = 0; j < upto; j++) {
				const sym_expr *g = sym_graph_guard(r, j, NULL, NULL, NULL);
				const sym_expr *v = fuzz_eval(ctx, g, ns, syms, vals);
				if (v == sym_expr_bool(ctx, 0)) {
					char *t = fuzz_str(ctx, g);
					FUZZ_CHECK(v != sym_expr_bool(ctx, 0),
					           "guard %zu '%s' is false exactly but the run passed it", j,
					           t ? t : "?");
				}
			}
		}
		if (res.status != SYM_EOK)
			continue;
		q = 0;
		for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
			int rank, trank, d;
			const sym_expr *const *td;
			const char *name = sym_model_program_tensor(mp, i, &rank);
			sym_graph_tensor(r, sym_graph_find_tensor(r, name), &trank, &td, NULL);
			FUZZ_CHECK(rank == trank, "tensor '%s' has rank %d in the program, %d in the result",
			           name, rank, trank);
			for (d = 0; d < rank; d++, q++) {
				long long v;
				FUZZ_CHECK(q < no, "more output dims than the %zu the program writes", no);
				if (fuzz_eval_si(ctx, td[d], ns, syms, vals, &v) && (int64_t)v != out[q]) {
					char *t = fuzz_str(ctx, td[d]);
					FUZZ_CHECK(
					    (int64_t)v == out[q],
					    "tensor '%s' dim %d '%s' is %lld exactly, the program says %lld",
					    name, d, t ? t : "?", v, (long long)out[q]);
				}
			}
		}
		FUZZ_CHECK(q == no, "the tensors have %zu dims, the program writes %zu", q, no);
	}
done:
	free(syms);
	free(vals);
	free(dims);
	free(out);
	sym_model_program_free(mp);
}

/* Walks every accessor of an inference result and prints every expression
 * in it, so that the printers see what inference builds. */
static inline void fuzz_walk_result(sym_ctx *ctx, const sym_graph_result *r)
{
	size_t i, n;
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *min, *max;
		FUZZ_CHECK(sym_graph_symbol(r, i, &src, &min, &max) != NULL, "symbol %zu is NULL", i);
	}
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank, d;
		const sym_expr *const *dims;
		const char *dtype;
		const char *name = sym_graph_tensor(r, i, &rank, &dims, &dtype);
		FUZZ_CHECK(name && sym_graph_find_tensor(r, name) != (size_t)-1, "tensor %zu cannot be found",
		           i);
		FUZZ_CHECK(rank >= -2, "tensor '%s' has rank %d", name, rank);
		for (d = 0; d < rank; d++)
			sym_str_free(ctx, fuzz_str(ctx, dims[d]));
	}
	for (i = 0; i < sym_graph_num_guards(r); i++) {
		const char *kind, *node, *reason;
		const sym_expr *g = sym_graph_guard(r, i, &kind, &node, &reason);
		FUZZ_CHECK(g && sym_expr_is_pred(g), "guard %zu is not a predicate", i);
		FUZZ_CHECK(kind && (!strcmp(kind, "assert") || !strcmp(kind, "expect")), "guard %zu kind", i);
		sym_str_free(ctx, fuzz_str(ctx, g));
	}
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		const char *const *nodes;
		FUZZ_CHECK(sym_graph_merge_key(r, i, &n, &nodes) != NULL, "merge key %zu is NULL", i);
	}
	for (i = 0; i < sym_graph_num_errors(r); i++) {
		const char *node;
		const char *msg = sym_graph_error(r, i, &node);
		FUZZ_CHECK(msg && *msg && !strchr(msg, '\n'), "node error %zu is not one line", i);
	}
}

#endif
