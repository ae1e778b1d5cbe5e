/* Subgraphs and control flow (SPEC §6): If, Loop and Scan bodies read by the
 * JSON loader, bodies that read the enclosing graphs' tensors, bounded
 * nesting, and the If/Loop/Scan shapes: a known condition takes its branch,
 * agreeing branches keep their dims, differing dims become runtime-bound
 * symbols with the union range, branch guards hold only under the
 * condition, loop-carried shapes are proven invariant or runtime-bound, and
 * scan outputs are led by the trip count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/symshape.h"
#include "guard_check.h"
#include "test_util.h"

typedef struct fixture {
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	char *text;
	const char *name;
} fixture;

/* Loads the JSON text (its name for messages) and infers it with nhints
 * hints "name=value". */
static void open_text(fixture *fx, const char *name, char *text, size_t nhints, const char *const *hnames,
                      const long long *hvals)
{
	sym_infer_options opt;
	memset(fx, 0, sizeof(*fx));
	memset(&opt, 0, sizeof(opt));
	fx->name = name;
	fx->text = text;
	assert_non_null(fx->ctx = sym_ctx_new());
	if (!(fx->m = sym_model_from_json(fx->ctx, text, strlen(text))))
		fail_msg("%s: %s", name, sym_ctx_last_message(fx->ctx));
	opt.nhints = nhints, opt.hint_names = hnames, opt.hint_values = hvals;
	if (!(fx->r = sym_model_infer(fx->ctx, fx->m, &opt)))
		fail_msg("%s: %s", name, sym_ctx_last_message(fx->ctx));
}

static void open_model(fixture *fx, const char *rel)
{
	open_text(fx, rel, read_text(rel, NULL), 0, NULL, NULL);
	if (sym_graph_num_errors(fx->r)) {
		const char *node, *msg = sym_graph_error(fx->r, 0, &node);
		fail_msg("%s: node %s: %s", rel, node, msg);
	}
}

static void close_model(fixture *fx)
{
	sym_graph_result_free(fx->r);
	sym_model_free(fx->m);
	sym_ctx_free(fx->ctx);
	free(fx->text);
}

static char *dup_text(const char *s)
{
	char *t = malloc(strlen(s) + 1);
	assert_non_null(t);
	return strcpy(t, s);
}

/* The printed shape of tensor name. */
static void shape_of(fixture *fx, const char *name, char *buf, size_t cap)
{
	int rank, d;
	const sym_expr *const *dims;
	size_t n = 0, i = sym_graph_find_tensor(fx->r, name);
	if (i == (size_t)-1)
		fail_msg("%s: no tensor '%s'", fx->name, name);
	sym_graph_tensor(fx->r, i, &rank, &dims, NULL);
	if (rank < 0) {
		snprintf(buf, cap, "%s", rank == -1 ? "(unknown rank)" : "(not inferred)");
		return;
	}
	n += (size_t)snprintf(buf + n, cap - n, "[");
	for (d = 0; d < rank && n < cap; d++) {
		char *t = sym_expr_to_str(fx->ctx, dims[d]);
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", d ? ", " : "", t ? t : "?");
		sym_str_free(fx->ctx, t);
	}
	if (n < cap)
		snprintf(buf + n, cap - n, "]");
}

static void expect_shape(fixture *fx, const char *name, const char *want)
{
	char got[1024];
	shape_of(fx, name, got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("%s: tensor %s is %s, expected %s", fx->name, name, got, want);
}

/* Dim d of tensor name is a model symbol whose source is src; returns it. */
static const sym_expr *expect_bound_symbol(fixture *fx, const char *name, int d, const char *src)
{
	int rank;
	const sym_expr *const *dims;
	size_t i = sym_graph_find_tensor(fx->r, name), k;
	assert_true(i != (size_t)-1);
	sym_graph_tensor(fx->r, i, &rank, &dims, NULL);
	assert_true(d < rank);
	assert_int_equal(sym_expr_kind(dims[d]), SYM_KIND_SYM);
	for (k = 0; k < sym_graph_num_symbols(fx->r); k++) {
		const char *s;
		if (sym_graph_symbol(fx->r, k, &s, NULL, NULL) == dims[d]) {
			if (strcmp(s, src))
				fail_msg("%s: %s dim %d: source '%s', expected '%s'", fx->name, name, d, s,
				         src);
			return dims[d];
		}
	}
	fail_msg("%s: %s dim %d is no symbol of the model", fx->name, name, d);
	return NULL;
}

/* The range of dim d of tensor name, as "lo..hi" ("inf" when open). */
static void expect_dim_range(fixture *fx, const char *name, int d, const char *want)
{
	const sym_expr *lo, *hi;
	char got[256], *l, *h;
	assert_int_equal(sym_graph_dim_range(fx->r, sym_graph_find_tensor(fx->r, name), d, &lo, &hi), 0);
	l = lo ? sym_expr_to_str(fx->ctx, lo) : NULL;
	h = hi ? sym_expr_to_str(fx->ctx, hi) : NULL;
	snprintf(got, sizeof(got), "%s..%s", l ? l : "-inf", h ? h : "inf");
	sym_str_free(fx->ctx, l);
	sym_str_free(fx->ctx, h);
	if (strcmp(got, want))
		fail_msg("%s: %s dim %d has range %s, expected %s", fx->name, name, d, got, want);
}

/* The guards, all of them in order: "expr | kind | node". */
static void expect_guards(fixture *fx, const char *const *want)
{
	check_guard_list(fx->ctx, fx->r, fx->name, want);
}

/* ---- If -------------------------------------------------------------------- */

static void if_with_a_known_condition_takes_that_branch(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/if_branches.json");
	/* the else branch would give [4*n, 2] */
	expect_shape(&fx, "k", "[n, 8]");
	close_model(&fx);
}

/* 2**32 * 2**32 is 0 in the runtime's int64 arithmetic, so the condition's
 * exact product 2**64 is not its value: neither branch may be taken as known
 * (the then branch would give [n], the runtime runs the else branch). */
static void an_if_condition_past_int64_is_not_known(void **state)
{
	static const char text[] =
	    "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\"]}],"
	    " \"initializers\": [{\"name\": \"c\", \"dtype\": \"int64\", \"shape\": [],"
	    " \"data\": [4294967296]}],"
	    " \"nodes\": [{\"name\": \"m\", \"op\": \"Mul\", \"inputs\": [\"c\", \"c\"],"
	    " \"outputs\": [\"cc\"]},"
	    " {\"name\": \"if\", \"op\": \"If\", \"inputs\": [\"cc\"], \"outputs\": [\"y\"],"
	    " \"attrs\": {\"then_branch\": {\"nodes\": [{\"name\": \"t\", \"op\": \"Relu\","
	    " \"inputs\": [\"x\"], \"outputs\": [\"yt\"]}], \"outputs\": [\"yt\"]},"
	    " \"else_branch\": {\"nodes\": [{\"name\": \"e\", \"op\": \"Concat\","
	    " \"inputs\": [\"x\", \"x\"], \"outputs\": [\"ye\"], \"attrs\": {\"axis\": 0}}],"
	    " \"outputs\": [\"ye\"]}}}],"
	    " \"outputs\": [\"y\"]}";
	fixture fx;
	char *copy = strdup(text);
	(void)state;
	assert_non_null(copy);
	open_text(&fx, "if past int64", copy, 0, NULL, NULL);
	expect_bound_symbol(&fx, "y", 0, "dim 0 of output 'y' of node 'if' (If)");
	close_model(&fx);
}

static void if_branches_that_agree_keep_their_dims(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/if_branches.json");
	expect_shape(&fx, "a", "[n, 8]");
	close_model(&fx);
}

static void if_dims_that_differ_are_runtime_bound_with_the_union_range(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/if_branches.json");
	/* then [n, 8], else [4*n, 2] */
	expect_bound_symbol(&fx, "d", 0, "dim 0 of output 'd' of node 'differ' (If)");
	expect_bound_symbol(&fx, "d", 1, "dim 1 of output 'd' of node 'differ' (If)");
	expect_dim_range(&fx, "d", 0, "1..inf");
	expect_dim_range(&fx, "d", 1, "2..8");
	{
		const sym_expr *u0 =
		    expect_bound_symbol(&fx, "d", 0, "dim 0 of output 'd' of node 'differ' (If)");
		size_t k;
		for (k = 0; k < sym_graph_num_symbols(fx.r); k++)
			if (sym_graph_symbol(fx.r, k, NULL, NULL, NULL) == u0) {
				char *b = sym_expr_to_str(fx.ctx, sym_graph_symbol_bound(fx.r, k));
				assert_string_equal(b, "4*n");
				sym_str_free(fx.ctx, b);
			}
	}
	expect_guards(&fx, (const char *const[]){NULL});
	close_model(&fx);
}

static void runtime_bound_names_do_not_depend_on_earlier_models_of_the_context(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char *text = read_text("tests/models/if_branches.json", NULL);
	int k;
	(void)state;
	for (k = 0; k < 2; k++) {
		sym_model *m = sym_model_from_json(ctx, text, strlen(text));
		sym_graph_result *r;
		int rank;
		const sym_expr *const *dims;
		assert_non_null(m);
		assert_non_null(r = sym_model_infer(ctx, m, NULL));
		sym_graph_tensor(r, sym_graph_find_tensor(r, "d"), &rank, &dims, NULL);
		assert_int_equal(rank, 2);
		assert_string_equal(sym_expr_symbol_name(dims[0]), "u0");
		assert_string_equal(sym_expr_symbol_name(dims[1]), "u1");
		sym_graph_result_free(r);
		sym_model_free(m);
	}
	free(text);
	sym_ctx_free(ctx);
}

static void branch_guards_hold_only_under_the_condition(void **state)
{
	fixture fx;
	(void)state;
	/* cond is n - 4 as a bool: then_branch broadcasts x [n, 8] with y
	 * [m, 8], which holds only where n != 4 */
	open_model(&fx, "tests/models/if_guards.json");
	expect_guards(&fx,
	              (const char *const[]){"m == 1 || m == n || n == 4 || n == 1 | assert | g_add", NULL});
	expect_bound_symbol(&fx, "g", 0, "dim 0 of output 'g' of node 'guarded' (If)");
	close_model(&fx);
}

static void branch_guards_are_dropped_when_the_condition_is_unknown(void **state)
{
	fixture fx;
	(void)state;
	open_text(
	    &fx, "unknown cond",
	    dup_text(
	        "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", 8]},"
	        "            {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [\"m\", 8]},"
	        "            {\"name\": \"c\", \"dtype\": \"bool\", \"shape\": []}],"
	        " \"nodes\": [{\"name\": \"sel\", \"op\": \"If\", \"inputs\": [\"c\"], \"outputs\": [\"o\"],"
	        "   \"attrs\": {\"then_branch\": {\"nodes\": [{\"name\": \"t_add\", \"op\": \"Add\","
	        "                 \"inputs\": [\"x\", \"y\"], \"outputs\": [\"t\"]}], \"outputs\": [\"t\"]},"
	        "             \"else_branch\": {\"nodes\": [], \"outputs\": [\"x\"]}}}],"
	        " \"outputs\": [\"o\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_guards(&fx, (const char *const[]){NULL});
	/* the branch output is the enclosing graph's x itself */
	expect_bound_symbol(&fx, "o", 0, "dim 0 of output 'o' of node 'sel' (If)");
	expect_shape(&fx, "o", "[u0, 8]");
	close_model(&fx);
}

static void a_branch_runs_knowing_its_condition(void **state)
{
	fixture fx;
	static const char *const names[] = {"k"};
	static const long long vals[] = {1};
	(void)state;
	/* x [n, k]: cond is k - 1 as a bool; else_branch squeezes axis 1,
	 * which asserts k == 1, the condition under which it runs */
	open_text(&fx, "if_squeeze.json", read_text("tests/models/if_squeeze.json", NULL), 0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	/* then [n, k], else [n]: the ranks differ */
	expect_shape(&fx, "o", "(unknown rank)");
	expect_guards(&fx, (const char *const[]){NULL});
	close_model(&fx);
	open_text(&fx, "if_squeeze.json with k=1", read_text("tests/models/if_squeeze.json", NULL), 1, names,
	          vals);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_shape(&fx, "o", "[n]");
	expect_guards(&fx, (const char *const[]){"k == 1 | expect | if", NULL});
	close_model(&fx);
}

static void hints_take_a_branch_under_an_expect_guard(void **state)
{
	fixture fx;
	static const char *const names[] = {"n"};
	static const long long vals[] = {4};
	(void)state;
	open_text(&fx, "if_guards.json with n=4", read_text("tests/models/if_guards.json", NULL), 1, names,
	          vals);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	/* cond n - 4 is 0 under the hint: else_branch, g is x */
	expect_shape(&fx, "g", "[4, 8]");
	expect_guards(&fx, (const char *const[]){"m == 1 || m == n || n == 4 || n == 1 | assert | g_add",
	                                         "n == 4 | expect | guarded", NULL});
	close_model(&fx);
}

/* Equal, Less, Not and Or of shape values give predicates: an If on one
 * has branches of different ranks, unknown without hints; the hints take
 * a branch under the predicate as an expect guard. */
static void an_if_on_compared_shape_values_takes_the_hinted_branch(void **state)
{
	fixture fx;
	static const char *const names[] = {"k", "n"};
	static const long long k1[] = {1, 2}, k3n2[] = {3, 2}, k3n7[] = {3, 7};
	const char *file = "tests/models/if_equal_shape.json";
	(void)state;
	open_text(&fx, "if_equal_shape.json", read_text(file, NULL), 0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	/* o: then [n, k], else [n]; p: then [n, k], else [1, n*k] */
	expect_shape(&fx, "o", "(unknown rank)");
	expect_guards(&fx, (const char *const[]){NULL});
	close_model(&fx);
	open_text(&fx, "if_equal_shape.json with k=1", read_text(file, NULL), 2, names, k1);
	expect_shape(&fx, "o", "[n]");
	/* k == 1 decides the Or: no guard of its own */
	expect_shape(&fx, "p", "[n, 1]");
	expect_guards(&fx, (const char *const[]){"k == 1 | expect | if", NULL});
	close_model(&fx);
	open_text(&fx, "if_equal_shape.json with k=3, n=2", read_text(file, NULL), 2, names, k3n2);
	expect_shape(&fx, "o", "[n, k]");
	expect_shape(&fx, "p", "[n, k]");
	expect_guards(&fx,
	              (const char *const[]){"k == 1 || n <= 3 | expect | if2", "k != 1 | expect | if", NULL});
	close_model(&fx);
	open_text(&fx, "if_equal_shape.json with k=3, n=7", read_text(file, NULL), 2, names, k3n7);
	expect_shape(&fx, "o", "[n, k]");
	expect_shape(&fx, "p", "[1, k*n]");
	/* the else branch's guard implies the first If's */
	expect_guards(&fx, (const char *const[]){"k != 1 && n >= 4 | expect | if2", NULL});
	close_model(&fx);
}

/* x [n, 8]; then_branch reshapes it to [3, 5], which never holds; cond is
 * the bool input c, or (with_value) n - 4 as a bool. */
static char *impossible_branch(int with_value)
{
	char *t = malloc(4096);
	assert_non_null(t);
	snprintf(
	    t, 4096,
	    "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", 8]},"
	    "            {\"name\": \"c\", \"dtype\": \"bool\", \"shape\": []}],"
	    " \"initializers\": [{\"name\": \"s\", \"dtype\": \"int64\", \"shape\": [2], \"data\": [3, 5]},"
	    "   {\"name\": \"i0\", \"dtype\": \"int64\", \"shape\": [], \"data\": [0]},"
	    "   {\"name\": \"four\", \"dtype\": \"int64\", \"shape\": [], \"data\": [4]}],"
	    " \"nodes\": [{\"name\": \"sh\", \"op\": \"Shape\", \"inputs\": [\"x\"], \"outputs\": [\"xs\"]},"
	    "   {\"name\": \"g\", \"op\": \"Gather\", \"inputs\": [\"xs\", \"i0\"], \"outputs\": [\"nv\"]},"
	    "   {\"name\": \"d\", \"op\": \"Sub\", \"inputs\": [\"nv\", \"four\"], \"outputs\": [\"nm4\"]},"
	    "   {\"name\": \"b\", \"op\": \"Cast\", \"inputs\": [\"nm4\"], \"outputs\": [\"cv\"], \"attrs\": "
	    "{\"to\": 9}},"
	    "   {\"name\": \"sel\", \"op\": \"If\", \"inputs\": [\"%s\"], \"outputs\": [\"o\"],"
	    "   \"attrs\": {\"then_branch\": {\"nodes\": [{\"name\": \"t_r\", \"op\": \"Reshape\","
	    "                 \"inputs\": [\"x\", \"s\"], \"outputs\": [\"t\"]}], \"outputs\": [\"t\"]},"
	    "             \"else_branch\": {\"nodes\": [], \"outputs\": [\"x\"]}}}],"
	    " \"outputs\": [\"o\"]}",
	    with_value ? "cv" : "c");
	return t;
}

static void a_branch_whose_guard_never_holds_gives_way_to_the_other(void **state)
{
	fixture fx;
	const char *kind, *node, *reason;
	(void)state;
	open_text(&fx, "impossible branch", impossible_branch(0), 0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_shape(&fx, "o", "[n, 8]");
	/* no predicate to assert: cond has no value */
	expect_guards(&fx, (const char *const[]){NULL});
	close_model(&fx);
	open_text(&fx, "impossible branch, cond n - 4", impossible_branch(1), 0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_shape(&fx, "o", "[4, 8]");
	expect_guards(&fx, (const char *const[]){"n == 4 | assert | sel", NULL});
	sym_graph_guard(fx.r, 0, &kind, &node, &reason);
	assert_non_null(strstr(reason, "then_branch never runs on a valid input: node 't_r' (Reshape)"));
	close_model(&fx);
}

/* ---- scopes and nesting ----------------------------------------------------- */

static void bodies_read_tensors_of_every_enclosing_graph(void **state)
{
	fixture fx;
	(void)state;
	/* the If comes first in the file; its nested branch reads z, which a
	 * later node of the main graph makes, and w of the enclosing branch */
	open_text(
	    &fx, "outer references",
	    dup_text(
	        "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", 3]}],"
	        " \"initializers\": [{\"name\": \"yes\", \"dtype\": \"bool\", \"shape\": [], \"data\": [1]}],"
	        " \"nodes\": [{\"name\": \"outer_if\", \"op\": \"If\", \"inputs\": [\"yes\"], \"outputs\": "
	        "[\"o\"],"
	        "   \"attrs\": {\"then_branch\": {\"nodes\": ["
	        "      {\"name\": \"w_node\", \"op\": \"Transpose\", \"inputs\": [\"x\"], \"outputs\": "
	        "[\"w\"]},"
	        "      {\"name\": \"inner_if\", \"op\": \"If\", \"inputs\": [\"yes\"], \"outputs\": [\"i\"],"
	        "       \"attrs\": {\"then_branch\": {\"nodes\": [{\"name\": \"mm\", \"op\": \"MatMul\","
	        "                     \"inputs\": [\"z\", \"w\"], \"outputs\": [\"p\"]}], \"outputs\": "
	        "[\"p\"]},"
	        "                  \"else_branch\": {\"nodes\": [], \"outputs\": [\"z\"]}}}],"
	        "     \"outputs\": [\"i\"]},"
	        "     \"else_branch\": {\"nodes\": [], \"outputs\": [\"x\"]}}},"
	        "   {\"name\": \"z_node\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"z\"]}],"
	        " \"outputs\": [\"o\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_shape(&fx, "o", "[n, n]");
	/* body tensors are the bodies' own, not the graph's */
	assert_true(sym_graph_find_tensor(fx.r, "w") == (size_t)-1);
	close_model(&fx);
}

static void a_body_reading_a_tensor_nothing_defines_is_an_error(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const char *text =
	    "{\"inputs\": [{\"name\": \"c\", \"dtype\": \"bool\", \"shape\": []}],"
	    " \"nodes\": [{\"name\": \"sel\", \"op\": \"If\", \"inputs\": [\"c\"], \"outputs\": [\"o\"],"
	    "   \"attrs\": {\"then_branch\": {\"nodes\": [{\"name\": \"t\", \"op\": \"Relu\","
	    "                 \"inputs\": [\"nope\"], \"outputs\": [\"t_o\"]}], \"outputs\": [\"t_o\"]},"
	    "             \"else_branch\": {\"nodes\": [], \"outputs\": [\"c\"]}}}],"
	    " \"outputs\": [\"o\"]}";
	sym_model *m;
	(void)state;
	assert_non_null(m = sym_model_from_json(ctx, text, strlen(text)));
	assert_null(sym_model_infer(ctx, m, NULL));
	assert_string_equal(sym_ctx_last_message(ctx),
	                    "model: a subgraph of node 'sel' reads tensor 'nope', which nothing defines");
	sym_model_free(m);
	sym_ctx_free(ctx);
}

static void a_body_with_a_cycle_leaves_the_node_uninferred(void **state)
{
	fixture fx;
	const char *node;
	(void)state;
	open_text(
	    &fx, "cycle",
	    dup_text(
	        "{\"inputs\": [{\"name\": \"x\", \"shape\": [\"n\"]}, {\"name\": \"c\", \"dtype\": \"bool\", "
	        "\"shape\": []}],"
	        " \"nodes\": [{\"name\": \"sel\", \"op\": \"If\", \"inputs\": [\"c\"], \"outputs\": [\"o\"],"
	        "   \"attrs\": {\"then_branch\": {\"nodes\": ["
	        "      {\"name\": \"a\", \"op\": \"Add\", \"inputs\": [\"x\", \"q\"], \"outputs\": [\"p\"]},"
	        "      {\"name\": \"b\", \"op\": \"Relu\", \"inputs\": [\"p\"], \"outputs\": [\"q\"]}],"
	        "     \"outputs\": [\"q\"]}, \"else_branch\": {\"nodes\": [], \"outputs\": [\"x\"]}}}],"
	        " \"outputs\": [\"o\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 1);
	assert_string_equal(
	    sym_graph_error(fx.r, 0, &node),
	    "node 'sel' (If): not inferred: then_branch: the graph has a cycle through node 'a'");
	expect_shape(&fx, "o", "(not inferred)");
	close_model(&fx);
}

/* JSON of levels Ifs nested in each other's then_branch, the innermost
 * one a Relu of x. */
static char *nested_ifs(int levels)
{
	size_t cap = 256 + (size_t)levels * 400, n = 0;
	char *s = malloc(cap);
	int i;
	assert_non_null(s);
	n += (size_t)snprintf(s + n, cap - n,
	                      "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\"]},"
	                      " {\"name\": \"c\", \"dtype\": \"bool\", \"shape\": []}], \"nodes\": [");
	for (i = 0; i < levels; i++)
		n += (size_t)snprintf(
		    s + n, cap - n,
		    "{\"name\": \"if%d\", \"op\": \"If\", \"inputs\": [\"c\"], \"outputs\": [\"o%d\"],"
		    " \"attrs\": {\"else_branch\": {\"nodes\": [], \"outputs\": [\"x\"]},"
		    " \"then_branch\": {\"nodes\": [",
		    i, i);
	n += (size_t)snprintf(
	    s + n, cap - n,
	    "{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"o%d\"]}", levels);
	for (i = levels - 1; i >= 0; i--)
		n += (size_t)snprintf(s + n, cap - n, "], \"outputs\": [\"o%d\"]}}}", i + 1);
	n += (size_t)snprintf(s + n, cap - n, "], \"outputs\": [\"o0\"]}");
	assert_true(n < cap);
	return s;
}

static void subgraphs_nest_sixteen_levels_and_no_deeper(void **state)
{
	fixture fx;
	sym_ctx *ctx;
	char *text;
	(void)state;
	open_text(&fx, "16 levels", nested_ifs(16), 0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	/* every branch gives [n]: the dims agree at every level */
	expect_shape(&fx, "o0", "[n]");
	close_model(&fx);
	ctx = sym_ctx_new();
	text = nested_ifs(17);
	assert_null(sym_model_from_json(ctx, text, strlen(text)));
	assert_string_equal(
	    sym_ctx_last_message(ctx),
	    "model: node 'if16' attribute 'else_branch': subgraphs nest deeper than 16 levels");
	free(text);
	text = nested_ifs(5000);
	assert_null(sym_model_from_json(ctx, text, strlen(text)));
	free(text);
	sym_ctx_free(ctx);
}

/* ---- Loop and Scan ---------------------------------------------------------- */

static void loop_with_a_trip_count_keeps_invariant_carried_dims(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/loop_scan.json");
	expect_shape(&fx, "h_final", "[n, 8]");
	expect_shape(&fx, "h_all", "[5, n, 8]");
	close_model(&fx);
}

static void loop_carried_dims_that_change_are_runtime_bound(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/loop_scan.json");
	/* Concat along axis 0 grows g each iteration; axis 1 stays 8 */
	expect_bound_symbol(&fx, "g_final", 0, "dim 0 of output 'g_final' of node 'growing' (Loop)");
	expect_dim_range(&fx, "g_final", 0, "0..inf");
	expect_dim_range(&fx, "g_final", 1, "8..8");
	close_model(&fx);
}

static void while_loop_scan_outputs_lead_with_a_runtime_bound_trip_count(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/loop_scan.json");
	expect_shape(&fx, "w_final", "[n, 8]");
	expect_bound_symbol(&fx, "w_all", 0, "dim 0 of output 'w_all' of node 'while_loop' (Loop)");
	expect_dim_range(&fx, "w_all", 1, "8..8");
	close_model(&fx);
}

static void loop_with_cond_runs_m_times_while_the_body_keeps_cond_true(void **state)
{
	fixture fx;
	(void)state;
	/* cond true at the start; "keep" passes the body's cond on, "stop"
	 * gives the outer go, which may turn false */
	open_text(
	    &fx, "loop cond",
	    dup_text(
	        "{\"inputs\": [{\"name\": \"x\", \"shape\": [\"n\", 8]},"
	        "            {\"name\": \"go\", \"dtype\": \"bool\", \"shape\": []}],"
	        " \"initializers\": [{\"name\": \"five\", \"dtype\": \"int64\", \"shape\": [], \"data\": "
	        "[5]},"
	        "                  {\"name\": \"yes\", \"dtype\": \"bool\", \"shape\": [], \"data\": [1]}],"
	        " \"nodes\": [{\"name\": \"keep\", \"op\": \"Loop\", \"inputs\": [\"five\", \"yes\"],"
	        "   \"outputs\": [\"ks\"], \"attrs\": {\"body\": {\"inputs\": [{\"name\": \"i\", \"dtype\": "
	        "\"int64\"},"
	        "     {\"name\": \"c\", \"dtype\": \"bool\"}],"
	        "     \"nodes\": [{\"name\": \"kc\", \"op\": \"Identity\", \"inputs\": [\"c\"], \"outputs\": "
	        "[\"c2\"]},"
	        "                 {\"name\": \"kx\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": "
	        "[\"y\"]}],"
	        "     \"outputs\": [\"c2\", \"y\"]}}},"
	        "  {\"name\": \"stop\", \"op\": \"Loop\", \"inputs\": [\"five\", \"yes\"],"
	        "   \"outputs\": [\"ss\"], \"attrs\": {\"body\": {\"inputs\": [{\"name\": \"si\", \"dtype\": "
	        "\"int64\"},"
	        "     {\"name\": \"sc\", \"dtype\": \"bool\"}],"
	        "     \"nodes\": [{\"name\": \"sx\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": "
	        "[\"sy\"]}],"
	        "     \"outputs\": [\"go\", \"sy\"]}}}],"
	        " \"outputs\": [\"ks\", \"ss\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_shape(&fx, "ks", "[5, n, 8]");
	expect_bound_symbol(&fx, "ss", 0, "dim 0 of output 'ss' of node 'stop' (Loop)");
	expect_dim_range(&fx, "ss", 0, "0..5");
	close_model(&fx);
}

static void scan_outputs_get_the_sequence_length_at_their_axis(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/loop_scan.json");
	expect_shape(&fx, "s_final", "[n, 8]");
	expect_shape(&fx, "s_all", "[T, n, 8]");
	expect_shape(&fx, "s_all_t", "[8, T]");
	expect_guards(&fx, (const char *const[]){NULL});
	close_model(&fx);
}

static void loop_body_guards_hold_when_the_body_runs(void **state)
{
	fixture fx;
	(void)state;
	/* both bodies broadcast x [n, 8] with y [m, 8]: the for loop's body
	 * runs (M = 3), so its guard stands; the while loop's may never run,
	 * so its guard is not stated */
	open_text(
	    &fx, "loop guards",
	    dup_text(
	        "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\", 8]},"
	        "            {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [\"m\", 8]},"
	        "            {\"name\": \"v\", \"dtype\": \"float32\", \"shape\": [\"k\", 8]},"
	        "            {\"name\": \"go\", \"dtype\": \"bool\", \"shape\": []}],"
	        " \"initializers\": [{\"name\": \"three\", \"dtype\": \"int64\", \"shape\": [], \"data\": "
	        "[3]}],"
	        " \"nodes\": [{\"name\": \"for3\", \"op\": \"Loop\", \"inputs\": [\"three\", \"\", \"x\"],"
	        "   \"outputs\": [\"h\", \"hs\"], \"attrs\": {\"body\": {\"inputs\": [{\"name\": \"i\", "
	        "\"dtype\": \"int64\"},"
	        "     {\"name\": \"c\", \"dtype\": \"bool\"}, {\"name\": \"hin\", \"dtype\": \"float32\"}],"
	        "     \"nodes\": [{\"name\": \"add\", \"op\": \"Add\", \"inputs\": [\"x\", \"y\"], "
	        "\"outputs\": [\"s\"]},"
	        "                 {\"name\": \"keep\", \"op\": \"Neg\", \"inputs\": [\"hin\"], \"outputs\": "
	        "[\"hout\"]}],"
	        "     \"outputs\": [\"c\", \"hout\", \"s\"]}}},"
	        "  {\"name\": \"whilego\", \"op\": \"Loop\", \"inputs\": [\"\", \"go\", \"x\"],"
	        "   \"outputs\": [\"w\"], \"attrs\": {\"body\": {\"inputs\": [{\"name\": \"wi\", \"dtype\": "
	        "\"int64\"},"
	        "     {\"name\": \"wc\", \"dtype\": \"bool\"}, {\"name\": \"win\", \"dtype\": \"float32\"}],"
	        "     \"nodes\": [{\"name\": \"wadd\", \"op\": \"Add\", \"inputs\": [\"x\", \"v\"], "
	        "\"outputs\": [\"ws\"]},"
	        "                 {\"name\": \"wkeep\", \"op\": \"Neg\", \"inputs\": [\"win\"], \"outputs\": "
	        "[\"wout\"]}],"
	        "     \"outputs\": [\"wc\", \"wout\"]}}}],"
	        " \"outputs\": [\"h\", \"hs\", \"w\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_guards(&fx, (const char *const[]){"m == 1 || m == n || n == 1 | assert | add", NULL});
	expect_shape(&fx, "h", "[n, 8]");
	expect_shape(&fx, "hs", "[3, max(m, n), 8]");
	expect_shape(&fx, "w", "[n, 8]");
	close_model(&fx);
}

/* Scan of opset 8: sequence_lens first (optional), the batch at axis 0 of
 * every input and output and the sequence at axis 1 of the scan inputs;
 * the body sees one batch element. */
/* The body gets the iteration number as a symbol in [0, M - 1]: a slice
 * x[i:i+1] of a 5-element x over 5 iterations is one element each time;
 * over an unknown count it may be empty, so the dim is runtime-bound. */
static void a_loop_body_knows_its_iteration_number_is_below_the_trip_count(void **state)
{
	static const char *const counts[] = {"5", "7"};
	int k;
	(void)state;
	for (k = 0; k < 2; k++) {
		fixture fx;
		char *text = malloc(2048);
		assert_non_null(text);
		snprintf(
		    text, 2048,
		    "{\"inputs\": [],"
		    " \"initializers\": [{\"name\": \"m\", \"dtype\": \"int64\", \"shape\": [], \"data\": "
		    "[%s]},"
		    "  {\"name\": \"x\", \"dtype\": \"int64\", \"shape\": [5], \"data\": [1, 2, 3, 4, 5]},"
		    "  {\"name\": \"one\", \"dtype\": \"int64\", \"shape\": [1], \"data\": [1]},"
		    "  {\"name\": \"zero\", \"dtype\": \"int64\", \"shape\": [1], \"data\": [0]}],"
		    " \"nodes\": [{\"name\": \"loop\", \"op\": \"Loop\", \"inputs\": [\"m\", \"\"],"
		    "  \"outputs\": [\"rows\"], \"attrs\": {\"body\": {\"inputs\": [{\"name\": \"i\","
		    "  \"dtype\": \"int64\"}, {\"name\": \"c\", \"dtype\": \"bool\"}],"
		    "  \"nodes\": [{\"name\": \"u\", \"op\": \"Unsqueeze\", \"inputs\": [\"i\", \"zero\"],"
		    "   \"outputs\": [\"i1\"]},"
		    "   {\"name\": \"e\", \"op\": \"Add\", \"inputs\": [\"i1\", \"one\"], \"outputs\": "
		    "[\"i2\"]},"
		    "   {\"name\": \"s\", \"op\": \"Slice\", \"inputs\": [\"x\", \"i1\", \"i2\"],"
		    "   \"outputs\": [\"row\"]},"
		    "   {\"name\": \"k\", \"op\": \"Identity\", \"inputs\": [\"c\"], \"outputs\": [\"c2\"]}],"
		    "  \"outputs\": [\"c2\", \"row\"]}}}],"
		    " \"outputs\": [\"rows\"]}",
		    counts[k]);
		open_text(&fx, counts[k], text, 0, NULL, NULL);
		assert_int_equal(sym_graph_num_errors(fx.r), 0);
		if (k == 0)
			expect_shape(&fx, "rows", "[5, 1]");
		else
			expect_bound_symbol(&fx, "rows", 1, "dim 1 of output 'rows' of node 'loop' (Loop)");
		close_model(&fx);
	}
}

/* Scan inputs of sequence lengths not proven equal: an assert that they
 * are. */
/* A scan output's dim that the body makes (NonZero's count) is a
 * runtime-bound symbol named after the output's dim, the scan axis
 * counted: body [1, u] at axis 0 is [T, 1, u'] with u' dim 2; at axis 2
 * it is [1, u', T] with u' dim 1. */
static void scan_output_symbols_are_named_by_the_output_dim(void **state)
{
	fixture fx;
	char *t = malloc(4096);
	int ax;
	(void)state;
	assert_non_null(t);
	for (ax = 0; ax <= 2; ax += 2) {
		snprintf(t, 4096,
		         "{\"inputs\": [{\"name\": \"xs\", \"shape\": [\"T\", \"m\"]}],"
		         " \"nodes\": [{\"name\": \"scan\", \"op\": \"Scan\", \"inputs\": [\"xs\"],"
		         "   \"outputs\": [\"nz_all\"], \"attrs\": {\"num_scan_inputs\": 1, "
		         "\"scan_output_axes\": [%d],"
		         "   \"body\": {\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\"}],"
		         "     \"nodes\": [{\"name\": \"nz\", \"op\": \"NonZero\", \"inputs\": [\"x\"], "
		         "\"outputs\": [\"idx\"]}],"
		         "     \"outputs\": [\"idx\"]}}}],"
		         " \"outputs\": [\"nz_all\"]}",
		         ax);
		open_text(&fx, ax ? "scan axis 2" : "scan axis 0", dup_text(t), 0, NULL, NULL);
		assert_int_equal(sym_graph_num_errors(fx.r), 0);
		if (ax == 0) {
			expect_shape(&fx, "nz_all", "[T, 1, u0]");
			expect_bound_symbol(&fx, "nz_all", 2,
			                    "dim 2 of output 'nz_all' of node 'scan' (Scan)");
		} else {
			expect_shape(&fx, "nz_all", "[1, u0, T]");
			expect_bound_symbol(&fx, "nz_all", 1,
			                    "dim 1 of output 'nz_all' of node 'scan' (Scan)");
		}
		close_model(&fx);
	}
	free(t);
}

static void scan_inputs_of_different_lengths_assert_equal_lengths(void **state)
{
	fixture fx;
	(void)state;
	open_text(
	    &fx, "scan lengths",
	    dup_text(
	        "{\"inputs\": [{\"name\": \"i\", \"shape\": [2]},"
	        " {\"name\": \"x\", \"shape\": [\"t\", 2]}, {\"name\": \"y\", \"shape\": [\"u\", 2]}],"
	        " \"nodes\": [{\"name\": \"s\", \"op\": \"Scan\", \"inputs\": [\"i\", \"x\", \"y\"],"
	        " \"outputs\": [\"f\", \"a\"], \"attrs\": {\"num_scan_inputs\": 2, \"body\":"
	        " {\"inputs\": [{\"name\": \"p\"}, {\"name\": \"q\"}, {\"name\": \"w\"}],"
	        " \"nodes\": [{\"name\": \"add\", \"op\": \"Add\", \"inputs\": [\"p\", \"q\"],"
	        " \"outputs\": [\"r\"]}], \"outputs\": [\"r\", \"w\"]}}}], \"outputs\": [\"f\", \"a\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_guards(&fx, (const char *const[]){"t == u | assert | s", NULL});
	expect_shape(&fx, "f", "[2]");
	expect_shape(&fx, "a", "[t, 2]");
	close_model(&fx);
}

static void scan_of_opset_8_has_the_batch_first_and_the_sequence_second(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/scan_opset8.json");
	expect_shape(&fx, "total", "[b, n]");
	expect_shape(&fx, "partial", "[b, t, n]");
	expect_shape(&fx, "total2", "[b, n]");
	expect_shape(&fx, "partial2", "[b, t, n]");
	expect_shape(&fx, "grow_all", "[b, t, n]");
	/* a state that doubles every step: runtime-bound past the batch */
	expect_bound_symbol(&fx, "grown", 1, "dim 1 of output 'grown' of node 'scan_grow' (Scan)");
	close_model(&fx);
	/* batch sizes not proven equal: an assert that they are */
	open_text(
	    &fx, "scan8 batches",
	    dup_text("{\"opset\": 8, \"inputs\": [{\"name\": \"i\", \"shape\": [\"c\", 2]},"
	             " {\"name\": \"x\", \"shape\": [\"b\", \"t\", 2]}],"
	             " \"nodes\": [{\"name\": \"s\", \"op\": \"Scan\", \"inputs\": [\"\", \"i\", \"x\"],"
	             " \"outputs\": [\"f\", \"a\"], \"attrs\": {\"num_scan_inputs\": 1, \"body\":"
	             " {\"inputs\": [{\"name\": \"p\"}, {\"name\": \"q\"}], \"nodes\": [{\"name\":"
	             " \"add\", \"op\": \"Add\", \"inputs\": [\"p\", \"q\"], \"outputs\": [\"r\"]}],"
	             " \"outputs\": [\"r\", \"r\"]}}}], \"outputs\": [\"f\", \"a\"]}"),
	    0, NULL, NULL);
	assert_int_equal(sym_graph_num_errors(fx.r), 0);
	expect_guards(&fx, (const char *const[]){"b == c | assert | s", NULL});
	expect_shape(&fx, "f", "[b, 2]");
	expect_shape(&fx, "a", "[b, t, 2]");
	close_model(&fx);
}

static void loop_bodies_run_nested_ifs_and_scan_outputs_stack_at_their_axis(void **state)
{
	fixture fx;
	(void)state;
	open_model(&fx, "tests/models/control_flow.json");
	expect_shape(&fx, "k", "[n, 8]");
	expect_shape(&fx, "h", "[n, 8]");
	/* the nested If's branches agree: [n, 8] each iteration */
	expect_shape(&fx, "hs", "[3, n, 8]");
	expect_shape(&fx, "s", "[n, 8]");
	expect_shape(&fx, "ss", "[n, T, 8]");
	assert_int_equal(sym_graph_num_symbols(fx.r), 2);
	close_model(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(if_with_a_known_condition_takes_that_branch),
	    cmocka_unit_test(an_if_condition_past_int64_is_not_known),
	    cmocka_unit_test(if_branches_that_agree_keep_their_dims),
	    cmocka_unit_test(if_dims_that_differ_are_runtime_bound_with_the_union_range),
	    cmocka_unit_test(runtime_bound_names_do_not_depend_on_earlier_models_of_the_context),
	    cmocka_unit_test(branch_guards_hold_only_under_the_condition),
	    cmocka_unit_test(branch_guards_are_dropped_when_the_condition_is_unknown),
	    cmocka_unit_test(hints_take_a_branch_under_an_expect_guard),
	    cmocka_unit_test(an_if_on_compared_shape_values_takes_the_hinted_branch),
	    cmocka_unit_test(a_branch_runs_knowing_its_condition),
	    cmocka_unit_test(a_branch_whose_guard_never_holds_gives_way_to_the_other),
	    cmocka_unit_test(bodies_read_tensors_of_every_enclosing_graph),
	    cmocka_unit_test(a_body_reading_a_tensor_nothing_defines_is_an_error),
	    cmocka_unit_test(a_body_with_a_cycle_leaves_the_node_uninferred),
	    cmocka_unit_test(subgraphs_nest_sixteen_levels_and_no_deeper),
	    cmocka_unit_test(loop_with_a_trip_count_keeps_invariant_carried_dims),
	    cmocka_unit_test(loop_carried_dims_that_change_are_runtime_bound),
	    cmocka_unit_test(while_loop_scan_outputs_lead_with_a_runtime_bound_trip_count),
	    cmocka_unit_test(loop_with_cond_runs_m_times_while_the_body_keeps_cond_true),
	    cmocka_unit_test(scan_outputs_get_the_sequence_length_at_their_axis),
	    cmocka_unit_test(scan_of_opset_8_has_the_batch_first_and_the_sequence_second),
	    cmocka_unit_test(scan_inputs_of_different_lengths_assert_equal_lengths),
	    cmocka_unit_test(scan_output_symbols_are_named_by_the_output_dim),
	    cmocka_unit_test(a_loop_body_knows_its_iteration_number_is_below_the_trip_count),
	    cmocka_unit_test(loop_body_guards_hold_when_the_body_runs),
	    cmocka_unit_test(loop_bodies_run_nested_ifs_and_scan_outputs_stack_at_their_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
