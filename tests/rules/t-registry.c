/* The registry's index (the rule session's lookup): sorted by name, it finds
 * every registered operator as the scan of the registry does, and nothing
 * else: not a name differing in case, a prefix or an extension of a name,
 * nor an operator of another domain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules_private.h"
#include "session.h"

typedef struct fixture {
	sym_ctx *ctx;
	sym_rule_slot *ix;
	size_t n;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->ctx = sym_ctx_new();
	assert_non_null(f->ctx);
	assert_int_equal(sym__rule_index_new(f->ctx, &f->ix, &f->n), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	sym__free(f->ctx, f->ix, f->n * sizeof(*f->ix));
	sym_ctx_free(f->ctx);
	free(f);
	return 0;
}

static size_t registry_size(void)
{
	size_t n = 0;
	while (sym__rule_at(n))
		n++;
	return n;
}

/* The index answers (domain, name) exactly as the scan of the registry. */
static void assert_same_answer(const fixture *f, const char *domain, const char *name)
{
	const sym_rule_entry *want = sym__rule_find(domain, name);
	const sym_rule_slot *got = sym__rule_index_find(f->ix, f->n, domain, name);
	if (!want && got)
		fail_msg("'%s' in domain '%s' is no operator, the index found %s::%s", name,
		         domain ? domain : "", got->e->domain, got->e->name);
	if (want && (!got || got->e != want))
		fail_msg("'%s' in domain '%s': the index found %s", name, domain ? domain : "",
		         got ? got->e->name : "nothing");
}

static void index_holds_every_entry_sorted_by_name(void **state)
{
	fixture *f = *state;
	size_t i;
	assert_int_equal(f->n, registry_size());
	for (i = 1; i < f->n; i++)
		if (strcmp(f->ix[i - 1].e->name, f->ix[i].e->name) > 0)
			fail_msg("index entry %zu '%s' sorts after '%s'", i - 1, f->ix[i - 1].e->name,
			         f->ix[i].e->name);
	for (i = 0; i < f->n; i++) {
		size_t j;
		for (j = 0; j < f->n && f->ix[j].e != sym__rule_at(i); j++)
			;
		if (j == f->n)
			fail_msg("registry entry %zu (%s) is not in the index", i, sym__rule_at(i)->name);
	}
}

static void index_finds_every_registered_operator(void **state)
{
	fixture *f = *state;
	size_t i;
	for (i = 0; i < f->n; i++) {
		const sym_rule_entry *e = sym__rule_at(i);
		const sym_rule_slot *s = sym__rule_index_find(f->ix, f->n, e->domain, e->name);
		assert_non_null(s);
		assert_string_equal(s->e->name, e->name);
		assert_same_answer(f, e->domain, e->name);
		/* ONNX and CANN find each other's rules, other domains only their own */
		assert_same_answer(f, "", e->name);
		assert_same_answer(f, NULL, e->name);
		assert_same_answer(f, "cann", e->name);
		assert_same_answer(f, "com.microsoft", e->name);
		assert_same_answer(f, "org.example", e->name);
	}
}

static void index_keeps_the_oldest_opset_of_each_name(void **state)
{
	fixture *f = *state;
	size_t i;
	static const struct {
		const char *name;
		int since;
	} known[] = {{"Concat", 4}, {"Cast", 6}, {"Tile", 6}, {"Relu", 1}, {"Add", 7}, {"Expand", 7}};
	for (i = 0; i < f->n; i++)
		assert_int_equal(f->ix[i].since, sym__rule_since("", f->ix[i].e->name));
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const sym_rule_slot *s = sym__rule_index_find(f->ix, f->n, "", known[i].name);
		assert_non_null(s);
		assert_int_equal(s->since, known[i].since);
	}
}

static void index_rejects_names_differing_in_case_or_by_a_prefix(void **state)
{
	fixture *f = *state;
	size_t i, found_case = 0;
	for (i = 0; i < f->n; i++) {
		const char *name = f->ix[i].e->name, *dom = f->ix[i].e->domain;
		size_t k, len = strlen(name);
		char *v = malloc(len + 3);
		assert_non_null(v);
		/* every letter with its case flipped, one at a time, and all */
		for (k = 0; k < len; k++) {
			memcpy(v, name, len + 1);
			if (v[k] >= 'a' && v[k] <= 'z')
				v[k] = (char)(v[k] - 'a' + 'A');
			else if (v[k] >= 'A' && v[k] <= 'Z')
				v[k] = (char)(v[k] - 'A' + 'a');
			else
				continue;
			assert_same_answer(f, dom, v);
			found_case += sym__rule_index_find(f->ix, f->n, dom, v) != NULL;
		}
		/* every proper prefix, and the name with a letter or a space after */
		for (k = 0; k < len; k++) {
			memcpy(v, name, k);
			v[k] = 0;
			assert_same_answer(f, dom, v);
		}
		memcpy(v, name, len);
		memcpy(v + len, "x", 2);
		assert_same_answer(f, dom, v);
		memcpy(v + len, " ", 2);
		assert_same_answer(f, dom, v);
		free(v);
	}
	/* the registry has no two names equal but for case: none was found */
	assert_int_equal(found_case, 0);
	assert_null(sym__rule_index_find(f->ix, f->n, "", "relu"));
	assert_null(sym__rule_index_find(f->ix, f->n, "", "RELU"));
	assert_null(sym__rule_index_find(f->ix, f->n, "", "Rel"));
	assert_null(sym__rule_index_find(f->ix, f->n, "", "Relux"));
	assert_null(sym__rule_index_find(f->ix, f->n, "", ""));
	assert_non_null(sym__rule_index_find(f->ix, f->n, "", "Relu"));
}

static void index_rejects_names_outside_the_table(void **state)
{
	fixture *f = *state;
	/* before the first name and after the last one */
	assert_null(sym__rule_index_find(f->ix, f->n, "", "!"));
	assert_null(sym__rule_index_find(f->ix, f->n, "", "~~~"));
	assert_null(sym__rule_index_find(f->ix, f->n, "", "\x7f"));
	assert_null(sym__rule_index_find(f->ix, f->n, "org.example", "Relu"));
	assert_same_answer(f, "", "!");
	assert_same_answer(f, "", "~~~");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(index_holds_every_entry_sorted_by_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(index_finds_every_registered_operator, setup, teardown),
	    cmocka_unit_test_setup_teardown(index_keeps_the_oldest_opset_of_each_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(index_rejects_names_differing_in_case_or_by_a_prefix, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(index_rejects_names_outside_the_table, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
