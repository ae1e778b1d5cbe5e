/* The public rules API (symshape/rules.h): worked examples (a strided conv,
 * a broadcasting add) run through sessions and operator applications only,
 * with no private header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/symshape.h"

/* A context and a session with symbols parsed from text. */
typedef struct pt {
	sym_ctx *ctx;
	sym_rules *r;
	char text[512];
} pt;

static void pt_init(pt *t)
{
	t->ctx = sym_ctx_new();
	assert_non_null(t->ctx);
	t->r = sym_rules_new(t->ctx, NULL);
	assert_non_null(t->r);
}

static void pt_free(pt *t)
{
	sym_rules_free(t->r);
	sym_ctx_free(t->ctx);
}

static const sym_expr *ex(pt *t, const char *s)
{
	const sym_expr *e = sym_expr_from_str(t->ctx, s);
	if (!e)
		fail_msg("bad expression '%s': %s", s, sym_ctx_last_message(t->ctx));
	return e;
}

/* Parses up to 8 comma-separated expressions (no commas inside) into v. */
static size_t exs(pt *t, const char *list, const sym_expr **v)
{
	char buf[256], *p, *save = NULL;
	size_t n = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (p = strtok_r(buf, ",", &save); p && n < 8; p = strtok_r(NULL, ",", &save))
		v[n++] = ex(t, p);
	return n;
}

static void add_input(pt *t, sym_op *op, const char *dims, int dtype)
{
	const sym_expr *v[8];
	size_t n = *dims ? exs(t, dims, v) : 0;
	assert_int_equal(sym_op_add_input(op, (int)n, v, dtype), SYM_EOK);
}

/* A 1-D int64 input holding the value list. */
static void add_value_input(pt *t, sym_op *op, const char *list)
{
	const sym_expr *v[8], *len;
	size_t n = exs(t, list, v);
	len = sym_expr_from_si(t->ctx, (long long)n);
	assert_int_equal(sym_op_add_input(op, 1, &len, sym_dtype_from_name("int64")), SYM_EOK);
	assert_int_equal(sym_op_set_input_value(op, sym_op_num_inputs(op) - 1, n, v), SYM_EOK);
}

/* Text of output i: "[s0, s1, 12, 64]", "*" for an unknown rank. */
static const char *shape(pt *t, const sym_op *op, size_t i)
{
	int rank = sym_op_output_rank(op, i), k;
	const sym_expr *const *d = sym_op_output_dims(op, i);
	assert_true(rank >= -1);
	if (rank < 0)
		return "*";
	strcpy(t->text, "[");
	for (k = 0; k < rank; k++) {
		char *s = sym_expr_to_str(t->ctx, d[k]);
		assert_non_null(s);
		if (k)
			strcat(t->text, ", ");
		strcat(t->text, s);
		sym_str_free(t->ctx, s);
	}
	strcat(t->text, "]");
	return t->text;
}

/* The session's guards: "assert s0 % 2 == 0; expect a == b" ("" when none). */
static const char *guards(pt *t)
{
	size_t i, n = sym_rules_num_guards(t->r);
	t->text[0] = 0;
	for (i = 0; i < n; i++) {
		const char *kind;
		const sym_expr *g = sym_rules_guard(t->r, i, &kind, NULL, NULL);
		char *s = sym_expr_to_str(t->ctx, g);
		assert_non_null(s);
		if (i)
			strcat(t->text, "; ");
		strcat(t->text, kind);
		strcat(t->text, " ");
		strcat(t->text, s);
		sym_str_free(t->ctx, s);
	}
	return t->text;
}

/* Reshape of input shape dims to the target value; returns the op (run). */
static sym_op *reshape(pt *t, const char *dims, const char *target)
{
	sym_op *op = sym_op_new(t->r, "", "Reshape", "reshape0", 0);
	assert_non_null(op);
	add_input(t, op, dims, 0);
	add_value_input(t, op, target);
	return op;
}

static void reshape_keeps_zero_dims_and_solves_minus_one_without_a_guard(void **state)
{
	pt t;
	sym_op *op;
	(void)state;
	pt_init(&t);
	op = reshape(&t, "s0, s1, 768", "0, 0, 12, -1");
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_int_equal(sym_op_num_outputs(op), 1);
	assert_string_equal(shape(&t, op, 0), "[s0, s1, 12, 64]");
	assert_int_equal(sym_op_output_dtype(op, 0), sym_dtype_from_name("float32"));
	sym_op_free(op);
	op = reshape(&t, "s0, s1, 768", "-1, 64");
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[12*s0*s1, 64]");
	assert_string_equal(guards(&t), "");
	sym_op_free(op);
	pt_free(&t);
}

static void reshape_with_an_odd_dim_guards_divisibility(void **state)
{
	pt t;
	sym_op *op;
	const char *kind, *node, *reason;
	(void)state;
	pt_init(&t);
	op = reshape(&t, "s0, 7", "-1, 2");
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[7*s0/2, 2]");
	assert_string_equal(guards(&t), "assert s0 % 2 == 0");
	assert_non_null(sym_rules_guard(t.r, 0, &kind, &node, &reason));
	assert_string_equal(node, "reshape0");
	assert_true(strlen(reason) > 0);
	assert_null(sym_rules_guard(t.r, 1, NULL, NULL, NULL));
	sym_op_free(op);
	pt_free(&t);
}

static void conv_stride_2_pad_3_has_no_guard(void **state)
{
	pt t;
	sym_op *op;
	const long long strides[2] = {2, 2}, pads[4] = {3, 3, 3, 3};
	(void)state;
	pt_init(&t);
	op = sym_op_new(t.r, NULL, "Conv", "conv1", 18);
	assert_non_null(op);
	add_input(&t, op, "N, 3, H, W", 0);
	add_input(&t, op, "C, 3, 7, 7", 0);
	assert_int_equal(sym_op_set_attr_ints(op, "strides", 2, strides), SYM_EOK);
	assert_int_equal(sym_op_set_attr_ints(op, "pads", 4, pads), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[N, C, (H + 1)//2, (W + 1)//2]");
	assert_string_equal(guards(&t), "");
	sym_op_free(op);
	pt_free(&t);
}

static sym_op *add_broadcasting_a1_5_with_bc1(pt *t)
{
	sym_op *op = sym_op_new(t->r, "", "Add", "add0", 0);
	assert_non_null(op);
	add_input(t, op, "a, 1, 5", 0);
	add_input(t, op, "b, c, 1", 0);
	return op;
}

static void broadcast_without_hints_is_exact_with_an_assert_guard(void **state)
{
	pt t;
	sym_op *op;
	(void)state;
	pt_init(&t);
	op = add_broadcasting_a1_5_with_bc1(&t);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[max(a, b), c, 5]");
	assert_string_equal(guards(&t), "assert a == 1 || a == b || b == 1");
	sym_op_free(op);
	pt_free(&t);
}

static void broadcast_with_equal_hints_expects_equal_dims(void **state)
{
	pt t;
	sym_op *op;
	(void)state;
	pt_init(&t);
	assert_int_equal(sym_rules_set_hint(t.r, ex(&t, "a"), 8), SYM_EOK);
	assert_int_equal(sym_rules_set_hint(t.r, ex(&t, "b"), 8), SYM_EOK);
	op = add_broadcasting_a1_5_with_bc1(&t);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[a, c, 5]");
	assert_string_equal(guards(&t), "expect a == b");
	sym_op_free(op);
	/* a hint must name a symbol */
	assert_int_equal(sym_rules_set_hint(t.r, ex(&t, "a + 1"), 8), SYM_EMISUSE);
	sym_ctx_clear_error(t.ctx);
	pt_free(&t);
}

static void stack_stacks_on_a_new_axis_like_pack(void **state)
{
	pt t;
	sym_op *op;
	size_t n;
	const sym_expr *const *v;
	char *s;
	(void)state;
	pt_init(&t);
	assert_true(sym_rules_is_supported("", "Stack"));
	assert_true(sym_rules_is_supported("cann", "Pack"));
	op = sym_op_new(t.r, "", "Stack", "stack0", 0);
	add_input(&t, op, "b, s", 0);
	add_input(&t, op, "b, s", 0);
	add_input(&t, op, "b, s", 0);
	assert_int_equal(sym_op_set_attr_int(op, "axis", -1), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[b, s, 3]");
	sym_op_free(op);
	/* scalars of known value stack into a shape value */
	op = sym_op_new(t.r, "", "Stack", "stack1", 0);
	add_input(&t, op, "", sym_dtype_from_name("int64"));
	add_input(&t, op, "", sym_dtype_from_name("int64"));
	assert_int_equal(sym_op_set_input_value(op, 0, 1, (const sym_expr *const[]){ex(&t, "b")}), SYM_EOK);
	assert_int_equal(sym_op_set_input_value(op, 1, 1, (const sym_expr *const[]){ex(&t, "12*s")}),
	                 SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[2]");
	v = sym_op_output_value(op, 0, &n);
	assert_non_null(v);
	assert_int_equal(n, 2);
	s = sym_expr_to_str(t.ctx, v[1]);
	assert_string_equal(s, "12*s");
	sym_str_free(t.ctx, s);
	assert_int_equal(sym_op_output_dtype(op, 0), 7);
	sym_op_free(op);
	pt_free(&t);
}

static void bad_attributes_are_errors_naming_node_and_operator(void **state)
{
	pt t;
	sym_op *op;
	const char *msg;
	(void)state;
	pt_init(&t);
	/* axis out of range */
	op = sym_op_new(t.r, "", "Stack", "stack_bad", 0);
	add_input(&t, op, "b, s", 0);
	add_input(&t, op, "b, s", 0);
	assert_int_equal(sym_op_set_attr_int(op, "axis", 5), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EDOMAIN);
	msg = sym_ctx_last_message(t.ctx);
	assert_non_null(strstr(msg, "stack_bad"));
	assert_non_null(strstr(msg, "Stack"));
	assert_non_null(strstr(msg, "axis"));
	assert_int_equal(sym_op_output_rank(op, 0), -2);
	assert_null(sym_op_output_dims(op, 0));
	sym_ctx_clear_error(t.ctx);
	/* the same op runs once the attribute is fixed */
	assert_int_equal(sym_op_set_attr_int(op, "axis", 0), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_string_equal(shape(&t, op, 0), "[2, b, s]");
	/* an attribute of the wrong type */
	assert_int_equal(sym_op_set_attr_string(op, "axis", "first"), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EDOMAIN);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "attribute 'axis'"));
	sym_ctx_clear_error(t.ctx);
	sym_op_free(op);
	/* two -1 in a Reshape */
	op = reshape(&t, "s0, 7", "-1, -1");
	assert_int_equal(sym_op_infer(op), SYM_EDOMAIN);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "reshape0"));
	sym_ctx_clear_error(t.ctx);
	sym_op_free(op);
	/* an unknown operator */
	op = sym_op_new(t.r, "", "NoSuchOp", "n7", 0);
	assert_false(sym_rules_is_supported(NULL, "NoSuchOp"));
	assert_int_equal(sym_op_infer(op), SYM_EDOMAIN);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "NoSuchOp"));
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "n7"));
	sym_ctx_clear_error(t.ctx);
	sym_op_free(op);
	assert_string_equal(guards(&t), "");
	pt_free(&t);
}

static void misuse_is_reported_not_crashed(void **state)
{
	pt t;
	sym_op *op;
	const sym_expr *dims[2];
	(void)state;
	pt_init(&t);
	op = sym_op_new(t.r, "", "Relu", "relu0", 0);
	dims[0] = ex(&t, "n");
	dims[1] = ex(&t, "n > 1");
	assert_int_equal(sym_op_add_input(op, 2, dims, 0), SYM_EMISUSE);
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(sym_op_add_input(op, -3, NULL, 0), SYM_EMISUSE);
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(sym_op_add_input(op, 1, dims, 99), SYM_EMISUSE);
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(sym_op_set_input_value(op, 0, 1, dims), SYM_EMISUSE);
	sym_ctx_clear_error(t.ctx);
	assert_int_equal(sym_op_num_inputs(op), 0);
	/* unknown rank passes through an elementwise operator */
	assert_int_equal(sym_op_add_input(op, -1, NULL, 0), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_int_equal(sym_op_output_rank(op, 0), -1);
	assert_int_equal(sym_op_output_rank(op, 1), -2);
	sym_op_free(op);
	/* NULL in gives an error out */
	assert_null(sym_op_new(NULL, "", "Relu", "x", 0));
	assert_int_equal(sym_op_add_absent_input(NULL), SYM_EMISUSE);
	assert_int_equal(sym_op_infer(NULL), SYM_EMISUSE);
	assert_int_equal(sym_op_output_rank(NULL, 0), -2);
	sym_op_free(NULL);
	sym_rules_free(NULL);
	pt_free(&t);
}

static void registry_lists_supported_operators(void **state)
{
	size_t i, n = 0;
	const char *name, *domain;
	int saw_reshape = 0, saw_pack = 0;
	(void)state;
	for (i = 0; (name = sym_rules_op_name(i, &domain)); i++) {
		assert_true(sym_rules_is_supported(domain, name));
		saw_reshape |= !strcmp(name, "Reshape") && !strcmp(domain, "");
		saw_pack |= !strcmp(name, "Pack") && !strcmp(domain, "cann");
		n++;
	}
	assert_true(n > 50);
	assert_true(saw_reshape && saw_pack);
	assert_true(sym_rules_is_supported("ai.onnx", "Reshape"));
	assert_false(sym_rules_is_supported("", NULL));
	assert_int_equal(sym_dtype_from_name("int64"), 7);
	assert_int_equal(sym_dtype_from_name("float"), 1);
	assert_int_equal(sym_dtype_from_name("nope"), -1);
	assert_string_equal(sym_dtype_name(9), "bool");
	assert_string_equal(sym_dtype_name(0), "undefined");
	assert_string_equal(sym_dtype_name(1000), "undefined");
}

static void given_facts_are_used_and_kept(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_facts *f = sym_facts_new(ctx);
	sym_rules *r;
	sym_op *op;
	const sym_expr *d[2], *target[2], *two;
	(void)state;
	/* s0 even: the Reshape needs no guard */
	sym_facts_set_default_min(f, 1);
	assert_int_equal(sym_facts_assume(f, sym_expr_from_str(ctx, "s0 % 2 == 0")), SYM_EOK);
	r = sym_rules_new(ctx, f);
	assert_non_null(r);
	op = sym_op_new(r, "", "Reshape", "r", 0);
	d[0] = sym_expr_symbol(ctx, "s0");
	d[1] = sym_expr_from_si(ctx, 7);
	target[0] = sym_expr_from_si(ctx, -1);
	target[1] = two = sym_expr_from_si(ctx, 2);
	assert_int_equal(sym_op_add_input(op, 2, d, 0), SYM_EOK);
	assert_int_equal(sym_op_add_input(op, 1, &two, 0), SYM_EOK);
	assert_int_equal(sym_op_set_input_value(op, 1, 2, target), SYM_EOK);
	assert_int_equal(sym_op_infer(op), SYM_EOK);
	assert_int_equal(sym_rules_num_guards(r), 0);
	sym_op_free(op);
	sym_rules_free(r);
	/* the store outlives the session */
	assert_int_equal(sym_prove(ctx, f, sym_expr_from_str(ctx, "s0 % 2 == 0")), SYM_TRUE);
	sym_facts_free(f);
	sym_ctx_free(ctx);
}

/* An allocator that fails on the nth call, so every failure point gives a
 * clean error, no leak and a usable context. */
typedef struct failing {
	long calls, fail_at;
	long live;
} failing;

static void *failing_realloc(void *ud, void *p, size_t old, size_t n)
{
	failing *f = ud;
	(void)old;
	if (n == 0) {
		if (p)
			f->live--;
		free(p);
		return NULL;
	}
	if (++f->calls == f->fail_at)
		return NULL;
	if (!p)
		f->live++;
	return realloc(p, n);
}

static void allocation_failures_give_clean_errors(void **state)
{
	long n;
	int done = 0;
	(void)state;
	for (n = 1; !done && n < 100000; n++) {
		failing fa = {0, n, 0};
		sym_allocator al = {failing_realloc, &fa};
		sym_ctx *ctx = sym_ctx_new_with_allocator(&al);
		sym_rules *r;
		sym_op *op = NULL;
		sym_status st = SYM_ENOMEM;
		const long long pads[4] = {3, 3, 3, 3};
		if (!ctx)
			continue;
		r = sym_rules_new(ctx, NULL);
		if (r)
			op = sym_op_new(r, "", "Conv", "c", 0);
		if (op) {
			const sym_expr *x[4], *w[4];
			x[0] = sym_expr_symbol(ctx, "N"), x[1] = sym_expr_from_si(ctx, 3);
			x[2] = sym_expr_symbol(ctx, "H"), x[3] = sym_expr_symbol(ctx, "W");
			w[0] = sym_expr_symbol(ctx, "C"), w[1] = x[1];
			w[2] = w[3] = sym_expr_from_si(ctx, 7);
			st = sym_op_add_input(op, 4, x, 0);
			if (st == SYM_EOK)
				st = sym_op_add_input(op, 4, w, 0);
			if (st == SYM_EOK)
				st = sym_op_set_attr_ints(op, "pads", 4, pads);
			if (st == SYM_EOK)
				st = sym_op_infer(op);
			if (st == SYM_EOK) {
				done = fa.calls < fa.fail_at;
				assert_int_equal(sym_op_output_rank(op, 0), 4);
			} else {
				assert_int_not_equal(sym_ctx_last_error(ctx), SYM_EOK);
			}
		}
		sym_op_free(op);
		sym_rules_free(r);
		sym_ctx_free(ctx);
		assert_int_equal(fa.live, 0);
	}
	assert_true(done);
	assert_true(n > 10); /* the run allocates (16 calls), so early calls failed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reshape_keeps_zero_dims_and_solves_minus_one_without_a_guard),
	    cmocka_unit_test(reshape_with_an_odd_dim_guards_divisibility),
	    cmocka_unit_test(conv_stride_2_pad_3_has_no_guard),
	    cmocka_unit_test(broadcast_without_hints_is_exact_with_an_assert_guard),
	    cmocka_unit_test(broadcast_with_equal_hints_expects_equal_dims),
	    cmocka_unit_test(stack_stacks_on_a_new_axis_like_pack),
	    cmocka_unit_test(bad_attributes_are_errors_naming_node_and_operator),
	    cmocka_unit_test(misuse_is_reported_not_crashed),
	    cmocka_unit_test(registry_lists_supported_operators),
	    cmocka_unit_test(given_facts_are_used_and_kept),
	    cmocka_unit_test(allocation_failures_give_clean_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
