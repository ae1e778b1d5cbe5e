/* The runtime program: instruction format and checked int64 arithmetic shared
 * by the compiler (constant folding), the interpreter and the C emitter.
 *
 * Instruction format: SYM_INSN_WORDS int64 words {op, dst, a, b, c}.  a, b
 * and c are register indices (unused operands are 0); dst is the register
 * the instruction defines.  Registers are numbered
 *   [0, ninputs)                        the input values, in order
 *   [ninputs, ninputs + nconsts)        the constant pool
 *   [ninputs + nconsts, nregs)          one register per value instruction,
 *                                       in instruction order (SSA)
 * so a value instruction's dst is always the next free register.  GUARD is
 * the only instruction without a value: {GUARD, 0, a, k, 0} stops the run
 * with guard k failed when register a is 0; the k-th GUARD of the code has
 * index k.  The guards come first, then the output code: instructions
 * [0, check_end) are every guard's code up to its last GUARD, so checking
 * the guards only runs that prefix.  The first nchecks guards check the
 * input (a failure is SYM_EINPUT, the others SYM_EGUARD).
 *
 * Segments: the output code after check_end is nsegs segments, segment s
 * the instructions [seg_start(s), segs[2s]) computing the outputs
 * [out_start(s), segs[2s+1]); each starts where the previous one ends.  A
 * segment reads only the inputs, the constants, the registers of the check
 * prefix and its own (lowering shares subexpressions within those scopes
 * alone), so each segment runs after the checks with a status of its own:
 * an overflow in one never fails another.  A program of
 * sym_program_compile has one segment.
 *
 * Value semantics: every numeric node is lowered to a pair (numerator,
 * denominator) of registers whose denominator is always positive at run
 * time (often the constant 1), so comparisons and floor divisions need no
 * sign fix-up.  DENOM and NEGIF restore that invariant after a negative
 * power: for a candidate denominator x, the pair becomes
 * (NEGIF(n, x), DENOM(x)).  An output is EXACTDIV(n, d) unless d is the
 * constant 1.  (MOD is in the instruction set for completeness; % lowers
 * through its canonical form a - b*floor(a/b).)
 *
 * Serialised form, every word a little-endian 64-bit integer after the 8
 * magic bytes "SYMSPROG": the version, ninputs, nconsts, nguards, nouts,
 * ninsns, nregs, check_end, (version 2 only) nchecks and nsegs, then the
 * constants, the code, the output registers and (version 2 only) the
 * segment table.  Version 1 is written for one segment without checks (a
 * program of sym_program_compile), version 2 otherwise; both are read.
 * Deserialisation checks all of it: the exact length, known opcodes, SSA
 * numbering (every operand defined before it is read, in the check prefix
 * or its own segment), guard indices in order, check_end after the last
 * GUARD, the segment table, output registers in range. */
#ifndef SYM_PROGRAM_PRIVATE_H
#define SYM_PROGRAM_PRIVATE_H

#include "symshape/program.h"

#include <stdint.h>

#define SYM_INSN_WORDS 5

/* Opcodes with their names and the number of register operands they read
 * (GUARD's second operand is its index, not a register). */
#define SYM_OP_MAP(X)                                                                                        \
	X(ADD, "add", 2)           /* a + b */                                                               \
	X(SUB, "sub", 2)           /* a - b */                                                               \
	X(MUL, "mul", 2)           /* a * b */                                                               \
	X(NEG, "neg", 1)           /* -a */                                                                  \
	X(ABS, "abs", 1)           /* |a| */                                                                 \
	X(FLOORDIV, "floordiv", 2) /* floor(a / b), Python's // */                                           \
	X(MOD, "mod", 2)           /* a - b*floor(a / b), Python's % */                                      \
	X(EXACTDIV, "exactdiv", 2) /* a / b; a nonzero remainder is INEXACT */                               \
	X(MIN, "min", 2)                                                                                     \
	X(MAX, "max", 2)                                                                                     \
	X(EQ, "eq", 2) /* a == b as 0 or 1 */                                                                \
	X(NE, "ne", 2)                                                                                       \
	X(LE, "le", 2)                                                                                       \
	X(LT, "lt", 2)                                                                                       \
	X(AND, "and", 2) /* a != 0 && b != 0 as 0 or 1 */                                                    \
	X(OR, "or", 2)                                                                                       \
	X(NEGIF, "negif", 2) /* b < 0 ? -a : a */                                                            \
	X(DENOM, "denom", 1) /* |a|; a == 0 is a division by zero */                                         \
	X(SEL, "sel", 3)     /* a != 0 ? b : c */                                                            \
	X(GUARD, "guard", 1) /* a == 0: guard b fails */

typedef enum sym_opcode {
#define SYM__OP_ENUM(name, text, arity) SYM_OP_##name,
	SYM_OP_MAP(SYM__OP_ENUM)
#undef SYM__OP_ENUM
	    SYM_OP_COUNT
} sym_opcode;

/* Inputs beyond this count are refused (compile and deserialize). */
#define SYM_PROG_MAX_INPUTS (1u << 24)

struct sym_program {
	sym_allocator alloc; /* the hook the block came from (a copy; see sym__program_alloc) */
	size_t bytes;        /* the size of the block, passed back when it is freed */
	size_t ninputs, nconsts, nguards, nouts, ninsns, nregs, check_end;
	size_t nchecks;  /* the first nchecks guards check the input */
	size_t nsegs;    /* >= 1 */
	int64_t *consts; /* nconsts values, registers ninputs.. */
	int64_t *code;   /* ninsns * SYM_INSN_WORDS words */
	int64_t *outs;   /* nouts registers */
	int64_t *segs;   /* nsegs pairs {code end, output end} */
};

/* The first instruction and the first output of segment s. */
static inline size_t sym__seg_start(const sym_program *p, size_t s)
{
	return s ? (size_t)p->segs[2 * s - 2] : p->check_end;
}
static inline size_t sym__seg_out_start(const sym_program *p, size_t s)
{
	return s ? (size_t)p->segs[2 * s - 1] : 0;
}

/* Returns the number of register operands op reads (-1 when op is not an
 * opcode). */
int sym__op_arity(int64_t op);
/* The allocation of compiled programs.  What a program owns is allocated at
 * compilation with the context's allocator hook and given back at its free
 * through the program's copy of the hook: a value (the function and its
 * ud), not a pointer into the context, so the program may outlive the
 * context as long as the hook's ud lives.  Emission allocates through the
 * same copy (its scratch and the text, freed with sym_program_str_free), so
 * it is called where calling the hook is allowed.  Runs never call the
 * hook (any number of threads run one program at once, and the hook need
 * not be thread-safe): a model run's scratch past its stack slots and the
 * serialised bytes are plain malloc.  docs/memory-and-errors.md. */

/* sym__ctx_allocator (seam.h) gives the hook of a context as a value. */
/* The C library's realloc and free as a hook (programs read from bytes). */
extern const sym_allocator sym__libc_allocator;
/* Gives the block p of n bytes back to the hook a (nothing for NULL). */
void sym__hook_free(const sym_allocator *a, void *p, size_t n);
/* Gives the string s back to a: its size is strlen(s) + 1. */
void sym__hook_free_str(const sym_allocator *a, char *s);
/* A copy of s allocated with ctx's hook (free it with sym__hook_free_str),
 * NULL with SYM_ENOMEM recorded. */
char *sym__ctx_strdup(sym_ctx *ctx, const char *s);

/* Allocates a program with room for its arrays in one block from the hook a
 * (which the program keeps to free itself).  NULL when out of memory. */
sym_program *sym__program_alloc(const sym_allocator *a, size_t nconsts, size_t ninsns, size_t nouts,
                                size_t nsegs);

/* Compiles a program with input checks and segments: the guards
 * guards[0..nguards), of which the first nchecks check the input, then
 * nsegs segments, segment s computing the next seg_nouts[s] of the outputs
 * outs (in order).  As sym_program_compile otherwise. */
sym_program *sym__program_compile(sym_ctx *ctx, size_t nsyms, const sym_expr *const *syms, size_t nchecks,
                                  size_t nguards, const sym_expr *const *guards, size_t nsegs,
                                  const size_t *seg_nouts, const sym_expr *const *outs);

/* What a run executed, for the tests: instructions and GUARD instructions
 * (every guard evaluation, the failing one included). */
typedef struct sym__run_count {
	size_t insns, guards;
} sym__run_count;

/* Runs the checks and guards once, then segment s into out[s] (outputs
 * [out_start(s), end) of the program, written from out[s][0]) for every s
 * with out[s] non-NULL, storing its status in seg_status[s] (SYM_EOK for a
 * segment not run).  Returns the status of the checks and guards:
 * SYM_EINPUT with the check's index in *failed, SYM_EGUARD with the
 * guard's index after the checks, SYM_EOVERFLOW, SYM_EDIVZERO, or SYM_EOK
 * (then the segments have run).  count, when not NULL, adds what ran.
 * Never allocates. */
sym_status sym__program_run_segments(const sym_program *p, const int64_t *in, int64_t *const *out,
                                     int64_t *scratch, size_t *failed, sym_status *seg_status,
                                     sym__run_count *count);

/* What the model ABI of emitted C needs beyond the program: the names of
 * the segments' entry points (P_NAME(dims, out)) with an optional comment
 * each, the guards after the checks (text and kind), the data-dependent
 * dims (name and source). */
typedef struct sym__model_abi {
	size_t nsegs;
	const char *const *seg_names;
	const char *const *seg_doc; /* NULL entries: no comment */
	size_t nguards;
	const char *const *guard_text;
	const char *const *guard_kind;
	size_t nbound;
	const char *const *bound_names;
	const char *const *bound_src;
} sym__model_abi;

/* Writes the model ABI (SPEC §8) of p as standalone C with the prefix (a C
 * identifier): P_check and one entry point per segment, each a call of one
 * static P__run that checks the input and the guards once, then computes
 * the segment asked for.  Returns text allocated through p's copy of the
 * hook (sym_program_str_free), NULL when memory runs out. */
char *sym__program_emit_model(const sym_program *p, const char *prefix, const sym__model_abi *abi);

/* The integer of the emitted C's ABI (SPEC §8) for a run status: 0 for
 * SYM_EOK, failed + 1 for SYM_EGUARD (guard failed), -2 for SYM_EINPUT, -1
 * for every other failure.  The emitter writes every return through it. */
long long sym__abi_code(sym_status st, size_t failed);

/* Executes the instruction w (SYM_INSN_WORDS words) with opcode op (w[0])
 * on the register file r: reads only the operands the opcode uses, writes
 * r[w[1]] and returns SYM_EOK, or returns the error status (for GUARD:
 * SYM_EGUARD when the guard fails, writing nothing).  The
 * interpreter (with op a constant at each of its dispatch labels) and the
 * compiler's constant folding share it, so both give the same value. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline sym_status
sym__op_exec(int64_t op, const int64_t *w, int64_t *r)
{
#define SYM__A (r[w[2]])
#define SYM__B (r[w[3]])
#define SYM__D (r[w[1]])
	int64_t a = SYM__A, b, q, m;
	switch (op) {
	case SYM_OP_ADD:
		return __builtin_add_overflow(a, SYM__B, &SYM__D) ? SYM_EOVERFLOW : SYM_EOK;
	case SYM_OP_SUB:
		return __builtin_sub_overflow(a, SYM__B, &SYM__D) ? SYM_EOVERFLOW : SYM_EOK;
	case SYM_OP_MUL:
		return __builtin_mul_overflow(a, SYM__B, &SYM__D) ? SYM_EOVERFLOW : SYM_EOK;
	case SYM_OP_NEG:
		if (a == INT64_MIN)
			return SYM_EOVERFLOW;
		SYM__D = -a;
		return SYM_EOK;
	case SYM_OP_ABS:
		if (a == INT64_MIN)
			return SYM_EOVERFLOW;
		SYM__D = a < 0 ? -a : a;
		return SYM_EOK;
	case SYM_OP_FLOORDIV:
	case SYM_OP_MOD:
	case SYM_OP_EXACTDIV:
		b = SYM__B;
		if (b == 0)
			return SYM_EDIVZERO;
		if (b == -1) {
			/* a % -1 is 0; a / -1 overflows for INT64_MIN alone */
			if (op == SYM_OP_MOD) {
				SYM__D = 0;
				return SYM_EOK;
			}
			if (a == INT64_MIN)
				return SYM_EOVERFLOW;
			SYM__D = -a;
			return SYM_EOK;
		}
		q = a / b;
		m = a % b;
		if (op == SYM_OP_EXACTDIV) {
			if (m != 0)
				return SYM_EINEXACT;
			SYM__D = q;
			return SYM_EOK;
		}
		if (m != 0 && ((m < 0) != (b < 0))) {
			q -= 1;
			m += b;
		}
		SYM__D = op == SYM_OP_MOD ? m : q;
		return SYM_EOK;
	case SYM_OP_MIN:
		b = SYM__B;
		SYM__D = a < b ? a : b;
		return SYM_EOK;
	case SYM_OP_MAX:
		b = SYM__B;
		SYM__D = a > b ? a : b;
		return SYM_EOK;
	case SYM_OP_EQ:
		SYM__D = a == SYM__B;
		return SYM_EOK;
	case SYM_OP_NE:
		SYM__D = a != SYM__B;
		return SYM_EOK;
	case SYM_OP_LE:
		SYM__D = a <= SYM__B;
		return SYM_EOK;
	case SYM_OP_LT:
		SYM__D = a < SYM__B;
		return SYM_EOK;
	case SYM_OP_AND:
		b = SYM__B;
		SYM__D = a != 0 && b != 0;
		return SYM_EOK;
	case SYM_OP_OR:
		b = SYM__B;
		SYM__D = a != 0 || b != 0;
		return SYM_EOK;
	case SYM_OP_NEGIF:
		if (SYM__B >= 0) {
			SYM__D = a;
			return SYM_EOK;
		}
		if (a == INT64_MIN)
			return SYM_EOVERFLOW;
		SYM__D = -a;
		return SYM_EOK;
	case SYM_OP_DENOM:
		if (a == 0)
			return SYM_EDIVZERO;
		if (a == INT64_MIN)
			return SYM_EOVERFLOW;
		SYM__D = a < 0 ? -a : a;
		return SYM_EOK;
	case SYM_OP_SEL:
		SYM__D = a != 0 ? SYM__B : r[w[4]];
		return SYM_EOK;
	case SYM_OP_GUARD:
		/* the caller reads the guard's index from w[3] */
		return a == 0 ? SYM_EGUARD : SYM_EOK;
	default:
		return SYM_EOVERFLOW; /* not reached: code is validated */
	}
#undef SYM__A
#undef SYM__B
#undef SYM__D
}

static inline sym_status sym__insn_exec(const int64_t *w, int64_t *r)
{
	return sym__op_exec(w[0], w, r);
}

#endif
