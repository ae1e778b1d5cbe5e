/* The runtime program object: the opcode table, allocation and accessors.
 * program_private.h describes the instruction format. */
#include "program_private.h"

#include <stdlib.h>
#include <string.h>

static const int op_arity[] = {
#define SYM__OP_ARITY(name, text, arity) arity,
	SYM_OP_MAP(SYM__OP_ARITY)
#undef SYM__OP_ARITY
};

int sym__op_arity(int64_t op)
{
	return op >= 0 && op < SYM_OP_COUNT ? op_arity[op] : -1;
}


sym_program *sym__program_alloc(size_t nconsts, size_t ninsns, size_t nouts, size_t nsegs)
{
	size_t words = nconsts + ninsns * SYM_INSN_WORDS + nouts + 2 * nsegs;
	sym_program *p = malloc(sizeof(*p) + words * sizeof(int64_t));
	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->consts = (int64_t *)(p + 1);
	p->code = p->consts + nconsts;
	p->outs = p->code + ninsns * SYM_INSN_WORDS;
	p->segs = p->outs + nouts;
	p->nconsts = nconsts, p->ninsns = ninsns, p->nouts = nouts, p->nsegs = nsegs;
	return p;
}

long long sym__abi_code(sym_status st, size_t failed)
{
	switch (st) {
	case SYM_EOK:
		return 0;
	case SYM_EGUARD:
		return (long long)failed + 1;
	case SYM_EINPUT:
		return -2;
	default:
		return -1;
	}
}

void sym_program_free(sym_program *p) { free(p); }

size_t sym_program_num_inputs(const sym_program *p) { return p->ninputs; }
size_t sym_program_num_guards(const sym_program *p) { return p->nguards; }
size_t sym_program_num_outputs(const sym_program *p) { return p->nouts; }
size_t sym_program_num_instructions(const sym_program *p) { return p->ninsns; }
size_t sym_program_scratch_size(const sym_program *p) { return p->nregs; }
