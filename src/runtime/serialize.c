/* The runtime program's serialised form: writing, and reading back with
 * every property the interpreter relies on checked.  program_private.h
 * describes the format. */
#include "program_private.h"

#include <stdlib.h>
#include <string.h>

/* ---- serialisation ----------------------------------------------------- */

static const unsigned char magic[8] = {'S', 'Y', 'M', 'S', 'P', 'R', 'O', 'G'};
#define PROG_VERSION 1
#define HEADER_WORDS 8 /* version and 7 counts, after the magic */

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
	size_t words = p->nconsts + p->ninsns * SYM_INSN_WORDS + p->nouts, i, n;
	unsigned char *b, *o;
	uint64_t head[HEADER_WORDS] = {PROG_VERSION, p->ninputs, p->nconsts, p->nguards, p->nouts,
				      p->ninsns, p->nregs, p->check_end};
	n = sizeof(magic) + (HEADER_WORDS + words) * 8;
	b = malloc(n);
	if (!b)
		return NULL;
	memcpy(b, magic, sizeof(magic));
	o = b + sizeof(magic);
	for (i = 0; i < HEADER_WORDS; i++, o += 8)
		put64(o, head[i]);
	/* the three arrays are contiguous after the constants */
	for (i = 0; i < words; i++, o += 8)
		put64(o, (uint64_t)p->consts[i]);
	if (len)
		*len = n;
	return b;
}

/* Checks everything the interpreter relies on: opcodes, SSA numbering (so
 * every operand is defined before it is read), guard order, the check
 * prefix, output registers. */
static int validate(const sym_program *p)
{
	size_t i, next = p->ninputs + p->nconsts, guards = 0, after_guard = 0;
	for (i = 0; i < p->ninsns; i++) {
		const int64_t *w = p->code + i * SYM_INSN_WORDS;
		int ar = sym__op_arity(w[0]), k;
		if (ar < 0)
			return 0;
		for (k = 0; k < 3; k++) {
			int64_t v = w[2 + k];
			if (k == 1 && w[0] == SYM_OP_GUARD)
				continue;
			if (k < ar ? (v < 0 || (uint64_t)v >= next) : v != 0)
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
	if (guards != p->nguards || next != p->nregs || p->check_end != after_guard)
		return 0;
	for (i = 0; i < p->nouts; i++)
		if (p->outs[i] < 0 || (uint64_t)p->outs[i] >= p->nregs)
			return 0;
	return 1;
}

sym_program *sym_program_deserialize(const unsigned char *buf, size_t len)
{
	uint64_t h[HEADER_WORDS], words, avail;
	sym_program *p;
	size_t i;
	const unsigned char *o;
	if (!buf || len < sizeof(magic) + HEADER_WORDS * 8 || memcmp(buf, magic, sizeof(magic)) != 0)
		return NULL;
	o = buf + sizeof(magic);
	for (i = 0; i < HEADER_WORDS; i++, o += 8)
		h[i] = get64(o);
	if (h[0] != PROG_VERSION)
		return NULL;
	avail = len - sizeof(magic) - HEADER_WORDS * 8;
	if (avail % 8)
		return NULL;
	avail /= 8;
	/* counts: inputs, consts, guards, outs, insns, regs, check_end */
	if (h[1] > SYM_PROG_MAX_INPUTS || h[2] > avail || h[4] > avail || h[5] > avail / SYM_INSN_WORDS ||
	    h[3] > h[5] || h[7] > h[5])
		return NULL;
	words = h[2] + h[5] * SYM_INSN_WORDS + h[4];
	if (words != avail || h[6] > h[1] + h[2] + h[5])
		return NULL;
	p = sym__program_alloc((size_t)h[2], (size_t)h[5], (size_t)h[4]);
	if (!p)
		return NULL;
	p->ninputs = (size_t)h[1], p->nguards = (size_t)h[3], p->nregs = (size_t)h[6], p->check_end = (size_t)h[7];
	for (i = 0; i < words; i++, o += 8)
		p->consts[i] = (int64_t)get64(o);
	if (!validate(p)) {
		free(p);
		return NULL;
	}
	return p;
}
