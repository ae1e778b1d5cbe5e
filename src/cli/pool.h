/* The CLI's allocator hook (pool.c): size classes in regions of huge
 * pages for small blocks, the C library for large ones.  One pool for the
 * process, never given back before exit; not for threads. */
#ifndef SYM_CLI_POOL_H
#define SYM_CLI_POOL_H

#include <stddef.h>

#include "symshape/symshape.h"

/* The sym_allocator function of the pool (ud unused): allocates, resizes
 * and frees as the hook does; a block's size is read from its header. */
void *cli_pool_realloc(void *ud, void *p, size_t old, size_t n);
/* A new context on the pool (on the C library's allocator in builds with
 * AddressSanitizer, or when the environment has SYMSHAPE_MALLOC=libc);
 * NULL without memory. */
sym_ctx *cli_ctx_new(void);

#endif
