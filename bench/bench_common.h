/* What the benchmark drivers share: the MT19937 generator BENCH.md fixes
 * (init_genrand seeded 0, raw 32-bit outputs, rand(lo, hi) = lo + g() %
 * (hi - lo + 1)), a monotonic clock, the median of repetitions and the
 * `check` lines whose failure sets the exit status. */
#ifndef SYM_BENCH_COMMON_H
#define SYM_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* MT19937 (Matsumoto and Nishimura's reference init_genrand/genrand_int32). */
typedef struct mt19937 {
	uint32_t mt[624];
	int mti;
} mt19937;

static inline void mt_init(mt19937 *g, uint32_t seed)
{
	g->mt[0] = seed;
	for (int i = 1; i < 624; i++)
		g->mt[i] = 1812433253u * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) + (uint32_t)i;
	g->mti = 624;
}

static inline uint32_t mt_next(mt19937 *g)
{
	static const uint32_t mag01[2] = {0u, 0x9908b0dfu};
	uint32_t y;
	if (g->mti >= 624) {
		int k;
		for (k = 0; k < 624 - 397; k++) {
			y = (g->mt[k] & 0x80000000u) | (g->mt[k + 1] & 0x7fffffffu);
			g->mt[k] = g->mt[k + 397] ^ (y >> 1) ^ mag01[y & 1u];
		}
		for (; k < 623; k++) {
			y = (g->mt[k] & 0x80000000u) | (g->mt[k + 1] & 0x7fffffffu);
			g->mt[k] = g->mt[k + 397 - 624] ^ (y >> 1) ^ mag01[y & 1u];
		}
		y = (g->mt[623] & 0x80000000u) | (g->mt[0] & 0x7fffffffu);
		g->mt[623] = g->mt[396] ^ (y >> 1) ^ mag01[y & 1u];
		g->mti = 0;
	}
	y = g->mt[g->mti++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

static inline int mt_rand(mt19937 *g, int lo, int hi)
{
	return lo + (int)(mt_next(g) % (uint32_t)(hi - lo + 1));
}

static inline double now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v and returns its median. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Set by a failed check (or any driver-specific failure); the drivers
 * return it as their exit status. */
static int failed;

static inline void check_si(const char *workload, const char *name, long long got, long long want)
{
	if (got == want) {
		printf("check %s %s %lld ok\n", workload, name, got);
	} else {
		printf("check %s %s %lld FAIL(want %lld)\n", workload, name, got, want);
		failed = 1;
	}
}

#endif
