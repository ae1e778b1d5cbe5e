/* The CLI's allocator hook (src/cli/pool.c): blocks of every size class and
 * past the pool keep their bytes through growth and shrinking, never
 * overlap, and come back after a free; a context on the pool prints what
 * one on the C library does.  Seeded (SYM_TEST_SEED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pool.h"
#include "test_util.h"

#define LIVE 400

typedef struct blk {
	unsigned char *p;
	size_t n;
	unsigned char tag;
} blk;

/* A size over the classes: small, around class edges, up to 2 MiB. */
static size_t some_size(void)
{
	switch (rng_range(0, 4)) {
	case 0:
		return (size_t)rng_range(1, 300);
	case 1: {
		size_t p = (size_t)1 << rng_range(8, 20);
		return p + (size_t)rng_range(0, 32) - 16;
	}
	case 2:
		return (size_t)rng_range(1, 70000);
	case 3:
		return (size_t)rng_range(900000, 1100000);
	default:
		return (size_t)rng_range(1, 2200000);
	}
}

static void check(const blk *b)
{
	size_t i;
	for (i = 0; i < b->n; i += 1 + i / 64)
		if (b->p[i] != (unsigned char)(b->tag + i))
			fail_msg("block of %zu bytes lost byte %zu", b->n, i);
	if (b->n && b->p[b->n - 1] != (unsigned char)(b->tag + b->n - 1))
		fail_msg("block of %zu bytes lost its last byte", b->n);
}

static void fill(blk *b, size_t from)
{
	size_t i;
	for (i = from; i < b->n; i++)
		b->p[i] = (unsigned char)(b->tag + i);
}

static void blocks_keep_their_bytes_through_growth_shrinking_and_reuse(void **state)
{
	blk live[LIVE] = {{0}};
	long step;
	(void)state;
	rng_seed(seed_from_env());
	for (step = 0; step < 15000; step++) {
		blk *b = &live[rng_range(0, LIVE - 1)];
		if (!b->p) {
			b->n = some_size();
			b->tag = (unsigned char)rng_range(0, 255);
			b->p = cli_pool_realloc(NULL, NULL, 0, b->n);
			assert_non_null(b->p);
			assert_int_equal((uintptr_t)b->p % 16, 0);
			fill(b, 0);
		} else if (rng_range(0, 2) == 0) {
			check(b);
			assert_null(cli_pool_realloc(NULL, b->p, b->n, 0));
			b->p = NULL;
		} else {
			size_t n = some_size(), had = b->n;
			check(b);
			b->p = cli_pool_realloc(NULL, b->p, b->n, n);
			assert_non_null(b->p);
			b->n = n;
			/* the bytes kept are the first min(had, n) */
			if (had < n)
				fill(b, had);
			check(b);
		}
	}
	/* a size past what a header can be added to is no block */
	assert_null(cli_pool_realloc(NULL, NULL, 0, SIZE_MAX - 8));
	/* every live block still holds its own bytes: none overlapped */
	for (step = 0; step < LIVE; step++)
		if (live[step].p) {
			check(&live[step]);
			cli_pool_realloc(NULL, live[step].p, live[step].n, 0);
		}
}

static void a_context_on_the_pool_prints_what_the_c_library_one_does(void **state)
{
	sym_allocator a = {cli_pool_realloc, NULL};
	sym_ctx *p = sym_ctx_new_with_allocator(&a), *c = sym_ctx_new();
	const char *texts[] = {"(x + 7)//8*32 + max(a, b, c) - min(x, 3)", "x**16 + (y - 1)**8",
	                       "(a*b + c) % 16 == 0 || a <= 2*b"};
	size_t i;
	(void)state;
	assert_non_null(p);
	assert_non_null(c);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *s = sym_expr_to_str(p, sym_expr_from_str(p, texts[i]));
		char *t = sym_expr_to_str(c, sym_expr_from_str(c, texts[i]));
		assert_non_null(s);
		assert_non_null(t);
		assert_string_equal(s, t);
		sym_str_free(p, s);
		sym_str_free(c, t);
	}
	sym_ctx_free(p);
	sym_ctx_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(blocks_keep_their_bytes_through_growth_shrinking_and_reuse),
	    cmocka_unit_test(a_context_on_the_pool_prints_what_the_c_library_one_does),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
