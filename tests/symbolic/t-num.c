/* Exact rationals (symbolic/num.h): the small/big canonical representation,
 * the arithmetic checked against GMP's mpq on seeded random inputs, GMP
 * interop with aliased operands, and decimal text of any size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "num.h"

/* ---- seeded random numbers ------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t seed_from_env(void)
{
	const char *s = getenv("SYM_TEST_SEED");
	return s && *s ? strtoull(s, NULL, 10) : 1;
}

static long iters_from_env(long dflt)
{
	const char *s = getenv("SYM_TEST_ITERS");
	long v = s && *s ? atol(s) : 0;
	return v > 0 ? v : dflt;
}

static int setup_seed(void **state)
{
	(void)state;
	rng_state = seed_from_env();
	return 0;
}

/* A random integer of the given number of bits (sign random). */
static void rnd_mpz_bits(mpz_ptr z, unsigned bits)
{
	unsigned i;
	mpz_set_ui(z, 0);
	for (i = 0; i < bits; i += 32) {
		mpz_mul_2exp(z, z, 32);
		mpz_add_ui(z, z, (unsigned long)(rnd() & 0xffffffffu));
	}
	if (bits % 32)
		mpz_fdiv_r_2exp(z, z, bits);
	if (rnd() & 1)
		mpz_neg(z, z);
}

/* Integers where representations change: around 0, +-2^31, +-2^62,
 * +-2^63, +-2^64, and far beyond. */
static void rnd_mpz(mpz_ptr z)
{
	switch (rnd() % 9) {
	case 0:
		mpz_set_si(z, (long)(rnd() % 201) - 100);
		break;
	case 1: /* within a few of +-2^63 (INT64_MIN is 2^63 below 0) */
		mpz_set_ui(z, 1);
		mpz_mul_2exp(z, z, 63);
		if (rnd() & 1)
			mpz_sub_ui(z, z, rnd() % 4);
		else
			mpz_add_ui(z, z, rnd() % 4);
		if (rnd() & 1)
			mpz_neg(z, z);
		break;
	case 2: /* within a few of +-2^64 */
		mpz_set_ui(z, 1);
		mpz_mul_2exp(z, z, 64);
		mpz_sub_ui(z, z, rnd() % 4);
		if (rnd() & 1)
			mpz_neg(z, z);
		break;
	case 3:
		rnd_mpz_bits(z, 1 + (unsigned)(rnd() % 64));
		break;
	case 4:
		rnd_mpz_bits(z, 60 + (unsigned)(rnd() % 10));
		break;
	case 5:
		rnd_mpz_bits(z, 64 + (unsigned)(rnd() % 300));
		break;
	case 6: /* a power of two, exactly */
		mpz_set_ui(z, 1);
		mpz_mul_2exp(z, z, rnd() % 130);
		if (rnd() & 1)
			mpz_neg(z, z);
		break;
	case 7:
		mpz_set_si(z, (long)(rnd() % 2000001) - 1000000);
		break;
	default:
		rnd_mpz_bits(z, 20 + (unsigned)(rnd() % 30));
		break;
	}
}

/* A random rational: often an integer, else a fraction of random parts. */
static void rnd_mpq(mpq_ptr q)
{
	mpz_t d;
	mpz_init(d);
	rnd_mpz(mpq_numref(q));
	if (rnd() % 3 == 0) {
		mpz_set_ui(mpq_denref(q), 1);
	} else {
		do
			rnd_mpz(d);
		while (mpz_sgn(d) == 0);
		mpz_set(mpq_denref(q), d);
		if (mpz_sgn(d) < 0) {
			mpz_neg(mpq_denref(q), d);
			mpz_neg(mpq_numref(q), mpq_numref(q));
		}
		mpq_canonicalize(q);
	}
	mpz_clear(d);
}

/* ---- checks ----------------------------------------------------------- */

static char *qstr(mpq_srcptr q)
{
	static char buf[4][2048];
	static int k;
	char *s = buf[k++ & 3];
	gmp_snprintf(s, 2048, "%Qd", q);
	return s;
}

static const char *nstr(const sym_num *a)
{
	static char buf[4][2048];
	static int k;
	char *s = buf[k++ & 3];
	mpq_t q;
	mpq_init(q);
	sym__num_get_mpq(q, a);
	gmp_snprintf(s, 2048, "%Qd%s", q, SYM_NUM_IS_BIG(a) ? " (big)" : " (small)");
	mpq_clear(q);
	return s;
}

/* Whether the canonical representation of the value v is the small one. */
static int should_be_small(mpq_srcptr v)
{
	mpz_t lo, hi;
	int small;
	mpz_inits(lo, hi, NULL);
	mpz_set_si(lo, INT64_MIN);
	mpz_set_si(hi, INT64_MAX);
	small = mpz_cmp(mpq_numref(v), lo) > 0 && mpz_cmp(mpq_numref(v), hi) <= 0 &&
	        mpz_cmp(mpq_denref(v), hi) <= 0;
	mpz_clears(lo, hi, NULL);
	return small;
}

/* Asserts that x holds the value v in its one canonical representation,
 * and that it equals and hashes like the number built directly from v. */
static void check_num(const char *what, const sym_num *x, mpq_srcptr v)
{
	mpq_t got;
	sym_num direct = {{0}, 1};
	mpq_init(got);
	sym__num_get_mpq(got, x);
	if (!mpq_equal(got, v))
		fail_msg("%s: expected %s, got %s", what, qstr(v), qstr(got));
	if (should_be_small(v)) {
		if (SYM_NUM_IS_BIG(x))
			fail_msg("%s: %s must be small", what, qstr(v));
		if (x->q <= 0 || mpz_cmp_si(mpq_numref(v), x->p) != 0 || mpz_cmp_si(mpq_denref(v), x->q) != 0)
			fail_msg("%s: small %s stored as %lld/%lld", what, qstr(v), (long long)x->p,
			         (long long)x->q);
	} else {
		mpz_t g;
		if (!SYM_NUM_IS_BIG(x))
			fail_msg("%s: %s must be big", what, qstr(v));
		mpz_init(g);
		mpz_gcd(g, mpq_numref(x->big), mpq_denref(x->big));
		if (mpz_cmp_ui(g, 1) != 0 || mpz_sgn(mpq_denref(x->big)) <= 0)
			fail_msg("%s: big value %s is not reduced", what, qstr(x->big));
		mpz_clear(g);
	}
	sym__num_init(&direct);
	sym__num_set_mpq(&direct, v);
	if (!sym__num_equal(x, &direct))
		fail_msg("%s: %s does not equal the directly built number", what, nstr(x));
	if (sym__num_hash(x) != sym__num_hash(&direct))
		fail_msg("%s: hash of %s differs from the directly built number", what, nstr(x));
	if (sym__num_cmp(x, &direct) != 0)
		fail_msg("%s: cmp of %s with itself is not 0", what, nstr(x));
	sym__num_clear(&direct);
	mpq_clear(got);
}

static void check_num_si(const char *what, const sym_num *x, long v)
{
	mpq_t q;
	mpq_init(q);
	mpq_set_si(q, v, 1);
	check_num(what, x, q);
	mpq_clear(q);
}

/* r holds a value already (so a big one is released by the set). */
static void num_from_mpq(sym_num *r, mpq_srcptr v)
{
	sym__num_set_mpq(r, v);
}

static void num_from_str(sym_num *r, const char *s)
{
	if (!sym__num_set_str(r, s, strlen(s)))
		fail_msg("set_str rejected %s", s);
}

/* ---- table tests ------------------------------------------------------ */

static void big_values_that_shrink_become_small(void **state)
{
	sym_num a = {{0}, 1}, b = {{0}, 1}, r = {{0}, 1}, one = {{0}, 1};
	mpq_t q;
	(void)state;
	mpq_init(q);
	num_from_str(&a, "1180591620717411303424"); /* 2^70 */
	assert_true(SYM_NUM_IS_BIG(&a));
	sym__num_init(&r);
	sym__num_div(&r, &a, &a);
	check_num_si("2^70/2^70", &r, 1);
	sym__num_init(&one);
	sym__num_set_si(&one, 1);
	assert_true(sym__num_equal(&r, &one));
	assert_int_equal(sym__num_hash(&r), sym__num_hash(&one));
	assert_true(sym__num_is_one(&r));

	sym__num_sub(&r, &a, &a);
	check_num_si("2^70 - 2^70", &r, 0);
	assert_true(sym__num_is_zero(&r));

	num_from_str(&b, "1180591620717411303419"); /* 2^70 - 5 */
	sym__num_sub(&r, &a, &b);
	check_num_si("2^70 - (2^70 - 5)", &r, 5);

	/* 2^70 / 2^69 = 2, and (2^70 + 1)/2^70 stays big */
	num_from_str(&b, "590295810358705651712");
	sym__num_div(&r, &a, &b);
	check_num_si("2^70 / 2^69", &r, 2);
	sym__num_div(&r, &b, &a);
	mpq_set_ui(q, 1, 2);
	check_num("2^69 / 2^70", &r, q);

	/* 2^64 - (2^64 - 1) */
	num_from_str(&a, "18446744073709551616");
	num_from_str(&b, "18446744073709551615");
	sym__num_sub(&r, &a, &b);
	check_num_si("2^64 - (2^64 - 1)", &r, 1);
	sym__num_clear(&a);
	sym__num_clear(&b);
	sym__num_clear(&r);
	sym__num_clear(&one);
	mpq_clear(q);
}

static void int64_edges_have_one_representation(void **state)
{
	sym_num a = {{0}, 1}, b = {{0}, 1}, r = {{0}, 1};
	mpq_t q;
	(void)state;
	mpq_init(q);
	sym__num_init(&a);
	sym__num_init(&b);
	sym__num_init(&r);

	sym__num_set_si(&a, INT64_MAX);
	check_num_si("INT64_MAX", &a, INT64_MAX);
	sym__num_set_si(&a, INT64_MIN);
	check_num_si("INT64_MIN", &a, INT64_MIN); /* big by the invariant */
	sym__num_set_si(&a, INT64_MIN + 1);
	check_num_si("INT64_MIN + 1", &a, INT64_MIN + 1);

	/* INT64_MAX + 1 - 1 comes back small */
	sym__num_set_si(&a, INT64_MAX);
	sym__num_set_si(&b, 1);
	sym__num_add(&r, &a, &b);
	mpq_set_str(q, "9223372036854775808", 10);
	check_num("INT64_MAX + 1", &r, q);
	sym__num_sub(&r, &r, &b);
	check_num_si("INT64_MAX + 1 - 1", &r, INT64_MAX);

	/* -(INT64_MIN + 1) - 1 = INT64_MAX - 1; (INT64_MIN + 1) - 1 = INT64_MIN */
	sym__num_set_si(&a, INT64_MIN + 1);
	sym__num_sub(&r, &a, &b);
	check_num_si("(INT64_MIN + 1) - 1", &r, INT64_MIN);
	sym__num_add(&r, &r, &b);
	check_num_si("INT64_MIN + 1", &r, INT64_MIN + 1);
	sym__num_neg(&r, &a);
	check_num_si("-(INT64_MIN + 1)", &r, INT64_MAX);

	/* -INT64_MIN = 2^63 (big), abs too, and negating back gives INT64_MIN */
	sym__num_set_si(&a, INT64_MIN);
	sym__num_neg(&r, &a);
	mpq_set_str(q, "9223372036854775808", 10);
	check_num("-INT64_MIN", &r, q);
	sym__num_abs(&r, &a);
	check_num("abs(INT64_MIN)", &r, q);
	sym__num_neg(&r, &r);
	check_num_si("-(2^63)", &r, INT64_MIN);

	/* products that overflow 64 bits */
	sym__num_set_si(&a, INT64_MAX);
	sym__num_mul(&r, &a, &a);
	mpq_set_str(q, "85070591730234615847396907784232501249", 10);
	check_num("INT64_MAX^2", &r, q);
	sym__num_set_si(&a, 4294967296LL);  /* 2^32 */
	sym__num_set_si(&b, -2147483648LL); /* -2^31 */
	sym__num_mul(&r, &a, &b);
	check_num_si("2^32 * -2^31", &r, INT64_MIN);
	sym__num_set_si(&b, 2147483648LL);
	sym__num_mul(&r, &a, &b);
	mpq_set_str(q, "9223372036854775808", 10);
	check_num("2^32 * 2^31", &r, q);
	sym__num_set_si(&a, 3037000500LL); /* just over sqrt(2^63) */
	sym__num_mul(&r, &a, &a);
	mpq_set_str(q, "9223372037000250000", 10);
	check_num("3037000500^2", &r, q);

	/* denominators at the edge: 1/INT64_MAX small, 1/2^63 big */
	sym__num_set_frac(&r, 1, INT64_MAX);
	mpq_set_str(q, "1/9223372036854775807", 10);
	check_num("1/INT64_MAX", &r, q);
	sym__num_set_frac(&r, 1, INT64_MIN);
	mpq_set_str(q, "-1/9223372036854775808", 10);
	check_num("1/INT64_MIN", &r, q);
	sym__num_set_frac(&r, INT64_MIN, -1);
	mpq_set_str(q, "9223372036854775808", 10);
	check_num("INT64_MIN/-1", &r, q);
	sym__num_set_frac(&r, INT64_MIN, INT64_MIN);
	check_num_si("INT64_MIN/INT64_MIN", &r, 1);
	sym__num_set_frac(&r, INT64_MIN, 2);
	check_num_si("INT64_MIN/2", &r, INT64_MIN / 2);
	sym__num_set_frac(&r, 6, -4);
	mpq_set_si(q, -3, 2);
	check_num("6/-4", &r, q);

	/* (INT64_MAX/2)*(2/INT64_MAX) = 1 through 128-bit intermediates */
	sym__num_set_frac(&a, INT64_MAX, 2);
	sym__num_set_frac(&b, 2, INT64_MAX);
	sym__num_mul(&r, &a, &b);
	check_num_si("(INT64_MAX/2)*(2/INT64_MAX)", &r, 1);
	sym__num_set_frac(&a, 1, INT64_MAX);
	sym__num_set_frac(&b, 1, INT64_MAX - 1);
	sym__num_add(&r, &a, &b);
	mpq_set_str(q, "18446744073709551613/85070591730234615838173535747377725442", 10);
	check_num("1/INT64_MAX + 1/(INT64_MAX - 1)", &r, q);
	sym__num_sub(&r, &r, &b);
	mpq_set_str(q, "1/9223372036854775807", 10);
	check_num("... - 1/(INT64_MAX - 1)", &r, q);

	sym__num_clear(&a);
	sym__num_clear(&b);
	sym__num_clear(&r);
	mpq_clear(q);
}

static void get_si_returns_every_int64(void **state)
{
	/* num.h: "Returns 1 and stores the value when a is an integer fitting
	 * int64" -- INT64_MIN fits int64. */
	sym_num a = {{0}, 1};
	int64_t v = 0;
	(void)state;
	sym__num_init(&a);
	sym__num_set_si(&a, INT64_MAX);
	assert_int_equal(sym__num_get_si(&a, &v), 1);
	assert_true(v == INT64_MAX);
	sym__num_set_si(&a, INT64_MIN + 1);
	assert_int_equal(sym__num_get_si(&a, &v), 1);
	assert_true(v == INT64_MIN + 1);
	sym__num_set_frac(&a, 1, 2);
	assert_int_equal(sym__num_get_si(&a, &v), 0);
	assert_int_equal(sym__num_set_str(&a, "9223372036854775808", 19), 1);
	assert_int_equal(sym__num_get_si(&a, &v), 0);
	sym__num_set_si(&a, INT64_MIN);
	if (sym__num_get_si(&a, &v) != 1 || v != INT64_MIN)
		fail_msg("sym__num_get_si(INT64_MIN) does not return INT64_MIN");
	sym__num_clear(&a);
}

static void floor_and_ceil_round_toward_the_infinities(void **state)
{
	static const struct {
		const char *in, *fl, *ce;
	} v[] = {
	    {"7/2", "3", "4"},
	    {"-7/2", "-4", "-3"},
	    {"-1/3", "-1", "0"},
	    {"1/3", "0", "1"},
	    {"-6/3", "-2", "-2"},
	    {"-5", "-5", "-5"},
	    {"0", "0", "0"},
	    {"-9223372036854775807/2", "-4611686018427387904", "-4611686018427387903"},
	    {"-1/9223372036854775807", "-1", "0"},
	    {"9223372036854775807/9223372036854775806", "1", "2"},
	    {"-9223372036854775808/3", "-3074457345618258603", "-3074457345618258602"},
	    {"-18446744073709551617/2", "-9223372036854775809", "-9223372036854775808"},
	    {"-1267650600228229401496703205377/1267650600228229401496703205376", "-2", "-1"},
	    {"1267650600228229401496703205377/1267650600228229401496703205376", "1", "2"},
	    {"-2361183241434822606847/2", "-1180591620717411303424", "-1180591620717411303423"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		mpq_t q, f, c;
		sym_num a = {{0}, 1}, r = {{0}, 1};
		mpq_inits(q, f, c, NULL);
		assert_int_equal(mpq_set_str(q, v[i].in, 10), 0);
		mpq_canonicalize(q);
		assert_int_equal(mpq_set_str(f, v[i].fl, 10), 0);
		assert_int_equal(mpq_set_str(c, v[i].ce, 10), 0);
		num_from_mpq(&a, q);
		sym__num_init(&r);
		sym__num_floor(&r, &a);
		check_num(v[i].in, &r, f);
		sym__num_ceil(&r, &a);
		check_num(v[i].in, &r, c);
		sym__num_floor(&a, &a); /* aliased */
		check_num(v[i].in, &a, f);
		sym__num_clear(&a);
		sym__num_clear(&r);
		mpq_clears(q, f, c, NULL);
	}
}

static void gcd_and_lcm_of_integers(void **state)
{
	static const struct {
		const char *a, *b, *g, *l;
	} v[] = {
	    {"12", "18", "6", "36"},
	    {"-12", "18", "6", "36"},
	    {"12", "-18", "6", "36"},
	    {"0", "5", "5", "0"},
	    {"-5", "0", "5", "0"},
	    {"0", "0", "0", "0"},
	    {"-9223372036854775807", "9223372036854775807", "9223372036854775807", "9223372036854775807"},
	    {"-9223372036854775808", "6", "2", "27670116110564327424"},
	    {"-9223372036854775808", "-9223372036854775808", "9223372036854775808", "9223372036854775808"},
	    {"4611686018427387904", "9223372036854775807", "1", "42535295865117307928310139910543638528"},
	    {"1180591620717411303424", "18446744073709551616", "18446744073709551616",
	     "1180591620717411303424"},
	    {"1180591620717411303424", "6", "2", "3541774862152233910272"},
	    {"3", "5", "1", "15"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_num a = {{0}, 1}, b = {{0}, 1}, r = {{0}, 1};
		mpq_t g, l;
		char what[160];
		mpq_inits(g, l, NULL);
		mpq_set_str(g, v[i].g, 10);
		mpq_set_str(l, v[i].l, 10);
		num_from_str(&a, v[i].a);
		num_from_str(&b, v[i].b);
		sym__num_init(&r);
		snprintf(what, sizeof(what), "gcd(%s, %s)", v[i].a, v[i].b);
		sym__num_gcd(&r, &a, &b);
		check_num(what, &r, g);
		snprintf(what, sizeof(what), "lcm(%s, %s)", v[i].a, v[i].b);
		sym__num_lcm(&r, &a, &b);
		check_num(what, &r, l);
		/* aliased */
		sym__num_lcm(&a, &a, &b);
		check_num(what, &a, l);
		sym__num_clear(&a);
		sym__num_clear(&b);
		sym__num_clear(&r);
		mpq_clears(g, l, NULL);
	}
}

static void aliased_operands_with_big_values(void **state)
{
	sym_num a = {{0}, 1}, b = {{0}, 1};
	mpq_t x, y, e;
	(void)state;
	mpq_inits(x, y, e, NULL);
	mpq_set_str(x, "123456789012345678901234567890123/7", 10);
	mpq_canonicalize(x);
	mpq_set_str(y, "-98765432109876543210987654321", 10);

	num_from_mpq(&a, x);
	sym__num_add(&a, &a, &a);
	mpq_add(e, x, x);
	check_num("a = a + a", &a, e);

	num_from_mpq(&a, x);
	sym__num_sub(&a, &a, &a);
	check_num_si("a = a - a", &a, 0);

	num_from_mpq(&a, x);
	sym__num_mul(&a, &a, &a);
	mpq_mul(e, x, x);
	check_num("a = a * a", &a, e);

	num_from_mpq(&a, x);
	sym__num_div(&a, &a, &a);
	check_num_si("a = a / a", &a, 1);

	num_from_mpq(&a, x);
	num_from_mpq(&b, y);
	sym__num_add(&a, &a, &b);
	mpq_add(e, x, y);
	check_num("a = a + b", &a, e);
	sym__num_clear(&a);
	num_from_mpq(&a, x);
	sym__num_mul(&b, &a, &b);
	mpq_mul(e, x, y);
	check_num("b = a * b", &b, e);
	sym__num_sub(&b, &a, &b);
	mpq_sub(e, x, e);
	check_num("b = a - b", &b, e);
	sym__num_neg(&a, &a);
	mpq_neg(e, x);
	check_num("a = -a", &a, e);
	sym__num_abs(&a, &a);
	check_num("a = abs(a)", &a, x);
	sym__num_set(&a, &a);
	check_num("a = a", &a, x);
	sym__num_numer(&a, &a);
	mpq_set_z(e, mpq_numref(x));
	check_num("a = numer(a)", &a, e);
	sym__num_clear(&a);
	sym__num_clear(&b);

	/* set_mpq and get_mpq with the same GMP value on both sides */
	num_from_mpq(&a, x);
	sym__num_get_mpq(x, &a);
	sym__num_set_mpq(&a, x);
	check_num("set_mpq(get_mpq(a))", &a, x);
	sym__num_set_mpz(&a, mpq_numref(x));
	mpq_set_z(e, mpq_numref(x));
	check_num("set_mpz", &a, e);
	sym__num_clear(&a);
	mpq_clears(x, y, e, NULL);
}

static void decimal_text_of_any_size(void **state)
{
	static const char *const v[] = {
	    "0",
	    "-0",
	    "+17",
	    "-17",
	    "000000000000000000000000000000000000042",
	    "-000000000000000000000000000000000000042",
	    "999999999999999999",
	    "-999999999999999999",
	    "9223372036854775807",
	    "-9223372036854775807",
	    "9223372036854775808",
	    "-9223372036854775808",
	    "18446744073709551616",
	    "100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	    "0000",
	    "-12345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345"
	    "67890",
	    "+12345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345"
	    "67890",
	};
	static const char *const bad[] = {"",   "-",  "+",   "1a",   "--1",
	                                  "1-", " 1", "1.5", "0x10", "12345678901234567890123456789x"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		mpq_t q, back;
		sym_num a = {{0}, 1}, b = {{0}, 1};
		char *s;
		mpq_inits(q, back, NULL);
		assert_int_equal(mpz_set_str(mpq_numref(q), v[i][0] == '+' ? v[i] + 1 : v[i], 10), 0);
		num_from_str(&a, v[i]);
		check_num(v[i], &a, q);
		s = sym__num_to_str(&a);
		assert_non_null(s);
		assert_int_equal(mpq_set_str(back, s, 10), 0);
		assert_true(mpq_equal(back, q));
		num_from_str(&b, s);
		assert_true(sym__num_equal(&a, &b));
		sym__num_str_free(s);
		sym__num_clear(&a);
		sym__num_clear(&b);
		mpq_clears(q, back, NULL);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sym_num a = {{0}, 1};
		sym__num_init(&a);
		if (sym__num_set_str(&a, bad[i], strlen(bad[i])))
			fail_msg("set_str accepted '%s'", bad[i]);
		sym__num_clear(&a);
	}
	{
		/* the length bounds the text: "12345" with len 3 is 123 */
		sym_num a = {{0}, 1};
		sym__num_init(&a);
		assert_int_equal(sym__num_set_str(&a, "12345", 3), 1);
		check_num_si("len 3", &a, 123);
		assert_int_equal(sym__num_set_str(&a, "-1234567890123456789012345xyz", 25), 1);
		{
			mpq_t q;
			mpq_init(q);
			mpq_set_str(q, "-123456789012345678901234", 10);
			check_num("len 25", &a, q);
			mpq_clear(q);
		}
		sym__num_clear(&a);
	}
}

static void pow_respects_the_size_limit(void **state)
{
	/* sym__num_pow returns 0 "when the result would exceed max_bits bits";
	 * 2**(2**20) has 2**20 + 1 bits. */
	static const char *const bases[] = {"7", "-5", "1/7", "2", "3", "-2", "1/2", "2/3"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		sym_num a = {{0}, 1}, r = {{0}, 1};
		mpq_t q;
		mpq_init(q);
		mpq_set_str(q, bases[i], 10);
		num_from_mpq(&a, q);
		sym__num_init(&r);
		if (sym__num_pow(&r, &a, 1 << 20, 1 << 16))
			fail_msg("(%s)**(2**20) with a limit of 2**16 bits was computed (%zu bits)", bases[i],
			         sym__num_bits(&r));
		if (sym__num_pow(&r, &a, -(1 << 20), 1 << 16))
			fail_msg("(%s)**-(2**20) with a limit of 2**16 bits was computed (%zu bits)",
			         bases[i], sym__num_bits(&r));
		sym__num_clear(&a);
		sym__num_clear(&r);
		mpq_clear(q);
	}
}

static void pow_small_exponents(void **state)
{
	sym_num a = {{0}, 1}, r = {{0}, 1};
	mpq_t q, e;
	long long n;
	(void)state;
	mpq_inits(q, e, NULL);
	mpq_set_str(q, "-3/2", 10);
	num_from_mpq(&a, q);
	sym__num_init(&r);
	for (n = -70; n <= 70; n++) {
		char what[64];
		mpz_pow_ui(mpq_numref(e), mpq_numref(q), (unsigned long)(n < 0 ? -n : n));
		mpz_pow_ui(mpq_denref(e), mpq_denref(q), (unsigned long)(n < 0 ? -n : n));
		if (n < 0)
			mpq_inv(e, e);
		snprintf(what, sizeof(what), "(-3/2)**%lld", n);
		assert_int_equal(sym__num_pow(&r, &a, n, 1UL << 24), 1);
		check_num(what, &r, e);
	}
	sym__num_set_si(&a, INT64_MIN);
	assert_int_equal(sym__num_pow(&r, &a, -1, 1UL << 24), 1);
	mpq_set_str(e, "-1/9223372036854775808", 10);
	check_num("INT64_MIN**-1", &r, e);
	assert_int_equal(sym__num_pow(&a, &a, 0, 1UL << 24), 1);
	check_num_si("INT64_MIN**0 aliased", &a, 1);
	sym__num_clear(&a);
	sym__num_clear(&r);
	mpq_clears(q, e, NULL);
}

/* ---- random comparison with mpq -------------------------------------- */

static void floor_mpq(mpq_ptr r, mpq_srcptr a)
{
	mpz_fdiv_q(mpq_numref(r), mpq_numref(a), mpq_denref(a));
	mpz_set_ui(mpq_denref(r), 1);
}

static void ceil_mpq(mpq_ptr r, mpq_srcptr a)
{
	mpz_cdiv_q(mpq_numref(r), mpq_numref(a), mpq_denref(a));
	mpz_set_ui(mpq_denref(r), 1);
}

static void every_operation_agrees_with_mpq(void **state)
{
	long iters = iters_from_env(20000), it;
	mpq_t x, y, e, t;
	(void)state;
	mpq_inits(x, y, e, t, NULL);
	for (it = 0; it < iters; it++) {
		sym_num a = {{0}, 1}, b = {{0}, 1}, r = {{0}, 1}, a2 = {{0}, 1};
		int alias = (int)(rnd() % 3), c;
		char what[64];
		rnd_mpq(x);
		rnd_mpq(y);
		num_from_mpq(&a, x);
		num_from_mpq(&b, y);
		sym__num_init(&r);
		check_num("set_mpq", &a, x);

#define BINOP(name, fn, mpqfn)                                                                               \
	do {                                                                                                 \
		mpqfn(e, x, y);                                                                              \
		snprintf(what, sizeof(what), "%s (case %ld, alias %d)", name, it, alias);                    \
		if (alias == 0) {                                                                            \
			fn(&r, &a, &b);                                                                      \
			check_num(what, &r, e);                                                              \
		} else {                                                                                     \
			sym_num c1 = {{0}, 1}, c2 = {{0}, 1};                                                \
			num_from_mpq(&c1, x);                                                                \
			num_from_mpq(&c2, y);                                                                \
			if (alias == 1) {                                                                    \
				fn(&c1, &c1, &c2);                                                           \
				check_num(what, &c1, e);                                                     \
			} else {                                                                             \
				fn(&c2, &c1, &c2);                                                           \
				check_num(what, &c2, e);                                                     \
			}                                                                                    \
			sym__num_clear(&c1);                                                                 \
			sym__num_clear(&c2);                                                                 \
		}                                                                                            \
	} while (0)

		BINOP("add", sym__num_add, mpq_add);
		BINOP("sub", sym__num_sub, mpq_sub);
		BINOP("mul", sym__num_mul, mpq_mul);
		if (mpq_sgn(y) != 0)
			BINOP("div", sym__num_div, mpq_div);
#undef BINOP

		snprintf(what, sizeof(what), "unary (case %ld)", it);
		mpq_neg(e, x);
		sym__num_neg(&r, &a);
		check_num(what, &r, e);
		mpq_abs(e, x);
		sym__num_abs(&r, &a);
		check_num(what, &r, e);
		floor_mpq(e, x);
		sym__num_floor(&r, &a);
		check_num(what, &r, e);
		ceil_mpq(e, x);
		sym__num_ceil(&r, &a);
		check_num(what, &r, e);
		mpq_set_z(e, mpq_numref(x));
		sym__num_numer(&r, &a);
		check_num(what, &r, e);
		mpq_set_z(e, mpq_denref(x));
		sym__num_denom(&r, &a);
		check_num(what, &r, e);

		c = mpq_cmp(x, y);
		c = (c > 0) - (c < 0);
		if (sym__num_cmp(&a, &b) != c)
			fail_msg("cmp(%s, %s) = %d, expected %d", qstr(x), qstr(y), sym__num_cmp(&a, &b), c);
		if (sym__num_equal(&a, &b) != mpq_equal(x, y))
			fail_msg("equal(%s, %s) wrong", qstr(x), qstr(y));
		if (mpq_equal(x, y) && sym__num_hash(&a) != sym__num_hash(&b))
			fail_msg("equal values %s hash differently", qstr(x));
		if (sym__num_sgn(&a) != mpq_sgn(x))
			fail_msg("sgn(%s) wrong", qstr(x));
		if (sym__num_is_int(&a) != (mpz_cmp_ui(mpq_denref(x), 1) == 0))
			fail_msg("is_int(%s) wrong", qstr(x));
		{
			int64_t v;
			int fits = mpz_cmp_ui(mpq_denref(x), 1) == 0 && mpz_fits_slong_p(mpq_numref(x)) &&
			           mpz_cmp_si(mpq_numref(x), INT64_MIN) != 0;
			/* INT64_MIN is covered by get_si_returns_every_int64 */
			if (mpz_cmp_si(mpq_numref(x), INT64_MIN) != 0 || mpz_cmp_ui(mpq_denref(x), 1) != 0) {
				if (sym__num_get_si(&a, &v) != fits)
					fail_msg("get_si(%s) wrong", qstr(x));
				if (fits && mpz_cmp_si(mpq_numref(x), v) != 0)
					fail_msg("get_si(%s) value wrong", qstr(x));
			}
		}
		{
			/* the text round trip of the numerator (set_str takes integers) */
			char *s = sym__num_to_str(&a), *slash;
			mpq_set_str(t, s, 10);
			if (!mpq_equal(t, x))
				fail_msg("to_str(%s) = %s", qstr(x), s);
			slash = strchr(s, '/');
			sym__num_init(&a2);
			if (!sym__num_set_str(&a2, s, slash ? (size_t)(slash - s) : strlen(s)))
				fail_msg("set_str of %s rejected", s);
			mpq_set_z(e, mpq_numref(x));
			check_num("set_str", &a2, e);
			sym__num_clear(&a2);
			sym__num_str_free(s);
		}
		if (mpz_cmp_ui(mpq_denref(x), 1) == 0 && mpz_cmp_ui(mpq_denref(y), 1) == 0) {
			mpz_gcd(mpq_numref(e), mpq_numref(x), mpq_numref(y));
			mpz_set_ui(mpq_denref(e), 1);
			sym__num_gcd(&r, &a, &b);
			check_num("gcd", &r, e);
			mpz_lcm(mpq_numref(e), mpq_numref(x), mpq_numref(y));
			sym__num_lcm(&r, &a, &b);
			check_num("lcm", &r, e);
		}
		{
			long long n = (long long)(rnd() % 9) - 4;
			if (n >= 0 || mpq_sgn(x) != 0) {
				unsigned long k = (unsigned long)(n < 0 ? -n : n);
				mpz_pow_ui(mpq_numref(e), mpq_numref(x), k);
				mpz_pow_ui(mpq_denref(e), mpq_denref(x), k);
				if (n < 0)
					mpq_inv(e, e);
				snprintf(what, sizeof(what), "pow %lld (case %ld)", n, it);
				if (!sym__num_pow(&r, &a, n, 1UL << 24))
					fail_msg("%s refused", what);
				check_num(what, &r, e);
			}
		}
		sym__num_clear(&a);
		sym__num_clear(&b);
		sym__num_clear(&r);
	}
	mpq_clears(x, y, e, t, NULL);
}

/* Sums that cross the small/big boundary in both directions must land on
 * the canonical form every time. */
static void chains_cross_the_boundary_both_ways(void **state)
{
	long iters = iters_from_env(20000) / 4, it;
	mpq_t acc, d;
	sym_num s = {{0}, 1}, k = {{0}, 1};
	(void)state;
	mpq_inits(acc, d, NULL);
	sym__num_init(&s);
	sym__num_init(&k);
	mpq_set_si(acc, INT64_MAX - 1000, 1);
	sym__num_set_si(&s, INT64_MAX - 1000);
	for (it = 0; it < iters; it++) {
		switch (rnd() % 4) {
		case 0:
			mpq_set_si(d, (long)(rnd() % 4001) - 2000, 1);
			break;
		case 1:
			mpq_set_si(d, (long)(rnd() % 4001) - 2000, 1 + (unsigned long)(rnd() % 3));
			mpq_canonicalize(d);
			break;
		case 2: /* restart next to one of the int64 ends */
			mpq_set_si(acc, 0, 1);
			sym__num_set_si(&s, 0);
			mpq_set_si(d, INT64_MAX - 5, 1);
			if (rnd() & 1)
				mpq_neg(d, d);
			break;
		default:
			mpq_set_si(d, (long)(rnd() % 11) - 5, 1);
			break;
		}
		sym__num_set_mpq(&k, d);
		if (rnd() & 1) {
			mpq_add(acc, acc, d);
			sym__num_add(&s, &s, &k);
		} else {
			mpq_sub(acc, acc, d);
			sym__num_sub(&s, &s, &k);
		}
		check_num("chain", &s, acc);
	}
	sym__num_clear(&s);
	sym__num_clear(&k);
	mpq_clears(acc, d, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(big_values_that_shrink_become_small),
	    cmocka_unit_test(int64_edges_have_one_representation),
	    cmocka_unit_test(get_si_returns_every_int64),
	    cmocka_unit_test(floor_and_ceil_round_toward_the_infinities),
	    cmocka_unit_test(gcd_and_lcm_of_integers),
	    cmocka_unit_test(aliased_operands_with_big_values),
	    cmocka_unit_test(decimal_text_of_any_size),
	    cmocka_unit_test(pow_small_exponents),
	    cmocka_unit_test(pow_respects_the_size_limit),
	    cmocka_unit_test_setup(every_operation_agrees_with_mpq, setup_seed),
	    cmocka_unit_test_setup(chains_cross_the_boundary_both_ways, setup_seed),
	};
	printf("SYM_TEST_SEED=%llu\n", (unsigned long long)seed_from_env());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
