/* The runtime program object: the opcode table, allocation (the program's
 * copy of the allocator hook) and accessors.
 * program_private.h describes the instruction format. */
#include "seam.h"
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

static void *libc_realloc(void *ud, void *p, size_t old, size_t n)
{
	(void)ud, (void)old;
	if (n == 0) {
		free(p);
		return NULL;
	}
	return realloc(p, n);
}

const sym_allocator sym__libc_allocator = {libc_realloc, NULL};

void sym__hook_free(const sym_allocator *a, void *p, size_t n)
{
	if (p)
		a->realloc_fn(a->ud, p, n, 0);
}

void sym__hook_free_str(const sym_allocator *a, char *s)
{
	if (s)
		sym__hook_free(a, s, strlen(s) + 1);
}

char *sym__ctx_strdup(sym_ctx *ctx, const char *s)
{
	size_t n = strlen(s) + 1;
	char *r = sym__alloc(ctx, n);
	if (r)
		memcpy(r, s, n);
	return r;
}

sym_program *sym__program_alloc(const sym_allocator *a, size_t nconsts, size_t ninsns, size_t nouts,
                                size_t nsegs)
{
	size_t words = nconsts + ninsns * SYM_INSN_WORDS + nouts + 2 * nsegs;
	size_t bytes = sizeof(sym_program) + words * sizeof(int64_t);
	sym_program *p = a->realloc_fn(a->ud, NULL, 0, bytes);
	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->alloc = *a;
	p->bytes = bytes;
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

void sym_program_free(sym_program *p)
{
	if (p)
		sym__hook_free(&p->alloc, p, p->bytes);
}

size_t sym_program_num_inputs(const sym_program *p)
{
	return p->ninputs;
}
size_t sym_program_num_guards(const sym_program *p)
{
	return p->nguards;
}
size_t sym_program_num_outputs(const sym_program *p)
{
	return p->nouts;
}
size_t sym_program_num_instructions(const sym_program *p)
{
	return p->ninsns;
}
size_t sym_program_scratch_size(const sym_program *p)
{
	return p->nregs;
}
