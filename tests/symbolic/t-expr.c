/* Canonical forms: table vectors in the expression syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../counting_alloc.h"
#include "seam.h"
#include "symshape/symshape.h"

typedef struct vec {
	const char *in, *out;
} vec;

static void check_vectors(const vec *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *e = sym_expr_from_str(ctx, v[i].in), *back;
		char *s;
		if (!e)
			fail_msg("parse %s: %s", v[i].in, sym_ctx_last_message(ctx));
		s = sym_expr_to_str(ctx, e);
		assert_non_null(s);
		if (strcmp(s, v[i].out))
			fail_msg("%s: expected %s, got %s", v[i].in, v[i].out, s);
		back = sym_expr_from_str(ctx, s);
		if (back != e)
			fail_msg("%s: printed form %s does not parse back to the same node", v[i].in, s);
		sym_str_free(ctx, s);
		sym_ctx_free(ctx);
	}
}

#define CHECK(tab) check_vectors(tab, sizeof(tab) / sizeof(tab[0]))

static void polynomial_identities_are_decided_by_construction(void **state)
{
	static const vec v[] = {
	    {"(s0*s1)/s1", "s0"},
	    {"(s0+1)**2 - s0**2 - 2*s0", "1"},
	    {"s1 + s0", "s0 + s1"},
	    {"(s0 + s1)**2", "s0**2 + 2*s0*s1 + s1**2"},
	    {"(a - b)*(a + b)", "a**2 - b**2"},
	    {"2*x - x - x", "0"},
	    {"x*y*x", "x**2*y"},
	    {"s10 + s2 + s1", "s1 + s2 + s10"},
	    {"3*x/2", "3*x/2"},
	    {"x/2 + x/2", "x"},
	    {"x/y*y", "x"},
	    {"1/(x + 1) * (x + 1)", "1"},
	    {"(2*x + 2)/(x + 1)", "2"},
	    {"x/(2*y)", "x/(2*y)"},
	    {"(x+y)**-2", "(x + y)**-2"},
	    {"1/((x + 1)*(y + 1))", "1/(x*y + x + y + 1)"},
	    {"(x + 1)**-1*(y + 1)**-1", "(x + 1)**-1*(y + 1)**-1"},
	    {"x/(y*(y + 1))", "x/(y**2 + y)"},
	    {"x/y/(y + 1)", "x*(y + 1)**-1/y"},
	    {"x/(2*(y + 1))", "x/(2*(y + 1))"},
	    {"2**100", "1267650600228229401496703205376"},
	    {"-(-x)", "x"},
	    {"0*x", "0"},
	    {"x**0", "1"},
	    {"6/4", "3/2"},
	    {"-3/6", "-1/2"},
	};
	(void)state;
	CHECK(v);
}

static void floor_division_and_modulo_fold_at_construction(void **state)
{
	static const vec v[] = {
	    {"x // 1", "x"},
	    {"x % 1", "0"},
	    {"7 // -2", "-4"},
	    {"-7 % 3", "2"},
	    {"7 % -3", "-2"},
	    {"(4*x + y)//4", "x + y//4"},
	    {"(4*x + 3) % 4", "3"},
	    {"(4*x + 3)//4", "x"},
	    {"x - (x//4)*4", "x % 4"},
	    {"(x//4)*4 + x % 4", "x"},
	    {"((s0 + 1)//2 + 1)//2", "(s0 + 3)//4"},
	    {"(x//2)//4", "x//8"},
	    {"(s0 - 1)//2 + 1", "(s0 + 1)//2"},
	    {"ceil(x/2)", "(x + 1)//2"},
	    {"ceil(x/y)", "-(-x//y)"},
	    {"floor(x)", "x"},
	    {"floor(x/2 + 1/2)", "(x + 1)//2"},
	    {"x//y", "x//y"},
	    {"x % y", "x % y"},
	    {"2*x - 8*(x//4)", "2*(x % 4)"},
	    {"floor(x/y + 1/2)", "(2*x/y + 1)//2"},
	    {"floor(x/y + z)", "z + x//y"},
	    {"floor(x/y + x/z)", "floor(x/y + x/z)"},
	    {"-x//2", "-x//2"},
	    {"-(x//2)", "-(x//2)"},
	    {"(x//2)*y", "y*(x//2)"},
	};
	(void)state;
	CHECK(v);
}

static void min_max_abs_fold_at_construction(void **state)
{
	static const vec v[] = {
	    {"min(x, x)", "x"},
	    {"min(x, x + 1)", "x"},
	    {"max(x + 2, x)", "x + 2"},
	    {"min(3, 1, 2)", "1"},
	    {"max(y, min(x, x), x)", "max(x, y)"},
	    {"min(min(a, b), c)", "min(a, b, c)"},
	    {"abs(-3)", "3"},
	    {"abs(-3*x)", "3*abs(x)"},
	    {"abs(abs(x))", "abs(x)"},
	    {"abs(1 - x)", "abs(x - 1)"},
	};
	(void)state;
	CHECK(v);
}

static void relations_have_one_normal_form(void **state)
{
	static const vec v[] = {
	    {"s0 >= 2", "s0 >= 2"},
	    {"2 <= s0", "s0 >= 2"},
	    {"s0 < 1", "s0 <= 0"},
	    {"2*x <= 3", "x <= 1"},
	    {"2*x == 3", "false"},
	    {"2*x != 3", "true"},
	    {"x + 1 > y", "y <= x"},
	    {"x % 4 == 3", "x % 4 == 3"},
	    {"!(x < y)", "y <= x"},
	    {"!(x == y)", "x != y"},
	    {"x < y && y < x", "y < x && x < y"},
	    {"!(a < b || c == d)", "c != d && b <= a"},
	    {"true && x > 0", "x >= 1"},
	    {"false || x > 0", "x >= 1"},
	    {"1 < 2", "true"},
	    {"x/2 == y/3", "3*x == 2*y"},
	};
	(void)state;
	CHECK(v);
}

static void bad_input_reports_a_position(void **state)
{
	static const struct {
		const char *in;
		long pos;
		const char *msg;
	} v[] = {
	    {"s0 +* 2", 4, "expected an operand"},
	    {"foo(x)", 0, "unknown function"},
	    {"1/0", 1, "division by zero"},
	    {"x % 0", 2, "modulo by zero"},
	    {"(x", 2, "expected ')'"},
	    {"x y", 2, "unexpected text"},
	    {"", 0, "empty expression"},
	    {"x ** y", 2, "exponent must be an integer constant"},
	    {"1.5", 1, "decimal"},
	    {"min()", 4, "missing function argument"},
	    {"abs(x, y)", 0, "one argument"},
	    {"x < y < z", 6, "do not chain"},
	    {"(x < 1) + 1", 8, "predicate"},
	    {"10**10**10", 2, "too large"},
	    {"(a+b)**-7 // (a+b)**-700", 10, "to the power 693 is too large"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *e = sym_expr_from_str(ctx, v[i].in);
		if (e)
			fail_msg("%s parsed", v[i].in);
		if (sym_ctx_last_position(ctx) != v[i].pos)
			fail_msg("%s: position %ld, expected %ld (%s)", v[i].in, sym_ctx_last_position(ctx),
			         v[i].pos, sym_ctx_last_message(ctx));
		if (!strstr(sym_ctx_last_message(ctx), v[i].msg))
			fail_msg("%s: message '%s' lacks '%s'", v[i].in, sym_ctx_last_message(ctx), v[i].msg);
		sym_ctx_free(ctx);
	}
}

/* A message quotes the text it failed on; control characters in it come
 * out as \xNN so that every message stays one line. */
static void error_messages_escape_control_characters(void **state)
{
	static const char *const in[] = {"x +\001\n 2", "y\n*", "\t\r\177"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		const char *msg, *c;
		assert_null(sym_expr_from_str(ctx, in[i]));
		msg = sym_ctx_last_message(ctx);
		for (c = msg; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fail_msg("input %zu: message '%s' has byte 0x%02x", i, msg,
				         (unsigned char)*c);
		if (i == 0)
			assert_non_null(strstr(msg, "'\\x01"));
		sym_ctx_free(ctx);
	}
}

/* Whether msg is one line: no byte below 0x20 (newline included) or 0x7f. */
static int is_one_line(const char *msg)
{
	for (; *msg; msg++)
		if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
			return 0;
	return 1;
}

/* The name of a symbol that cannot be made is quoted whole (it once kept
 * 40 bytes), past the old cut and in one line. */
static void invalid_symbol_names_are_quoted_whole(void **state)
{
	char name[301], want[400];
	sym_ctx *ctx = sym_ctx_new();
	(void)state;
	memset(name, 'a', 300); /* longer than a name may be (255) */
	name[300] = 0;
	assert_null(sym_expr_symbol(ctx, name));
	snprintf(want, sizeof(want), "invalid symbol name '%s'", name);
	assert_string_equal(sym_ctx_last_message(ctx), want);
	sym_ctx_clear_error(ctx);
	/* a name with a newline stays one line, escaped */
	memcpy(name + 150, "\n!", 2);
	assert_null(sym_expr_symbol(ctx, name));
	assert_true(is_one_line(sym_ctx_last_message(ctx)));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "a\\x0a!a"));
	sym_ctx_free(ctx);
}

/* A text that is no decimal integer is quoted whole in the message. */
static void non_decimal_texts_are_quoted_whole(void **state)
{
	char digits[302], want[400];
	sym_ctx *ctx = sym_ctx_new();
	(void)state;
	memset(digits, '7', 300);
	digits[300] = 'x';
	digits[301] = 0;
	assert_null(sym_expr_from_dec(ctx, digits));
	snprintf(want, sizeof(want), "not a decimal integer: '%s'", digits);
	assert_string_equal(sym_ctx_last_message(ctx), want);
	sym_ctx_free(ctx);
}

/* The one cut of a message is the context's slot (4095 bytes): a longer
 * message ends in "...". */
static void messages_past_the_context_slot_end_in_dots(void **state)
{
	static char name[6001];
	sym_ctx *ctx = sym_ctx_new();
	const char *msg;
	(void)state;
	memset(name, 'b', 6000);
	assert_null(sym_expr_symbol(ctx, name));
	msg = sym_ctx_last_message(ctx);
	assert_int_equal(strlen(msg), 4095);
	assert_string_equal(msg + 4092, "...");
	assert_int_equal(strncmp(msg, "invalid symbol name 'bbb", 24), 0);
	sym_ctx_free(ctx);
}

/* Parse errors name the function whole, and the position a constructor's
 * error gets goes in front of its whole message. */
static void parse_errors_name_functions_whole(void **state)
{
	char text[300], name[256];
	sym_ctx *ctx = sym_ctx_new();
	const char *msg;
	(void)state;
	assert_null(sym_expr_from_str(ctx, "1 + floor(x, y)"));
	assert_string_equal(sym_ctx_last_message(ctx), "column 5: floor takes one argument at 'floor(x, y)'");
	sym_ctx_clear_error(ctx);
	memset(name, 'f', 255); /* the longest name the parser reads */
	name[255] = 0;
	snprintf(text, sizeof(text), "%s(x)", name);
	assert_null(sym_expr_from_str(ctx, text));
	msg = sym_ctx_last_message(ctx);
	assert_true(is_one_line(msg));
	assert_int_equal(strncmp(msg, "column 1: unknown function '", 28), 0);
	assert_int_equal(strncmp(msg + 28, name, 255), 0);
	assert_string_equal(msg + 28 + 255, "' at 'ffffffffffffffffffff...'");
	sym_ctx_clear_error(ctx);
	assert_null(sym_expr_from_str(ctx, "x + 1/0"));
	assert_string_equal(sym_ctx_last_message(ctx), "column 6: division by zero");
	sym_ctx_free(ctx);
}

static void deep_nesting_is_an_error_not_a_crash(void **state)
{
	char buf[20001];
	sym_ctx *ctx = sym_ctx_new();
	(void)state;
	memset(buf, '(', 10000);
	buf[10000] = 'x';
	memset(buf + 10001, ')', 10000);
	buf[20000] = 0;
	assert_null(sym_expr_from_str(ctx, buf));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "nested too deeply"));
	sym_ctx_clear_error(ctx);
	memset(buf, '-', 20000);
	buf[19999] = 'x';
	assert_null(sym_expr_from_str(ctx, buf));
	sym_ctx_free(ctx);
}

/* Writes x * a0 % b0 * a1 % b1 ... with n pairs: the canonical form is a
 * DAG whose printed text at least doubles with each pair. */
static void mod_chain(char *buf, size_t cap, int n)
{
	size_t len = (size_t)snprintf(buf, cap, "x");
	int i;
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, " * a%d %% b%d", i, i);
}

static void text_longer_than_the_limit_is_an_error_found_early(void **state)
{
	char buf[512];
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *e;
	clock_t t0;
	(void)state;
	mod_chain(buf, sizeof(buf), 24);
	assert_true(strlen(buf) < 280);
	e = sym_expr_from_str(ctx, buf);
	assert_non_null(e);
	t0 = clock();
	assert_null(sym_expr_to_str(ctx, e));
	/* the text would be hundreds of megabytes; measuring it is quick */
	assert_true(clock() - t0 < CLOCKS_PER_SEC / 2);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ELIMIT);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "text too long"));
	sym_ctx_free(ctx);
}

static void text_below_the_limit_prints_in_full(void **state)
{
	char buf[512], *s;
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *e;
	(void)state;
	mod_chain(buf, sizeof(buf), 19); /* the printer folds each modulo: about 2**n * 1.9 bytes */
	e = sym_expr_from_str(ctx, buf);
	s = sym_expr_to_str(ctx, e);
	assert_non_null(s);
	assert_true(strlen(s) > SYM_MAX_TEXT_BYTES / 2 && strlen(s) <= SYM_MAX_TEXT_BYTES);
	assert_ptr_equal(sym_expr_from_str(ctx, s), e);
	sym_str_free(ctx, s);
	sym_ctx_free(ctx);
}

static void expansions_a_short_text_asks_for_are_bounded(void **state)
{
	static const char *const big[] = {
	    "(a+b+c+d+1)**40",
	    "(a+b+c+d+1)**20*(e+f+g+h+i+j+k+l+m+n+1)",
	    "floor((a+b+c+d+1)**30/3)*7",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		clock_t t0 = clock();
		if (sym_expr_from_str(ctx, big[i]))
			fail_msg("%s: expected a limit error", big[i]);
		assert_int_equal(sym_ctx_last_error(ctx), SYM_ELIMIT);
		assert_true(clock() - t0 < CLOCKS_PER_SEC / 10);
		sym_ctx_free(ctx);
	}
}

/* A coefficient or an exponent of the expansion past its limit is an
 * error, never a term dropped or a crash. */
static void expansion_past_a_number_limit_is_an_error(void **state)
{
	static const char *const big[] = {
	    "(x+3**6000000)**2",
	    "(x+3**6000000)**2 - x**2 - 2*x*3**6000000",
	    "(x**1000000000+y**999999999)**50",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		if (sym_expr_from_str(ctx, big[i]))
			fail_msg("%s: expected a limit error", big[i]);
		assert_int_equal(sym_ctx_last_error(ctx), SYM_ELIMIT);
		sym_ctx_free(ctx);
	}
}

/* A run of constant operands folds into one number as the text is read;
 * the node is the one that building operator by operator gives. */
static void constant_operand_chains_build_the_operator_by_operator_node(void **state)
{
	static const char *const base[] = {"x",     "2*x + 1",   "x + y/3",       "x//3",    "x - 5",
	                                   "x % 4", "7",         "x/y + 1/2",     "-x",      "x//2 + y",
	                                   "3*x/2", "x/(y + 1)", "6*x + 4*y + 2", "x*y - 1", "floor(x/y)"};
	static const long long cs[] = {2, 3, 4, -2, 6, 1, 8, 0};
	static const char ops[] = {'*', '/', 'f'};
	unsigned seed = 12345;
	int round;
	(void)state;
	for (round = 0; round < 3000; round++) {
		sym_ctx *ctx = sym_ctx_new();
		char text[256];
		size_t len, n = 1 + (size_t)round % 9, i, nb = sizeof(base) / sizeof(base[0]);
		const sym_expr *built, *parsed;
		seed = seed * 1103515245u + 12345u;
		len = (size_t)snprintf(text, sizeof(text), "(%s)", base[(seed >> 16) % nb]);
		built = sym_expr_from_str(ctx, base[(seed >> 16) % nb]);
		for (i = 0; i < n; i++) {
			long long c;
			char op;
			const sym_expr *k;
			seed = seed * 1103515245u + 12345u;
			c = cs[(seed >> 16) % 8];
			op = ops[(seed >> 8) % 3];
			k = sym_expr_from_si(ctx, c);
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s(%lld)",
			                        op == 'f'   ? "//"
			                        : op == '*' ? "*"
			                                    : "/",
			                        c);
			built = op == 'f'   ? sym_expr_floordiv(ctx, built, k)
			        : op == '*' ? sym_expr_mul(ctx, built, k)
			                    : sym_expr_div(ctx, built, k);
		}
		if (!built)
			sym_ctx_clear_error(ctx);
		parsed = sym_expr_from_str(ctx, text);
		if (!built) {
			/* a division by zero: the same error, at the operator */
			if (parsed || sym_ctx_last_error(ctx) != SYM_EDIVZERO)
				fail_msg("%s: expected a division by zero", text);
		} else if (parsed != built) {
			fail_msg("%s: parsed and built nodes differ", text);
		}
		sym_ctx_free(ctx);
	}
}

/* x//2//2... with 100,000 divisions is x//2**100000, read building a few
 * nodes instead of keeping 2, 4, ..., 2**100000 in 200,000 nodes (hundreds
 * of megabytes of numbers). */
static void long_chains_of_constant_divisors_are_read_quickly(void **state)
{
	static const char *const unit[] = {"//2", "/2", "*2"};
	static const char *const same[] = {"x//2**100000", "x/2**100000", "x*2**100000"};
	size_t u;
	(void)state;
	for (u = 0; u < 3; u++) {
		sym_ctx *ctx = sym_ctx_new();
		size_t n = 100000, ul = strlen(unit[u]), i;
		char *text = malloc(1 + n * ul + 1);
		const sym_expr *e;
		assert_non_null(text);
		text[0] = 'x';
		for (i = 0; i < n; i++)
			memcpy(text + 1 + i * ul, unit[u], ul);
		text[1 + n * ul] = 0;
		e = sym_expr_from_str(ctx, text);
		assert_non_null(e);
		if (sym_ctx_node_count(ctx, NULL) > 100)
			fail_msg("x%s...: %zu nodes", unit[u], sym_ctx_node_count(ctx, NULL));
		assert_ptr_equal(e, sym_expr_from_str(ctx, same[u]));
		free(text);
		sym_ctx_free(ctx);
	}
}

/* A run of products of atoms (symbols, their powers, floors, mins,
 * reciprocals, repeated and cancelling factors) read from text is the node
 * the operator builds one factor at a time, left to right. */
static void atom_product_runs_build_the_operator_by_operator_node(void **state)
{
	static const char *const atoms[] = {"x",    "y",         "z",       "x**2", "1/y",
	                                    "x//3", "min(x, y)", "z**-2",   "x*y",  "1/(x*z)",
	                                    "y**3", "max(y, 2)", "(x + 1)", "3"};
	unsigned seed = 777;
	int round;
	(void)state;
	for (round = 0; round < 2000; round++) {
		sym_ctx *ctx = sym_ctx_new();
		char text[1024];
		size_t len = 0, n = 2 + (size_t)round % 12, i, na = sizeof(atoms) / sizeof(atoms[0]);
		const sym_expr *built = NULL, *parsed;
		for (i = 0; i < n; i++) {
			const char *a;
			seed = seed * 1103515245u + 12345u;
			a = atoms[(seed >> 16) %
			          (round % 3 ? na - 2 : na)]; /* two rounds in three: atoms only */
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s(%s)", i ? "*" : "", a);
			built = i ? sym_expr_mul(ctx, built, sym_expr_from_str(ctx, a))
			          : sym_expr_from_str(ctx, a);
		}
		parsed = sym_expr_from_str(ctx, text);
		assert_non_null(built);
		if (parsed != built)
			fail_msg("%s: parsed and built nodes differ", text);
		sym_ctx_free(ctx);
	}
}

/* x0*x1*...*x99999 is read in one sort: a few nodes past the 100,000
 * symbols, not the 100,000 growing intermediate products (gigabytes). */
static void long_products_of_symbols_are_read_without_intermediate_products(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	size_t n = 100000, len = 0, i;
	char *text = malloc(n * 8);
	const sym_expr *e;
	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%sx%zu", i ? "*" : "", i);
	e = sym_expr_from_str(ctx, text);
	assert_non_null(e);
	assert_int_equal(sym_expr_kind(e), SYM_KIND_MUL);
	if (sym_ctx_node_count(ctx, NULL) > n + 100)
		fail_msg("%zu nodes for a product of %zu symbols", sym_ctx_node_count(ctx, NULL), n);
	/* the same product in another order is the same node */
	len = 0;
	for (i = n; i-- > 0;)
		len += (size_t)sprintf(text + len, "%sx%zu", i + 1 < n ? "*" : "", i);
	assert_ptr_equal(sym_expr_from_str(ctx, text), e);
	free(text);
	sym_ctx_free(ctx);
}

/* A min or max is one node however its arguments come: in one call in any
 * order, nested, or one argument at a time (the constructor merges the
 * sorted arguments of a min or max it extends), with repeated symbols, and
 * with sums x + c that differ by a constant (only the largest, for max,
 * stays).  The reference is the text of the distinct arguments, sorted by
 * a printer-independent rule: one node per distinct symbol. */
/* Sums whose coefficients fit a byte are stored compactly and the others in
 * full: every sum is one node however built, whichever side of the byte its
 * coefficients fall, and evaluates to its value. */
static void sums_either_side_of_byte_coefficients_are_one_node_however_built(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *x, *y, *syms[2];
	static const long long cs[] = {-300, -129, -128, -127, -2, -1, 1, 2, 126, 127, 128, 129, 1000};
	long long vals[2] = {7, -5};
	size_t i, j, k;
	(void)state;
	assert_non_null(ctx);
	x = sym_expr_symbol(ctx, "x"), y = sym_expr_symbol(ctx, "y");
	syms[0] = x, syms[1] = y;
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
		for (j = 0; j < sizeof(cs) / sizeof(cs[0]); j++)
			for (k = 0; k < sizeof(cs) / sizeof(cs[0]); k++) {
				long long a = cs[i], b = cs[j], c = cs[k], got;
				char text[96];
				const sym_expr *ax = sym_expr_mul(ctx, sym_expr_from_si(ctx, a), x);
				const sym_expr *by = sym_expr_mul(ctx, sym_expr_from_si(ctx, b), y);
				const sym_expr *cc = sym_expr_from_si(ctx, c);
				const sym_expr *e1 = sym_expr_add(ctx, sym_expr_add(ctx, ax, by), cc);
				/* through a coefficient one past the other side and back */
				const sym_expr *e2 = sym_expr_sub(
				    ctx,
				    sym_expr_add(ctx, sym_expr_add(ctx, cc, sym_expr_add(ctx, by, x)), ax),
				    x);
				const sym_expr *v;
				snprintf(text, sizeof text, "%lld*x + %lld*y + %lld", a, b, c);
				assert_non_null(e1);
				assert_ptr_equal(e1, e2);
				assert_ptr_equal(e1, sym_expr_from_str(ctx, text));
				v = sym_expr_eval_si(ctx, e1, 2, syms, vals);
				assert_non_null(v);
				assert_int_equal(sym_expr_get_si(v, &got), 1);
				assert_true(got == a * vals[0] + b * vals[1] + c);
			}
	{
		/* a sum of byte coefficients takes less room than one past it */
		size_t n0, n1, n2, b0, b1, b2;
		const sym_expr *t = sym_expr_from_str(ctx, "3*u + 5*v + 7*w");
		const sym_expr *c11 = sym_expr_from_si(ctx, 11), *c300 = sym_expr_from_si(ctx, 300);
		n0 = sym_ctx_node_count(ctx, &b0);
		assert_non_null(sym_expr_add(ctx, t, c11));
		n1 = sym_ctx_node_count(ctx, &b1);
		assert_non_null(sym_expr_add(ctx, t, c300));
		n2 = sym_ctx_node_count(ctx, &b2);
		assert_true(n1 == n0 + 1 && n2 == n1 + 1);
		assert_true(b1 - b0 < b2 - b1);
	}
	sym_ctx_free(ctx);
}

/* The search for a shorter spelling is bounded in the texts of parts it
 * prints, not only in its parses: each candidate's rest is a new node with
 * candidates of its own.  The memory total of an 8-node model took 30,539
 * allocations to print in a fresh context (136M instructions in the
 * CLI), now 3,581; it parses back either way. */
static void spelling_search_of_a_sum_of_floors_is_bounded(void **state)
{
	counting c = {0};
	sym_allocator a = {counting_realloc, &c};
	sym_ctx *ctx = sym_ctx_new_with_allocator(&a);
	const char *text = "64*((17*c*n + 3)//4) + 32*(1 - c*n//4 - c*n//2 - 3*((c*n + n)//2) - "
	                   "2*(3*n//8) - (3*c*n - 31*n)//8)";
	const sym_expr *e;
	long before;
	char *t;
	(void)state;
	assert_non_null(ctx);
	e = sym_expr_from_str(ctx, text);
	assert_non_null(e);
	before = c.calls;
	t = sym_expr_to_str(ctx, e);
	assert_non_null(t);
	print_message("%ld allocations to print %s\n", c.calls - before, t);
	assert_true(c.calls - before < 10000);
	assert_ptr_equal(sym_expr_from_str(ctx, t), e);
	sym_str_free(ctx, t);
	sym_ctx_free(ctx);
}

/* A min or max of symbols is written name by name into the output, a
 * short name as one 8-byte move: names of 1 to 20 bytes, 2 to 40 of them,
 * alone and 30 of them in one sum, print as their names joined and parse
 * back to the node. */
static void min_max_of_symbols_print_their_names_joined(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *args[60], *parts[30];
	char name[32], want[2048];
	size_t n, k, w, j;
	(void)state;
	assert_non_null(ctx);
	for (k = 0; k < 60; k++) {
		/* lengths 1..20: "a", "bb", ..., a digit tail keeps them distinct */
		size_t len = 1 + k % 20, i;
		for (i = 0; i < len; i++)
			name[i] = (char)('a' + k % 26);
		snprintf(name + len, sizeof name - len, "%zu", k);
		args[k] = sym_expr_symbol(ctx, name);
		assert_non_null(args[k]);
	}
	for (n = 2; n <= 40; n++) {
		const sym_expr *m =
		    n % 2 ? sym_expr_min(ctx, n, args + n % 7) : sym_expr_max(ctx, n, args + n % 7);
		char *t;
		assert_non_null(m);
		t = sym_expr_to_str(ctx, m);
		assert_non_null(t);
		w = (size_t)snprintf(want, sizeof want, "%s(", n % 2 ? "min" : "max");
		for (k = 0; k < sym__expr_nargs(m); k++)
			w += (size_t)snprintf(want + w, sizeof want - w, "%s%s", k ? ", " : "",
			                      sym_expr_symbol_name(sym__expr_arg(m, k)));
		snprintf(want + w, sizeof want - w, ")");
		assert_string_equal(t, want);
		assert_ptr_equal(sym_expr_from_str(ctx, t), m);
		sym_str_free(ctx, t);
	}
	for (j = 0; j < 30; j++)
		parts[j] = sym_expr_max(ctx, 2 + j, args + j % 20);
	{
		const sym_expr *sum = sym__expr_sum(ctx, 30, parts);
		char *t = sym_expr_to_str(ctx, sum);
		assert_non_null(t);
		assert_ptr_equal(sym_expr_from_str(ctx, t), sum);
		sym_str_free(ctx, t);
	}
	sym_ctx_free(ctx);
}

/* Long min and max of symbols print from a cache of texts: the same text
 * alone, inside other expressions, printed again later, and for a max with
 * another kind of argument. */
static void long_min_max_print_the_same_however_often(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *args[200], *first = NULL;
	char want[4096], name[16];
	size_t n, k, w;
	(void)state;
	assert_non_null(ctx);
	for (k = 0; k < 200; k++) {
		snprintf(name, sizeof name, "v%zu", k);
		args[k] = sym_expr_symbol(ctx, name);
		assert_non_null(args[k]);
	}
	for (n = 30; n < 200; n++) {
		const sym_expr *m = sym_expr_max(ctx, n, args);
		char *t, *u;
		w = (size_t)snprintf(want, sizeof want, "max(");
		for (k = 0; k < n; k++)
			w += (size_t)snprintf(want + w, sizeof want - w, "%sv%zu", k ? ", " : "", k);
		snprintf(want + w, sizeof want - w, ")");
		if (!first)
			first = m;
		t = sym_expr_to_str(ctx, m);
		assert_non_null(t);
		assert_string_equal(t, want);
		sym_str_free(ctx, t);
		/* inside a sum, twice */
		t = sym_expr_to_str(ctx, sym_expr_add(ctx, m, sym_expr_from_si(ctx, 7)));
		assert_non_null(t);
		assert_int_equal(strncmp(t, want, strlen(want)), 0);
		assert_string_equal(t + strlen(want), " + 7");
		u = sym_expr_to_str(ctx, sym_expr_add(ctx, m, sym_expr_from_si(ctx, 7)));
		assert_string_equal(t, u);
		sym_str_free(ctx, t);
		sym_str_free(ctx, u);
	}
	{
		/* the first again, long after; and one with a sum argument */
		char *t = sym_expr_to_str(ctx, first), *u;
		const sym_expr *v[40];
		assert_non_null(t);
		assert_int_equal(strlen(t), strlen("max(") + 10 * 2 + 20 * 3 + 29 * 2 + 1);
		sym_str_free(ctx, t);
		for (k = 0; k < 40; k++)
			v[k] = args[k];
		v[39] = sym_expr_add(ctx, args[150], sym_expr_from_si(ctx, 1));
		t = sym_expr_to_str(ctx, sym_expr_min(ctx, 40, v));
		assert_non_null(t);
		assert_non_null(strstr(t, "v150 + 1"));
		u = sym_expr_to_str(ctx, sym_expr_min(ctx, 40, v));
		assert_string_equal(t, u);
		sym_str_free(ctx, t);
		sym_str_free(ctx, u);
	}
	sym_ctx_free(ctx);
}

/* The cache of long min/max texts holds at most 32 MiB: 2,500 maxes of
 * 2,000 symbols print about 40 MiB, so it empties on the way, and every
 * text, the first one printed again at the end included, stays right. */
static void long_max_texts_stay_right_after_the_cache_empties(void **state)
{
	enum { NSYM = 4500, NARG = 2000, NMAX = 2500 };
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr **args = malloc(NSYM * sizeof(*args));
	char *want = malloc(NARG * 8 + 16), name[16];
	size_t k, w, total = 0;
	(void)state;
	assert_non_null(ctx);
	assert_non_null(args);
	assert_non_null(want);
	/* the names sort as they are numbered: v1000..v5499 */
	for (k = 0; k < NSYM; k++) {
		snprintf(name, sizeof name, "v%zu", k + 1000);
		args[k] = sym_expr_symbol(ctx, name);
		assert_non_null(args[k]);
	}
	for (k = 0; k <= NMAX; k++) {
		size_t at = k % NMAX, j;
		const sym_expr *m = sym_expr_max(ctx, NARG, args + at);
		char *t;
		w = (size_t)snprintf(want, 8, "max(");
		for (j = 0; j < NARG; j++)
			w += (size_t)snprintf(want + w, 16, "%sv%zu", j ? ", " : "", at + j + 1000);
		snprintf(want + w, 8, ")");
		t = sym_expr_to_str(ctx, m);
		assert_non_null(t);
		assert_string_equal(t, want);
		total += strlen(t);
		sym_str_free(ctx, t);
	}
	assert_true(total > ((size_t)32 << 20));
	free(want);
	free(args);
	sym_ctx_free(ctx);
}

static void min_and_max_are_one_node_however_built(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	uint64_t rng = 88172645463325252ull;
	int round, k;
	(void)state;
	assert_non_null(ctx);
	for (round = 0; round < 300; round++) {
		const sym_expr *args[80], *sh[80], *acc, *all, *nested, *half[2];
		int n = 2 + (int)(rng % 70), is_max = round % 2, with_sums = round % 3 == 0, seen[24] = {0};
		int distinct = 0;
		const sym_expr *(*mk)(sym_ctx *, size_t, const sym_expr *const *) =
		    is_max ? sym_expr_max : sym_expr_min;
		for (k = 0; k < n; k++) {
			char name[32];
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			if (with_sums && rng % 4 == 0)
				snprintf(name, sizeof(name), "x%d + %d", (int)(rng >> 8) % 24,
				         (int)(rng >> 20) % 5);
			else
				snprintf(name, sizeof(name), "x%d", (int)((rng >> 8) % 24));
			args[k] = sym_expr_from_str(ctx, name);
			assert_non_null(args[k]);
			if (!strchr(name, '+') && !seen[(rng >> 8) % 24]++)
				distinct++;
		}
		all = mk(ctx, (size_t)n, args);
		assert_non_null(all);
		/* reversed, and a shuffle */
		for (k = 0; k < n; k++)
			sh[k] = args[n - 1 - k];
		assert_ptr_equal(mk(ctx, (size_t)n, sh), all);
		for (k = n - 1; k > 0; k--) {
			int j;
			const sym_expr *t;
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			j = (int)(rng % (uint64_t)(k + 1));
			t = sh[k], sh[k] = sh[j], sh[j] = t;
		}
		assert_ptr_equal(mk(ctx, (size_t)n, sh), all);
		/* one at a time, and two halves */
		acc = args[0];
		for (k = 1; k < n; k++) {
			const sym_expr *pair[2] = {acc, args[k]};
			acc = mk(ctx, 2, pair);
			assert_non_null(acc);
		}
		assert_ptr_equal(acc, all);
		half[0] = mk(ctx, (size_t)n / 2, args);
		half[1] = mk(ctx, (size_t)(n - n / 2), args + n / 2);
		nested = mk(ctx, 2, half);
		assert_ptr_equal(nested, all);
		if (!with_sums) {
			/* symbols only: each distinct one once */
			size_t want = (size_t)distinct;
			if (want == 1)
				assert_int_equal(sym_expr_kind(all), SYM_KIND_SYM);
			else
				assert_int_equal(sym_expr_kind(all), is_max ? SYM_KIND_MAX : SYM_KIND_MIN);
			if (want > 1) {
				char *t = sym_expr_to_str(ctx, all);
				size_t commas = 0;
				const char *c;
				assert_non_null(t);
				for (c = t; *c; c++)
					commas += *c == ',';
				assert_int_equal(commas + 1, want);
				sym_str_free(ctx, t);
			}
		}
	}
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(polynomial_identities_are_decided_by_construction),
	    cmocka_unit_test(atom_product_runs_build_the_operator_by_operator_node),
	    cmocka_unit_test(long_products_of_symbols_are_read_without_intermediate_products),
	    cmocka_unit_test(floor_division_and_modulo_fold_at_construction),
	    cmocka_unit_test(min_max_abs_fold_at_construction),
	    cmocka_unit_test(min_and_max_are_one_node_however_built),
	    cmocka_unit_test(min_max_of_symbols_print_their_names_joined),
	    cmocka_unit_test(spelling_search_of_a_sum_of_floors_is_bounded),
	    cmocka_unit_test(long_min_max_print_the_same_however_often),
	    cmocka_unit_test(long_max_texts_stay_right_after_the_cache_empties),
	    cmocka_unit_test(sums_either_side_of_byte_coefficients_are_one_node_however_built),
	    cmocka_unit_test(relations_have_one_normal_form),
	    cmocka_unit_test(bad_input_reports_a_position),
	    cmocka_unit_test(deep_nesting_is_an_error_not_a_crash),
	    cmocka_unit_test(error_messages_escape_control_characters),
	    cmocka_unit_test(invalid_symbol_names_are_quoted_whole),
	    cmocka_unit_test(non_decimal_texts_are_quoted_whole),
	    cmocka_unit_test(messages_past_the_context_slot_end_in_dots),
	    cmocka_unit_test(parse_errors_name_functions_whole),
	    cmocka_unit_test(text_longer_than_the_limit_is_an_error_found_early),
	    cmocka_unit_test(text_below_the_limit_prints_in_full),
	    cmocka_unit_test(expansions_a_short_text_asks_for_are_bounded),
	    cmocka_unit_test(expansion_past_a_number_limit_is_an_error),
	    cmocka_unit_test(constant_operand_chains_build_the_operator_by_operator_node),
	    cmocka_unit_test(long_chains_of_constant_divisors_are_read_quickly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
