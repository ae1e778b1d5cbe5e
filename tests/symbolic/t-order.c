/* The canonical order of symbols: the order key every symbol carries
 * (sym__name_key) decides a comparison only where it agrees with the
 * name order (sym__name_cmp: digit runs by value, then the text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "node_private.h"

static int sgn(int c)
{
	return (c > 0) - (c < 0);
}

static void check_pair(sym_ctx *ctx, const char *a, const char *b)
{
	const sym_expr *x = sym_expr_symbol(ctx, a), *y = sym_expr_symbol(ctx, b);
	int want = sgn(sym__name_cmp(a, b));
	assert_non_null(x);
	assert_non_null(y);
	if (sgn(sym__cmp(x, y)) != want || sgn(sym__cmp(y, x)) != -want)
		fail_msg("%s vs %s: order %d, names say %d", a, b, sgn(sym__cmp(x, y)), want);
	if (want == 0 && x != y)
		fail_msg("%s and %s compare equal but are two nodes", a, b);
}

static void symbols_are_ordered_as_their_names(void **state)
{
	static const char *const pairs[][2] = {
	    {"s2", "s10"},
	    {"x01", "x1"},
	    {"x1", "x01"},
	    {"x", "x0"},
	    {"a1234567890", "a_"},
	    {"a1234567890", "aZ"},
	    {"a9999999999", "a1"},
	    {"abcdefg1", "abcdefg2"},
	    {"abcdefgh", "abcdefg"},
	    {"s0000000000001", "s1"},
	    {"N", "batch"},
	    {"b_1", "b1"},
	    {"x123456789", "x1234567890"},
	    {"x9", "x10"},
	    {"A", "a"},
	    {"_", "a"},
	};
	sym_ctx *ctx = sym_ctx_new();
	size_t i;
	(void)state;
	assert_non_null(ctx);
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		check_pair(ctx, pairs[i][0], pairs[i][1]);
	sym_ctx_free(ctx);
}

/* Random names over letters, '_' and digit runs with leading zeros and
 * runs longer than nine digits, many sharing long prefixes. */
static void random_names_are_ordered_as_their_names(void **state)
{
	static const char alphabet[] = "aab_Z0000123456789999";
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	sym_ctx *ctx = sym_ctx_new();
	char names[64][24];
	int round, i, j;
	(void)state;
	assert_non_null(ctx);
	for (round = 0; round < 300; round++) {
		for (i = 0; i < 64; i++) {
			int len;
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			len = 1 + (int)(rng % 20);
			names[i][0] = "abs_"[rng >> 40 & 3];
			for (j = 1; j < len; j++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				names[i][j] = alphabet[rng % (sizeof(alphabet) - 1)];
			}
			names[i][len] = 0;
		}
		for (i = 0; i < 64; i++)
			for (j = 0; j < 64; j++)
				check_pair(ctx, names[i], names[j]);
	}
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(symbols_are_ordered_as_their_names),
	    cmocka_unit_test(random_names_are_ordered_as_their_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
