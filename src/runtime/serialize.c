/* The runtime program's serialised form: writing, and reading back with
 * every property the interpreter relies on checked.  program_private.h
 * describes the format. */
#include "program_private.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char magic[8] = {'S', 'Y', 'M', 'S', 'P', 'R', 'O', 'G'};
#define HEADER_WORDS 8  /* the version and 7 counts, after the magic */
#define HEADER2_WORDS 2 /* version 2: nchecks and nsegs after them */

static void put64(unsigned char *b, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *b)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

unsigned char *sym_program_serialize(const sym_program *p, size_t *len)
{
	int v2 = p->nchecks != 0 || p->nsegs != 1;
	size_t words = p->nconsts + p->ninsns * SYM_INSN_WORDS + p->nouts + (v2 ? 2 * p->nsegs : 0), i, n;
	size_t nhead = HEADER_WORDS + (v2 ? HEADER2_WORDS : 0);
	unsigned char *b, *o;
	uint64_t head[HEADER_WORDS + HEADER2_WORDS] = {v2 ? 2 : 1, p->ninputs, p->nconsts, p->nguards,
	                                               p->nouts,   p->ninsns,  p->nregs,   p->check_end,
	                                               p->nchecks, p->nsegs};
	n = sizeof(magic) + (nhead + words) * 8;
	b = malloc(n);
	if (!b)
		return NULL;
	memcpy(b, magic, sizeof(magic));
	o = b + sizeof(magic);
	for (i = 0; i < nhead; i++, o += 8)
		put64(o, head[i]);
	/* the arrays are contiguous after the constants (the segment table
	 * last, written in version 2 only) */
	for (i = 0; i < words; i++, o += 8)
		put64(o, (uint64_t)p->consts[i]);
	if (len)
		*len = n;
	return b;
}

/* Checks the segment table: code and output ends in order, the last at
 * ninsns and nouts. */
static int validate_segments(const sym_program *p)
{
	size_t s, code = p->check_end, outs = 0;
	for (s = 0; s < p->nsegs; s++) {
		int64_t ce = p->segs[2 * s], oe = p->segs[2 * s + 1];
		if (ce < 0 || (uint64_t)ce < code || (uint64_t)ce > p->ninsns || oe < 0 ||
		    (uint64_t)oe < outs || (uint64_t)oe > p->nouts)
			return 0;
		code = (size_t)ce, outs = (size_t)oe;
	}
	return code == p->ninsns && outs == p->nouts;
}

/* Checks the outputs of segment s: registers below next (the segment's
 * end) outside [prefix_end, seg_first), the registers of the segments
 * before. */
static int validate_outputs(const sym_program *p, size_t s, size_t prefix_end, size_t seg_first, size_t next)
{
	size_t k;
	for (k = sym__seg_out_start(p, s); k < (size_t)p->segs[2 * s + 1]; k++) {
		int64_t v = p->outs[k];
		if (v < 0 || (uint64_t)v >= next || ((uint64_t)v >= prefix_end && (uint64_t)v < seg_first))
			return 0;
	}
	return 1;
}

/* Checks everything the interpreter relies on: opcodes, SSA numbering (so
 * every operand is defined before it is read, in the check prefix or the
 * instruction's own segment), guard order, the check prefix, the segments,
 * output registers. */
static int validate(const sym_program *p)
{
	size_t i, next = p->ninputs + p->nconsts, guards = 0, after_guard = 0, s = 0;
	size_t prefix_end = (size_t)-1, seg_first = 0; /* [prefix_end, seg_first): out of scope */
	if (p->nchecks > p->nguards || p->nsegs < 1 || p->check_end > p->ninsns || !validate_segments(p))
		return 0;
	for (i = 0; i <= p->ninsns; i++) {
		const int64_t *w = p->code + i * SYM_INSN_WORDS;
		int ar, k;
		if (i == p->check_end)
			prefix_end = seg_first = next;
		/* the segments that end here: their outputs, then the next scope */
		while (i >= p->check_end && s < p->nsegs && i == (size_t)p->segs[2 * s]) {
			if (!validate_outputs(p, s, prefix_end, seg_first, next))
				return 0;
			s++, seg_first = next;
		}
		if (i == p->ninsns)
			break;
		if ((ar = sym__op_arity(w[0])) < 0)
			return 0;
		for (k = 0; k < 3; k++) {
			int64_t v = w[2 + k];
			if (k == 1 && w[0] == SYM_OP_GUARD)
				continue;
			if (k < ar ? (v < 0 || (uint64_t)v >= next ||
			              ((uint64_t)v >= prefix_end && (uint64_t)v < seg_first))
			           : v != 0)
				return 0;
		}
		if (w[0] == SYM_OP_GUARD) {
			if (w[1] != 0 || w[3] < 0 || (uint64_t)w[3] != guards)
				return 0;
			guards++;
			after_guard = i + 1;
		} else {
			if (w[1] < 0 || (uint64_t)w[1] != next)
				return 0;
			next++;
		}
	}
	return guards == p->nguards && next == p->nregs && p->check_end == after_guard && s == p->nsegs;
}

sym_program *sym_program_deserialize(const unsigned char *buf, size_t len)
{
	uint64_t h[HEADER_WORDS + HEADER2_WORDS] = {0}, words, avail;
	sym_program *p;
	size_t i, nhead = HEADER_WORDS;
	const unsigned char *o;
	if (!buf || len < sizeof(magic) + HEADER_WORDS * 8 || memcmp(buf, magic, sizeof(magic)) != 0)
		return NULL;
	o = buf + sizeof(magic);
	for (i = 0; i < HEADER_WORDS; i++, o += 8)
		h[i] = get64(o);
	if (h[0] == 2) {
		if (len < sizeof(magic) + (HEADER_WORDS + HEADER2_WORDS) * 8)
			return NULL;
		for (; i < HEADER_WORDS + HEADER2_WORDS; i++, o += 8)
			h[i] = get64(o);
		nhead += HEADER2_WORDS;
	} else if (h[0] == 1) {
		h[8] = 0, h[9] = 1; /* no checks, one segment */
	} else {
		return NULL;
	}
	avail = len - sizeof(magic) - nhead * 8;
	if (avail % 8)
		return NULL;
	avail /= 8;
	/* counts: inputs, consts, guards, outs, insns, regs, check_end, checks,
	 * segments */
	if (h[1] > SYM_PROG_MAX_INPUTS || h[2] > avail || h[4] > avail || h[5] > avail / SYM_INSN_WORDS ||
	    h[3] > h[5] || h[7] > h[5] || h[8] > h[3] || h[9] < 1 || h[9] > avail)
		return NULL;
	words = h[2] + h[5] * SYM_INSN_WORDS + h[4] + (h[0] == 2 ? 2 * h[9] : 0);
	if (words != avail || h[6] > h[1] + h[2] + h[5])
		return NULL;
	p = sym__program_alloc(&sym__libc_allocator, (size_t)h[2], (size_t)h[5], (size_t)h[4], (size_t)h[9]);
	if (!p)
		return NULL;
	p->ninputs = (size_t)h[1], p->nguards = (size_t)h[3], p->nregs = (size_t)h[6],
	p->check_end = (size_t)h[7];
	p->nchecks = (size_t)h[8];
	for (i = 0; i < words; i++, o += 8)
		p->consts[i] = (int64_t)get64(o);
	if (h[0] == 1)
		p->segs[0] = (int64_t)p->ninsns, p->segs[1] = (int64_t)p->nouts;
	if (!validate(p)) {
		sym_program_free(p);
		return NULL;
	}
	return p;
}
