/* Exact rationals, small inline or big in GMP (see num.h for the invariant). */
#include "num.h"

#include <string.h>

#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
#define SYM_HAVE_I128 1
#endif

static void *gmp_alloc(size_t n)
{
	void *(*a)(size_t);
	mp_get_memory_functions(&a, NULL, NULL);
	return a(n);
}

static void gmp_free(void *p, size_t n)
{
	void (*f)(void *, size_t);
	mp_get_memory_functions(NULL, NULL, &f);
	f(p, n);
}

void sym__num_clear_full(sym_num *r)
{
	if (SYM_NUM_IS_BIG(r)) {
		mpq_clear(r->big);
		gmp_free(r->big, sizeof(*r->big));
	}
	r->p = 0, r->q = 1;
}

void sym__num_set_si_full(sym_num *r, int64_t v)
{
	if (v == INT64_MIN) {
		mpz_t z;
		mpz_init_set_si(z, v);
		sym__num_set_mpz(r, z);
		mpz_clear(z);
		return;
	}
	sym__num_clear(r);
	r->p = v, r->q = 1;
}

/* Takes ownership of v's contents (canonical mpq) and stores the canonical
 * representation in r. */
static void num_take_mpq(sym_num *r, mpq_ptr v)
{
	mpz_srcptr n = mpq_numref(v), d = mpq_denref(v);
	sym__num_clear(r);
	if (mpz_fits_slong_p(n) && mpz_fits_slong_p(d) && sizeof(long) == 8) {
		long pn = mpz_get_si(n);
		if (pn != INT64_MIN) {
			r->p = pn, r->q = mpz_get_si(d);
			mpq_clear(v);
			return;
		}
	}
	r->big = gmp_alloc(sizeof(*r->big));
	memcpy(r->big, v, sizeof(*v));
	r->q = 0;
}

void sym__num_set_mpq(sym_num *r, mpq_srcptr v)
{
	mpq_t t;
	mpq_init(t);
	mpq_set(t, v);
	num_take_mpq(r, t);
}

void sym__num_set_mpz(sym_num *r, mpz_srcptr v)
{
	mpq_t t;
	mpq_init(t);
	mpq_set_z(t, v);
	num_take_mpq(r, t);
}

void sym__num_get_mpq(mpq_ptr v, const sym_num *a)
{
	if (SYM_NUM_IS_BIG(a)) {
		mpq_set(v, a->big);
	} else {
		mpz_set_si(mpq_numref(v), a->p);
		mpz_set_si(mpq_denref(v), a->q);
	}
}

void sym__num_set_full(sym_num *r, const sym_num *a)
{
	if (r == a)
		return;
	if (SYM_NUM_IS_BIG(a)) {
		sym__num_set_mpq(r, a->big);
	} else {
		sym__num_clear(r);
		*r = *a;
	}
}

/* Binary gcd: shifts and subtractions, no division (gcd(0, b) = b). */
static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	int s;
	if (!a || !b)
		return a | b;
	s = __builtin_ctzll(a | b);
	a >>= __builtin_ctzll(a);
	do {
		b >>= __builtin_ctzll(b);
		if (a > b) {
			uint64_t t = a;
			a = b, b = t;
		}
		b -= a;
	} while (b);
	return a << s;
}

static uint64_t abs_u64(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

#ifdef SYM_HAVE_I128
static u128 gcd_u128(u128 a, u128 b)
{
	while (b) {
		u128 t = a % b;
		a = b, b = t;
	}
	return a;
}

/* Stores n/d (d > 0) in canonical form, from 128-bit intermediates. */
static void num_set_i128(sym_num *r, i128 n, i128 d)
{
	u128 an = n < 0 ? (u128)0 - (u128)n : (u128)n;
	if (((an | (u128)d) >> 64) == 0) {
		/* both fit 64 bits: the gcd and the quotients in 64 bits (an
		 * integer, d == 1, needs neither) */
		uint64_t a = (uint64_t)an, b = (uint64_t)d, g = b == 1 ? 1 : gcd_u64(a, b);
		if (g > 1)
			a /= g, b /= g;
		if (a <= (uint64_t)INT64_MAX && b <= (uint64_t)INT64_MAX) {
			sym__num_clear(r);
			r->p = n < 0 ? -(int64_t)a : (int64_t)a, r->q = (int64_t)b;
			return;
		}
		n = n < 0 ? -(i128)a : (i128)a, d = (i128)b;
	} else {
		u128 g = gcd_u128(an, (u128)d);
		if (g > 1)
			n /= (i128)g, d /= (i128)g;
	}
	if (n > (i128)INT64_MIN && n <= (i128)INT64_MAX && d <= (i128)INT64_MAX) {
		sym__num_clear(r);
		r->p = (int64_t)n, r->q = (int64_t)d;
		return;
	}
	{
		mpq_t t;
		mpz_ptr z;
		int i;
		mpq_init(t);
		for (i = 0; i < 2; i++) {
			u128 v = i == 0 ? (n < 0 ? (u128)0 - (u128)n : (u128)n) : (u128)d;
			z = i == 0 ? mpq_numref(t) : mpq_denref(t);
			mpz_set_ui(z, (unsigned long)(uint64_t)(v >> 64));
			mpz_mul_2exp(z, z, 64);
			mpz_add_ui(z, z, (unsigned long)(uint64_t)v);
		}
		if (n < 0)
			mpz_neg(mpq_numref(t), mpq_numref(t));
		num_take_mpq(r, t);
	}
}
#endif

void sym__num_set_frac(sym_num *r, int64_t p, int64_t q)
{
#ifdef SYM_HAVE_I128
	i128 n = p, d = q;
	if (d < 0)
		n = -n, d = -d;
	num_set_i128(r, n, d);
#else
	mpq_t t;
	mpq_init(t);
	mpz_set_si(mpq_numref(t), p);
	mpz_set_si(mpq_denref(t), q);
	mpq_canonicalize(t);
	num_take_mpq(r, t);
#endif
}

/* Generic slow path through GMP. */
typedef void (*mpq_op)(mpq_ptr, mpq_srcptr, mpq_srcptr);
static void num_slow(sym_num *r, const sym_num *a, const sym_num *b, mpq_op op)
{
	mpq_t x, y, z;
	mpq_inits(x, y, z, NULL);
	sym__num_get_mpq(x, a);
	sym__num_get_mpq(y, b);
	op(z, x, y);
	mpq_clears(x, y, NULL);
	num_take_mpq(r, z);
}

void sym__num_add_full(sym_num *r, const sym_num *a, const sym_num *b)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b)) {
		int64_t s;
		if (a->q == 1 && b->q == 1 && !__builtin_add_overflow(a->p, b->p, &s) && s != INT64_MIN) {
			sym__num_clear(r);
			r->p = s, r->q = 1;
			return;
		}
#ifdef SYM_HAVE_I128
		num_set_i128(r, (i128)a->p * b->q + (i128)b->p * a->q, (i128)a->q * b->q);
		return;
#endif
	}
	num_slow(r, a, b, mpq_add);
}

void sym__num_sub_full(sym_num *r, const sym_num *a, const sym_num *b)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b)) {
		int64_t s;
		if (a->q == 1 && b->q == 1 && !__builtin_sub_overflow(a->p, b->p, &s) && s != INT64_MIN) {
			sym__num_clear(r);
			r->p = s, r->q = 1;
			return;
		}
#ifdef SYM_HAVE_I128
		num_set_i128(r, (i128)a->p * b->q - (i128)b->p * a->q, (i128)a->q * b->q);
		return;
#endif
	}
	num_slow(r, a, b, mpq_sub);
}

void sym__num_mul_full(sym_num *r, const sym_num *a, const sym_num *b)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b)) {
		int64_t s;
		if (a->q == 1 && b->q == 1 && !__builtin_mul_overflow(a->p, b->p, &s) && s != INT64_MIN) {
			sym__num_clear(r);
			r->p = s, r->q = 1;
			return;
		}
#ifdef SYM_HAVE_I128
		num_set_i128(r, (i128)a->p * b->p, (i128)a->q * b->q);
		return;
#endif
	}
	num_slow(r, a, b, mpq_mul);
}

void sym__num_div(sym_num *r, const sym_num *a, const sym_num *b)
{
#ifdef SYM_HAVE_I128
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b)) {
		i128 n = (i128)a->p * b->q, d = (i128)a->q * b->p;
		if (d < 0)
			n = -n, d = -d;
		num_set_i128(r, n, d);
		return;
	}
#endif
	num_slow(r, a, b, mpq_div);
}

void sym__num_neg(sym_num *r, const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a)) {
		int64_t p = a->p, q = a->q;
		sym__num_clear(r);
		r->p = -p, r->q = q; /* p != INT64_MIN by the invariant */
		return;
	}
	{
		mpq_t t;
		mpq_init(t);
		mpq_neg(t, a->big);
		num_take_mpq(r, t);
	}
}

void sym__num_abs(sym_num *r, const sym_num *a)
{
	if (sym__num_sgn(a) < 0)
		sym__num_neg(r, a);
	else
		sym__num_set(r, a);
}

static int64_t floor_div_i64(int64_t p, int64_t q)
{
	int64_t d = p / q;
	if ((p % q != 0) && ((p < 0) != (q < 0)))
		d--;
	return d;
}

void sym__num_floor(sym_num *r, const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a)) {
		int64_t v = floor_div_i64(a->p, a->q);
		sym__num_clear(r);
		r->p = v, r->q = 1;
		return;
	}
	{
		mpz_t z;
		mpz_init(z);
		mpz_fdiv_q(z, mpq_numref(a->big), mpq_denref(a->big));
		sym__num_set_mpz(r, z);
		mpz_clear(z);
	}
}

void sym__num_ceil(sym_num *r, const sym_num *a)
{
	sym_num t;
	sym__num_init(&t);
	sym__num_neg(&t, a);
	sym__num_floor(&t, &t);
	sym__num_neg(r, &t);
	sym__num_clear(&t);
}

int sym__num_pow(sym_num *r, const sym_num *a, long long n, unsigned long max_bits)
{
	mpq_t x;
	unsigned long e;
	size_t bits = sym__num_bits(a);
	if (n == 0) {
		sym__num_set_si(r, 1);
		return 1;
	}
	e = n < 0 ? (unsigned long)(-(n + 1)) + 1 : (unsigned long)n;
	/* 0, 1 and -1 stay small under any power */
	if (!(!SYM_NUM_IS_BIG(a) && a->q == 1 && (a->p >= -1 && a->p <= 1)) &&
	    (double)(bits > 1 ? bits - 1 : 1) * (double)e > (double)max_bits)
		return 0;
	if (!SYM_NUM_IS_BIG(a) && e <= 64 && !(n < 0 && a->p == 0)) {
		/* square and multiply in small numbers (they widen on overflow) */
		sym_num acc, base;
		sym__num_init(&acc);
		sym__num_init(&base);
		sym__num_set_si(&acc, 1);
		sym__num_set(&base, a);
		for (;;) {
			if (e & 1)
				sym__num_mul(&acc, &acc, &base);
			e >>= 1;
			if (!e)
				break;
			sym__num_mul(&base, &base, &base);
		}
		if (n < 0) {
			sym__num_set_si(&base, 1);
			sym__num_div(r, &base, &acc);
		} else {
			sym__num_set(r, &acc);
		}
		sym__num_clear(&acc);
		sym__num_clear(&base);
		return 1;
	}
	mpq_init(x);
	sym__num_get_mpq(x, a);
	mpz_pow_ui(mpq_numref(x), mpq_numref(x), e);
	mpz_pow_ui(mpq_denref(x), mpq_denref(x), e);
	if (n < 0)
		mpq_inv(x, x);
	num_take_mpq(r, x);
	return 1;
}

void sym__num_numer(sym_num *r, const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a)) {
		int64_t p = a->p;
		sym__num_clear(r);
		r->p = p, r->q = 1;
		return;
	}
	sym__num_set_mpz(r, mpq_numref(a->big));
}

void sym__num_denom(sym_num *r, const sym_num *a)
{
	if (!SYM_NUM_IS_BIG(a)) {
		int64_t q = a->q;
		sym__num_clear(r);
		r->p = q, r->q = 1;
		return;
	}
	sym__num_set_mpz(r, mpq_denref(a->big));
}

void sym__num_gcd(sym_num *r, const sym_num *a, const sym_num *b)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b)) {
		uint64_t g = gcd_u64(abs_u64(a->p), abs_u64(b->p));
		sym__num_clear(r);
		r->p = (int64_t)g, r->q = 1; /* g <= INT64_MAX since |p| < 2^63 */
		return;
	}
	{
		mpz_t x, y;
		mpz_inits(x, y, NULL);
		if (SYM_NUM_IS_BIG(a))
			mpz_set(x, mpq_numref(a->big));
		else
			mpz_set_si(x, a->p);
		if (SYM_NUM_IS_BIG(b))
			mpz_set(y, mpq_numref(b->big));
		else
			mpz_set_si(y, b->p);
		mpz_gcd(x, x, y);
		sym__num_set_mpz(r, x);
		mpz_clears(x, y, NULL);
	}
}

void sym__num_lcm(sym_num *r, const sym_num *a, const sym_num *b)
{
	sym_num g, t;
	sym__num_init(&g);
	sym__num_init(&t);
	sym__num_gcd(&g, a, b);
	if (sym__num_is_zero(&g)) {
		sym__num_set_si(r, 0);
		return;
	}
	sym__num_div(&t, a, &g);
	sym__num_mul(&t, &t, b);
	sym__num_abs(r, &t);
	sym__num_clear(&g);
	sym__num_clear(&t);
}

int sym__num_sgn_full(const sym_num *a)
{
	if (SYM_NUM_IS_BIG(a))
		return mpq_sgn(a->big);
	return (a->p > 0) - (a->p < 0);
}

int sym__num_cmp_full(const sym_num *a, const sym_num *b)
{
	if (!SYM_NUM_IS_BIG(a) && !SYM_NUM_IS_BIG(b)) {
		if (a->q == 1 && b->q == 1)
			return (a->p > b->p) - (a->p < b->p);
#ifdef SYM_HAVE_I128
		{
			i128 x = (i128)a->p * b->q, y = (i128)b->p * a->q;
			return (x > y) - (x < y);
		}
#endif
	}
	{
		mpq_t x, y;
		int c;
		mpq_inits(x, y, NULL);
		sym__num_get_mpq(x, a);
		sym__num_get_mpq(y, b);
		c = mpq_cmp(x, y);
		mpq_clears(x, y, NULL);
		return (c > 0) - (c < 0);
	}
}

int sym__num_equal_full(const sym_num *a, const sym_num *b)
{
	if (SYM_NUM_IS_BIG(a) != SYM_NUM_IS_BIG(b))
		return 0;
	if (SYM_NUM_IS_BIG(a))
		return mpq_equal(a->big, b->big);
	return a->p == b->p && a->q == b->q;
}

int sym__num_is_int_full(const sym_num *a)
{
	if (SYM_NUM_IS_BIG(a))
		return mpz_cmp_ui(mpq_denref(a->big), 1) == 0;
	return a->q == 1;
}

int sym__num_get_si(const sym_num *a, int64_t *out)
{
	if (SYM_NUM_IS_BIG(a)) {
		/* INT64_MIN is the one int64 stored big */
		if (mpz_cmp_ui(mpq_denref(a->big), 1) == 0 && mpz_fits_slong_p(mpq_numref(a->big)) &&
		    sizeof(long) == 8) {
			*out = mpz_get_si(mpq_numref(a->big));
			return 1;
		}
		return 0;
	}
	if (a->q != 1)
		return 0;
	*out = a->p;
	return 1;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_mpz(mpz_srcptr z)
{
	size_t i, n = mpz_size(z);
	uint64_t h = (uint64_t)mpz_sgn(z) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < n; i++)
		h = mix64(h ^ (uint64_t)mpz_getlimbn(z, (mp_size_t)i));
	return h;
}

uint64_t sym__num_hash(const sym_num *a)
{
	if (SYM_NUM_IS_BIG(a))
		return mix64(hash_mpz(mpq_numref(a->big)) * 31 + hash_mpz(mpq_denref(a->big)));
	return mix64((uint64_t)a->p * 0x9e3779b97f4a7c15ULL + (uint64_t)a->q);
}

size_t sym__num_bits(const sym_num *a)
{
	if (SYM_NUM_IS_BIG(a))
		return mpz_sizeinbase(mpq_numref(a->big), 2) + mpz_sizeinbase(mpq_denref(a->big), 2);
	{
		uint64_t v = abs_u64(a->p), q = (uint64_t)a->q;
		size_t b = 0;
		while (v)
			b++, v >>= 1;
		while (q > 1)
			b++, q >>= 1;
		return b ? b : 1;
	}
}

char *sym__num_to_str(const sym_num *a)
{
	mpq_t x;
	char *s;
	mpq_init(x);
	sym__num_get_mpq(x, a);
	s = mpq_get_str(NULL, 10, x);
	mpq_clear(x);
	return s;
}

void sym__num_str_free(char *s)
{
	if (s)
		gmp_free(s, strlen(s) + 1);
}

int sym__num_set_str(sym_num *r, const char *s, size_t len)
{
	char buf[32];
	size_t i = 0;
	int neg = 0;
	if (len && (s[0] == '-' || s[0] == '+'))
		neg = s[0] == '-', i = 1;
	if (i == len)
		return 0;
	for (size_t k = i; k < len; k++)
		if (s[k] < '0' || s[k] > '9')
			return 0;
	if (len - i < 19) {
		int64_t v = 0;
		for (; i < len; i++)
			v = v * 10 + (s[i] - '0');
		sym__num_set_si(r, neg ? -v : v);
		return 1;
	}
	{
		mpz_t z;
		char *t = len < sizeof(buf) ? buf : gmp_alloc(len + 1);
		memcpy(t, s, len);
		t[len] = 0;
		mpz_init(z);
		mpz_set_str(z, t[0] == '+' ? t + 1 : t, 10);
		if (t != buf)
			gmp_free(t, len + 1);
		sym__num_set_mpz(r, z);
		mpz_clear(z);
	}
	return 1;
}
