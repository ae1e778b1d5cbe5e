/* The fact store and the analyses that read it. */
#ifndef SYM_FACTS_PRIVATE_H
#define SYM_FACTS_PRIVATE_H

#include "symshape/facts.h"
#include "eval_private.h"

/* An extended rational: a finite value, or -inf / +inf (inf = -1 / +1). */
typedef struct sym_xnum {
	int inf;
	sym_num v;
} sym_xnum;

/* A closed interval of extended rationals, lo <= hi. */
typedef struct sym_ival {
	sym_xnum lo, hi;
} sym_ival;

void sym__ival_init(sym_ival *iv);
void sym__ival_clear(sym_ival *iv);
void sym__ival_set(sym_ival *r, const sym_ival *a);

/* What is known of one symbol. */
typedef struct sym_syminfo {
	const sym_expr *sym;
	int has_lo, has_hi;
	sym_num lo, hi;
	sym_num mod, res;    /* mod == 0: no residue fact */
	const sym_expr *def; /* the symbol equals def (no defined symbol inside) */
	int no_default;      /* the default minimum does not apply */
} sym_syminfo;

struct sym_facts {
	sym_ctx *ctx;
	unsigned long version;
	int has_default_min;
	sym_num default_min;
	/* every symbol is a dim: at most SYM_DIM_MAX (sym__facts_bound_dims) */
	int dims_bounded;
	/* set while bounds are computed for printing: a dim without an upper
	 * bound of its own keeps an open upper end (sym__bounds_expr) */
	int dims_open;
	/* set once some symbol's range may be a single value (check_sym): the
	 * simplifier then looks at each symbol's range, else none is a point */
	int points;
	sym_syminfo *info;
	size_t ninfo, capinfo;
	/* past a few symbols, info by symbol: index + 1 (0 for a free slot),
	 * open addressing, power-of-two capacity */
	size_t *infoix, capix;
	const sym_expr **lin; /* linear facts "d <= 0" over several atoms */
	size_t nlin, caplin;
	const sym_expr **assumed; /* every assumption, for checking witnesses */
	size_t nassumed, capassumed;
	/* bounds already computed under this version of the facts */
	struct sym_bcache *bc;
	size_t bcap, bcount;
	unsigned long bversion;
	/* the same for large mins and maxes, by the sum of their arguments'
	 * shares (sym__minmax_key): one extended by an argument finds the one
	 * it extends */
	struct sym_mbcache *mb;
	size_t mbcap, mbcount;
	/* what the linear prover keeps between calls (linear.c) */
	struct sym_fmstate *fm;
	/* the assumptions as the prover compares them (prove.c) */
	struct sym_aset *aset;
	/* the simplifier's results under this version of the facts (simplify.c) */
	struct sym_simpstate *simp;
};

typedef struct sym_bcache {
	const sym_expr *key;
	int open; /* computed with dims_open */
	sym_ival iv;
} sym_bcache;

typedef struct sym_mbcache {
	uint64_t key; /* sym__minmax_key(e) */
	const sym_expr *e;
	int open;
	sym_ival iv;
} sym_mbcache;

/* Frees the simplifier's results kept in f. */
void sym__simp_state_free(sym_facts *f);
/* Frees the prover's set of assumptions of f. */
void sym__aset_free(sym_facts *f);
/* Frees what the linear prover keeps in f. */
void sym__fm_state_free(sym_facts *f);
/* Frees the bounds cache of f. */
void sym__bcache_clear(sym_facts *f);

/* Exempts s from the default minimum (a data-dependent dim may be 0 where
 * input dims are >= 1). */
sym_status sym__facts_exempt_default(sym_facts *f, const sym_expr *s);
/* Returns the info of s, or NULL when nothing is recorded. */
const sym_syminfo *sym__facts_get(const sym_facts *f, const sym_expr *s);
/* Range of a symbol under the facts (default min included). */
void sym__facts_sym_range(const sym_facts *f, const sym_expr *s, sym_ival *out);
/* Substitutes the defining equalities. */
const sym_expr *sym__facts_apply_defs(sym_ctx *ctx, const sym_facts *f, const sym_expr *e);

/* Interval bounds of a numeric expression under the facts (NULL: none).
 * Returns 0 on error. */
int sym__bounds(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, sym_ival *out);
/* Residue of an integer-valued expression from coefficients and symbol
 * residues: e == r (mod m), m >= 0 (m == 0: e == r exactly).  Returns 0 when
 * e is not integer-valued. */
int sym__residue(const sym_facts *f, const sym_expr *e, sym_num *m, sym_num *r);
/* The monomial (coefficient 1) dividing every nonconstant term of e, or NULL
 * when there is none (or e has a constant and ignore_const is 0). */
const sym_expr *sym__common_factor(sym_ctx *ctx, const sym_expr *e, int ignore_const);
/* Whether atom occurs in one of the linear facts of f (1 also when that
 * cannot be told). */
int sym__fm_atom_in_facts(sym_ctx *ctx, const sym_facts *f, const sym_expr *atom);
/* Proves "d <= 0" for an integer-valued d by Fourier-Motzkin elimination
 * over the linear facts, symbol bounds and atom inequalities. */
int sym__fm_prove_le(sym_ctx *ctx, const sym_facts *f, const sym_expr *d);
/* The same with the relations given[] (integer "d <= 0" and "d == 0"
 * nodes; others are ignored) as extra facts. */
int sym__fm_prove_le_given(sym_ctx *ctx, const sym_facts *f, const sym_expr *d, size_t ngiven,
                           const sym_expr *const *given);
/* Decides "d KIND 0" from bounds: SYM_TRUE, SYM_FALSE or SYM_UNKNOWN. */
sym_truth sym__decide_rel(sym_ctx *ctx, const sym_facts *f, sym_kind kind, const sym_expr *d);

#endif
