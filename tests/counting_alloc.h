/* A counting allocator for the library's allocator hook (sym_allocator):
 * it counts calls, live blocks and bytes, fails the fail_at-th call (1-based,
 * 0: never), and checks the old size the library passes back against a
 * header in front of every block.  Shared by the tests that fail every
 * allocation of a workload in turn. */
#ifndef SYM_TEST_COUNTING_ALLOC_H
#define SYM_TEST_COUNTING_ALLOC_H

#include <stdlib.h>

typedef struct counting {
	long calls;               /* allocations and growths so far */
	long fail_at;             /* fail this call (1-based); 0: never */
	long live;                /* blocks not yet freed */
	long long bytes;          /* bytes not yet freed */
	long bad_sizes;           /* frees or reallocs whose old size was wrong */
	size_t bad_old, bad_real; /* the first wrong old size, and the real one */
} counting;

/* Each block carries its size in a header of this many bytes. */
#define COUNTING_HDR 16

static inline void *counting_realloc(void *ud, void *p, size_t old, size_t n)
{
	counting *c = ud;
	char *blk = p ? (char *)p - COUNTING_HDR : NULL;
	if (blk && *(size_t *)blk != old) {
		if (!c->bad_sizes++)
			c->bad_old = old, c->bad_real = *(size_t *)blk;
	}
	if (n == 0) {
		if (blk) {
			c->live--;
			c->bytes -= (long long)*(size_t *)blk;
			free(blk);
		}
		return NULL;
	}
	c->calls++;
	if (c->fail_at && c->calls == c->fail_at)
		return NULL;
	{
		size_t had = blk ? *(size_t *)blk : 0;
		char *nb = realloc(blk, n + COUNTING_HDR);
		if (!nb)
			return NULL;
		if (!blk)
			c->live++;
		c->bytes += (long long)n - (long long)had;
		*(size_t *)nb = n;
		return nb + COUNTING_HDR;
	}
}

#endif
