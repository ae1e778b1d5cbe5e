/* The guard cache's dispatch program (cache_dispatch.c), used by cache.c,
 * the tests and the cache benchmark.
 *
 * The dispatch program holds the check and guard code of every variant of
 * a cache (and of its validity program) once: the instructions of each
 * program's check prefix are renumbered into one register file and
 * hash-consed, so an instruction two variants share (same opcode, same
 * operand registers after renumbering, commutative operands ordered) is
 * one instruction, and a guard two variants share is one entry.  Each
 * entry is a register with a class (binding check, assert, expect) and the
 * bit set of the variants that check it in that class.  One pass runs the
 * shared code and marks, per class, the variants with a failing entry; a
 * variant's first failing guard is then known from its class alone,
 * because a model program checks its binding checks, then its asserts,
 * then its expects (programs not in that order are run on their own).
 * Each variant's shapes segment is kept beside (its instructions that the
 * shared code already computes are not repeated) and runs only for the
 * variant a lookup picks.
 *
 * Adding a variant appends its new instructions and entries: time linear
 * in the variant's code (hash look-ups).  Removing one gives back its
 * references and its bit; the instructions no variant holds stay in the
 * code (they still run, harmlessly) until they outnumber the live ones,
 * when the cache rebuilds the program from its variants: amortised, the
 * rebuild costs the size of the variants removed since the last one.
 *
 * The program is standalone (no context pointer; blocks from the cache's
 * allocator hook) and a pass never allocates: the register file and the
 * per-class masks are sized as variants are added.  A pass writes the
 * register file, so one program serves one lookup at a time. */
#ifndef SYM_CACHE_PRIVATE_H
#define SYM_CACHE_PRIVATE_H

#include "symshape/cache.h"
#include "symshape/expr.h"

#include <stdint.h>

/* The classes of an entry, in the order a model program checks them. */
enum { SYM__DC_INPUT = 0, SYM__DC_ASSERT = 1, SYM__DC_EXPECT = 2, SYM__DC_COUNT = 3 };

/* What a pass says of one variant: its first failure's class, or OK. */
enum { SYM__DV_OK = -1 };

/* A program's part in the dispatch. */
typedef struct sym__dvariant {
	int own;                   /* 1: not in the shared code: run the program itself */
	size_t slot;               /* its bit in the entries' sets */
	size_t seg_start, seg_end; /* its shapes segment in the segment code */
	size_t *refs, nrefs, rcap; /* the shared instructions it holds (with repeats) */
	size_t *ents, nents, ecap; /* the entries it belongs to (each once) */
} sym__dvariant;

/* An entry: a guard's register, its class, how many variants hold it. */
typedef struct sym__dentry {
	size_t reg, members;
	int cls;
} sym__dentry;

typedef struct sym__dispatch {
	sym_allocator alloc;
	size_t ndims; /* the inputs: registers [0, ndims) */
	int have_dims;
	/* the register file: inputs, constants (loaded once), temporaries */
	int64_t *regs;
	size_t *rc; /* references per register (shared instructions) */
	size_t nregs, regcap, rccap;
	/* the shared code and its index (instruction + 1); every
	 * instruction runs in each pass */
	int64_t *code;
	size_t ninsns, codecap, *itab, itcap;
	/* the constants: their registers and the index by value */
	size_t *kreg, nk, kcap, *ktab, ktcap;
	/* the entries, their index, and their bit sets (nwords words each,
	 * room for ebcap entries) */
	sym__dentry *ent;
	size_t nent, ecap, *etab, etcap;
	uint64_t *ebits;
	size_t ebcap, nwords;
	/* the slots: the highest in use + 1, and those given back */
	size_t nslots, *free_slots, nfree, freecap;
	/* the segments' code (instructions), live or given back */
	int64_t *seg;
	size_t nseg, segcap;
	/* what the variants removed left behind */
	size_t dead_insns, dead_seg, dead_ents;
	/* the failing entries' sets by class, then the variants a lookup
	 * stops at, written by a pass; then the slots in use */
	uint64_t *fail;
} sym__dispatch;

/* Makes an empty dispatch program whose blocks come from a (copied). */
void sym__dispatch_init(sym__dispatch *d, const sym_allocator *a);
/* Frees every block of d (d may then be initialised again). */
void sym__dispatch_clear(sym__dispatch *d);
/* Adds mp's checks, guards and shapes segment to d, describing its part in
 * *dv.  Returns 0, or -1 when memory runs out: then *dv holds nothing and
 * d is still a valid program (what was appended is held by no variant). */
int sym__dispatch_add(sym__dispatch *d, const sym_model_program *mp, sym__dvariant *dv);
/* Gives back the part dv (which then holds nothing).  Never fails. */
void sym__dispatch_remove(sym__dispatch *d, sym__dvariant *dv);
/* What removed variants left behind (instructions, segment instructions,
 * entries no variant holds), and what variants hold. */
size_t sym__dispatch_garbage(const sym__dispatch *d);
size_t sym__dispatch_live(const sym__dispatch *d);
/* Runs the shared code on dims and marks the failing entries and the
 * variants a lookup stops at: those whose guards all hold, those failing a
 * binding check, and with asserts_stop (no validity program) those
 * failing an assert.  Returns 0, or -1 when an instruction fails
 * (overflow, division by zero): the pass then says nothing and the caller
 * runs the programs themselves. */
int sym__dispatch_pass(sym__dispatch *d, const int64_t *dims, int asserts_stop);
/* After a pass: whether a lookup stops at any variant but except (NULL:
 * none). */
int sym__dispatch_any_stops(const sym__dispatch *d, const sym__dvariant *except);
/* After a pass: whether a lookup stops at dv. */
int sym__dispatch_stops(const sym__dispatch *d, const sym__dvariant *dv);
/* After a pass: SYM__DV_OK when every check and guard of dv holds, else
 * the class of its first failing one. */
int sym__dispatch_class(const sym__dispatch *d, const sym__dvariant *dv);
/* After a pass: runs dv's shapes segment; 0, or -1 when it fails. */
int sym__dispatch_segment(sym__dispatch *d, const sym__dvariant *dv);

/* The guard cache with a's blocks (copied; for the tests' failing
 * allocators): as sym_guard_cache_new otherwise. */
sym_guard_cache *sym__guard_cache_new_with_allocator(size_t capacity, const sym_allocator *a);
/* The garbage below which a cache never rebuilds its dispatch program;
 * past it, a rebuild is due once the garbage outweighs the live code. */
#define SYM__CACHE_REBUILD_FLOOR 64
/* With eager set, c rebuilds its dispatch program at any garbage (the
 * tests: rebuilds often, and failing ones). */
void sym__guard_cache_set_eager_rebuild(sym_guard_cache *c, int eager);
/* The dispatch program of c (for the tests). */
const sym__dispatch *sym__guard_cache_dispatch(const sym_guard_cache *c);
/* The lookup that runs each variant's whole program in turn, the
 * validity program last: the semantics the dispatch program reproduces,
 * which the cache falls back to when a pass fails (for the benchmark). */
sym_cache_answer sym__guard_cache_lookup_sequential(sym_guard_cache *c, const int64_t *dims, long *id,
                                                    const char **reason);

#endif
