/* Slice, CANN Slice and StridedSlice rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define I64MAX "9223372036854775807"
#define I64MIN "-9223372036854775808"

static sym_tval out[1];

/* Runs op with data x (shape, optional value) and up to 4 int64 value
 * inputs (NULL: absent, "" ends); returns the output shape or the error. */
static const char *run(rt *t, const char *op, const char *domain, const char *x, const char *xval,
                       const char *const *vals, size_t na, const sym_attr *a)
{
	sym_tval in[5];
	size_t nin = 1;
	in[0] = rt_t(t, x, xval ? "int64" : NULL, xval);
	for (; vals && vals[nin - 1] != (const char *)1; nin++) {
		const char *v = vals[nin - 1];
		if (!v) {
			in[nin] = rt_absent();
		} else {
			char shape[32];
			size_t n = 1;
			const char *p;
			for (p = v; *p; p++)
				n += *p == ',';
			if (!strcmp(v, "[]"))
				n = 0;
			snprintf(shape, sizeof(shape), "[%zu]", n);
			in[nin] = rt_t(t, shape, "int64", v);
		}
	}
	if (rt_run(t, op, domain, nin, in, na, a, 1, out) < 0) {
		const char *m = sym__infer_strdup(&t->inf, sym_ctx_last_message(t->ctx));
		sym_ctx_clear_error(t->ctx);
		return m;
	}
	return rt_shape(t, &out[0]);
}

#define V(...) ((const char *const[]){__VA_ARGS__, (const char *)1})

static void prop(long long dim_min, const char *op, const char *domain, const char *x, const char *xval,
                 const char *const *vals, size_t na, const sym_attr *a, long long lo, long long hi);

static void slice_matches_the_onnx_examples(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[0, 0]", "[3, 10]", "[0, 1]", "[1, 1]"), 0, NULL),
	    "[3, 10, 5]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[0]", "[-1]", "[1]", "[1]"), 0, NULL),
	    "[20, 9, 5]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[1000]", "[1000]", "[1]", "[1]"), 0, NULL),
	    "[20, 0, 5]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[1]", "[1000]", "[1]", "[1]"), 0, NULL),
	    "[20, 9, 5]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[0, 0, 3]", "[20, 10, 4]"), 0, NULL),
	    "[20, 10, 1]");
	assert_string_equal(run(&t, "Slice", NULL, "[20, 10, 5]", NULL,
	                        V("[0, 0, 3]", "[20, 10, 4]", "[0, -2, -1]"), 0, NULL),
	                    "[20, 10, 1]");
	assert_string_equal(run(&t, "Slice", NULL, "[20, 10, 5]", NULL,
	                        V("[20, 10, 4]", "[0, 0, 1]", "[0, 1, 2]", "[-1, -3, -2]"), 0, NULL),
	                    "[19, 3, 2]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[1]", "[" I64MAX "]", "[1]", "[1]"), 0, NULL),
	    "[20, 9, 5]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[-1]", "[" I64MIN "]", "[1]", "[-1]"), 0, NULL),
	    "[20, 10, 5]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[20, 10, 5]", NULL, V("[-1]", "[-1000]", "[1]", "[-2]"), 0, NULL),
	    "[20, 5, 5]");
	rt_free(&t);
}

static void slice_attribute_form_of_old_opsets(void **state)
{
	rt t;
	sym_attr a[3];
	(void)state;
	rt_init(&t, 1);
	a[0] = rt_is(&t, "starts", "[0, 1]");
	a[1] = rt_is(&t, "ends", "[-1, 1000]");
	a[2] = rt_is(&t, "axes", "[0, 2]");
	assert_string_equal(run(&t, "Slice", NULL, "[20, 10, 5]", NULL, NULL, 3, a), "[19, 10, 4]");
	assert_string_equal(run(&t, "Slice", NULL, "[20, 10, 5]", NULL, NULL, 2, a), "[19, 9, 5]");
	assert_non_null(
	    strstr(run(&t, "Slice", NULL, "[20, 10, 5]", NULL, NULL, 1, a), "'ends' is required"));
	rt_free(&t);
}

static void symbolic_slices_are_clamped_exactly(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "Slice", NULL, "[s0, s1, 768]", NULL, V("[0]", "[-1]", "[1]"), 0, NULL),
	                    "[s0, s1 - 1, 768]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[s0, s1, 768]", NULL, V("[1]", "[" I64MAX "]", "[1]"), 0, NULL),
	    "[s0, s1 - 1, 768]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[s0, s1]", NULL, V("[-1]", "[" I64MIN "]", "[1]", "[-1]"), 0, NULL),
	    "[s0, s1]");
	assert_string_equal(run(&t, "Slice", NULL, "[s0]", NULL, V("[2]", "[5]"), 0, NULL),
	                    "[max(0, min(5, s0) - min(2, s0))]");
	assert_string_equal(run(&t, "Slice", NULL, "[s0]", NULL, V("[0]", "[k]"), 0, NULL), "[min(k, s0)]");
	assert_string_equal(run(&t, "Slice", NULL, "[s0]", NULL, V("[k]", "[" I64MAX "]"), 0, NULL),
	                    "[s0 - min(k, s0)]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

/* A reversed Slice to the start with the exporters' end -9223372036854775807
 * (INT64_MIN + 1): the clamp max(-1, t - 9223372036854775807) is -1 for
 * every dim up to SYM_DIM_MAX, so the forms are the ones of the end
 * INT64_MIN; at random dims, small and near SYM_DIM_MAX, they are the
 * concrete rule's. */
static void reversed_slice_to_the_start_folds_the_sentinel_end(void **state)
{
	static const char *const ends[] = {"[-" I64MAX "]", "[" I64MIN "]"};
	size_t i;
	(void)state;
	for (i = 0; i < 2; i++) {
		rt t;
		rt_init(&t, 1);
		assert_string_equal(
		    run(&t, "Slice", NULL, "[t]", NULL, V("[-1]", ends[i], "[0]", "[-2]"), 0, NULL),
		    "[(t + 1)//2]");
		assert_string_equal(
		    run(&t, "Slice", NULL, "[t]", NULL, V("[-1]", ends[i], "[0]", "[-1]"), 0, NULL), "[t]");
		assert_string_equal(rt_guards(&t), "");
		rt_free(&t);
		prop(1, "Slice", NULL, "[t]", NULL, V("[-1]", ends[i], "[0]", "[-2]"), 0, NULL, 1, 40);
		prop(1, "Slice", NULL, "[t]", NULL, V("[-1]", ends[i], "[0]", "[-1]"), 0, NULL, 1, 40);
		prop(1, "Slice", NULL, "[t]", NULL, V("[-1]", ends[i], "[0]", "[-2]"), 0, NULL,
		     SYM_DIM_MAX - 1000, SYM_DIM_MAX);
		prop(1, "Slice", NULL, "[t]", NULL, V("[-1]", ends[i], "[0]", "[-1]"), 0, NULL,
		     SYM_DIM_MAX - 1000, SYM_DIM_MAX);
	}
}

static void slice_bound_of_unknown_sign_takes_the_hinted_branch(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	sym__infer_add_hint(&t.inf, sym_expr_symbol(t.ctx, "k"), 5);
	assert_string_equal(
	    run(&t, "Slice", NULL, "[8, s]", NULL, V("[k - 3]", "[" I64MAX "]", "[1]"), 0, NULL),
	    "[8, s - min(s, k - 3)]");
	assert_string_equal(rt_guards(&t), "expect k >= 3");
	rt_free(&t);
}

static void slice_of_shape_values_gives_values(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "Slice", NULL, "[3]", "[a, b, c]", V("[1]", "[" I64MAX "]"), 0, NULL),
	                    "[2]");
	assert_string_equal(rt_value(&t, &out[0]), "[b, c]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[3]", "[a, b, c]", V("[-1]", "[" I64MIN "]", "[0]", "[-1]"), 0, NULL),
	    "[3]");
	assert_string_equal(rt_value(&t, &out[0]), "[c, b, a]");
	assert_string_equal(
	    run(&t, "Slice", NULL, "[4]", "[a, b, c, d]", V("[0]", "[4]", "[0]", "[2]"), 0, NULL), "[2]");
	assert_string_equal(rt_value(&t, &out[0]), "[a, c]");
	rt_free(&t);
}

static void slice_bad_arguments_are_errors(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_non_null(
	    strstr(run(&t, "Slice", NULL, "[20, 10]", NULL, V("[0]", "[3]", "[0]", "[0]"), 0, NULL),
	           "step 0 is zero"));
	assert_non_null(strstr(run(&t, "Slice", NULL, "[20, 10]", NULL, V("[0]", "[3]", "[2]"), 0, NULL),
	                       "out of range"));
	assert_non_null(strstr(
	    run(&t, "Slice", NULL, "[20, 10]", NULL, V("[0, 0]", "[3, 3]", "[1, -1]"), 0, NULL), "twice"));
	assert_non_null(
	    strstr(run(&t, "Slice", NULL, "[20, 10]", NULL, V("[0, 0]", "[3]"), 0, NULL), "same length"));
	assert_non_null(strstr(
	    run(&t, "Slice", NULL, "[20, 10]", NULL, V("[0]", "[3]", "[0]", "[s]"), 0, NULL), "constant"));
	assert_string_equal(run(&t, "Slice", NULL, "*", NULL, V("[0]", "[3]"), 0, NULL), "*");
	rt_free(&t);
}

static void cann_slice_uses_offsets_and_size(void **state)
{
	rt t;
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(run(&t, "Slice", "cann", "[4, 5]", NULL, V("[1, 0]", "[2, -1]"), 0, NULL),
	                    "[2, 5]");
	assert_string_equal(run(&t, "Slice", "cann", "[n, m]", NULL, V("[1, 2]", "[-1, 3]"), 0, NULL),
	                    "[n - 1, 3]");
	assert_string_equal(rt_guards(&t), "assert m >= 5");
	assert_non_null(
	    strstr(run(&t, "Slice", "cann", "[4, 5]", NULL, V("[1, 0]", "[2, -2]"), 0, NULL), "size -2"));
	assert_non_null(
	    strstr(run(&t, "Slice", "cann", "[4, 5]", NULL, V("[3, 0]", "[2, 5]"), 0, NULL), "pass the dim"));
	assert_non_null(
	    strstr(run(&t, "Slice", "cann", "[4, 5]", NULL, V("[0]", "[2]"), 0, NULL), "one value per dim"));
	a[0] = rt_is(&t, "offsets", "[1]");
	a[1] = rt_is(&t, "size", "[-1]");
	assert_string_equal(run(&t, "SliceD", NULL, "[3]", "[a, b, c]", NULL, 2, a), "[2]");
	assert_string_equal(rt_value(&t, &out[0]), "[b, c]");
	rt_free(&t);
}

static const char *ss(rt *t, const char *x, const char *xval, const char *b, const char *e, const char *s,
                      long long bm, long long em, long long el, long long na, long long sh)
{
	sym_attr a[5];
	a[0] = rt_i(t, "begin_mask", bm);
	a[1] = rt_i(t, "end_mask", em);
	a[2] = rt_i(t, "ellipsis_mask", el);
	a[3] = rt_i(t, "new_axis_mask", na);
	a[4] = rt_i(t, "shrink_axis_mask", sh);
	return run(t, "StridedSlice", NULL, x, xval, V(b, e, s), 5, a);
}

static void strided_slice_follows_tensorflow(void **state)
{
	rt t;
	sym_attr a[3];
	(void)state;
	rt_init(&t, 1);
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[1, 0, 0]", "[2, 1, 3]", "[1, 1, 1]", 0, 0, 0, 0, 0),
	                    "[1, 1, 3]");
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[1, 0, 0]", "[2, 2, 3]", "[1, 1, 1]", 0, 0, 0, 0, 0),
	                    "[1, 2, 3]");
	assert_string_equal(
	    ss(&t, "[3, 2, 3]", NULL, "[1, -1, 0]", "[2, -3, 3]", "[1, -1, 1]", 0, 0, 0, 0, 0), "[1, 2, 3]");
	/* x[:, 1] */
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[0, 1]", "[0, 2]", "[1, 1]", 1, 1, 0, 0, 2), "[3, 3]");
	/* x[..., 0] */
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[0, 0]", "[0, 1]", "[1, 1]", 0, 0, 1, 0, 2), "[3, 2]");
	/* x[newaxis, 0:2] */
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[0, 0]", "[0, 2]", "[1, 1]", 0, 0, 0, 1, 0),
	                    "[1, 2, 2, 3]");
	/* x[1:, ..., newaxis] */
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[1, 0, 0]", "[0, 0, 0]", "[1, 1, 1]", 0, 1, 2, 4, 0),
	                    "[2, 2, 3, 1]");
	/* x[::-1], x[-10::-1] (TensorFlow clamps a backward begin to -1) */
	assert_string_equal(ss(&t, "[3, 2, 3]", NULL, "[0]", "[0]", "[-1]", 1, 1, 0, 0, 0), "[3, 2, 3]");
	assert_string_equal(ss(&t, "[5]", NULL, "[-10]", "[0]", "[-1]", 0, 1, 0, 0, 0), "[0]");
	/* symbolic */
	assert_string_equal(ss(&t, "[n, s, h]", NULL, "[0, -1]", "[0, 0]", "[1, 1]", 1, 1, 0, 0, 2),
	                    "[n, h]");
	assert_string_equal(ss(&t, "[n, s, h]", NULL, "[0, 1]", "[0, 0]", "[1, 1]", 1, 3, 0, 0, 0),
	                    "[n, s - 1, h]");
	assert_string_equal(rt_guards(&t), "");
	assert_string_equal(ss(&t, "[n, s, h]", NULL, "[2]", "[0]", "[1]", 0, 0, 0, 0, 1), "[s, h]");
	assert_string_equal(rt_guards(&t), "assert n >= 3");
	/* Shape -> StridedSlice */
	assert_string_equal(ss(&t, "[3]", "[a, b, c]", "[1]", "[2]", "[1]", 0, 0, 0, 0, 1), "[]");
	assert_string_equal(rt_value(&t, &out[0]), "[b]");
	assert_string_equal(ss(&t, "[3]", "[a, b, c]", "[0]", "[0]", "[-2]", 1, 1, 0, 0, 0), "[2]");
	assert_string_equal(rt_value(&t, &out[0]), "[c, a]");
	a[0] = rt_is(&t, "begin", "[0, 1]");
	a[1] = rt_is(&t, "end", "[2, 3]");
	a[2] = rt_is(&t, "strides", "[1, 1]");
	assert_string_equal(run(&t, "StridedSliceD", NULL, "[4, 4]", NULL, NULL, 3, a), "[2, 2]");
	rt_free(&t);
}

static void strided_slice_bad_arguments_are_errors(void **state)
{
	rt t;
	(void)state;
	rt_init(&t, 1);
	assert_non_null(strstr(ss(&t, "[3, 2]", NULL, "[5]", "[6]", "[1]", 0, 0, 0, 0, 1), "shrink index"));
	assert_non_null(
	    strstr(ss(&t, "[3, 2]", NULL, "[0]", "[1]", "[0]", 0, 0, 0, 0, 0), "stride 0 is zero"));
	assert_non_null(
	    strstr(ss(&t, "[3, 2]", NULL, "[0, 0]", "[1, 1]", "[1, 1]", 0, 0, 3, 0, 0), "ellipsis"));
	assert_non_null(
	    strstr(ss(&t, "[3]", NULL, "[0, 0]", "[1, 1]", "[1, 1]", 0, 0, 0, 0, 0), "past the input"));
	assert_non_null(strstr(ss(&t, "[3]", NULL, "[0]", "[1, 1]", "[1]", 0, 0, 0, 0, 0), "same length"));
	assert_non_null(strstr(ss(&t, "[3]", NULL, "[1]", "[0]", "[-1]", 0, 0, 0, 0, 1), "positive stride"));
	rt_free(&t);
}

/* Property: data dims and bound values symbolic, concrete runs agree. */
static void prop(long long dim_min, const char *op, const char *domain, const char *x, const char *xval,
                 const char *const *vals, size_t na, const sym_attr *a, long long lo, long long hi)
{
	rt t;
	sym_tval in[5];
	size_t nin = 1;
	rt_init(&t, dim_min);
	in[0] = rt_t(&t, x, xval ? "int64" : NULL, xval);
	for (; vals && vals[nin - 1] != (const char *)1; nin++) {
		const char *v = vals[nin - 1];
		char shape[32];
		size_t n = 1;
		const char *p;
		for (p = v; *p; p++)
			n += *p == ',';
		snprintf(shape, sizeof(shape), "[%zu]", n);
		in[nin] = rt_t(&t, shape, "int64", v);
	}
	rt_property(&t, op, domain, nin, in, na, a, 1, 300, lo, hi);
	rt_free(&t);
}

static void slice_property_holds_at_random_dims(void **state)
{
	static const char *const bounds[] = {"0",    "1",    "2", "-1",    "-3",   "5",
	                                     I64MAX, I64MIN, "k", "k - 3", "3 - k"};
	static const char *const steps[] = {"1", "2", "-1", "-2", "3"};
	size_t i, j, s;
	char b[64], e[64];
	(void)state;
	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		for (j = 0; j < sizeof(bounds) / sizeof(bounds[0]); j += 2)
			for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
				char st[16];
				snprintf(b, sizeof(b), "[%s]", bounds[i]);
				snprintf(e, sizeof(e), "[%s]", bounds[j]);
				snprintf(st, sizeof(st), "[%s]", steps[s]);
				prop(1, "Slice", NULL, "[n, d]", NULL, V(b, e, "[1]", st), 0, NULL, 1, 6);
				prop(0, "Slice", NULL, "[d]", NULL, V(b, e, "[0]", st), 0, NULL, 0, 5);
			}
	prop(1, "Slice", NULL, "[3]", "[p, q, r]", V("[k - 2]", "[" I64MAX "]"), 0, NULL, 1, 5);
}

static void cann_and_strided_slice_property_holds_at_random_dims(void **state)
{
	rt t;
	sym_attr a[5];
	static const long long masks[][5] = {{0, 0, 0, 0, 0}, {1, 2, 0, 0, 0}, {2, 1, 0, 0, 1},
	                                     {0, 0, 2, 1, 0}, {0, 0, 1, 0, 2}, {3, 3, 0, 4, 0},
	                                     {0, 0, 0, 0, 3}};
	static const char *const bs[][3] = {{"[1, -1]", "[-1, 2]", "[1, 1]"},
	                                    {"[0, 2]", "[5, -1]", "[2, -1]"},
	                                    {"[-2, 1]", "[k, 9]", "[-1, 2]"},
	                                    {"[k - 2, 0]", "[3 - k, 0]", "[1, 1]"}};
	size_t m, i;
	(void)state;
	rt_init(&t, 1);
	prop(1, "Slice", "cann", "[n, m]", NULL, V("[1, k]", "[-1, 2]"), 0, NULL, 1, 5);
	prop(1, "Slice", "cann", "[n, m]", NULL, V("[0, 2]", "[k, -1]"), 0, NULL, 1, 5);
	for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
		for (i = 0; i < sizeof(bs) / sizeof(bs[0]); i++) {
			/* a shrunk axis with a negative stride is an error */
			if (((masks[m][4] & 1) && bs[i][2][1] == '-') ||
			    ((masks[m][4] & 2) && strstr(bs[i][2], ", -")))
				continue;
			a[0] = rt_i(&t, "begin_mask", masks[m][0]);
			a[1] = rt_i(&t, "end_mask", masks[m][1]);
			a[2] = rt_i(&t, "ellipsis_mask", masks[m][2]);
			a[3] = rt_i(&t, "new_axis_mask", masks[m][3]);
			a[4] = rt_i(&t, "shrink_axis_mask", masks[m][4]);
			prop(1, "StridedSlice", NULL, "[n, m, 2]", NULL, V(bs[i][0], bs[i][1], bs[i][2]), 5,
			     a, 1, 5);
		}
	rt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(slice_matches_the_onnx_examples),
	    cmocka_unit_test(slice_attribute_form_of_old_opsets),
	    cmocka_unit_test(symbolic_slices_are_clamped_exactly),
	    cmocka_unit_test(reversed_slice_to_the_start_folds_the_sentinel_end),
	    cmocka_unit_test(slice_bound_of_unknown_sign_takes_the_hinted_branch),
	    cmocka_unit_test(slice_of_shape_values_gives_values),
	    cmocka_unit_test(slice_bad_arguments_are_errors),
	    cmocka_unit_test(cann_slice_uses_offsets_and_size),
	    cmocka_unit_test(strided_slice_follows_tensorflow),
	    cmocka_unit_test(strided_slice_bad_arguments_are_errors),
	    cmocka_unit_test(slice_property_holds_at_random_dims),
	    cmocka_unit_test(cann_and_strided_slice_property_holds_at_random_dims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
