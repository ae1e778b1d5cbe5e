/* bench_simplify: workload W6 (simplification throughput) against symshape.
 *
 * 1,000 index and shape expressions with floor division, modulo, min and max
 * over s0..s3 are generated as text from MT19937 (init_genrand(0)), the same
 * way as bench/sympy_simplify.py does, so both drivers simplify the same
 * expressions.  Every expression has a fact class: 0 every symbol >= 1;
 * 1 also 0 <= s0 <= 63 (s0 may be 0); 2 also s1 % 8 == 0.
 *
 * Each repetition runs in a fresh context: the texts are parsed and the fact
 * stores built outside the timing, then every sym_simplify call is timed on
 * its own.  Times are medians over the repetitions of the mean per
 * expression, over all 1,000 and over the first 200 (the subset SymPy
 * simplifies under `compare.py --quick`); simplify_max_us is the largest
 * median time of one expression.
 *
 * Quality: the size of an expression is the number of its operands and
 * operators in the printed text (symbols, integers, binary and unary
 * operators, calls of min/max/abs/floor/ceil; parentheses and commas do not
 * count), the measure sympy_simplify.py takes of the same texts.  Reported:
 * how many results are smaller than the written input, and how many contain
 * no floor division, modulo, floor or ceil.
 *
 * Soundness: every written expression is evaluated exactly as written
 * (sym_expr_from_str_subst) at 4 admissible points drawn after the
 * expressions, and compared with the exact value of the simplified form.
 * A mismatch, an error or a result that changes when simplified again
 * makes the exit status 1.
 *
 * Usage: bench_simplify [--reps N] [--dump FILE]
 *   --reps N     repetitions (default 11)
 *   --dump FILE  writes `index<TAB>class<TAB>input<TAB>result` per
 *                expression (sympy_simplify.py --symshape FILE reads it) */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symshape/symshape.h"

#include "bench_common.h"

#define NSYMS 4
#define NEXPR 1000
#define SUBSET 200
#define NPAT 16
#define NRAW 8
#define NPTS 4
#define TEXT_MAX 512
#define MAX_REPS 101

static int reps = 11;

static void need(sym_ctx *ctx, const void *p, const char *where, int i)
{
	if (p && sym_ctx_last_error(ctx) == SYM_EOK)
		return;
	printf("error %s (expression %d): %s (status %d)\n", where, i, sym_ctx_last_message(ctx),
	       (int)sym_ctx_last_error(ctx));
	fflush(stdout);
	exit(1);
}

/* The generated expressions. */

typedef struct w6_expr {
	int cls;                    /* fact class 0, 1, 2 */
	char text[TEXT_MAX];        /* Python syntax, parsed by both drivers */
	long long pts[NPTS][NSYMS]; /* admissible points for the check */
} w6_expr;

static w6_expr ex[NEXPR];

/* rand(lo, hi) on a raw draw already taken. */
static int R(const uint32_t *r, int k, int lo, int hi)
{
	return lo + (int)(r[k] % (uint32_t)(hi - lo + 1));
}

/* Builds expression text from its pattern p and raw draws r (the same
 * formulas as gen_expr in sympy_simplify.py).  A is any of s0..s3, B one of
 * s1..s3 (never zero, so it may divide). */
static int gen_expr(char *t, int p, const uint32_t *r)
{
	int a = R(r, 0, 0, 3), b = R(r, 1, 1, 3);
	char A[4], B[4], X[128];
	int cls = 0;

	snprintf(A, sizeof A, "s%d", a);
	snprintf(B, sizeof B, "s%d", b);
	switch (p) {
	case 0: { /* a multiple of the divisor leaves the floor */
		int c = R(r, 2, 2, 16);
		snprintf(t, TEXT_MAX, "(%s*%d + %s)//%d", A, c, B, c);
		break;
	}
	case 1: { /* multiples of a symbolic divisor */
		int k = R(r, 2, 0, 9), m = R(r, 3, 0, 5);
		snprintf(t, TEXT_MAX, "(%s*%s + %d*%s + %d) %% %s", A, B, k, B, m, B);
		break;
	}
	case 2: { /* nested floors with offsets: ((x + a)//b + c)//d */
		int c1 = R(r, 2, 0, 8), d1 = R(r, 3, 2, 8);
		int c2 = R(r, 4, 0, 8), d2 = R(r, 5, 2, 8);
		snprintf(t, TEXT_MAX, "((%s + %d)//%d + %d)//%d", A, c1, d1, c2, d2);
		break;
	}
	case 3: { /* (x//a)//b */
		int c1 = R(r, 2, 1, 9), c2 = R(r, 3, 0, 9);
		int d1 = R(r, 4, 2, 8), d2 = R(r, 5, 2, 8);
		snprintf(t, TEXT_MAX, "((%s*%d + %s + %d)//%d)//%d", A, c1, B, c2, d1, d2);
		break;
	}
	case 4: { /* x - (x//n)*n */
		int c1 = R(r, 2, 1, 12), c2 = R(r, 3, 0, 20);
		int n = R(r, 4, 2, 16);
		snprintf(X, sizeof X, "(%s*%d + %d)", A, c1, c2);
		snprintf(t, TEXT_MAX, "%s - (%s//%d)*%d", X, X, n, n);
		break;
	}
	case 5: { /* max pruned by ranges */
		int c = R(r, 2, -3, 3);
		snprintf(t, TEXT_MAX, "max(%s, %d) + max(%s*%s, %s)", A, c, A, B, B);
		break;
	}
	case 6: { /* min pruned by ranges */
		int c = R(r, 2, 1, 3), c2 = R(r, 3, 0, 2);
		snprintf(t, TEXT_MAX, "min(%s*%s, %s*%d) + min(%s, %d)", A, B, A, c, B, c2);
		break;
	}
	case 7: { /* padding to a multiple: ((x - 1)//c + 1)*c - x */
		int c = R(r, 2, 2, 8);
		snprintf(t, TEXT_MAX, "((%s - 1)//%d + 1)*%d - %s", A, c, c, A);
		break;
	}
	case 8: { /* (c*x + d) % c */
		int c = R(r, 2, 2, 16), d = R(r, 3, 0, 40);
		snprintf(t, TEXT_MAX, "(%d*%s + %d) %% %d", c, A, d, c);
		break;
	}
	case 9: { /* split index: (x//(a*b))*(a*b) + ((x//b) % a)*b + x % b */
		int k = R(r, 2, 1, 9), m = R(r, 3, 2, 6), n = R(r, 4, 2, 6);
		snprintf(X, sizeof X, "(%s + %d*%s)", A, k, B);
		snprintf(t, TEXT_MAX, "(%s//%d)*%d + ((%s//%d) %% %d)*%d + %s %% %d", X, m * n, m * n, X, n,
		         m, n, X, n);
		break;
	}
	case 10: { /* two convolutions: (x + 2*p - d*(k - 1) - 1)//s + 1 */
		int pad = R(r, 2, 0, 3), d = R(r, 3, 1, 3), k = R(r, 4, 1, 7);
		int s = R(r, 5, 1, 4), s2 = R(r, 6, 1, 4), k2 = R(r, 7, 1, 5);
		int p2 = k2 / 2;
		snprintf(X, sizeof X, "((%s + 2*%d - %d*(%d - 1) - 1)//%d + 1)", A, pad, d, k, s);
		snprintf(t, TEXT_MAX, "(%s + 2*%d - 1*(%d - 1) - 1)//%d + 1", X, p2, k2, s2);
		break;
	}
	case 11: { /* range elimination with 0 <= s0 <= 63 */
		int m = R(r, 2, 64, 128), c = R(r, 3, 0, 5);
		int m2 = R(r, 4, 1, 128);
		snprintf(t, TEXT_MAX, "s0 %% %d + (s0 + %d*64)//64 + s0//%d + %s", m, c, m2, B);
		cls = 1;
		break;
	}
	case 12: { /* residues with s1 % 8 == 0 */
		int q = 1 << R(r, 2, 1, 4), c = R(r, 3, 0, 20);
		snprintf(t, TEXT_MAX, "(s1 + %d) %% %d + (s1//%d)*%d + %s", c, q, q, q, A);
		cls = 2;
		break;
	}
	case 13: { /* mod of mod: (x % (a*b)) % b */
		int c1 = R(r, 2, 1, 9), m = R(r, 3, 2, 6), n = R(r, 4, 2, 8);
		snprintf(t, TEXT_MAX, "((%s*%d + %s) %% %d) %% %d", A, c1, B, m * n, n);
		break;
	}
	case 14: { /* gcd cancellation */
		int g = R(r, 2, 2, 6), c = R(r, 3, 1, 9), d = R(r, 4, 0, 9);
		int e = R(r, 5, 2, 9);
		snprintf(t, TEXT_MAX, "(%d*%s + %d)//%d", g * c, A, g * d, g * e);
		break;
	}
	default: { /* min/max around floors */
		int c = R(r, 2, 0, 6), d = R(r, 3, 2, 6), e = R(r, 4, 2, 8);
		snprintf(t, TEXT_MAX, "max((%s + %d)//%d, 1) + min(%s//%d, %s)", A, c, d, A, e, A);
		break;
	}
	}
	return cls;
}

/* Draws the expressions, then their check points. */
static void generate(void)
{
	mt19937 g;

	mt_init(&g, 0);
	for (int i = 0; i < NEXPR; i++) {
		uint32_t r[NRAW];
		int p = mt_rand(&g, 0, NPAT - 1);

		for (int k = 0; k < NRAW; k++)
			r[k] = mt_next(&g);
		ex[i].cls = gen_expr(ex[i].text, p, r);
	}
	for (int i = 0; i < NEXPR; i++)
		for (int j = 0; j < NPTS; j++)
			for (int s = 0; s < NSYMS; s++) {
				uint32_t v = mt_next(&g);
				long long x;

				if (j < 2)
					x = 1 + v % 16;
				else if (j == 2)
					x = 1 + v % 1000;
				else
					x = 1 + v % 2147483647u;
				if (ex[i].cls == 1 && s == 0)
					x = v % 64;
				if (ex[i].cls == 2 && s == 1)
					x = 8 * (long long)(1 + v % (j == 3 ? 268435455u : 125u));
				ex[i].pts[j][s] = x;
			}
}

/* FNV-1a 64 over the texts (each followed by a newline): both drivers print
 * it, so compare.py can tell that they built the same expressions. */
static uint64_t texts_hash(void)
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < NEXPR; i++) {
		for (const char *p = ex[i].text; *p; p++) {
			h ^= (unsigned char)*p;
			h *= 1099511628211ULL;
		}
		h ^= '\n';
		h *= 1099511628211ULL;
	}
	return h;
}

/* Size of printed text: operands and operators, not parentheses or commas.
 * A unary minus counts as an operator, as in Python's syntax tree. */
static long text_size(const char *s)
{
	long n = 0;

	while (*s) {
		char c = *s;

		if (c == ' ' || c == '(' || c == ')' || c == ',') {
			s++;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
			/* a symbol, or a call (counted once, as an operator) */
			while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			       (*s >= '0' && *s <= '9') || *s == '_')
				s++;
			n++;
		} else if (c >= '0' && c <= '9') {
			while (*s >= '0' && *s <= '9')
				s++;
			n++;
		} else {
			/* an operator, unary or binary: + - * / // % ** */
			if ((c == '/' || c == '*') && s[1] == c)
				s++;
			s++;
			n++;
		}
	}
	return n;
}

static int has_floor(const char *s)
{
	return strstr(s, "//") || strchr(s, '%') || strstr(s, "floor(") || strstr(s, "ceil(");
}

int main(int argc, char **argv)
{
	static double tpe[NEXPR], tper[NEXPR][MAX_REPS];
	static const sym_expr *in[NEXPR], *res[NEXPR];
	static char *res_text[NEXPR];
	double tall[MAX_REPS], tsub[MAX_REPS], tparse[MAX_REPS];
	double tmax = 0;
	int imax = 0;
	const char *dump = NULL;
	const char *names[NSYMS] = {"s0", "s1", "s2", "s3"};
	mt19937 g;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
			dump = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--reps N] [--dump FILE]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "bench_simplify: --reps must be 1..%d\n", MAX_REPS);
		return 2;
	}
	mt_init(&g, 0);
	check_si("mt19937", "first", mt_next(&g), 2357136044LL);
	check_si("mt19937", "second", mt_next(&g), 2546248239LL);
	check_si("mt19937", "third", mt_next(&g), 3071714933LL);
	generate();
	{
		long insize = 0, cls[3] = {0, 0, 0};

		for (int i = 0; i < NEXPR; i++) {
			insize += text_size(ex[i].text);
			cls[ex[i].cls]++;
		}
		printf("note reps %d (times are medians)\n", reps);
		printf("note W6 fact classes: %ld with s_i >= 1, %ld also "
		       "0 <= s0 <= 63, %ld also s1 %% 8 == 0\n",
		       cls[0], cls[1], cls[2]);
		printf("W6 n %d\n", NEXPR);
		printf("W6 texts_fnv %016llx\n", (unsigned long long)texts_hash());
		printf("W6 input_size %ld\n", insize);
		printf("W6 first %s\n", ex[0].text);
	}
	fflush(stdout);

	for (int r = 0; r < reps; r++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *facts[3];
		const sym_expr *s[NSYMS];
		double t0, sum = 0, sub = 0;

		if (!ctx) {
			printf("error sym_ctx_new: out of memory\n");
			return 1;
		}
		for (int k = 0; k < NSYMS; k++) {
			s[k] = sym_expr_symbol(ctx, names[k]);
			need(ctx, s[k], "sym_expr_symbol", -1);
		}
		for (int c = 0; c < 3; c++) {
			facts[c] = sym_facts_new(ctx);
			need(ctx, facts[c], "sym_facts_new", -1);
			if (sym_facts_set_default_min(facts[c], 1) != SYM_EOK)
				need(ctx, NULL, "sym_facts_set_default_min", -1);
		}
		if (sym_facts_set_range(facts[1], s[0], sym_expr_from_si(ctx, 0),
		                        sym_expr_from_si(ctx, 63)) != SYM_EOK)
			need(ctx, NULL, "sym_facts_set_range", -1);
		if (sym_facts_assume(facts[2], sym_expr_from_str(ctx, "s1 % 8 == 0")) != SYM_EOK)
			need(ctx, NULL, "sym_facts_assume", -1);

		t0 = now_sec();
		for (int i = 0; i < NEXPR; i++) {
			in[i] = sym_expr_from_str(ctx, ex[i].text);
			need(ctx, in[i], "parse", i);
		}
		tparse[r] = now_sec() - t0;

		for (int i = 0; i < NEXPR; i++) {
			double a = now_sec();

			res[i] = sym_simplify(ctx, facts[ex[i].cls], in[i]);
			tpe[i] = now_sec() - a;
		}
		for (int i = 0; i < NEXPR; i++) {
			need(ctx, res[i], "sym_simplify", i);
			sum += tpe[i];
			if (i < SUBSET)
				sub += tpe[i];
			tper[i][r] = tpe[i];
		}
		tall[r] = sum;
		tsub[r] = sub;

		if (r == 0) {
			long bad = 0, notidem = 0, smaller = 0, smaller_sub = 0;
			long nofloor = 0, nofloor_sub = 0, nofloor_in = 0;
			long outsize = 0, outsize_sub = 0, insize_sub = 0;
			FILE *df = NULL;

			if (dump && !(df = fopen(dump, "w"))) {
				printf("error cannot write %s\n", dump);
				return 1;
			}
			for (int i = 0; i < NEXPR; i++) {
				char *txt = sym_expr_to_str(ctx, res[i]);
				long isz = text_size(ex[i].text);
				long osz;
				const sym_expr *again;

				need(ctx, txt, "sym_expr_to_str", i);
				res_text[i] = strdup(txt);
				sym_str_free(ctx, txt);
				osz = text_size(res_text[i]);
				outsize += osz;
				smaller += osz < isz;
				nofloor += !has_floor(res_text[i]);
				nofloor_in += !has_floor(ex[i].text);
				if (i < SUBSET) {
					insize_sub += isz;
					outsize_sub += osz;
					smaller_sub += osz < isz;
					nofloor_sub += !has_floor(res_text[i]);
				}
				if (df)
					fprintf(df, "%d\t%d\t%s\t%s\n", i, ex[i].cls, ex[i].text,
					        res_text[i]);

				again = sym_simplify(ctx, facts[ex[i].cls], res[i]);
				need(ctx, again, "sym_simplify again", i);
				if (again != res[i]) {
					if (!notidem)
						printf("note W6 not idempotent: "
						       "%s\n",
						       ex[i].text);
					notidem++;
				}
				for (int j = 0; j < NPTS; j++) {
					const sym_expr *vals[NSYMS];
					const sym_expr *want, *got;

					for (int k = 0; k < NSYMS; k++)
						vals[k] = sym_expr_from_si(ctx, ex[i].pts[j][k]);
					want = sym_expr_from_str_subst(ctx, ex[i].text, NSYMS, names, vals);
					need(ctx, want, "exact evaluation", i);
					got = sym_expr_eval_si(ctx, res[i], NSYMS, s, ex[i].pts[j]);
					need(ctx, got, "evaluation", i);
					if (want != got) {
						printf("note W6 value mismatch: "
						       "%s -> %s at s0..s3 = "
						       "%lld %lld %lld %lld\n",
						       ex[i].text, res_text[i], ex[i].pts[j][0],
						       ex[i].pts[j][1], ex[i].pts[j][2], ex[i].pts[j][3]);
						bad++;
					}
				}
			}
			if (df)
				fclose(df);
			check_si("W6", "value_mismatches", bad, 0);
			check_si("W6", "not_idempotent", notidem, 0);
			printf("W6 points_checked %d\n", NEXPR * NPTS);
			printf("W6 result_size %ld\n", outsize);
			printf("W6 smaller %ld\n", smaller);
			printf("W6 no_floor %ld\n", nofloor);
			printf("W6 input_no_floor %ld\n", nofloor_in);
			printf("W6 subset %d\n", SUBSET);
			printf("W6 input_size_sub %ld\n", insize_sub);
			printf("W6 result_size_sub %ld\n", outsize_sub);
			printf("W6 smaller_sub %ld\n", smaller_sub);
			printf("W6 no_floor_sub %ld\n", nofloor_sub);
			printf("W6 example %s -> %s\n", ex[0].text, res_text[0]);
		}
		for (int c = 0; c < 3; c++)
			sym_facts_free(facts[c]);
		sym_ctx_free(ctx);
	}
	printf("W6 parse_us %.4g\n", median(tparse, reps) / NEXPR * 1e6);
	printf("W6 simplify_us %.4g\n", median(tall, reps) / NEXPR * 1e6);
	printf("W6 simplify_sub_us %.4g\n", median(tsub, reps) / SUBSET * 1e6);
	/* The slowest expression by its median time: a single time of a loaded
	 * machine includes preemptions of milliseconds. */
	for (int i = 0; i < NEXPR; i++) {
		double m = median(tper[i], reps);

		if (m > tmax) {
			tmax = m;
			imax = i;
		}
	}
	printf("W6 simplify_max_us %.4g\n", tmax * 1e6);
	printf("W6 slowest %s -> %s\n", ex[imax].text, res_text[imax]);
	for (int i = 0; i < NEXPR; i++)
		free(res_text[i]);
	return failed ? 1 : 0;
}
