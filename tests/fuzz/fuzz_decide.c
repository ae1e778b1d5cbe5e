/* libFuzzer target for the decisions: sym_simplify, sym_prove, sym_equal.
 *
 * Input: lines of text.  The first is an expression a, the second an
 * expression b, every further line an assumption (a predicate); a line that
 * does not parse is skipped, an assumption the fact store refuses ends the
 * run.  When the input's hash says so, every symbol is also at least 1 (the
 * --dims default).  The target looks for admissible points (small values of
 * the symbols at which every assumption holds exactly) and checks there:
 *   - simplify keeps the exact value of a and of b and is idempotent, and
 *     printing a, b and their simplified forms parses back to the same node;
 *   - when a is a predicate, prove's true or false holds at every point;
 *   - equal(a, b) true means equal values at every point; false gives a
 *     witness at which every assumption holds and a and b really differ.
 * fuzz_parse covers the parser and a fixed fact store; this target takes
 * the facts from the input. */
#define FUZZ_NAME "fuzz_decide"
#include "fuzz_util.h"

#define MAX_LINES 8
#define MAX_SYMS 16
#define MAX_POINTS 4
#define TRIES 24

typedef struct point {
	long long v[MAX_SYMS];
} point;

typedef struct state {
	sym_ctx *ctx;
	const sym_expr *syms[MAX_SYMS];
	size_t nsyms;
	point pts[MAX_POINTS];
	size_t npts;
} state;

/* Adds the symbols of e; 0 when there are more than MAX_SYMS in all. */
static int add_symbols(state *s, const sym_expr *e)
{
	const sym_expr *found[MAX_SYMS];
	size_t n = sym_expr_symbols(s->ctx, e, found, MAX_SYMS), i, j;
	if (n > MAX_SYMS)
		return 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < s->nsyms && s->syms[j] != found[i]; j++)
			;
		if (j == s->nsyms) {
			if (s->nsyms == MAX_SYMS)
				return 0;
			s->syms[s->nsyms++] = found[i];
		}
	}
	return 1;
}

static const sym_expr *at(state *s, const sym_expr *e, size_t k)
{
	return fuzz_eval(s->ctx, e, s->nsyms, s->syms, s->pts[k].v);
}

/* Checks that text prints and parses back to e itself. */
static void check_print(state *s, const sym_expr *e)
{
	char *t = sym_expr_to_str(s->ctx, e);
	const sym_expr *back;
	if (!t) {
		/* a printing limit: allowed with an error */
		fuzz_check_error(s->ctx);
		sym_ctx_clear_error(s->ctx);
		return;
	}
	back = sym_expr_from_str(s->ctx, t);
	FUZZ_CHECK(back == e, "'%s' does not parse back to the node it was printed from", t);
	sym_str_free(s->ctx, t);
}

static void check_simplify(state *s, sym_facts *f, const sym_expr *e)
{
	const sym_expr *se, *s2;
	size_t k;
	/* printing first: its own error handling must not clear simplify's */
	check_print(s, e);
	se = sym_simplify(s->ctx, f, e);
	if (!se) {
		fuzz_check_error(s->ctx);
		sym_ctx_clear_error(s->ctx);
		return;
	}
	check_print(s, se);
	s2 = sym_simplify(s->ctx, f, se);
	if (!s2) {
		sym_ctx_clear_error(s->ctx);
	} else if (s2 != se) {
		char *a = fuzz_str(s->ctx, se), *b = fuzz_str(s->ctx, s2);
		FUZZ_CHECK(s2 == se, "simplify is not idempotent: '%s' then '%s'", a ? a : "?", b ? b : "?");
	}
	for (k = 0; k < s->npts; k++) {
		const sym_expr *v = at(s, e, k), *vs = at(s, se, k);
		if (v && vs && v != vs) {
			char *a = fuzz_str(s->ctx, e), *b = fuzz_str(s->ctx, se);
			FUZZ_CHECK(v == vs,
			           "'%s' simplifies to '%s' of another value at admissible point %zu",
			           a ? a : "?", b ? b : "?", k);
		}
	}
}

static void check_prove(state *s, sym_facts *f, const sym_expr *p)
{
	sym_truth t;
	size_t k;
	if (!sym_expr_is_pred(p))
		return;
	t = sym_prove(s->ctx, f, p);
	if (t == SYM_ERROR) {
		fuzz_check_error(s->ctx);
		sym_ctx_clear_error(s->ctx);
		return;
	}
	if (t != SYM_TRUE && t != SYM_FALSE)
		return;
	for (k = 0; k < s->npts; k++) {
		const sym_expr *v = at(s, p, k);
		if (v && v != sym_expr_bool(s->ctx, t == SYM_TRUE)) {
			char *a = fuzz_str(s->ctx, p);
			FUZZ_CHECK(0, "prove says %s for '%s', not so at admissible point %zu",
			           t == SYM_TRUE ? "true" : "false", a ? a : "?", k);
		}
	}
}

/* Substitutes the witness into e: a constant, or NULL. */
static const sym_expr *at_witness(sym_ctx *ctx, const sym_expr *e, const sym_witness *w)
{
	const sym_expr *r = sym_expr_subst(ctx, e, w->n, w->syms, w->vals);
	if (!r) {
		sym_ctx_clear_error(ctx);
		return NULL;
	}
	r = sym_simplify(ctx, NULL, r);
	if (!r) {
		sym_ctx_clear_error(ctx);
		return NULL;
	}
	return sym_expr_kind(r) == SYM_KIND_NUM || sym_expr_kind(r) == SYM_KIND_BOOL ? r : NULL;
}

static void check_equal(state *s, sym_facts *f, const sym_expr *a, const sym_expr *b,
                        const sym_expr *const *assumed, size_t nassumed)
{
	sym_witness w;
	sym_truth t;
	size_t k;
	memset(&w, 0, sizeof(w));
	t = sym_equal(s->ctx, f, a, b, &w);
	if (t == SYM_ERROR) {
		fuzz_check_error(s->ctx);
		sym_ctx_clear_error(s->ctx);
	} else if (t == SYM_TRUE) {
		for (k = 0; k < s->npts; k++) {
			const sym_expr *va = at(s, a, k), *vb = at(s, b, k);
			FUZZ_CHECK(!va || !vb || va == vb,
			           "equal says true, the values differ at admissible point %zu", k);
		}
	} else if (t == SYM_FALSE && w.n) {
		const sym_expr *va = at_witness(s->ctx, a, &w), *vb = at_witness(s->ctx, b, &w);
		FUZZ_CHECK(!va || !vb || va != vb, "equal's witness gives both sides the same value");
		for (k = 0; k < nassumed; k++)
			FUZZ_CHECK(at_witness(s->ctx, assumed[k], &w) != sym_expr_bool(s->ctx, 0),
			           "assumption %zu is false at equal's witness", k);
	}
	sym_witness_clear(s->ctx, &w);
}

/* Finds up to MAX_POINTS admissible points among TRIES candidates. */
static void find_points(state *s, uint64_t *seed, int min1, const sym_expr *const *assumed, size_t nassumed)
{
	int tries;
	for (tries = 0; tries < TRIES && s->npts < MAX_POINTS; tries++) {
		point *pt = &s->pts[s->npts];
		size_t i, k;
		for (i = 0; i < s->nsyms; i++)
			pt->v[i] = fuzz_range(seed, min1 ? 1 : -8, tries < TRIES / 2 ? 12 : 100);
		for (k = 0; k < nassumed; k++)
			if (at(s, assumed[k], s->npts) != sym_expr_bool(s->ctx, 1))
				break;
		if (k == nassumed)
			s->npts++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = fuzz_hash(data, size);
	int min1 = (int)(seed & 1);
	char *text = malloc(size + 1), *line, *next;
	const sym_expr *e[MAX_LINES];
	size_t ne = 0, i;
	sym_facts *f = NULL;
	state s;
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	memset(&s, 0, sizeof(s));
	s.ctx = sym_ctx_new();
	if (!s.ctx)
		goto done;
	for (line = text; line && ne < MAX_LINES; line = next) {
		const sym_expr *x;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		x = sym_expr_from_str(s.ctx, line);
		if (!x) {
			fuzz_check_error(s.ctx);
			sym_ctx_clear_error(s.ctx);
			if (ne < 2)
				goto done;
			continue;
		}
		if (!add_symbols(&s, x))
			goto done;
		e[ne++] = x;
	}
	if (ne == 0)
		goto done;
	f = sym_facts_new(s.ctx);
	if (!f)
		goto done;
	if (min1 && sym_facts_set_default_min(f, 1) != SYM_EOK)
		goto done;
	for (i = 2; i < ne; i++) {
		if (!sym_expr_is_pred(e[i]))
			goto done;
		if (sym_facts_assume(f, e[i]) != SYM_EOK) {
			fuzz_check_error(s.ctx);
			goto done;
		}
	}
	find_points(&s, &seed, min1, ne > 2 ? e + 2 : NULL, ne > 2 ? ne - 2 : 0);
	check_simplify(&s, f, e[0]);
	check_prove(&s, f, e[0]);
	if (ne > 1) {
		check_simplify(&s, f, e[1]);
		check_prove(&s, f, e[1]);
		if (sym_expr_is_pred(e[0]) == sym_expr_is_pred(e[1]))
			check_equal(&s, f, e[0], e[1], e + 2, ne > 2 ? ne - 2 : 0);
	}
done:
	sym_facts_free(f);
	sym_ctx_free(s.ctx);
	free(text);
	return 0;
}
