/* symshape: the guard cache for recompile decisions.
 *
 * A cache holds compiled variants of one model (each a model program built
 * with its own hints) and answers, for the concrete dims of the inputs,
 * which variant fits, that a recompile is needed (an expect guard failed in
 * every variant), or that the input is invalid (an assert guard failed, or
 * the dims contradict the declared shapes). */
#ifndef SYMSHAPE_CACHE_H
#define SYMSHAPE_CACHE_H

#include "symshape/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_guard_cache sym_guard_cache;

typedef enum sym_cache_answer {
	SYM_CACHE_HIT = 0,       /* a variant's guards all hold */
	SYM_CACHE_RECOMPILE = 1, /* valid input, no variant fits */
	SYM_CACHE_INVALID = 2    /* the input violates an assert guard */
} sym_cache_answer;

/* Returns an empty cache holding at most capacity variants (>= 1, any size:
 * room grows as variants are added); NULL when capacity is 0 or memory runs
 * out.  When full, adding a variant evicts the least recently
 * used one (a hit makes a variant the most recently used). */
SYM_API SYM_GIVE sym_guard_cache *sym_guard_cache_new(size_t capacity);
/* Frees the cache and every program it holds. */
SYM_API void sym_guard_cache_free(SYM_TAKE sym_guard_cache *c);
/* Adds a variant (the cache takes the program, even on failure) with a
 * label (copied; e.g. its hints), and its checks to the cache's dispatch
 * program, in time linear in the program.  Returns its id (ids grow from
 * 0), or -1 when memory runs out or the program's input count differs
 * from the variants already held. */
SYM_API long sym_guard_cache_add(sym_guard_cache *c, SYM_TAKE sym_model_program *mp, const char *label);
SYM_API size_t sym_guard_cache_size(const sym_guard_cache *c);
/* The label of a held variant, or NULL when it was evicted. */
SYM_API const char *sym_guard_cache_label(const sym_guard_cache *c, long id);
/* Gives the cache the model's program compiled without hints (the cache
 * takes it): it holds only the validity (assert) guards, so when no variant
 * fits, it tells an invalid input from one that needs a recompile. */
SYM_API int sym_guard_cache_set_validity(sym_guard_cache *c, SYM_TAKE sym_model_program *mp);
/* Looks up the variant for dims (the concrete dims of every model input,
 * concatenated).  On a hit stores its id in *id; on invalid input stores a
 * reason (valid until the next call on c).  The answer is that of trying
 * the variants in most recently used order, got in one pass over their
 * shared checks (docs/api/cache.md).  Allocation-free, as a model program
 * run is.  Not for concurrent use (lookups reorder and write the cache's
 * registers); the programs themselves may be shared. */
SYM_API sym_cache_answer sym_guard_cache_lookup(sym_guard_cache *c, const int64_t *dims, long *id,
                                                const char **reason);

#ifdef __cplusplus
}
#endif
#endif
