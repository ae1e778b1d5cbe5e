/* Blocks carved from chunks and freed all at once: the small allocations
 * of a model or an inference session (names, dims arrays, messages), a few
 * per graph node, each of which as an allocation of its own cost a call,
 * a header and a record of its size. */
#include "node_private.h"
#include "seam.h"

#include <stdint.h>
#include <string.h>

/* A chunk's header, padded to the alignment of the blocks after it. */
struct sym_carve_chunk {
	struct sym_carve_chunk *next;
	size_t size;
};
#define CARVE_ALIGN 16
#define CARVE_HDR ((sizeof(struct sym_carve_chunk) + CARVE_ALIGN - 1) & ~(size_t)(CARVE_ALIGN - 1))

/* Chunks double from CARVE_MIN to CARVE_MAX bytes; a block of more than
 * CARVE_OWN bytes has a chunk of its own. */
#define CARVE_MIN ((size_t)4096)
#define CARVE_MAX ((size_t)256 << 10)
#define CARVE_OWN ((size_t)1024)

/* Under AddressSanitizer every block is a chunk of its own: a write past
 * a block's end then lands outside its allocation, where the sanitizer
 * sees it. */
#if defined(__SANITIZE_ADDRESS__)
#define CARVE_SEPARATE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CARVE_SEPARATE 1
#endif
#endif
#ifndef CARVE_SEPARATE
#define CARVE_SEPARATE 0
#endif

/* A chunk of size bytes (header included), linked in as the newest or,
 * when keep_current, behind the current one, which then goes on serving. */
static struct sym_carve_chunk *new_chunk(sym_ctx *ctx, sym_carver *c, size_t size, int keep_current)
{
	struct sym_carve_chunk *k = sym__alloc(ctx, size);
	if (!k)
		return NULL;
	k->size = size;
	if (keep_current && c->chunks) {
		k->next = c->chunks->next;
		c->chunks->next = k;
	} else {
		k->next = c->chunks;
		c->chunks = k;
	}
	return k;
}

void *sym__carve(sym_ctx *ctx, sym_carver *c, size_t n)
{
	struct sym_carve_chunk *k;
	void *p;
	n = n ? (n + CARVE_ALIGN - 1) & ~(size_t)(CARVE_ALIGN - 1) : CARVE_ALIGN;
	if (n < CARVE_ALIGN || n > SIZE_MAX - CARVE_HDR) {
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return NULL;
	}
	if (n <= c->left) {
		p = c->at;
		c->at += n, c->left -= n;
		return p;
	}
	if (CARVE_SEPARATE || n > CARVE_OWN) {
		k = new_chunk(ctx, c, CARVE_HDR + n, 1);
		return k ? (char *)k + CARVE_HDR : NULL;
	}
	c->next = c->next ? (c->next < CARVE_MAX ? c->next * 2 : CARVE_MAX) : CARVE_MIN;
	if (!(k = new_chunk(ctx, c, c->next, 0)))
		return NULL;
	p = (char *)k + CARVE_HDR;
	c->at = (char *)p + n;
	c->left = c->next - CARVE_HDR - n;
	return p;
}

void *sym__carve_zeroed(sym_ctx *ctx, sym_carver *c, size_t n)
{
	void *p = sym__carve(ctx, c, n);
	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

char *sym__carve_strdup(sym_ctx *ctx, sym_carver *c, const char *s)
{
	size_t n = strlen(s) + 1;
	char *r = sym__carve(ctx, c, n);
	if (r)
		memcpy(r, s, n);
	return r;
}

void sym__carve_free(sym_ctx *ctx, sym_carver *c)
{
	struct sym_carve_chunk *k, *next;
	for (k = c->chunks; k; k = next) {
		next = k->next;
		sym__free(ctx, k, k->size);
	}
	memset(c, 0, sizeof(*c));
}
