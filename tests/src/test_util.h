/* Shared by the tests of src/: the seeded generator (xorshift64*, seeded
 * from SYM_TEST_SEED) and reading a file of the source tree.  Include after
 * <cmocka.h>. */
#ifndef SYM_TEST_UTIL_H
#define SYM_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state;

/* SYM_TEST_SEED, or 1 when unset or 0. */
static inline uint64_t seed_from_env(void)
{
	const char *s = getenv("SYM_TEST_SEED");
	uint64_t v = s && *s ? strtoull(s, NULL, 10) : 1;
	return v ? v : 1;
}

static inline void rng_seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ULL + 1;
}

static inline uint64_t rng_next(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [lo, hi]. */
static inline long long rng_range(long long lo, long long hi)
{
	return lo + (long long)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* The source tree's root (meson passes it). */
#ifndef SYM_TEST_ROOT
#define SYM_TEST_ROOT "."
#endif

/* Reads a file of the source tree (path relative to the root); *len (when
 * len is not NULL) is its size. */
static inline char *read_text(const char *rel, size_t *len)
{
	char path[1024];
	FILE *f;
	long n;
	char *buf;
	snprintf(path, sizeof(path), "%s/%s", SYM_TEST_ROOT, rel);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

#endif
