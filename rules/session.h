/* The rule session: what running rules leaves behind (facts, guards,
 * data-dependent symbols, the memory of rule results) and the hints they
 * read.  The inference driver (src/infer/) and the public rules API
 * (rules/public.c) own a session and run rules in it; a rule sees only its
 * own inputs, attributes and outputs (rules_private.h), never the session's
 * fields.  It stays below the driver: rules/ includes nothing of src/. */
#ifndef SYM_RULES_SESSION_H
#define SYM_RULES_SESSION_H

#include "values.h"

#include <stdarg.h>

/* A registry entry with the oldest opset its name is read from in ONNX
 * (sym__rule_since); the session's index holds them sorted by name. */
typedef struct sym_rule_slot {
	const struct sym_rule_entry *e;
	int since;
} sym_rule_slot;

/* An inference session: facts, hints, guards, storage for rule results. */
typedef struct sym_infer sym_infer;
struct sym_infer {
	sym_ctx *ctx;
	sym_facts *facts;
	size_t nhints, caphints;
	const sym_expr **hint_syms;
	long long *hint_vals; /* the type sym_expr_eval_si takes */
	sym_guard *guards;
	size_t nguards, capguards;
	/* the guards by predicate (sym__infer_guard_find): open addressing,
	 * a slot per predicate (pred NULL: free) with the position of its
	 * first guard, for guards[0..gix_upto); a slot whose guard is no
	 * longer there (sym__infer_guards_changed) counts as none */
	struct sym_guard_slot {
		const sym_expr *pred;
		size_t pos;
	} * gix;
	size_t gix_cap, gix_count, gix_upto;
	sym_carver blocks;           /* the blocks owned by the session */
	unsigned fresh;              /* counter for fresh symbols */
	int fatal;                   /* a guard was proven false: inference stops */
	const sym_expr **fresh_syms; /* data-dependent symbols and their sources */
	char **fresh_src;
	const sym_expr **fresh_lo, **fresh_hi; /* the range each was given (hi NULL: open) */
	size_t nfresh, capfresh;
	/* whether the existing symbol sym is taken for a fresh name: NULL, any
	 * symbol of the context is; the driver takes only its model's, so a
	 * model's fresh names do not depend on what the context saw before */
	int (*name_taken)(const sym_infer *inf, const sym_expr *sym);
	const void *name_owner;
	/* the registry sorted by operator name (entries of one name in
	 * registry order), built once the session has looked up
	 * SYM_RULE_INDEX_AFTER rules by a scan (a session of a few rules,
	 * as the rules API and the rule tests make, never builds it) */
	sym_rule_slot *rules;
	size_t nrules, nscanned;
};

#define SYM_RULE_INDEX_AFTER 32

/* Builds the registry's index into *out (n slots, allocated from ctx,
 * freed with sym__free(ctx, *out, *n * sizeof(**out))): 0, or -1 with out
 * of memory recorded.  In rules/registry.c, with the registry. */
int sym__rule_index_new(sym_ctx *ctx, sym_rule_slot **out, size_t *n);
/* What sym__rule_find(domain, name) answers, by binary search in the index
 * ix[0..n): the slot of that entry, or NULL when the operator is unknown. */
const sym_rule_slot *sym__rule_index_find(const sym_rule_slot *ix, size_t n, const char *domain,
                                          const char *name);

int sym__infer_init(sym_infer *inf, sym_ctx *ctx, sym_facts *facts);
void sym__infer_clear(sym_infer *inf);
/* Allocates memory owned by the session (freed by sym__infer_clear). */
void *sym__infer_alloc(sym_infer *inf, size_t n);
char *sym__infer_strdup(sym_infer *inf, const char *s);
/* The printf-formatted text in session memory; NULL with SYM_ENOMEM
 * recorded. */
char *sym__infer_printf(sym_infer *inf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
char *sym__infer_vprintf(sym_infer *inf, const char *fmt, va_list ap);
int sym__infer_add_hint(sym_infer *inf, const sym_expr *sym, int64_t v);
/* The position of the first guard among guards[0..n) whose predicate is
 * p, or -1 when there is none: a hash lookup, the index brought up to
 * guards[0..n) first (out of memory: a scan).  Whoever changes guards in
 * place (moves, rewrites or drops some) calls sym__infer_guards_changed. */
long sym__infer_guard_find(sym_infer *inf, const sym_expr *p, size_t n);
/* Tells the index that the guards from position from on have changed. */
void sym__infer_guards_changed(sym_infer *inf, size_t from);
/* Returns a new symbol named prefix<k> not used before in the session. */
const sym_expr *sym__infer_fresh(sym_infer *inf, const char *prefix);

/* A fresh data-dependent symbol named prefix<k> with lo <= u (<= hi when
 * hi is given), exempt from the default minimum, recorded with the source
 * text src; NULL on error (out of memory, or the range contradicts the
 * facts, then with no error recorded). */
const sym_expr *sym__infer_fresh_dim(sym_infer *inf, const char *prefix, const sym_expr *lo,
                                     const sym_expr *hi, const char *src);

/* Runs the rule of op (domain "" for ONNX) on the inputs and attributes;
 * fills out[0..nout).  Returns 0, or -1 with the error recorded (an unknown
 * operator, bad attributes, a guard proven false). */
int sym__rule_run(sym_infer *inf, const char *domain, const char *op, const char *node, int opset, size_t nin,
                  const sym_tval *in, size_t nattr, const sym_attr *attrs, size_t nout, sym_tval *out);

#endif
