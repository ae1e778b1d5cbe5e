/* Generators: RandomNormal, RandomUniform (shape from an attribute), the
 * *Like variants, Bernoulli and EyeLike (the input's shape), Multinomial. */
#include "rules_private.h"

/* The 'dtype' attribute, def when absent. */
static int dtype_attr(sym_rule_ctx *rc, int def, int *dt)
{
	int64_t v;
	if (sym__rc_attr_int(rc, "dtype", def, &v) < 0)
		return -1;
	if (v <= 0 || v >= SYM_DT_COUNT)
		return sym__rc_error(rc, "attribute 'dtype' (%lld) is not a known element type",
		                     (long long)v);
	*dt = (int)v;
	return 0;
}

/* RandomNormal, RandomUniform: the 'shape' attribute, 'dtype' (float32). */
static int r_random(sym_rule_ctx *rc)
{
	const int64_t *v;
	const sym_expr **d;
	size_t n, k;
	int has, dt = SYM_DT_FLOAT32;
	if ((has = sym__rc_attr_ints(rc, "shape", &n, &v)) < 0 || dtype_attr(rc, SYM_DT_FLOAT32, &dt) < 0)
		return -1;
	if (!has)
		return sym__rc_error(rc, "the attribute 'shape' is required");
	if (!(d = sym__rc_alloc(rc, (n + 1) * sizeof(*d))))
		return -1;
	for (k = 0; k < n; k++) {
		if (v[k] < 0)
			return sym__rc_error(rc, "attribute 'shape' has a negative dim %lld",
			                     (long long)v[k]);
		d[k] = sym__rc_num(rc, v[k]);
	}
	if (sym__rc_set_shape(rc, 0, (int)n, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dt);
}

/* RandomNormalLike, RandomUniformLike, Bernoulli: the input's shape, the
 * 'dtype' attribute or the input's type. */
static int r_like(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	int dt = SYM_DT_FLOAT32;
	if (!x || dtype_attr(rc, x->dtype != SYM_DT_UNDEFINED ? x->dtype : SYM_DT_FLOAT32, &dt) < 0 ||
	    sym__rc_copy_shape(rc, 0, x) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dt);
}

/* EyeLike(input): a 2-D input's shape. */
static int r_eye_like(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need(rc, 0);
	if (!x)
		return -1;
	if (x->rank >= 0 && x->rank != 2)
		return sym__rc_error(rc, "input must have rank 2, not %d", x->rank);
	return r_like(rc);
}

/* Multinomial(input [batch, classes]): [batch, sample_size], 'dtype'
 * (int32 by default). */
static int r_multinomial(sym_rule_ctx *rc)
{
	const sym_tval *x = sym__rc_need_rank(rc, 0);
	const sym_expr *d[2];
	int64_t n;
	int dt = SYM_DT_FLOAT32;
	if (!x || sym__rc_attr_int(rc, "sample_size", 1, &n) < 0 || dtype_attr(rc, SYM_DT_INT32, &dt) < 0)
		return -1;
	if (x->rank != 2)
		return sym__rc_error(rc, "input must have rank 2 ([batch, classes]), not %d", x->rank);
	if (n < 1)
		return sym__rc_error(rc, "attribute 'sample_size' must be at least 1, not %lld",
		                     (long long)n);
	d[0] = x->dims[0], d[1] = sym__rc_num(rc, n);
	if (sym__rc_set_shape(rc, 0, 2, d) < 0)
		return -1;
	return sym__rc_set_dtype(rc, 0, dt);
}

const sym_rule_entry sym__rules_random[] = {
    {"RandomNormal", "", r_random, 0},     {"RandomUniform", "", r_random, 0},
    {"RandomNormalLike", "", r_like, 0},   {"RandomUniformLike", "", r_like, 0},
    {"Bernoulli", "", r_like, 0},          {"EyeLike", "", r_eye_like, 0},
    {"Multinomial", "", r_multinomial, 0},
};
const size_t sym__rules_random_count = sizeof(sym__rules_random) / sizeof(sym__rules_random[0]);
