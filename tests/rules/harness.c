/* The rule test harness (see harness.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "seam.h"

void rt_init(rt *t, long long dim_min)
{
	t->ctx = sym_ctx_new();
	assert_non_null(t->ctx);
	t->facts = sym_facts_new(t->ctx);
	assert_non_null(t->facts);
	t->dim_min = dim_min;
	t->opset = 18;
	sym_facts_set_default_min(t->facts, dim_min);
	/* every symbol is a dim, at most SYM_DIM_MAX, as in a model's inference */
	sym__facts_bound_dims(t->facts);
	sym__infer_init(&t->inf, t->ctx, t->facts);
}

void rt_free(rt *t)
{
	sym__infer_clear(&t->inf);
	sym_facts_free(t->facts);
	sym_ctx_free(t->ctx);
}

/* Parses "[e1, e2, ...]" into expressions (commas inside parentheses kept). */
static size_t parse_list(rt *t, const char *s, const sym_expr ***out)
{
	size_t n = 0, cap = 8, len;
	const sym_expr **v = sym__infer_alloc(&t->inf, cap * sizeof(*v));
	const char *p = s;
	char *buf;
	while (*p == ' ')
		p++;
	if (*p != '[')
		fail_msg("list '%s' must start with [", s);
	p++;
	len = strlen(p);
	buf = malloc(len + 1);
	for (;;) {
		int depth = 0;
		size_t k = 0;
		while (*p == ' ')
			p++;
		if (*p == ']')
			break;
		while (*p && !(depth == 0 && (*p == ',' || *p == ']'))) {
			if (*p == '(')
				depth++;
			if (*p == ')')
				depth--;
			buf[k++] = *p++;
		}
		buf[k] = 0;
		if (n == cap) {
			const sym_expr **nv = sym__infer_alloc(&t->inf, 2 * cap * sizeof(*nv));
			memcpy(nv, v, n * sizeof(*v));
			v = nv, cap *= 2;
		}
		v[n] = sym_expr_from_str(t->ctx, buf);
		if (!v[n])
			fail_msg("bad element '%s': %s", buf, sym_ctx_last_message(t->ctx));
		n++;
		if (*p == ',')
			p++;
		else
			break;
	}
	free(buf);
	*out = v;
	return n;
}

sym_tval rt_t(rt *t, const char *shape, const char *dtype, const char *value)
{
	sym_tval v;
	memset(&v, 0, sizeof(v));
	v.present = 1;
	v.dtype = dtype ? sym__dtype_from_name(dtype) : SYM_DT_FLOAT32;
	assert_true(v.dtype > 0);
	if (!strcmp(shape, "*")) {
		v.rank = -1;
	} else {
		const sym_expr **d;
		v.rank = (int)parse_list(t, shape, &d);
		v.dims = d;
	}
	if (value) {
		const sym_expr **d;
		v.nvalue = parse_list(t, value, &d);
		v.value = d;
		v.has_value = 1;
	}
	return v;
}

sym_tval rt_absent(void)
{
	sym_tval v;
	memset(&v, 0, sizeof(v));
	v.rank = -1;
	return v;
}

sym_attr rt_i(rt *t, const char *name, long long v)
{
	sym_attr a;
	int64_t *x = sym__infer_alloc(&t->inf, sizeof(*x));
	memset(&a, 0, sizeof(a));
	*x = v;
	a.name = name, a.type = SYM_ATTR_INT, a.n = 1, a.ints = x;
	return a;
}

sym_attr rt_is(rt *t, const char *name, const char *list)
{
	sym_attr a;
	const sym_expr **e;
	size_t n = parse_list(t, list, &e), i;
	int64_t *x = sym__infer_alloc(&t->inf, (n ? n : 1) * sizeof(*x));
	memset(&a, 0, sizeof(a));
	for (i = 0; i < n; i++) {
		long long v;
		assert_int_equal(sym_expr_get_si(e[i], &v), 1);
		x[i] = v;
	}
	a.name = name, a.type = SYM_ATTR_INTS, a.n = n, a.ints = x;
	return a;
}

sym_attr rt_f(rt *t, const char *name, double v)
{
	sym_attr a;
	double *x = sym__infer_alloc(&t->inf, sizeof(*x));
	memset(&a, 0, sizeof(a));
	*x = v;
	a.name = name, a.type = SYM_ATTR_FLOAT, a.n = 1, a.floats = x;
	return a;
}

sym_attr rt_fs(rt *t, const char *name, const char *list)
{
	sym_attr a;
	size_t n = 0, cap = 16;
	double *x = sym__infer_alloc(&t->inf, cap * sizeof(*x));
	const char *p = strchr(list, '[');
	memset(&a, 0, sizeof(a));
	p = p ? p + 1 : list;
	while (*p && *p != ']' && n < cap) {
		char *end;
		x[n++] = strtod(p, &end);
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	a.name = name, a.type = SYM_ATTR_FLOATS, a.n = n, a.floats = x;
	return a;
}

sym_attr rt_s(rt *t, const char *name, const char *v)
{
	sym_attr a;
	const char **x = sym__infer_alloc(&t->inf, sizeof(*x));
	memset(&a, 0, sizeof(a));
	*x = sym__infer_strdup(&t->inf, v);
	a.name = name, a.type = SYM_ATTR_STRING, a.n = 1, a.strs = x;
	return a;
}

int rt_run(rt *t, const char *op, const char *domain, size_t nin, const sym_tval *in, size_t na,
           const sym_attr *a, size_t nout, sym_tval *out)
{
	return sym__rule_run(&t->inf, domain ? domain : "", op, "n0", t->opset, nin, in, na, a, nout, out);
}

static const char *list_text(rt *t, size_t n, const sym_expr *const *v)
{
	sym_sbuf b;
	size_t i;
	char *r;
	sym__sbuf_init(&b, t->ctx);
	sym__sbuf_puts(&b, "[");
	for (i = 0; i < n; i++) {
		if (i)
			sym__sbuf_puts(&b, ", ");
		sym__print(&b, v[i]);
	}
	sym__sbuf_puts(&b, "]");
	r = sym__infer_strdup(&t->inf, b.s);
	sym__sbuf_clear(&b);
	return r;
}

const char *rt_shape(rt *t, const sym_tval *v)
{
	if (v->rank < 0)
		return "*";
	return list_text(t, (size_t)v->rank, v->dims);
}

const char *rt_value(rt *t, const sym_tval *v)
{
	if (!v->has_value)
		return "none";
	return list_text(t, v->nvalue, v->value);
}

size_t rt_shapes(rt *t, const char *const *shapes, sym_tval *in, size_t cap)
{
	size_t n;
	for (n = 0; shapes[n]; n++) {
		assert_true(n < cap);
		in[n] = *shapes[n] ? rt_t(t, shapes[n], NULL, NULL) : rt_absent();
	}
	return n;
}

const char *rt_outcome(rt *t, const char *op, const char *domain, size_t nin, const sym_tval *in, size_t na,
                       const sym_attr *a, size_t nout, sym_tval *out)
{
	const char *r = "";
	size_t i;
	if (rt_run(t, op, domain, nin, in, na, a, nout, out) < 0) {
		r = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		assert_non_null(r);
		return r;
	}
	for (i = 0; i < nout; i++) {
		r = sym__infer_printf(&t->inf, "%s%s%s", r, i ? " " : "", rt_shape(t, &out[i]));
		assert_non_null(r);
	}
	return r;
}

void rt_rand_seed(uint64_t *st)
{
	const char *env = getenv("SYM_TEST_SEED");
	*st = 0x9e3779b97f4a7c15ULL ^ (env ? strtoull(env, NULL, 10) : 0);
}

long long rt_rand(uint64_t *st, long long lo, long long hi)
{
	*st ^= *st << 13, *st ^= *st >> 7, *st ^= *st << 17;
	return lo + (long long)(*st % (uint64_t)(hi - lo + 1));
}

const char *rt_guards(rt *t)
{
	sym_sbuf b;
	size_t i;
	char *r;
	sym__sbuf_init(&b, t->ctx);
	sym__sbuf_puts(&b, "");
	for (i = 0; i < t->inf.nguards; i++) {
		if (i)
			sym__sbuf_puts(&b, "; ");
		sym__sbuf_puts(&b, t->inf.guards[i].kind == SYM_GUARD_ASSERT ? "assert " : "expect ");
		sym__print(&b, t->inf.guards[i].pred);
	}
	r = sym__infer_strdup(&t->inf, b.s);
	sym__sbuf_clear(&b);
	return r;
}

/* ---- the property ------------------------------------------------------- */

static uint64_t rng(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static const sym_expr *at_point(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms,
                                const sym_expr *const *vals)
{
	const sym_expr *r = sym_expr_subst(ctx, e, n, syms, vals);
	if (!r)
		fail_msg("substitution failed: %s", sym_ctx_last_message(ctx));
	return r;
}

static sym_tval concrete(rt *c, const sym_tval *v, rt *t, size_t n, const sym_expr *const *syms,
                         const sym_expr *const *vals)
{
	sym_tval r = *v;
	int k;
	size_t i;
	if (v->rank > 0) {
		const sym_expr **d = sym__infer_alloc(&c->inf, (size_t)v->rank * sizeof(*d));
		for (k = 0; k < v->rank; k++)
			d[k] = at_point(t->ctx, v->dims[k], n, syms, vals);
		r.dims = d;
	}
	if (v->has_value) {
		const sym_expr **d = sym__infer_alloc(&c->inf, (v->nvalue ? v->nvalue : 1) * sizeof(*d));
		for (i = 0; i < v->nvalue; i++)
			d[i] = at_point(t->ctx, v->value[i], n, syms, vals);
		r.value = d;
	}
	return r;
}

void rt_property(rt *t, const char *op, const char *domain, size_t nin, const sym_tval *in, size_t na,
                 const sym_attr *a, size_t nout, int iters, long long lo, long long hi)
{
	sym_tval out[8], cout[8];
	const sym_expr *syms[32], *vals[32];
	size_t ns = 0, i, k, g, g0 = t->inf.nguards;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	const char *env = getenv("SYM_TEST_SEED");
	int it;
	assert_true(nout <= 8);
	if (env)
		seed ^= strtoull(env, NULL, 10) * 0x9e3779b97f4a7c15ULL;
	/* the guards of an earlier run would stand for this run's, which adds
	 * none that it has, and every point would pass for covered */
	if (t->inf.nguards)
		fail_msg("%s: rt_property needs a session without guards (this one has %zu)", op,
		         t->inf.nguards);
	if (rt_run(t, op, domain, nin, in, na, a, nout, out) < 0)
		fail_msg("%s: symbolic run failed: %s", op, sym_ctx_last_message(t->ctx));
	/* symbols of the inputs */
	for (i = 0; i < nin; i++) {
		int d;
		const sym_expr *found[32];
		for (d = 0; in[i].present && d < in[i].rank + (int)in[i].nvalue * in[i].has_value; d++) {
			const sym_expr *e = d < in[i].rank ? in[i].dims[d] : in[i].value[d - in[i].rank];
			size_t m = sym_expr_symbols(t->ctx, e, found, 32), j;
			for (j = 0; j < m && j < 32; j++) {
				for (k = 0; k < ns && syms[k] != found[j]; k++)
					;
				if (k == ns && ns < 32)
					syms[ns++] = found[j];
			}
		}
	}
	for (it = 0; it < iters; it++) {
		rt c;
		sym_tval cin[24];
		int ok_guards = 1, rc;
		assert_true(nin <= 24);
		for (k = 0; k < ns; k++)
			vals[k] =
			    sym_expr_from_si(t->ctx, lo + (long long)(rng(&seed) % (uint64_t)(hi - lo + 1)));
		for (g = g0; g < t->inf.nguards; g++) {
			const sym_expr *r = at_point(t->ctx, t->inf.guards[g].pred, ns, syms, vals);
			if (r != sym__true(t->ctx) && r != sym__false(t->ctx))
				fail_msg("%s: guard does not evaluate to a truth value", op);
			if (r == sym__false(t->ctx))
				ok_guards = 0;
		}
		/* the concrete session shares t's context, so nodes compare by pointer */
		c.ctx = t->ctx;
		c.dim_min = t->dim_min;
		c.opset = t->opset;
		c.facts = sym_facts_new(t->ctx);
		sym__infer_init(&c.inf, t->ctx, c.facts);
		for (i = 0; i < nin; i++)
			cin[i] = concrete(&c, &in[i], t, ns, syms, vals);
		rc = sym__rule_run(&c.inf, domain ? domain : "", op, "n0", t->opset, nin, cin, na, a, nout,
		                   cout);
		if (rc < 0)
			sym_ctx_clear_error(t->ctx);
		if ((rc == 0) != ok_guards) {
			char pt[256] = "";
			for (k = 0; k < ns; k++) {
				long long x;
				sym_expr_get_si(vals[k], &x);
				snprintf(pt + strlen(pt), sizeof(pt) - strlen(pt), " %s=%lld",
				         sym_expr_symbol_name(syms[k]), x);
			}
			fail_msg("%s at%s: concrete run %s but the guards %s (guards: %s)", op, pt,
			         rc == 0 ? "succeeds" : "fails", ok_guards ? "hold" : "fail", rt_guards(t));
		}
		if (rc == 0) {
			for (i = 0; i < nout; i++) {
				int d;
				if (out[i].rank < 0)
					continue;
				assert_int_equal(cout[i].rank, out[i].rank);
				for (d = 0; d < out[i].rank; d++) {
					const sym_expr *e = at_point(t->ctx, out[i].dims[d], ns, syms, vals);
					if (e != cout[i].dims[d])
						fail_msg("%s: output %zu dim %d: symbolic %s gives %s, "
						         "concrete %s",
						         op, i, d, sym_expr_to_str(t->ctx, out[i].dims[d]),
						         sym_expr_to_str(t->ctx, e),
						         sym_expr_to_str(t->ctx, cout[i].dims[d]));
				}
				if (out[i].has_value && cout[i].has_value) {
					assert_int_equal(cout[i].nvalue, out[i].nvalue);
					for (k = 0; k < out[i].nvalue; k++)
						if (at_point(t->ctx, out[i].value[k], ns, syms, vals) !=
						    cout[i].value[k])
							fail_msg("%s: output %zu value %zu differs", op, i,
							         k);
				}
			}
		}
		sym__infer_clear(&c.inf);
		sym_facts_free(c.facts);
	}
}
