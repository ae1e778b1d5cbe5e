/* The runtime program's interpreter: threaded dispatch over the flat code,
 * every operation from sym__op_exec.  A run loads the registers, runs the
 * check prefix once, then each segment asked for with its own status.
 * program_private.h describes the instruction format. */
#include "program_private.h"

/* Loads the inputs and the constant pool into the registers r. */
static void load(const sym_program *p, const int64_t *restrict in, int64_t *restrict r)
{
	size_t i, ni = p->ninputs, nk = p->nconsts;
	for (i = 0; i < ni; i++)
		r[i] = in[i];
	for (i = 0; i < nk; i++)
		r[ni + i] = p->consts[i];
}

/* Runs instructions [start, end) on the registers r.  Returns SYM_EOK, or
 * the status of the instruction that stopped the run (SYM_EGUARD with the
 * guard's index in *failed) with its index in *stop.  Under GCC and Clang
 * the dispatch is threaded (one indirect jump per opcode, which predicts
 * better than one shared switch); elsewhere, or with
 * SYM_NO_THREADED_DISPATCH defined, it is a switch.  Each label runs
 * sym__op_exec with a constant opcode, so both paths share one definition
 * of every operation. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
static sym_status exec(const sym_program *p, size_t start, size_t end, int64_t *restrict r, size_t *failed,
                       size_t *stop)
{
	const int64_t *w = p->code + start * SYM_INSN_WORDS, *end_w = p->code + end * SYM_INSN_WORDS;
	sym_status st = SYM_EOK;
#if defined(__GNUC__) && !defined(SYM_NO_THREADED_DISPATCH)
	{
		static const void *const labels[] = {
#define SYM__OP_LABEL(name, text, arity) &&op_##name,
		    SYM_OP_MAP(SYM__OP_LABEL)
#undef SYM__OP_LABEL
		};
#define NEXT                                                                                                 \
	do {                                                                                                 \
		if (w == end_w)                                                                              \
			return SYM_EOK;                                                                      \
		goto *labels[w[0]];                                                                          \
	} while (0)
#define SYM__OP_CASE(name, text, arity)                                                                      \
	op_##name : if ((st = sym__op_exec(SYM_OP_##name, w, r)) != SYM_EOK) goto stopped;                   \
	w += SYM_INSN_WORDS;                                                                                 \
	NEXT;
		NEXT;
		SYM_OP_MAP(SYM__OP_CASE)
#undef SYM__OP_CASE
#undef NEXT
	}
#else
	for (; w < end_w; w += SYM_INSN_WORDS)
		if ((st = sym__insn_exec(w, r)) != SYM_EOK)
			goto stopped;
	return SYM_EOK;
#endif
stopped:
	if (st == SYM_EGUARD && failed)
		*failed = (size_t)w[3];
	*stop = (size_t)(w - p->code) / SYM_INSN_WORDS;
	return st;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Adds instructions [start, stop] (or [start, end) when the run did not
 * stop) to *count. */
static void tally(const sym_program *p, size_t start, size_t end, sym_status st, size_t stop,
                  sym__run_count *count)
{
	size_t i, last = st == SYM_EOK ? end : stop + 1;
	if (!count)
		return;
	count->insns += last - start;
	for (i = start; i < last; i++)
		count->guards += p->code[i * SYM_INSN_WORDS] == SYM_OP_GUARD;
}

/* Runs the check prefix on loaded registers; SYM_EGUARD of a check
 * becomes SYM_EINPUT, a guard's index counts from the first guard after
 * the checks. */
static sym_status run_checks(const sym_program *p, int64_t *r, size_t *failed, sym__run_count *count)
{
	size_t f = 0, stop = 0;
	sym_status st = exec(p, 0, p->check_end, r, &f, &stop);
	tally(p, 0, p->check_end, st, stop, count);
	if (st == SYM_EGUARD) {
		if (f < p->nchecks)
			st = SYM_EINPUT;
		else
			f -= p->nchecks;
		if (failed)
			*failed = f;
	}
	return st;
}

/* Runs segment s after the checks and copies its outputs to out. */
static sym_status run_segment(const sym_program *p, size_t s, int64_t *r, int64_t *out, sym__run_count *count)
{
	size_t start = sym__seg_start(p, s), end = (size_t)p->segs[2 * s], stop = 0, i;
	size_t o0 = sym__seg_out_start(p, s), o1 = (size_t)p->segs[2 * s + 1];
	sym_status st = exec(p, start, end, r, NULL, &stop);
	tally(p, start, end, st, stop, count);
	if (st != SYM_EOK)
		return st;
	for (i = o0; i < o1; i++)
		out[i - o0] = r[p->outs[i]];
	return SYM_EOK;
}

sym_status sym__program_run_segments(const sym_program *p, const int64_t *in, int64_t *const *out,
                                     int64_t *scratch, size_t *failed, sym_status *seg_status,
                                     sym__run_count *count)
{
	size_t s;
	sym_status st;
	for (s = 0; s < p->nsegs; s++)
		seg_status[s] = SYM_EOK;
	load(p, in, scratch);
	if ((st = run_checks(p, scratch, failed, count)) != SYM_EOK)
		return st;
	for (s = 0; s < p->nsegs; s++)
		if (out[s])
			seg_status[s] = run_segment(p, s, scratch, out[s], count);
	return SYM_EOK;
}

sym_status sym_program_run(const sym_program *p, const int64_t *in, int64_t *out, int64_t *scratch,
                           size_t *failed)
{
	size_t s;
	sym_status st;
	load(p, in, scratch);
	if ((st = run_checks(p, scratch, failed, NULL)) != SYM_EOK)
		return st;
	for (s = 0; s < p->nsegs; s++)
		if ((st = run_segment(p, s, scratch, out + sym__seg_out_start(p, s), NULL)) != SYM_EOK)
			return st;
	return SYM_EOK;
}

sym_status sym_program_check(const sym_program *p, const int64_t *in, int64_t *scratch, size_t *failed)
{
	load(p, in, scratch);
	return run_checks(p, scratch, failed, NULL);
}
