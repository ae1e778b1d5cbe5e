/* Exact rationals: inline 64-bit numerator/denominator, GMP beyond that.
 *
 * Canonical representation: a value whose reduced numerator fits in
 * (INT64_MIN, INT64_MAX] and whose denominator fits in int64 is small
 * (q > 0, gcd(|p|, q) == 1); every other value is big (q == 0, big points to
 * a canonical mpq_t).  One representation per value, so equality and hashing
 * never depend on how a value was computed. */
#ifndef SYM_NUM_H
#define SYM_NUM_H

#include <gmp.h>
#include <stdint.h>
#include <stddef.h>

typedef struct sym_num {
	union {
		int64_t p;
		mpq_ptr big;
	};
	int64_t q; /* 0 marks a big value */
} sym_num;

#define SYM_NUM_IS_BIG(x) ((x)->q == 0)

static inline void sym__num_init(sym_num *r)
{
	r->p = 0, r->q = 1;
}
static inline int sym__num_is_zero(const sym_num *a)
{
	return a->q == 1 && a->p == 0;
}
static inline int sym__num_is_one(const sym_num *a)
{
	return a->q == 1 && a->p == 1;
}

/* Every function writing to r clears r's old value first; r may alias an
 * operand.  Big temporaries must be released with sym__num_clear. */
void sym__num_clear_full(sym_num *r);
void sym__num_set_si_full(sym_num *r, int64_t v);
/* Sets r = p/q for q != 0 (reduced). */
void sym__num_set_frac(sym_num *r, int64_t p, int64_t q);
void sym__num_set_full(sym_num *r, const sym_num *a);
void sym__num_set_mpq(sym_num *r, mpq_srcptr v);
void sym__num_set_mpz(sym_num *r, mpz_srcptr v);
/* Writes a's value into v (initialised by the caller). */
void sym__num_get_mpq(mpq_ptr v, const sym_num *a);
/* Parses decimal digits with optional sign; returns 0 on bad text. */
int sym__num_set_str(sym_num *r, const char *s, size_t len);

void sym__num_add_full(sym_num *r, const sym_num *a, const sym_num *b);
void sym__num_sub_full(sym_num *r, const sym_num *a, const sym_num *b);
void sym__num_mul_full(sym_num *r, const sym_num *a, const sym_num *b);
/* b must be nonzero. */
void sym__num_div(sym_num *r, const sym_num *a, const sym_num *b);
void sym__num_neg(sym_num *r, const sym_num *a);
void sym__num_abs(sym_num *r, const sym_num *a);
void sym__num_floor(sym_num *r, const sym_num *a);
void sym__num_ceil(sym_num *r, const sym_num *a);
/* r = a**n; a must be nonzero when n < 0.  Returns 0 (r untouched) when
 * the result would exceed max_bits bits. */
int sym__num_pow(sym_num *r, const sym_num *a, long long n, unsigned long max_bits);
/* For integers: r = gcd(|a|, |b|) (gcd(0,0) = 0) and lcm. */
void sym__num_gcd(sym_num *r, const sym_num *a, const sym_num *b);
void sym__num_lcm(sym_num *r, const sym_num *a, const sym_num *b);
/* Numerator and (positive) denominator as integers. */
void sym__num_numer(sym_num *r, const sym_num *a);
void sym__num_denom(sym_num *r, const sym_num *a);

int sym__num_sgn_full(const sym_num *a);
int sym__num_cmp_full(const sym_num *a, const sym_num *b);
int sym__num_equal_full(const sym_num *a, const sym_num *b);
int sym__num_is_int_full(const sym_num *a);
/* Returns 1 and stores the value when a is an integer fitting int64. */
int sym__num_get_si(const sym_num *a, int64_t *out);
uint64_t sym__num_hash(const sym_num *a);
/* Bits needed for numerator plus denominator (a size measure). */
size_t sym__num_bits(const sym_num *a);
/* Returns the decimal text "p" or "p/q" (malloc'd by GMP's allocator);
 * free with sym__num_str_free. */
char *sym__num_to_str(const sym_num *a);
void sym__num_str_free(char *s);

/* The operations above as inline fast paths for integers that stay small
 * (the common case of shape arithmetic), falling back to the _full
 * functions for the rest. */
static inline void sym__num_clear(sym_num *r)
{
	if (SYM_NUM_IS_BIG(r))
		sym__num_clear_full(r);
	r->p = 0, r->q = 1;
}
static inline void sym__num_set_si(sym_num *r, int64_t v)
{
	if (v != INT64_MIN && !SYM_NUM_IS_BIG(r))
		r->p = v, r->q = 1;
	else
		sym__num_set_si_full(r, v);
}
static inline void sym__num_set(sym_num *r, const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(r))
		*r = *a;
	else
		sym__num_set_full(r, a);
}
/* INT64_MIN is stored big (num.h's invariant), hence the last test. */
static inline void sym__num_add(sym_num *r, const sym_num *a, const sym_num *b)
{
	int64_t s;
	if (a->q == 1 && b->q == 1 && !SYM_NUM_IS_BIG(r) && !__builtin_add_overflow(a->p, b->p, &s) &&
	    s != INT64_MIN)
		r->p = s, r->q = 1;
	else
		sym__num_add_full(r, a, b);
}
static inline void sym__num_sub(sym_num *r, const sym_num *a, const sym_num *b)
{
	int64_t s;
	if (a->q == 1 && b->q == 1 && !SYM_NUM_IS_BIG(r) && !__builtin_sub_overflow(a->p, b->p, &s) &&
	    s != INT64_MIN)
		r->p = s, r->q = 1;
	else
		sym__num_sub_full(r, a, b);
}
static inline void sym__num_mul(sym_num *r, const sym_num *a, const sym_num *b)
{
	int64_t s;
	if (a->q == 1 && b->q == 1 && !SYM_NUM_IS_BIG(r) && !__builtin_mul_overflow(a->p, b->p, &s) &&
	    s != INT64_MIN)
		r->p = s, r->q = 1;
	else
		sym__num_mul_full(r, a, b);
}
static inline int sym__num_sgn(const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a))
		return (a->p > 0) - (a->p < 0);
	return sym__num_sgn_full(a);
}
static inline int sym__num_cmp(const sym_num *a, const sym_num *b)
{
	if (a->q == 1 && b->q == 1)
		return (a->p > b->p) - (a->p < b->p);
	return sym__num_cmp_full(a, b);
}
static inline int sym__num_equal(const sym_num *a, const sym_num *b)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b))
		return a->p == b->p && a->q == b->q;
	return sym__num_equal_full(a, b);
}
static inline int sym__num_is_int(const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a))
		return a->q == 1;
	return sym__num_is_int_full(a);
}

#endif
