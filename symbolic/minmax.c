/* n-ary min and max: flattened, sorted, deduplicated, constants folded and
 * arguments that differ from another by a constant pruned. */
#include "node_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Returns 1 when a - b is a constant, storing it in *diff. */
static int const_diff(const sym_expr *a, const sym_expr *b, sym_num *diff)
{
	sym_lin x, y;
	size_t i;
	sym__lin_view(a, &x);
	sym__lin_view(b, &y);
	if (x.n != y.n)
		return 0;
	for (i = 0; i < x.n; i++)
		if (sym__lin_mono(&x, i) != sym__lin_mono(&y, i) ||
		    !sym__num_equal(sym__lin_coef(&x, i), sym__lin_coef(&y, i)))
			return 0;
	sym__num_sub(diff, x.c, y.c);
	return 1;
}

static const sym_expr *minmax(sym_ctx *ctx, sym_kind kind, size_t n, const sym_expr *const *args);

/* The first monomial of an argument's nonconstant part (NULL for a
 * constant): two arguments differ by a constant only when their keys are
 * equal. */
static const sym_expr *arg_key(const sym_expr *a)
{
	sym_lin w;
	sym__lin_view(a, &w);
	return w.n ? sym__lin_mono(&w, 0) : NULL;
}

/* Sets to NULL each argument of v[0..m) that another dominates with a
 * constant difference (this also folds constants and removes duplicates):
 * of the arguments with one nonconstant part, the one with the smallest
 * constant stays in a min, the largest in a max.  Only arguments with one
 * key are compared: they are grouped by a hash table on the key, each
 * group in argument order, so the pass is linear when few share a leading
 * monomial.  Returns 0 when memory runs out. */
static int prune_const_diff(sym_ctx *ctx, sym_kind kind, const sym_expr **v, size_t m)
{
	size_t cap = 16, i, j, h, *head, *tail, *next, bytes;
	const sym_expr **key;
	sym_num d;
	if (m < 2)
		return 1;
	while (cap < 2 * m)
		cap *= 2;
	/* head and tail: a group's first and last argument (+1, 0 for a free
	 * slot); next: the argument after i in its group (+1, 0 at the end) */
	bytes = (2 * cap + m) * sizeof(size_t) + m * sizeof(*key);
	if (!(head = sym__alloc(ctx, bytes)))
		return 0;
	memset(head, 0, 2 * cap * sizeof(size_t));
	tail = head + cap;
	next = tail + cap;
	key = (const sym_expr **)(next + m);
	for (i = 0; i < m; i++) {
		key[i] = arg_key(v[i]);
		next[i] = 0;
		h = (size_t)(((uintptr_t)key[i] >> 4) * 0x9e3779b97f4a7c15ull);
		for (h &= cap - 1; head[h] && key[head[h] - 1] != key[i]; h = (h + 1) & (cap - 1))
			;
		if (!head[h])
			head[h] = i + 1;
		else
			next[tail[h] - 1] = i + 1;
		tail[h] = i + 1;
	}
	sym__num_init(&d);
	for (h = 0; h < cap; h++) {
		if (!head[h] || head[h] == tail[h])
			continue;
		/* one group, in argument order */
		for (i = head[h]; i; i = next[i - 1]) {
			const sym_expr *a = v[i - 1];
			if (!a)
				continue;
			for (j = next[i - 1]; j; j = next[j - 1]) {
				int sg;
				if (!v[j - 1] || !const_diff(a, v[j - 1], &d))
					continue;
				sg = sym__num_sgn(&d);
				if (kind == SYM_KIND_MAX)
					sg = -sg;
				if (sg <= 0) {
					v[j - 1] = NULL; /* a <= v[j] for min: drop v[j] */
				} else {
					v[i - 1] = NULL;
					break;
				}
			}
		}
	}
	sym__num_clear(&d);
	sym__free(ctx, head, bytes);
	return 1;
}

/* Sorts v[0..m) (distinct nodes) in the structural order: a sorted prefix
 * (the arguments of a min or max that is being extended) is merged with
 * the sorted rest, so extending a sorted list by a few arguments costs
 * linear time.  The first `sorted` are known to be in order (the
 * arguments of a canonical min or max) and are not compared again.
 * Returns 0 when memory runs out. */
static int sort_args(sym_ctx *ctx, const sym_expr **v, size_t m, size_t sorted)
{
	size_t p = sorted > 1 ? sorted : 1, i, j, o;
	const sym_expr **t;
	if (m < 2)
		return 1;
	while (p < m && sym__cmp(v[p - 1], v[p]) < 0)
		p++;
	if (p == m)
		return 1;
	if (p < m / 2 || m <= 16) {
		qsort(v, m, sizeof(*v), sym__cmp_q);
		return 1;
	}
	qsort(v + p, m - p, sizeof(*v), sym__cmp_q);
	if (!(t = sym__alloc(ctx, m * sizeof(*t))))
		return 0;
	for (i = 0, j = p, o = 0; i < p || j < m;)
		t[o++] = j == m || (i < p && sym__cmp(v[i], v[j]) < 0) ? v[i++] : v[j++];
	memcpy(v, t, m * sizeof(*v));
	sym__free(ctx, t, m * sizeof(*t));
	return 1;
}

/* min(A + C, B + C) == min(A, B) + C for the terms C common to every
 * argument (the constant only when all are equal), and
 * min(g*A, g*B) == g*min(A, B) for a positive common content g.  Returns
 * NULL when nothing is common. */
static const sym_expr *extract_common(sym_ctx *ctx, sym_kind kind, const sym_expr **v, size_t m)
{
	sym_lin v0, w;
	sym_sumb cb;
	size_t i, j, k;
	int any = 0;
	const sym_expr *common, *r = NULL, *stack[16], **nv;
	sym_num g, l, t;
	sym__lin_view(v[0], &v0);
	sym__sumb_init(&cb, ctx);
	for (i = 0; i < v0.n; i++) {
		int everywhere = 1;
		for (j = 1; j < m && everywhere; j++) {
			int found = 0;
			sym__lin_view(v[j], &w);
			for (k = 0; k < w.n && !found; k++)
				found = sym__lin_mono(&w, k) == sym__lin_mono(&v0, i) &&
				        sym__num_equal(sym__lin_coef(&w, k), sym__lin_coef(&v0, i));
			everywhere = found;
		}
		if (everywhere) {
			sym__sumb_add_term(&cb, sym__lin_coef(&v0, i), sym__lin_mono(&v0, i));
			any = 1;
		}
	}
	{
		int same_c = !sym__num_is_zero(v0.c);
		for (j = 1; j < m && same_c; j++) {
			sym__lin_view(v[j], &w);
			same_c = sym__num_equal(w.c, v0.c);
		}
		if (same_c) {
			sym__num_set(&cb.c, v0.c);
			any = 1;
		}
	}
	common = sym__sumb_finish(&cb);
	if (!common)
		return NULL;
	nv = m <= 16 ? stack : sym__alloc(ctx, m * sizeof(*nv));
	if (!nv)
		return NULL;
	if (any) {
		for (j = 0; j < m; j++)
			nv[j] = sym_expr_sub(ctx, v[j], common);
		r = sym_expr_add(ctx, minmax(ctx, kind, m, nv), common);
		goto done;
	}
	/* positive content */
	sym__num_init(&g);
	sym__num_init(&l);
	sym__num_init(&t);
	sym__num_set_si(&l, 1);
	/* gcd(1, x) is 1 and lcm(l, 1) is l: an integer coefficient once the
	 * gcd is 1 costs a test */
	for (j = 0; j < m; j++) {
		sym__lin_view(v[j], &w);
		for (k = 0; k <= w.n; k++) {
			const sym_num *x = k < w.n ? sym__lin_coef(&w, k) : w.c;
			if (!sym__num_is_one(&g)) {
				sym__num_numer(&t, x);
				sym__num_gcd(&g, &g, &t);
			}
			if (!sym__num_is_int(x)) {
				sym__num_denom(&t, x);
				sym__num_lcm(&l, &l, &t);
			}
		}
	}
	sym__num_div(&g, &g, &l);
	if (!sym__num_is_zero(&g) && !sym__num_is_one(&g)) {
		sym__num_div(&t, &(sym_num){{1}, 1}, &g);
		for (j = 0; j < m; j++)
			nv[j] = sym__scale(ctx, &t, v[j]);
		r = sym__scale(ctx, &g, minmax(ctx, kind, m, nv));
	}
	sym__num_clear(&g);
	sym__num_clear(&l);
	sym__num_clear(&t);
done:
	if (nv != stack)
		sym__free(ctx, nv, m * sizeof(*nv));
	return r;
}

/* The min or max (of kind) held by the argument a == c*M + k, c a nonzero
 * number and k a constant, or NULL. */
static const sym_expr *scaled_minmax(const sym_expr *a, sym_num *c, sym_num *k)
{
	sym_lin w;
	sym__lin_view(a, &w);
	if (w.n != 1 ||
	    (sym__lin_mono(&w, 0)->kind != SYM_KIND_MIN && sym__lin_mono(&w, 0)->kind != SYM_KIND_MAX))
		return NULL;
	sym__num_set(c, sym__lin_coef(&w, 0));
	sym__num_set(k, w.c);
	return sym__lin_mono(&w, 0);
}

/* The sign of every term of a (the constant aside): -1 or 1 when all
 * terms have it, 0 for mixed signs or a constant. */
static int lead_sign(const sym_expr *a)
{
	sym_lin w;
	size_t i;
	int sg;
	sym__lin_view(a, &w);
	if (!w.n)
		return 0;
	sg = sym__num_sgn(sym__lin_coef(&w, 0));
	for (i = 1; i < w.n; i++)
		if (sym__num_sgn(sym__lin_coef(&w, i)) != sg)
			return 0;
	return sg;
}

/* a == floor(B) for an argument J + floor(A) (J integer-valued) or
 * J - floor(A) (d*A integer-valued: -floor(A) == floor(-A + (d - 1)/d));
 * NULL when a holds no such floor. */
static const sym_expr *as_floor(sym_ctx *ctx, const sym_expr *a)
{
	static const sym_num one = {{1}, 1};
	sym_lin w, av;
	size_t i, f = SIZE_MAX;
	const sym_expr *A;
	if (a->kind == SYM_KIND_FLOOR)
		return node_kid(a);
	if (a->kind != SYM_KIND_ADD || !sym__num_is_int(node_add_const(a)))
		return NULL;
	sym__lin_view(a, &w);
	for (i = 0; i < w.n; i++) {
		const sym_num *c = sym__lin_coef(&w, i);
		if (!sym__is_int(sym__lin_mono(&w, i)) || !sym__num_is_int(c))
			return NULL;
		if (sym__lin_mono(&w, i)->kind == SYM_KIND_FLOOR && f == SIZE_MAX) {
			sym_num m;
			sym__num_init(&m);
			sym__num_abs(&m, c);
			if (sym__num_is_one(&m))
				f = i;
			sym__num_clear(&m);
		}
	}
	if (f == SIZE_MAX)
		return NULL;
	A = node_kid(sym__lin_mono(&w, f));
	if (sym__num_sgn(sym__lin_coef(&w, f)) > 0)
		return sym_expr_add(ctx, sym_expr_sub(ctx, a, sym__lin_mono(&w, f)), A);
	sym__lin_view(A, &av);
	if (!sym__lin_int_monos(&av))
		return NULL;
	{
		sym_num d, t;
		const sym_expr *r;
		sym__num_init(&d);
		sym__num_init(&t);
		sym__lin_denom(&av, &d);
		sym__num_sub(&t, &d, &one);
		sym__num_div(&t, &t, &d);
		r = sym_expr_add(ctx, sym_expr_add(ctx, a, sym__lin_mono(&w, f)),
		                 sym__add_num(ctx, sym_expr_neg(ctx, A), &t));
		sym__num_clear(&d);
		sym__num_clear(&t);
		return r;
	}
}

/* min(max(c, A...), max(c, B...)) == max(c, min(max(A...), max(B...)))
 * for an argument c common to every max (and with min and max swapped):
 * the distributive law.  NULL when the arguments share none. */
static const sym_expr *distribute(sym_ctx *ctx, sym_kind kind, const sym_expr **v, size_t m)
{
	sym_kind other = kind == SYM_KIND_MIN ? SYM_KIND_MAX : SYM_KIND_MIN;
	const sym_expr *c = NULL, *inner[16], *rest[16], *pair[2];
	size_t i, j, k, l;
	if (m > 16)
		return NULL;
	for (i = 0; i < m; i++)
		if (v[i]->kind != other || v[i]->n > 16)
			return NULL;
	for (k = 0; k < v[0]->n && !c; k++) {
		int all = 1;
		for (i = 1; i < m && all; i++) {
			int found = 0;
			for (j = 0; j < v[i]->n && !found; j++)
				found = node_kids(v[i])[j] == node_kids(v[0])[k];
			all = found;
		}
		if (all)
			c = node_kids(v[0])[k];
	}
	if (!c)
		return NULL;
	for (i = 0; i < m; i++) {
		for (j = 0, l = 0; j < v[i]->n; j++)
			if (node_kids(v[i])[j] != c)
				rest[l++] = node_kids(v[i])[j];
		inner[i] = minmax(ctx, other, l, rest);
		if (!inner[i])
			return NULL;
	}
	pair[0] = c;
	pair[1] = minmax(ctx, kind, m, inner);
	return pair[1] ? minmax(ctx, other, 2, pair) : NULL;
}

/* The min or max base (of symbols only) extended by the k symbols x (a
 * chain of broadcasts grows the max of its dims by one each step): the
 * arguments stay sorted with each new one put in its place, the key grows
 * by the new ones' shares and the node takes base's properties, so only a
 * copy and a hash pass over the arguments.  NULL with *done 0 when an x is
 * not a symbol or is among the arguments already (the general way). */
static const sym_expr *extend_symbols(sym_ctx *ctx, const sym_expr *base, size_t k, const sym_expr *const *x,
                                      int *done)
{
	size_t n = base->n, m = n, i, lo, hi;
	const sym_expr **v, *r;
	uint64_t key = sym__minmax_key(base);
	*done = 0;
	for (i = 0; i < k; i++)
		if (x[i]->kind != SYM_KIND_SYM)
			return NULL;
	if (!(v = sym__alloc(ctx, (n + k) * sizeof(*v))))
		return *done = 1, NULL;
	memcpy(v, node_kids(base), n * sizeof(*v));
	for (i = 0; i < k; i++) {
		/* the first place whose argument sorts after x[i] */
		if (sym__cmp(v[m - 1], x[i]) < 0) {
			lo = m;
		} else {
			for (lo = 0, hi = m; lo < hi;) {
				size_t mid = lo + (hi - lo) / 2;
				if (sym__cmp(v[mid], x[i]) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (v[lo] == x[i]) {
				sym__free(ctx, v, (n + k) * sizeof(*v));
				return NULL;
			}
			memmove(v + lo + 1, v + lo, (m - lo) * sizeof(*v));
		}
		v[lo] = x[i];
		m++;
		key += sym__arg_mix(x[i]);
	}
	r = sym__intern_symbol_minmax(ctx, base, v, m, key);
	sym__free(ctx, v, (n + k) * sizeof(*v));
	*done = 1;
	return r;
}

static const sym_expr *minmax(sym_ctx *ctx, sym_kind kind, size_t n, const sym_expr *const *args)
{
	const sym_expr **v, *stack[16], *bstack[16], *r = NULL;
	size_t i, j, m = 0, cap = 0, n0, p0 = 0;
	struct sym_expr h = {0};
	if (sym__failed(ctx))
		return NULL;
	if (n == 0)
		return sym__error(ctx, SYM_EDOMAIN, -1, "%s needs at least one argument",
		                  kind == SYM_KIND_MIN ? "min" : "max");
	sym_num c, k;
	const sym_expr *M;
	sym_kind okind = kind == SYM_KIND_MIN ? SYM_KIND_MAX : SYM_KIND_MIN;
	for (i = 0; i < n; i++) {
		if (!args[i])
			return NULL;
		if (args[i]->flags & SYM_F_PRED)
			return sym__error(ctx, SYM_EDOMAIN, -1, "a predicate cannot be used as a number");
		cap += args[i]->kind == kind ? args[i]->n : 1;
		if (args[i]->kind == SYM_KIND_ADD && args[i]->n == 1 &&
		    (node_mono(args[i], 0)->kind == SYM_KIND_MIN ||
		     node_mono(args[i], 0)->kind == SYM_KIND_MAX))
			cap += node_mono(args[i], 0)->n;
	}
	if (n > 1 && args[0]->kind == kind && (args[0]->flags & SYM_F_SYMARGS)) {
		int done;
		r = extend_symbols(ctx, args[0], n - 1, args + 1, &done);
		if (done)
			return r;
	}
	v = cap <= 16 ? stack : sym__alloc(ctx, cap * sizeof(*v));
	if (!v)
		return NULL;
	sym__num_init(&c);
	sym__num_init(&k);
	for (i = 0; i < n; i++) {
		if (args[i]->kind == kind) {
			for (j = 0; j < args[i]->n; j++)
				v[m++] = node_kids(args[i])[j];
		} else if ((M = scaled_minmax(args[i], &c, &k)) != NULL &&
		           (M->kind == kind ? sym__num_sgn(&c) > 0 : sym__num_sgn(&c) < 0)) {
			/* min(a, c*min(b, e) + k) == min(a, c*b + k, c*e + k)
			 * for c > 0, and min(a, c*max(b, e) + k) likewise for
			 * c < 0 */
			for (j = 0; j < M->n; j++)
				v[m++] = sym__add_num(ctx, sym__scale(ctx, &c, node_kids(M)[j]), &k);
		} else {
			v[m++] = args[i];
		}
	}
	sym__num_clear(&c);
	sym__num_clear(&k);
	for (i = 0; i < m; i++)
		if (!v[i]) {
			if (v != stack)
				sym__free(ctx, v, cap * sizeof(*v));
			return NULL;
		}
	/* only symbols (a max of the dims of a chain of broadcasts): distinct
	 * symbols never differ by a constant, none is a floor or negative,
	 * and they share no term, so the steps below keep them all; sorted
	 * with no two equal, they are the node (a repeated symbol takes the
	 * general way, which drops it) */
	n0 = args[0]->kind == kind ? args[0]->n : 0;
	for (i = 0; i < m && v[i]->kind == SYM_KIND_SYM; i++)
		;
	if (i == m && m > 1) {
		if (!sort_args(ctx, v, m, n0 < m ? n0 : m))
			goto out;
		for (i = 1; i < m && v[i - 1] != v[i]; i++)
			;
		if (i == m) {
			h.kind = (uint8_t)kind;
			h.n = (uint32_t)m;
			r = sym__intern(ctx, &h, v, m * sizeof(*v));
			goto out;
		}
	}
	if (!prune_const_diff(ctx, kind, v, m)) {
		if (v != stack)
			sym__free(ctx, v, cap * sizeof(*v));
		return NULL;
	}
	/* the arguments of a first argument of the same kind lead v, in
	 * order: those that are left stay sorted */
	n0 = args[0]->kind == kind ? args[0]->n : 0;
	for (i = 0, j = 0; i < m; i++) {
		if (i == n0)
			p0 = j;
		if (v[i])
			v[j++] = v[i];
	}
	if (n0 >= m)
		p0 = j;
	m = j;
	if (m > 1) {
		/* min(floor(a), floor(b)) == floor(min(a, b)): floor is monotone;
		 * an argument J + floor(A) or J - floor(A) is a floor too
		 * (as_floor) */
		const sym_expr **b = cap <= 16 ? bstack : sym__alloc(ctx, cap * sizeof(*b));
		if (!b)
			goto out;
		for (i = 0; i < m && (b[i] = as_floor(ctx, v[i])) != NULL; i++)
			;
		if (i == m) {
			r = sym_expr_floor(ctx, minmax(ctx, kind, m, b));
			if (b != bstack)
				sym__free(ctx, b, cap * sizeof(*b));
			goto out;
		}
		if (b != bstack)
			sym__free(ctx, b, cap * sizeof(*b));
		if (sym__failed(ctx))
			goto out;
	}
	if (m > 1) {
		/* min(a, b) == -max(-a, -b): when more arguments have only
		 * negative terms than any other (positive, mixed), the negated
		 * form is the node */
		size_t neg = 0, other = 0;
		for (i = 0; i < m; i++) {
			int sg = lead_sign(v[i]);
			neg += sg < 0;
			other += sg > 0 || (sg == 0 && v[i]->kind != SYM_KIND_NUM);
		}
		if (neg > other) {
			/* K, the constant of the first nonconstant argument
			 * in the structural order, moves out with the sign:
			 * min(3 - x, 2) is 3 - max(x, 1) (an order that a
			 * shift of every argument keeps) */
			const sym_expr *first = NULL, *K;
			sym_lin w;
			for (i = 0; i < m; i++)
				if (v[i]->kind != SYM_KIND_NUM && (!first || sym_expr_cmp(v[i], first) < 0))
					first = v[i];
			sym__lin_view(first, &w);
			K = sym__num_node(ctx, w.c);
			for (i = 0; i < m; i++)
				v[i] = sym_expr_sub(ctx, K, v[i]);
			r = sym_expr_sub(ctx, K, minmax(ctx, okind, m, v));
			goto out;
		}
	}
	if (m > 1 && (r = distribute(ctx, kind, v, m)) != NULL)
		goto out;
	if (sym__failed(ctx))
		goto out;
	if (m > 1 && (r = extract_common(ctx, kind, v, m)) != NULL)
		goto out;
	if (sym__failed(ctx))
		goto out;
	if (!sort_args(ctx, v, m, p0))
		goto out;
	if (m == 1) {
		r = v[0];
	} else {
		h.kind = (uint8_t)kind;
		h.n = (uint32_t)m;
		r = sym__intern(ctx, &h, v, m * sizeof(*v));
	}
out:
	if (v != stack)
		sym__free(ctx, v, cap * sizeof(*v));
	return r;
}

const sym_expr *sym_expr_min(sym_ctx *ctx, size_t n, const sym_expr *const *args)
{
	return minmax(ctx, SYM_KIND_MIN, n, args);
}

const sym_expr *sym_expr_max(sym_ctx *ctx, size_t n, const sym_expr *const *args)
{
	return minmax(ctx, SYM_KIND_MAX, n, args);
}
