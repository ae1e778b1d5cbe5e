/* Values of any rank and float shape arithmetic.  Rules that move value
 * elements move their rounding records (values.h, sym_fmeta) with them
 * here; the float operations give the exact rational result of an
 * operation together with what the runtime's float32 or float64
 * arithmetic can make of it.  docs/rules.md ("Float shape values") has the
 * soundness argument: an element is exact only where the runtime computes
 * exactly that number, a rounded element carries a relative error bound,
 * and rounding to an integer of a rounded element is exact only when the
 * whole error interval rounds to one integer, else a runtime-bound symbol
 * with that interval as its range. */
#include "rules_private.h"

#include "symshape/gmp.h"

#include <math.h>
#include <string.h>

/* Magnitude up to which float32 holds every integer. */
#define F32_INT_LIMIT 16777216LL
#define F64_INT_LIMIT 9007199254740992LL

/* Witness exponents stay in this range (no underflow, no overflow of a
 * float32 holding the element). */
#define FQ_MAX 100

static const sym_fmeta exact_rec = {0, SYM_FQ_NONE, NULL, 0};

/* ---- layout and moving elements ------------------------------------------- */

int sym__rc_value_dims(const sym_tval *t, long long *dims, int cap, long long *numel)
{
	if (!t->has_value || !sym__rc_const_dims(t, dims, cap, numel))
		return 0;
	return (size_t)*numel == t->nvalue;
}

/* The witness q of a constant: c * 2**q is an integer of magnitude at most
 * 2**24 (c a float32 number), or SYM_FQ_NONE. */
static int const_witness(const sym_expr *c)
{
	mpq_t v;
	int q = SYM_FQ_NONE;
	mpq_init(v);
	if (sym_expr_get_mpq(c, v)) {
		mpz_srcptr n = mpq_numref(v), d = mpq_denref(v);
		if (mpz_sgn(n) == 0) {
			q = 0;
		} else if (mpz_popcount(d) == 1) {
			long k = (long)mpz_scan1(d, 0), t = (long)mpz_scan1(n, 0);
			mpz_t p;
			mpz_init(p);
			mpz_tdiv_q_2exp(p, n, (mp_bitcnt_t)t);
			mpz_abs(p, p);
			if (mpz_cmp_si(p, F32_INT_LIMIT) <= 0 && k - t <= FQ_MAX && k - t >= -FQ_MAX)
				q = (int)(k - t);
			mpz_clear(p);
		}
	}
	mpq_clear(v);
	return q;
}

sym_fmeta sym__rc_fmeta_at(const sym_tval *t, size_t i)
{
	sym_fmeta m = exact_rec;
	if (t->fmeta)
		return t->fmeta[i];
	if (t->has_value && i < t->nvalue && sym_expr_kind(t->value[i]) == SYM_KIND_NUM)
		m.q = const_witness(t->value[i]);
	return m;
}

/* The records of x's value as an array (built when x has none). */
static const sym_fmeta *records_of(sym_rule_ctx *rc, const sym_tval *x)
{
	sym_fmeta *m;
	size_t i;
	if (x->fmeta || !sym__dtype_is_float(x->dtype))
		return x->fmeta;
	m = sym__rc_alloc(rc, (x->nvalue ? x->nvalue : 1) * sizeof(*m));
	if (!m)
		return NULL;
	for (i = 0; i < x->nvalue; i++)
		m[i] = sym__rc_fmeta_at(x, i);
	return m;
}

int sym__rc_set_fvalue(sym_rule_ctx *rc, size_t i, size_t n, const sym_expr *const *v, const sym_fmeta *m)
{
	sym_fmeta *c;
	size_t k;
	if (sym__rc_set_value(rc, i, n, v) < 0)
		return -1;
	c = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*c));
	if (!c)
		return -1;
	for (k = 0; k < n; k++)
		c[k] = m ? m[k] : exact_rec;
	if (!m)
		for (k = 0; k < n; k++)
			if (sym_expr_kind(rc->out[i].value[k]) == SYM_KIND_NUM)
				c[k].q = const_witness(rc->out[i].value[k]);
	rc->out[i].fmeta = c;
	return 0;
}

int sym__rc_pass_value(sym_rule_ctx *rc, size_t i, const sym_tval *x)
{
	const sym_fmeta *m;
	if (!x->has_value)
		return 0;
	if (sym__rc_set_value(rc, i, x->nvalue, x->value) < 0)
		return -1;
	if (!sym__dtype_is_float(x->dtype))
		return 0;
	if (!(m = records_of(rc, x)))
		return -1;
	rc->out[i].fmeta = m;
	return 0;
}

int sym__rc_pick_value(sym_rule_ctx *rc, size_t i, const sym_tval *x, size_t n, const size_t *idx)
{
	const sym_expr **v = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*v));
	sym_fmeta *m = NULL;
	size_t k;
	int fl = sym__dtype_is_float(x->dtype);
	if (!v || (fl && !(m = sym__rc_alloc(rc, (n ? n : 1) * sizeof(*m)))))
		return -1;
	for (k = 0; k < n; k++) {
		if (idx[k] >= x->nvalue)
			return sym__rc_error(rc, "value element %zu is out of range", idx[k]);
		v[k] = x->value[idx[k]];
		if (fl)
			m[k] = sym__rc_fmeta_at(x, idx[k]);
	}
	if (sym__rc_set_value(rc, i, n, v) < 0)
		return -1;
	rc->out[i].fmeta = m;
	return 0;
}

static const sym_expr *and_cond(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	return !a ? b : !b ? a : sym_expr_and(ctx, a, b);
}

/* Requires the condition of a record as an expect guard. */
static int require_cond(sym_rule_ctx *rc, const sym_expr *cond)
{
	return sym__rc_require_float_exact(rc, cond);
}

/* ---- exact numbers ------------------------------------------------------------ */

const sym_expr *sym__rc_from_double(sym_rule_ctx *rc, double v)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	int e;
	double m;
	long long mi;
	if (!isfinite(v)) {
		sym__rc_error(rc, "%s is not a finite number", isnan(v) ? "NaN" : "infinity");
		return NULL;
	}
	m = frexp(v, &e); /* v = m * 2**e, 0.5 <= |m| < 1 */
	mi = (long long)ldexp(m, 53);
	return sym_expr_mul(ctx, sym_expr_from_si(ctx, mi),
	                    sym_expr_pow_si(ctx, sym_expr_from_si(ctx, 2), e - 53));
}

/* The constant e as a number of dtype (float32 or float64) that it is
 * exactly; returns 0 when e is not a constant or not such a number. */
static int const_number(const sym_expr *e, int dtype, double *out)
{
	mpq_t v, w;
	int ok = 0;
	if (sym_expr_kind(e) != SYM_KIND_NUM || (dtype != SYM_DT_FLOAT32 && dtype != SYM_DT_FLOAT64))
		return 0;
	mpq_init(v);
	mpq_init(w);
	if (sym_expr_get_mpq(e, v)) {
		double d = mpq_get_d(v);
		if (isfinite(d)) {
			mpq_set_d(w, d);
			ok = mpq_equal(v, w) && (dtype == SYM_DT_FLOAT64 || (double)(float)d == d);
			*out = d;
		}
	}
	mpq_clear(v);
	mpq_clear(w);
	return ok;
}

/* The runtime's result of op on numbers of dtype: IEEE 754 operations
 * round correctly, so this is the number every conforming runtime
 * computes.  Returns 0 when the result is not finite. */
static int fold(sym_fop op, int dtype, double a, double b, double *r)
{
	volatile float fa = (float)a, fb = (float)b, fr = 0;
	volatile double da = a, db = b, dr = 0;
	int f32 = dtype == SYM_DT_FLOAT32;
	switch (op) {
	case SYM_FOP_ADD:
		f32 ? (void)(fr = fa + fb) : (void)(dr = da + db);
		break;
	case SYM_FOP_SUB:
		f32 ? (void)(fr = fa - fb) : (void)(dr = da - db);
		break;
	case SYM_FOP_MUL:
		f32 ? (void)(fr = fa * fb) : (void)(dr = da * db);
		break;
	case SYM_FOP_DIV:
		if (b == 0)
			return 0;
		f32 ? (void)(fr = fa / fb) : (void)(dr = da / db);
		break;
	case SYM_FOP_RECIP:
		if (a == 0)
			return 0;
		f32 ? (void)(fr = 1.0f / fa) : (void)(dr = 1.0 / da);
		break;
	default:
		return 0;
	}
	*r = f32 ? (double)fr : dr;
	return isfinite(*r);
}

/* ---- float operations ------------------------------------------------------------ */

static sym_truth prove_rel(sym_rule_ctx *rc, sym_relop op, const sym_expr *a, const sym_expr *b)
{
	return sym__rc_prove(rc, sym_expr_rel(sym__rc_ctx(rc), op, a, b));
}

/* 1 when a >= 0 is proven, -1 when a <= 0 is, 0 otherwise. */
static int sign_of(sym_rule_ctx *rc, const sym_expr *a)
{
	const sym_expr *z = sym__zero(sym__rc_ctx(rc));
	if (prove_rel(rc, SYM_REL_GE, a, z) == SYM_TRUE)
		return 1;
	if (prove_rel(rc, SYM_REL_LE, a, z) == SYM_TRUE)
		return -1;
	return 0;
}

/* r * 2**q, or NULL when it is not integer-valued (or q is out of range). */
static const sym_expr *mantissa(sym_rule_ctx *rc, const sym_expr *r, int q)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *p;
	if (q > FQ_MAX || q < -FQ_MAX)
		return NULL;
	p = sym__rc_simplify(rc, sym_expr_mul(ctx, r, sym_expr_pow_si(ctx, sym_expr_from_si(ctx, 2), q)));
	return p && sym__expr_is_int(p) ? p : NULL;
}

/* |p| <= 2**24 as a predicate (p <= 2**24 when p >= 0 is proven). */
static const sym_expr *within_mantissa(sym_rule_ctx *rc, const sym_expr *p)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *l = sym_expr_from_si(ctx, F32_INT_LIMIT);
	if (sign_of(rc, p) > 0)
		return sym_expr_rel(ctx, SYM_REL_LE, p, l);
	return sym_expr_rel(ctx, SYM_REL_LE, sym_expr_abs(ctx, p), l);
}

/* Whether r * 2**q is proven to be a float32 mantissa: an integer of
 * magnitude at most 2**24. */
static int fits_mantissa(sym_rule_ctx *rc, const sym_expr *r, int q)
{
	const sym_expr *p = mantissa(rc, r, q);
	return p && sym__rc_prove(rc, within_mantissa(rc, p)) == SYM_TRUE;
}

/* Whether the mantissa bound holds with every symbol at 4096: a bound a
 * real model meets (3*h <= 2**24), not one that fails for every dim but 1
 * (13421773*h <= 2**24, h times 0.1f). */
static int plausible(sym_rule_ctx *rc, const sym_expr *p)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *syms[16], *v;
	long long vals[16], c;
	size_t n = sym_expr_symbols(ctx, p, syms, 16), k;
	if (n > 16)
		return 0;
	for (k = 0; k < n; k++)
		vals[k] = 4096;
	v = sym_expr_eval_si(ctx, sym_expr_abs(ctx, p), n, syms, vals);
	if (!v) {
		sym_ctx_clear_error(ctx);
		return 0;
	}
	return sym_expr_get_si(v, &c) == 1 && c <= F32_INT_LIMIT;
}

/* Records of the result r of an operation on exact operands, q its
 * would-be witness: exact when r * 2**q is proven a float32 mantissa;
 * exact under the condition that it is one when that is plausible (an
 * expect guard once the value is used); else rounded once (err 1). */
static void exact_or_rounded(sym_rule_ctx *rc, const sym_expr *r, int q, sym_fmeta *rm)
{
	const sym_expr *p = q == SYM_FQ_NONE ? NULL : mantissa(rc, r, q), *in;
	if (p && (in = within_mantissa(rc, p))) {
		sym_truth t = sym__rc_prove(rc, in);
		if (t == SYM_TRUE || (t == SYM_UNKNOWN && plausible(rc, p))) {
			rm->err = 0, rm->q = q;
			if (t == SYM_UNKNOWN)
				rm->cond = and_cond(sym__rc_ctx(rc), rm->cond, in);
			return;
		}
	}
	rm->err = 1, rm->q = SYM_FQ_NONE, rm->rn = 1;
}

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

/* The integer that a rounding op gives for the exact value a. */
static const sym_expr *round_form(sym_rule_ctx *rc, sym_fop op, const sym_expr *a)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *z = sym__zero(ctx), *t, *fl, *tie, *ab[2];
	int s;
	switch (op) {
	case SYM_FOP_FLOOR:
		return sym_expr_floor(ctx, a);
	case SYM_FOP_CEIL:
		return sym_expr_ceil(ctx, a);
	case SYM_FOP_TRUNC:
		s = sign_of(rc, a);
		if (s > 0)
			return sym_expr_floor(ctx, a);
		if (s < 0)
			return sym_expr_ceil(ctx, a);
		/* floor(max(a, 0)) + ceil(min(a, 0)) */
		ab[0] = a, ab[1] = z;
		return sym_expr_add(ctx, sym_expr_floor(ctx, sym_expr_max(ctx, 2, ab)),
		                    sym_expr_ceil(ctx, sym_expr_min(ctx, 2, ab)));
	case SYM_FOP_ROUND_AWAY:
		s = sign_of(rc, a);
		t = sym_expr_from_frac(ctx, 1, 2);
		if (s > 0)
			return sym_expr_floor(ctx, sym_expr_add(ctx, a, t));
		if (s < 0)
			return sym_expr_ceil(ctx, sym_expr_sub(ctx, a, t));
		ab[0] = a, ab[1] = z;
		fl = sym_expr_floor(ctx, sym_expr_add(ctx, sym_expr_max(ctx, 2, ab), t));
		ab[0] = sym_expr_neg(ctx, a);
		return sym_expr_sub(ctx, fl,
		                    sym_expr_floor(ctx, sym_expr_add(ctx, sym_expr_max(ctx, 2, ab), t)));
	case SYM_FOP_ROUND:
		if (sym__expr_is_int(a))
			return a;
		/* floor(t) for t = a + 1/2, less 1 at a tie (t an integer) with
		 * floor(t) odd: ties go to the even neighbour */
		t = sym_expr_add(ctx, a, sym_expr_from_frac(ctx, 1, 2));
		fl = sym_expr_floor(ctx, t);
		tie = sym_expr_sub(ctx, sym__one(ctx), sym_expr_sub(ctx, sym_expr_ceil(ctx, t), fl));
		return sym_expr_sub(ctx, fl,
		                    sym_expr_mul(ctx, tie, sym_expr_mod(ctx, fl, sym_expr_from_si(ctx, 2))));
	default:
		return NULL;
	}
}

/* Whether the predicate p holds at typical sizes: every symbol at each of
 * a list of sizes from 8 up, then at sizes that differ between symbols.
 * A guard that fails there would reject real inputs. */
static int plausible_at_sizes(sym_rule_ctx *rc, const sym_expr *p)
{
	static const long long sizes[] = {8,   9,   10,  11,  12,  13,  15,  16,  17,   24,   25,   31,  32,
	                                  33,  48,  63,  64,  97,  100, 127, 128, 131,  160,  193,  224, 240,
	                                  255, 256, 300, 320, 480, 511, 512, 640, 1000, 1023, 1024, 4096};
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *syms[16], *v;
	long long vals[16];
	size_t n = sym_expr_symbols(ctx, p, syms, 16), i, k, pass;
	if (n > 16)
		return 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			for (k = 0; k < n; k++)
				vals[k] = sizes[i] + (long long)(pass * 7 * k);
			if (!(v = sym_expr_eval_si(ctx, p, n, syms, vals))) {
				sym_ctx_clear_error(ctx);
				return 0;
			}
			if (v != sym__true(ctx))
				return 0;
		}
	return 1;
}

/* Rounding to an integer of an element: exact forms for an exact element;
 * for a rounded one, the integer when the error interval rounds to one,
 * else a runtime-bound symbol with the interval's range. */
static int to_integer(sym_rule_ctx *rc, sym_fop op, const sym_expr *a, sym_fmeta ma, const sym_expr **r,
                      sym_fmeta *rm)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *g, *lo, *hi, *flo, *fhi, *fv, *spread, *same;
	sym_truth t;
	int s;
	if (require_cond(rc, ma.cond) < 0)
		return -1;
	*rm = exact_rec;
	if (ma.err == 0) {
		*r = round_form(rc, op, a);
		rm->q = ma.q == SYM_FQ_NONE ? SYM_FQ_NONE : ma.q >= 0 ? 0 : ma.q;
		return *r ? 1 : -1;
	}
	g = sym_expr_from_frac(ctx, ma.err, 1 << 22);
	s = sign_of(rc, a);
	if (s) {
		/* a*(1 - g) and a*(1 + g), in order */
		lo = sym_expr_mul(ctx, a, sym_expr_sub(ctx, sym__one(ctx), g));
		hi = sym_expr_mul(ctx, a, sym_expr_add(ctx, sym__one(ctx), g));
		if (s < 0)
			spread = lo, lo = hi, hi = spread;
	} else {
		spread = sym_expr_mul(ctx, g, sym_expr_abs(ctx, a));
		lo = sym_expr_sub(ctx, a, spread);
		hi = sym_expr_add(ctx, a, spread);
	}
	flo = sym__rc_simplify(rc, round_form(rc, op, lo));
	fhi = sym__rc_simplify(rc, round_form(rc, op, hi));
	fv = sym__rc_simplify(rc, round_form(rc, op, a));
	if (!flo || !fhi || !fv)
		return -1;
	if (ma.rn && (op == SYM_FOP_FLOOR || op == SYM_FOP_CEIL || (op == SYM_FOP_TRUNC && s))) {
		/* one IEEE rounding stays between the integers around v (they are
		 * float32 numbers up to 2**24): the floor is floor(v) unless the
		 * error reaches past the next integer */
		int down = op == SYM_FOP_FLOOR || (op == SYM_FOP_TRUNC && s > 0);
		same = sym_expr_and(ctx, sym_expr_rel(ctx, SYM_REL_EQ, down ? fhi : flo, fv),
		                    sym_expr_rel(ctx, SYM_REL_LE, sym_expr_abs(ctx, a),
		                                 sym_expr_from_si(ctx, F32_INT_LIMIT)));
	} else {
		same = sym_expr_rel(ctx, SYM_REL_EQ, flo, fhi);
	}
	if (!same)
		return -1;
	t = sym__rc_prove(rc, same);
	if (t == SYM_ERROR)
		return -1;
	/* not proven but holding at typical sizes: an expect guard */
	if (t == SYM_TRUE || (t == SYM_UNKNOWN && plausible_at_sizes(rc, same))) {
		if (t != SYM_TRUE &&
		    sym__rc_require(rc, same, SYM_GUARD_EXPECT,
		                    "float rounding of this shape value does not change the integer") < 0)
			return -1;
		*r = fv;
		return 1;
	}
	*r = sym__rc_fresh_dim(rc, flo, fhi, "the integer rounding of a float value");
	return *r ? 1 : -1;
}

int sym__rc_fcast_from_int(sym_rule_ctx *rc, int dtype, const sym_expr *a, const sym_expr **r, sym_fmeta *rm)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	long long lim = dtype == SYM_DT_FLOAT64 ? F64_INT_LIMIT : F32_INT_LIMIT, c;
	const sym_expr *l = sym_expr_from_si(ctx, lim), *in;
	*rm = exact_rec;
	if (dtype != SYM_DT_FLOAT32 && dtype != SYM_DT_FLOAT64)
		return 0;
	if (sym_expr_get_si(a, &c) == 1) {
		/* the conversion rounds to nearest like any IEEE operation */
		double d = dtype == SYM_DT_FLOAT32 ? (double)(float)c : (double)c;
		*r = sym__rc_from_double(rc, d);
		rm->q = *r ? const_witness(*r) : SYM_FQ_NONE;
		return *r ? 1 : -1;
	}
	*r = a;
	in = sym_expr_rel(ctx, SYM_REL_LE, sym_expr_abs(ctx, a), l);
	if (!in)
		return -1;
	switch (sym__rc_prove(rc, in)) {
	case SYM_TRUE:
		break;
	case SYM_FALSE:
		/* beyond the exact range: one rounding */
		rm->err = 1, rm->rn = 1;
		return 1;
	case SYM_ERROR:
		return -1;
	default:
		rm->cond = sign_of(rc, a) > 0 ? sym_expr_rel(ctx, SYM_REL_LE, a, l) : in;
		break;
	}
	/* an integer of magnitude up to 2**24 is its own float32 mantissa */
	rm->q = dtype == SYM_DT_FLOAT32 || fits_mantissa(rc, a, 0) ? 0 : SYM_FQ_NONE;
	return 1;
}

/* Whether b is an exact constant +-2**k; *q is then its witness -k. */
static int is_pow2(sym_rule_ctx *rc, const sym_expr *b, sym_fmeta mb, int *q)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	long long p;
	if (mb.err || mb.cond || sym_expr_kind(b) != SYM_KIND_NUM || (*q = const_witness(b)) == SYM_FQ_NONE)
		return 0;
	return sym_expr_get_si(sym_expr_mul(ctx, b, sym_expr_pow_si(ctx, sym_expr_from_si(ctx, 2), *q)),
	                       &p) == 1 &&
	       (p == 1 || p == -1);
}

int sym__rc_fop(sym_rule_ctx *rc, sym_fop op, int dtype, const sym_expr *a, sym_fmeta ma, const sym_expr *b,
                sym_fmeta mb, const sym_expr **r, sym_fmeta *rm)
{
	sym_ctx *ctx = sym__rc_ctx(rc);
	const sym_expr *ab[2];
	double da, db = 0, dr;
	int q, binary = op <= SYM_FOP_MAX, s1, s2;
	if (dtype != SYM_DT_FLOAT32 && dtype != SYM_DT_FLOAT64)
		return 0;
	*rm = exact_rec;
	rm->cond = and_cond(ctx, ma.cond, binary ? mb.cond : NULL);
	if (ma.err > SYM_FERR_LIMIT || (binary && mb.err > SYM_FERR_LIMIT))
		return 0;
	/* numbers: the runtime's own result */
	if (!ma.err && !ma.cond && const_number(a, dtype, &da) &&
	    (!binary || (!mb.err && !mb.cond && const_number(b, dtype, &db))) &&
	    fold(op, dtype, da, db, &dr)) {
		*r = sym__rc_from_double(rc, dr);
		rm->q = *r ? const_witness(*r) : SYM_FQ_NONE;
		return *r ? 1 : -1;
	}
	switch (op) {
	case SYM_FOP_NEG:
	case SYM_FOP_ABS:
		*r = op == SYM_FOP_NEG ? sym_expr_neg(ctx, a) : sym_expr_abs(ctx, a);
		rm->err = ma.err, rm->q = ma.q, rm->rn = ma.rn;
		break;
	case SYM_FOP_MIN:
	case SYM_FOP_MAX:
		/* the result is one of the operands; x -> x +- g|x| is monotone, so
		 * the larger error bound holds for it */
		ab[0] = a, ab[1] = b;
		*r = op == SYM_FOP_MIN ? sym_expr_min(ctx, 2, ab) : sym_expr_max(ctx, 2, ab);
		rm->err = max_i(ma.err, mb.err);
		rm->q = !rm->err && ma.q == mb.q ? ma.q : SYM_FQ_NONE;
		rm->rn = (!ma.err || ma.rn) && (!mb.err || mb.rn);
		break;
	case SYM_FOP_MUL:
		*r = sym_expr_mul(ctx, a, b);
		/* a power of two moves the exponent only */
		if (is_pow2(rc, b, mb, &q))
			rm->err = ma.err, rm->rn = ma.rn,
			rm->q = ma.q == SYM_FQ_NONE ? SYM_FQ_NONE : ma.q + q;
		else if (is_pow2(rc, a, ma, &q))
			rm->err = mb.err, rm->rn = mb.rn,
			rm->q = mb.q == SYM_FQ_NONE ? SYM_FQ_NONE : mb.q + q;
		else if (!ma.err && !mb.err && ma.q != SYM_FQ_NONE && mb.q != SYM_FQ_NONE)
			exact_or_rounded(rc, *r, ma.q + mb.q, rm);
		else
			rm->err = ma.err + mb.err + 1, rm->rn = !ma.err && !mb.err;
		break;
	case SYM_FOP_DIV:
	case SYM_FOP_RECIP:
		if (op == SYM_FOP_RECIP)
			b = a, mb = ma, a = sym__one(ctx), ma = exact_rec, ma.q = 0;
		if (prove_rel(rc, SYM_REL_GT, b, sym__zero(ctx)) != SYM_TRUE &&
		    prove_rel(rc, SYM_REL_LT, b, sym__zero(ctx)) != SYM_TRUE)
			return 0; /* a zero divisor gives infinity or NaN */
		*r = sym_expr_div(ctx, a, b);
		if (is_pow2(rc, b, mb, &q))
			rm->err = ma.err, rm->rn = ma.rn,
			rm->q = ma.q == SYM_FQ_NONE ? SYM_FQ_NONE : ma.q - q;
		else if (!ma.err && !mb.err)
			rm->err = 1, rm->rn = 1;
		else /* (1 + t1)/(1 + t2) is within gamma(n1 + 2*n2) */
			rm->err = ma.err + 2 * mb.err + 1;
		break;
	case SYM_FOP_ADD:
	case SYM_FOP_SUB:
		*r = op == SYM_FOP_ADD ? sym_expr_add(ctx, a, b) : sym_expr_sub(ctx, a, b);
		if (!ma.err && !mb.err) {
			if (ma.q != SYM_FQ_NONE && mb.q != SYM_FQ_NONE)
				exact_or_rounded(rc, *r, max_i(ma.q, mb.q), rm);
			else
				rm->err = 1, rm->rn = 1;
			break;
		}
		/* rounded operands: the relative bound holds only without
		 * cancellation (the terms added have one sign) */
		s1 = sign_of(rc, a), s2 = sign_of(rc, b);
		if (!s1 || !s2 || (op == SYM_FOP_ADD ? s1 != s2 : s1 == s2))
			return 0;
		rm->err = max_i(ma.err, mb.err) + 1;
		break;
	case SYM_FOP_FLOOR:
	case SYM_FOP_CEIL:
	case SYM_FOP_ROUND:
	case SYM_FOP_TRUNC:
	case SYM_FOP_ROUND_AWAY:
		return to_integer(rc, op, a, ma, r, rm);
	}
	if (!*r)
		return -1;
	if (rm->err > SYM_FERR_LIMIT)
		return 0;
	if (rm->err || rm->q > FQ_MAX || rm->q < -FQ_MAX)
		rm->q = SYM_FQ_NONE;
	if (rm->err != 1)
		rm->rn = 0;
	return 1;
}

/* ---- broadcasting layouts ------------------------------------------------------ */

int sym__rc_bcast_map(sym_rule_ctx *rc, const sym_tval *x, int orank, const long long *odims, long long on,
                      size_t **map)
{
	long long xd[SYM_RC_VALUE_RANK], xn, idx[SYM_RC_VALUE_RANK];
	size_t *m;
	long long i;
	int k, off;
	if (!x->has_value || x->rank > orank)
		return 0;
	if (x->rank <= 1) {
		xd[0] = (long long)x->nvalue, xn = xd[0];
	} else if (!sym__rc_value_dims(x, xd, SYM_RC_VALUE_RANK, &xn)) {
		return 0;
	}
	off = orank - (x->rank < 0 ? 0 : x->rank);
	for (k = 0; k < x->rank; k++)
		if (xd[k] != 1 && xd[k] != odims[k + off])
			return 0;
	if (!(m = sym__rc_alloc(rc, (size_t)(on ? on : 1) * sizeof(*m))))
		return -1;
	memset(idx, 0, sizeof(idx));
	for (i = 0; i < on; i++) {
		size_t src = 0;
		for (k = 0; k < x->rank; k++)
			src = src * (size_t)xd[k] + (size_t)(xd[k] == 1 ? 0 : idx[k + off]);
		m[i] = src;
		for (k = orank - 1; k >= 0; k--) {
			if (++idx[k] < odims[k])
				break;
			idx[k] = 0;
		}
	}
	*map = m;
	return 1;
}

int sym__rc_out_layout(const sym_tval *o, long long *dims, long long *numel)
{
	return sym__rc_const_dims(o, dims, SYM_RC_VALUE_RANK, numel);
}
