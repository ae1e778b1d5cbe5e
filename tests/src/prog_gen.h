/* Shared by the program tests: random expressions and
 * predicates built with the public constructors, and the result exact
 * evaluation expects from a program. */
#ifndef SYM_TEST_PROG_GEN_H
#define SYM_TEST_PROG_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program_private.h"
#include "symshape/program.h"
#include "symshape/symshape.h"
#include "test_util.h"

#define NSYMS 4

static inline long long nonzero(long long lo, long long hi)
{
	long long v;
	do
		v = rng_range(lo, hi);
	while (v == 0);
	return v;
}

typedef struct gen {
	sym_ctx *ctx;
	const sym_expr *s[NSYMS];
} gen;

static inline void gen_init(gen *g, sym_ctx *ctx)
{
	static const char *const names[NSYMS] = {"s0", "s1", "s2", "s3"};
	int i;
	g->ctx = ctx;
	for (i = 0; i < NSYMS; i++)
		g->s[i] = sym_expr_symbol(ctx, names[i]);
}

static inline const sym_expr *k(gen *g, long long v)
{
	return sym_expr_from_si(g->ctx, v);
}

/* A random numeric expression over s0..s3: + - * by anything, / by
 * constants, // and % by constants, symbols and small sums, min, max, abs,
 * ceil, and now and then a division by a sum (a negative power of a sum
 * inside a floor or in the value itself). */
static inline const sym_expr *gen_expr(gen *g, int depth)
{
	sym_ctx *ctx = g->ctx;
	const sym_expr *a, *b, *v[3];
	if (depth <= 0 || rng_range(0, 5) == 0)
		return rng_range(0, 3) ? g->s[rng_range(0, NSYMS - 1)] : k(g, rng_range(-4, 9));
	a = gen_expr(g, depth - 1);
	switch (rng_range(0, 17)) {
	case 15:
		b = sym_expr_add(ctx, g->s[rng_range(0, NSYMS - 1)], k(g, rng_range(-2, 2)));
		return sym_expr_floordiv(ctx, a, b);
	case 16:
		b = sym_expr_add(ctx, g->s[rng_range(0, NSYMS - 1)], g->s[rng_range(0, NSYMS - 1)]);
		return sym_expr_mod(ctx, a, b);
	case 17:
		b = sym_expr_sub(ctx, g->s[rng_range(0, NSYMS - 1)], k(g, rng_range(-2, 2)));
		return sym_expr_div(ctx, a, b);
	case 0:
	case 1:
		return sym_expr_add(ctx, a, gen_expr(g, depth - 1));
	case 2:
		return sym_expr_sub(ctx, a, gen_expr(g, depth - 1));
	case 3:
	case 4:
		return sym_expr_mul(ctx, a, gen_expr(g, depth - 1));
	case 5:
		return sym_expr_div(ctx, a, k(g, nonzero(-4, 6)));
	case 6:
		return sym_expr_floordiv(ctx, a, k(g, nonzero(-3, 7)));
	case 7:
		return sym_expr_floordiv(ctx, a, g->s[rng_range(0, NSYMS - 1)]);
	case 8:
		return sym_expr_mod(ctx, a, k(g, nonzero(-3, 8)));
	case 9:
		return sym_expr_mod(ctx, a, g->s[rng_range(0, NSYMS - 1)]);
	case 10:
		v[0] = a, v[1] = gen_expr(g, depth - 1), v[2] = gen_expr(g, depth - 1);
		return sym_expr_min(ctx, (size_t)rng_range(2, 3), v);
	case 11:
		v[0] = a, v[1] = gen_expr(g, depth - 1), v[2] = gen_expr(g, depth - 1);
		return sym_expr_max(ctx, (size_t)rng_range(2, 3), v);
	case 12:
		return sym_expr_abs(ctx, a);
	case 13:
		b = sym_expr_div(ctx, a, k(g, nonzero(1, 5)));
		return sym_expr_ceil(ctx, b);
	default:
		return sym_expr_neg(ctx, a);
	}
}

/* A random predicate: relations joined by && and ||, sometimes negated. */
static inline const sym_expr *gen_pred(gen *g, int depth)
{
	sym_ctx *ctx = g->ctx;
	const sym_expr *a, *b;
	switch (depth <= 0 ? 0 : rng_range(0, 4)) {
	case 1:
		a = gen_pred(g, depth - 1);
		b = gen_pred(g, depth - 1);
		return sym_expr_and(ctx, a, b);
	case 2:
		a = gen_pred(g, depth - 1);
		b = gen_pred(g, depth - 1);
		return sym_expr_or(ctx, a, b);
	case 3:
		return sym_expr_not(ctx, gen_pred(g, depth - 1));
	default:
		a = gen_expr(g, 2);
		b = rng_range(0, 2) ? k(g, rng_range(-3, 6)) : gen_expr(g, 2);
		return sym_expr_rel(ctx, (sym_relop)rng_range(SYM_REL_EQ, SYM_REL_GE), a, b);
	}
}

/* Evaluates a predicate exactly: 1, 0, or -1 with the error left in ctx. */
static inline int exact_truth(sym_ctx *ctx, const sym_expr *p, const sym_expr *const *syms,
                              const long long *vals)
{
	const sym_expr *r = sym_expr_eval_si(ctx, p, NSYMS, syms, vals);
	if (!r)
		return -1;
	return r == sym_expr_bool(ctx, 1) ? 1 : 0;
}

/* What a program of these guards and outputs must give at vals, by exact
 * evaluation: guards in order (an error or the first false one stops),
 * then the outputs in order.  Returns the status; *failed and out[] are
 * set when meaningful. */
static inline sym_status exact_expect(sym_ctx *ctx, const sym_expr *const *syms, size_t ng,
                                      const sym_expr *const *guards, size_t no, const sym_expr *const *outs,
                                      const long long *vals, size_t *failed, int64_t *out)
{
	size_t i;
	for (i = 0; i < ng; i++) {
		int t = exact_truth(ctx, guards[i], syms, vals);
		if (t < 0) {
			sym_status st = sym_ctx_last_error(ctx);
			sym_ctx_clear_error(ctx);
			if (st != SYM_EDIVZERO) {
				fprintf(stderr, "unexpected exact evaluation error %d\n", (int)st);
				return (sym_status)-1;
			}
			return SYM_EDIVZERO;
		}
		if (!t) {
			*failed = i;
			return SYM_EGUARD;
		}
	}
	for (i = 0; i < no; i++) {
		const sym_expr *r = sym_expr_eval_si(ctx, outs[i], NSYMS, syms, vals);
		long long v;
		if (!r) {
			sym_status st = sym_ctx_last_error(ctx);
			sym_ctx_clear_error(ctx);
			if (st != SYM_EDIVZERO) {
				fprintf(stderr, "unexpected exact evaluation error %d\n", (int)st);
				return (sym_status)-1;
			}
			return SYM_EDIVZERO;
		}
		if (sym_expr_floor(ctx, r) != r)
			return SYM_EINEXACT;
		if (sym_expr_get_si(r, &v) != 1)
			return SYM_EOVERFLOW;
		out[i] = v;
	}
	return SYM_EOK;
}

/* A program written by hand through the serialised form: one instruction
 * op over the inputs 0, 1, 2 (as many as it reads); its value is the one
 * output, or for GUARD, guard 0 on input 0. */
static inline sym_program *handwritten(int op)
{
	unsigned char b[8 + 8 * (8 + SYM_INSN_WORDS + 1)];
	int64_t w[8 + SYM_INSN_WORDS + 1] = {1, 3, 0, 0, 1, 1, 4, 0, op, 3, 0, 0, 0, 3};
	int i, j, ar = sym__op_arity(op), n = 8 + SYM_INSN_WORDS + 1;
	for (i = 0; i < ar; i++)
		w[10 + i] = i;
	if (op == SYM_OP_GUARD) {
		/* nguards 1, nouts 0, nregs 3, check_end 1; {GUARD, 0, 0, 0, 0} */
		w[3] = 1, w[4] = 0, w[6] = 3, w[7] = 1, w[9] = 0;
		n--;
	}
	memcpy(b, "SYMSPROG", 8);
	for (i = 0; i < n; i++)
		for (j = 0; j < 8; j++)
			b[8 + 8 * i + j] = (unsigned char)((uint64_t)w[i] >> (8 * j));
	return sym_program_deserialize(b, 8 + 8 * (size_t)n);
}

#endif
