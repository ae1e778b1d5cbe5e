/* The runtime program's interpreter: threaded dispatch over the flat code,
 * every operation from sym__op_exec.  program_private.h describes the
 * instruction format. */
#include "program_private.h"

/* ---- the interpreter --------------------------------------------------- */

/* Runs instructions [0, end) on the registers r, which start with the
 * inputs and the constant pool.  Under GCC and Clang the dispatch is
 * threaded (one indirect jump per opcode, which predicts better than one
 * shared switch); elsewhere, or with SYM_NO_THREADED_DISPATCH defined, it is
 * a switch.  Each label runs sym__op_exec
 * with a constant opcode, so both paths share one definition of every
 * operation. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
static sym_run_status exec(const sym_program *p, size_t end, const int64_t *restrict in, int64_t *restrict r,
			   size_t *failed)
{
	const int64_t *w = p->code, *stop = p->code + end * SYM_INSN_WORDS, *restrict k = p->consts;
	size_t i, ni = p->ninputs, nk = p->nconsts;
	sym_run_status st = SYM_RUN_OK;
	for (i = 0; i < ni; i++)
		r[i] = in[i];
	for (i = 0; i < nk; i++)
		r[ni + i] = k[i];
#if defined(__GNUC__) && !defined(SYM_NO_THREADED_DISPATCH)
	{
		static const void *const labels[] = {
#define SYM__OP_LABEL(name, text, arity) &&op_##name,
			SYM_OP_MAP(SYM__OP_LABEL)
#undef SYM__OP_LABEL
		};
#define NEXT                                                                   \
	do {                                                                   \
		if (w == stop)                                                 \
			return SYM_RUN_OK;                                     \
		goto *labels[w[0]];                                            \
	} while (0)
#define SYM__OP_CASE(name, text, arity)                                        \
	op_##name : if ((st = sym__op_exec(SYM_OP_##name, w, r)) != SYM_RUN_OK) goto stopped; \
	w += SYM_INSN_WORDS;                                                   \
	NEXT;
		NEXT;
		SYM_OP_MAP(SYM__OP_CASE)
#undef SYM__OP_CASE
#undef NEXT
	}
#else
	for (; w < stop; w += SYM_INSN_WORDS)
		if ((st = sym__insn_exec(w, r)) != SYM_RUN_OK)
			goto stopped;
	return SYM_RUN_OK;
#endif
stopped:
	if (st == SYM_RUN_GUARD && failed)
		*failed = (size_t)w[3];
	return st;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

sym_run_status sym_program_run(const sym_program *p, const int64_t *in, int64_t *out, int64_t *scratch,
			       size_t *failed)
{
	size_t i;
	sym_run_status st = exec(p, p->ninsns, in, scratch, failed);
	if (st != SYM_RUN_OK)
		return st;
	for (i = 0; i < p->nouts; i++)
		out[i] = scratch[p->outs[i]];
	return SYM_RUN_OK;
}

sym_run_status sym_program_check(const sym_program *p, const int64_t *in, int64_t *scratch, size_t *failed)
{
	return exec(p, p->check_end, in, scratch, failed);
}
