/* JSON interop: sym_expr_to_json / sym_expr_from_json round trips give the
 * same node; malformed trees give errors that name the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "symshape/json.h"
#include "symshape/symshape.h"

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

/* Checks both the tree and its printed JSON text. */
static void check_round_trip(sym_ctx *ctx, const sym_expr *e, const char *what)
{
	cJSON *j = sym_expr_to_json(ctx, e), *j2;
	const sym_expr *back;
	char *txt;
	if (!j)
		fail_msg("%s: to_json failed: %s", what, sym_ctx_last_message(ctx));
	back = sym_expr_from_json(ctx, j);
	if (back != e) {
		char *s = cJSON_PrintUnformatted(j);
		fail_msg("%s: JSON %s reads back as %s", what, s,
		         back ? "another node" : sym_ctx_last_message(ctx));
	}
	txt = cJSON_PrintUnformatted(j);
	assert_non_null(txt);
	j2 = cJSON_Parse(txt);
	assert_non_null(j2);
	if (sym_expr_from_json(ctx, j2) != e)
		fail_msg("%s: printed JSON %s does not read back", what, txt);
	cJSON_Delete(j2);
	free(txt);
	cJSON_Delete(j);
}

static void table_expressions_round_trip(void **state)
{
	static const char *const v[] = {
	    "0",
	    "-7/2",
	    "123456789012345678901234567890/7",
	    "-9223372036854775808",
	    "s0",
	    "batch_size",
	    "s0 + 2*s1 - 3",
	    "s0**2*s1**-3",
	    "x/(y + 1)",
	    "(x + y)**-2",
	    "x//8",
	    "x % 7",
	    "(x + 3)//4 + x % 5",
	    "-(-x//y)",
	    "min(a, b, c + 1)",
	    "max(a, 2*b)",
	    "abs(x - y)",
	    "floor(x/y + x/z)",
	    "true",
	    "false",
	    "x >= 2",
	    "x % 4 == 3",
	    "x != y",
	    "x < y && y < z",
	    "x == 1 || y == 2",
	    "!(a < b || c == d)",
	    "512*((n + 511)//512)",
	    "x**1000000",
	};
	size_t i;
	sym_ctx *ctx = sym_ctx_new();
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const sym_expr *e = sym_expr_from_str(ctx, v[i]);
		if (!e)
			fail_msg("parse %s: %s", v[i], sym_ctx_last_message(ctx));
		check_round_trip(ctx, e, v[i]);
	}
	sym_ctx_free(ctx);
}

/* Random expression text from a small grammar. */
static void gen(FILE *f, int depth)
{
	static const char *const leaves[] = {"s0",
	                                     "s1",
	                                     "s2",
	                                     "s3",
	                                     "s4",
	                                     "0",
	                                     "1",
	                                     "-3",
	                                     "7",
	                                     "1/2",
	                                     "18446744073709551617",
	                                     "-340282366920938463463374607431768211457"};
	static const char *const bins[] = {"+", "-", "*", "//", "%", "/"};
	unsigned k;
	if (depth <= 0 || rnd() % 4 == 0) {
		fprintf(f, "(%s)", leaves[rnd() % (sizeof(leaves) / sizeof(leaves[0]))]);
		return;
	}
	k = (unsigned)(rnd() % 10);
	if (k < 6) {
		fputc('(', f);
		gen(f, depth - 1);
		fprintf(f, " %s ", bins[k]);
		/* divisors: symbols or positive constants */
		if (k >= 3)
			fputs(rnd() & 1 ? "s1" : "5", f);
		else
			gen(f, depth - 1);
		fputc(')', f);
	} else if (k == 6 || k == 7) {
		fputs(k == 6 ? "min(" : "max(", f);
		gen(f, depth - 1);
		fputs(", ", f);
		gen(f, depth - 1);
		fputc(')', f);
	} else if (k == 8) {
		fputs(rnd() & 1 ? "abs(" : "ceil(", f);
		gen(f, depth - 1);
		fputc(')', f);
	} else {
		fputc('(', f);
		gen(f, depth - 1);
		fprintf(f, ")**%d", (int)(rnd() % 4));
	}
}

static void random_expressions_round_trip(void **state)
{
	long iters = iters_from_env(2000), it, preds = 0;
	sym_ctx *ctx = NULL;
	(void)state;
	rng_state = seed_from_env();
	for (it = 0; it < iters; it++) {
		char *txt = NULL;
		size_t len = 0;
		FILE *f;
		const sym_expr *e;
		if (it % 500 == 0) {
			sym_ctx_free(ctx);
			ctx = sym_ctx_new();
		}
		f = open_memstream(&txt, &len);
		assert_non_null(f);
		gen(f, 4);
		if (rnd() % 4 == 0) {
			static const char *const rels[] = {"==", "!=", "<", "<=", ">", ">="};
			fprintf(f, " %s ", rels[rnd() % 6]);
			gen(f, 2);
			fputs(rnd() & 1 ? " && s0 >= 1" : " || s2 % 3 == 1", f);
			preds++;
		}
		fclose(f);
		e = sym_expr_from_str(ctx, txt);
		if (!e) {
			/* constant division by zero is the only way text fails */
			if (sym_ctx_last_error(ctx) != SYM_EDIVZERO)
				fail_msg("parse %s: %s", txt, sym_ctx_last_message(ctx));
			sym_ctx_clear_error(ctx);
			free(txt);
			continue;
		}
		check_round_trip(ctx, e, txt);
		free(txt);
	}
	sym_ctx_free(ctx);
	printf("json: %ld random expressions (%ld predicates)\n", iters, preds);
}

static void a_json_string_is_expression_text(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	cJSON *j = cJSON_CreateString("(s0 + 1)*(s0 - 1)");
	(void)state;
	assert_true(sym_expr_from_json(ctx, j) == sym_expr_from_str(ctx, "s0**2 - 1"));
	cJSON_Delete(j);
	sym_ctx_free(ctx);
}

static void malformed_json_names_the_field(void **state)
{
	static const struct {
		const char *json, *msg;
	} v[] = {
	    {"{}", "\"kind\""},
	    {"{\"kind\": 3}", "\"kind\""},
	    {"{\"kind\": \"nope\"}", "\"kind\""},
	    {"[1, 2]", "\"kind\""},
	    {"17", "\"kind\""},
	    {"{\"kind\": \"num\"}", "\"value\""},
	    {"{\"kind\": \"num\", \"value\": 3}", "\"value\""},
	    {"{\"kind\": \"num\", \"value\": \"x\"}", "\"value\""},
	    {"{\"kind\": \"sym\"}", "\"name\""},
	    {"{\"kind\": \"sym\", \"name\": 5}", "\"name\""},
	    {"{\"kind\": \"bool\", \"value\": 1}", "\"value\""},
	    {"{\"kind\": \"add\", \"terms\": []}", "\"const\""},
	    {"{\"kind\": \"add\", \"const\": \"0\"}", "\"terms\""},
	    {"{\"kind\": \"add\", \"const\": \"0\", \"terms\": {}}", "\"terms\""},
	    {"{\"kind\": \"add\", \"const\": \"0\", \"terms\": [{\"coef\": 2, \"mono\": \"x\"}]}",
	     "\"coef\""},
	    {"{\"kind\": \"add\", \"const\": \"0\", \"terms\": [{\"coef\": \"2\"}]}", "\"mono\""},
	    {"{\"kind\": \"mul\"}", "\"factors\""},
	    {"{\"kind\": \"mul\", \"factors\": [{\"base\": \"x\", \"exp\": \"1/2\"}]}", "\"exp\""},
	    {"{\"kind\": \"mul\", \"factors\": [{\"base\": \"x\", \"exp\": 2}]}", "\"exp\""},
	    {"{\"kind\": \"mul\", \"factors\": [{\"base\": \"x\"}]}", "\"exp\""},
	    {"{\"kind\": \"mul\", \"factors\": [{\"exp\": \"2\"}]}", "\"base\""},
	    {"{\"kind\": \"floor\"}", "\"args\""},
	    {"{\"kind\": \"floor\", \"args\": []}", "\"args\""},
	    {"{\"kind\": \"min\", \"args\": \"x\"}", "\"args\""},
	    {"{\"kind\": \"floor\", \"args\": [\"x\", \"y\"]}", "one argument"},
	    {"{\"kind\": \"le\", \"args\": [\"x\", \"y\"]}", "one argument"},
	    {"{\"kind\": \"min\", \"args\": [\"x\", {\"kind\": \"sym\"}]}", "\"name\""},
	};
	size_t i, bad = 0;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		cJSON *j = cJSON_Parse(v[i].json);
		const sym_expr *e;
		assert_non_null(j);
		e = sym_expr_from_json(ctx, j);
		if (e)
			fail_msg("%s was accepted", v[i].json);
		if (sym_ctx_last_error(ctx) == SYM_EOK)
			fail_msg("%s: NULL without an error", v[i].json);
		if (!strstr(sym_ctx_last_message(ctx), v[i].msg)) {
			print_error("%s: message '%s' does not name %s\n", v[i].json,
			            sym_ctx_last_message(ctx), v[i].msg);
			bad++;
		}
		cJSON_Delete(j);
		sym_ctx_free(ctx);
	}
	{
		sym_ctx *ctx = sym_ctx_new();
		assert_null(sym_expr_from_json(ctx, NULL));
		assert_int_not_equal(sym_ctx_last_error(ctx), SYM_EOK);
		sym_ctx_free(ctx);
	}
	if (bad)
		fail_msg("%zu of %zu malformed trees give a message without the field", bad,
		         sizeof(v) / sizeof(v[0]));
}

static void numbers_are_decimal_strings(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *e = sym_expr_from_str(ctx, "-123456789012345678901234567891/2");
	cJSON *j = sym_expr_to_json(ctx, e), *v;
	(void)state;
	assert_non_null(j);
	v = cJSON_GetObjectItemCaseSensitive(j, "value");
	assert_true(cJSON_IsString(v));
	assert_string_equal(v->valuestring, "-123456789012345678901234567891/2");
	cJSON_Delete(j);
	sym_ctx_free(ctx);
}

static void json_of_a_dag_past_the_size_limit_is_an_error_found_early(void **state)
{
	char buf[512];
	size_t len = 1;
	int i;
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *e;
	clock_t t0;
	(void)state;
	strcpy(buf, "x");
	for (i = 0; i < 24; i++) /* a DAG whose tree at least doubles per pair */
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " * a%d %% b%d", i, i);
	e = sym_expr_from_str(ctx, buf);
	assert_non_null(e);
	t0 = clock();
	assert_null(sym_expr_to_json(ctx, e));
	assert_true(clock() - t0 < CLOCKS_PER_SEC / 2);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ELIMIT);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "JSON too large"));
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(table_expressions_round_trip),
	    cmocka_unit_test(random_expressions_round_trip),
	    cmocka_unit_test(a_json_string_is_expression_text),
	    cmocka_unit_test(numbers_are_decimal_strings),
	    cmocka_unit_test(malformed_json_names_the_field),
	    cmocka_unit_test(json_of_a_dag_past_the_size_limit_is_an_error_found_early),
	};
	printf("SYM_TEST_SEED=%llu\n", (unsigned long long)seed_from_env());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
