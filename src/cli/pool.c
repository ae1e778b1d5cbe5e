/* The CLI's allocator hook: blocks up to POOL_MAX bytes in size classes cut
 * from regions of huge pages, the rest through the C library.  A run of
 * `symshape infer` makes tens of megabytes of texts, nodes and tables and
 * frees them only at exit; from the C library's heap each 4 KiB page of
 * them is a page fault of its own (7,000 for 1,000 chained broadcasts, a
 * fifth of the run).  Each block has a header with its class, so a free
 * never depends on the size it is told. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "pool.h"
#include "seam.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define POOL_MAX ((size_t)1 << 20) /* the largest pooled block, header included */
#define POOL_REGION ((size_t)32 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HDR 16 /* the header: the block's class (keeps payloads 16-aligned) */
#define NCLASSES 80
#define BIG_CLASS 0xff /* a block of the C library */

typedef struct pool {
	void *free[NCLASSES]; /* per class: freed blocks, linked through their payloads */
	char *cur, *end;      /* the region being cut */
} pool;

static pool the_pool;

/* The class of a block of n bytes (header included) and its size: 16-byte
 * steps up to 256, then four classes per doubling (at most 25% more than
 * asked). */
static unsigned class_of(size_t n, size_t *size)
{
	unsigned c, log;
	size_t step;
	if (n <= 256) {
		c = (unsigned)((n + 15) / 16); /* 1..16 */
		*size = (size_t)c * 16;
		return c - 1;
	}
	log = (unsigned)(63 - __builtin_clzll((unsigned long long)(n - 1))); /* 2^log < n <= 2^(log+1) */
	step = (size_t)1 << (log - 2);
	c = (unsigned)((n - ((size_t)1 << log) + step - 1) / step); /* 1..4 */
	*size = ((size_t)1 << log) + c * step;
	return 16 + (log - 8) * 4 + (c - 1);
}

static size_t class_size(unsigned c)
{
	unsigned log;
	if (c < 16)
		return (size_t)(c + 1) * 16;
	log = 8 + (c - 16) / 4;
	return ((size_t)1 << log) + ((c - 16) % 4 + 1) * ((size_t)1 << (log - 2));
}

/* A new region, its start aligned to a huge page and advised to use them;
 * 0 when there is no memory. */
static int new_region(pool *p)
{
	char *r;
#if defined(__linux__) && defined(MAP_ANONYMOUS)
	void *m =
	    mmap(NULL, POOL_REGION + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	r = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	sym__advise_huge(r, POOL_REGION);
#else
	if (!(r = malloc(POOL_REGION)))
		return 0;
#endif
	p->cur = r, p->end = r + POOL_REGION;
	return 1;
}

/* Huge pages for a large block of the C library too (as the library's
 * default allocator asks for them). */
static void *advised(unsigned char *b, size_t n)
{
	if (b && n >= ((size_t)4 << 20))
		sym__advise_huge(b, n);
	return b;
}

static void *pool_alloc(pool *p, size_t n)
{
	size_t size;
	unsigned char *b;
	unsigned c;
	if (n > POOL_MAX - HDR) {
		if (n > SIZE_MAX - HDR || !(b = advised(malloc(n + HDR), n + HDR)))
			return NULL;
		b[0] = BIG_CLASS;
		return b + HDR;
	}
	c = class_of(n + HDR, &size);
	if (p->free[c]) {
		b = (unsigned char *)p->free[c] - HDR;
		memcpy(&p->free[c], b + HDR, sizeof(void *));
	} else {
		if ((size_t)(p->end - p->cur) < size && !new_region(p))
			return NULL;
		b = (unsigned char *)p->cur;
		p->cur += size;
	}
	b[0] = (unsigned char)c;
	return b + HDR;
}

static void pool_free(pool *p, void *q)
{
	unsigned char *b = (unsigned char *)q - HDR;
	if (b[0] == BIG_CLASS) {
		free(b);
		return;
	}
	memcpy(q, &p->free[b[0]], sizeof(void *));
	p->free[b[0]] = q;
}

void *cli_pool_realloc(void *ud, void *q, size_t old, size_t n)
{
	pool *p = &the_pool;
	unsigned char *b;
	size_t have;
	void *r;
	(void)ud, (void)old; /* the header says the size */
	if (!q)
		return n ? pool_alloc(p, n) : NULL;
	if (n == 0) {
		pool_free(p, q);
		return NULL;
	}
	b = (unsigned char *)q - HDR;
	if (b[0] == BIG_CLASS) {
		if (n > POOL_MAX - HDR) {
			unsigned char *nb = n > SIZE_MAX - HDR ? NULL : advised(realloc(b, n + HDR), n + HDR);
			return nb ? nb + HDR : NULL;
		}
		have = n; /* shrinking into the pool: n bytes are kept */
	} else {
		have = class_size(b[0]) - HDR;
		if (n <= have && n > have / 2)
			return q; /* fits, and not much too large */
	}
	if (!(r = pool_alloc(p, n)))
		return NULL;
	memcpy(r, q, have < n ? have : n);
	pool_free(p, q);
	return r;
}

/* Whether the pool is for this build and run: not under AddressSanitizer
 * (it watches the C library's blocks only), nor when SYMSHAPE_MALLOC=libc
 * asks for the C library (for a memory checker such as valgrind's, or an
 * allocator of one's own put in with LD_PRELOAD). */
static int use_pool(void)
{
	const char *s = getenv("SYMSHAPE_MALLOC");
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
	return 0;
#endif
#endif
	return !s || strcmp(s, "libc") != 0;
}

sym_ctx *cli_ctx_new(void)
{
	sym_allocator a = {cli_pool_realloc, NULL};
	return use_pool() ? sym_ctx_new_with_allocator(&a) : sym_ctx_new();
}
