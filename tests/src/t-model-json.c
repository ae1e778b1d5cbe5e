/* The JSON loader's node reader: the nodes of a model in the plain subset of
 * JSON (no escapes, integers of at most 15 digits) are read without cJSON,
 * everything else by cJSON.  Each model here is loaded twice, once as
 * written and once with the first character of every string escaped
 * ("\u006eame"), which only cJSON reads: the two models must be the same,
 * field by field, and a bad model must fail with the same message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "model/ir.h"

/* text with the first (ASCII) character of every string literal written as
 * a \u escape; strings holding an escape already are kept. */
static char *escaped(const char *text)
{
	size_t n = strlen(text), i, o = 0;
	char *r = malloc(6 * n + 1);
	assert_non_null(r);
	for (i = 0; i < n; i++) {
		r[o++] = text[i];
		if (text[i] != '"')
			continue;
		if (i + 1 < n && text[i + 1] != '"' && text[i + 1] != '\\' &&
		    (unsigned char)text[i + 1] < 128) {
			o += (size_t)sprintf(r + o, "\\u%04x", (unsigned char)text[i + 1]);
			i++;
		}
		for (i++; i < n && text[i] != '"'; i++) {
			r[o++] = text[i];
			if (text[i] == '\\' && i + 1 < n)
				r[o++] = text[++i];
		}
		if (i < n)
			r[o++] = '"';
	}
	r[o] = 0;
	return r;
}

static void assert_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_tensors_equal(const sym_mtensor *a, const sym_mtensor *b)
{
	int k;
	size_t i;
	assert_str_eq(a->name, b->name);
	assert_int_equal(a->dtype, b->dtype);
	assert_int_equal(a->rank, b->rank);
	for (k = 0; k < a->rank; k++) {
		assert_int_equal(a->dims[k].kind, b->dims[k].kind);
		assert_int_equal(a->dims[k].value, b->dims[k].value);
		assert_str_eq(a->dims[k].text, b->dims[k].text);
	}
	assert_int_equal(a->has_data, b->has_data);
	assert_int_equal(a->ndata, b->ndata);
	for (i = 0; i < a->ndata; i++)
		assert_int_equal(a->data[i], b->data[i]);
}

static void assert_graphs_equal(const sym_mgraph *a, const sym_mgraph *b);

/* Two integer nodes (of two contexts) of one value. */
static void assert_same_int(const sym_expr *a, const sym_expr *b)
{
	long long x, y;
	assert_int_equal(sym_expr_get_si(a, &x), 1);
	assert_int_equal(sym_expr_get_si(b, &y), 1);
	assert_int_equal(x, y);
}

static void assert_nodes_equal(const sym_mnode *a, const sym_mnode *b)
{
	size_t i, k;
	assert_str_eq(a->name, b->name);
	assert_str_eq(a->op, b->op);
	assert_str_eq(a->domain, b->domain);
	assert_int_equal(a->nin, b->nin);
	for (i = 0; i < a->nin; i++)
		assert_str_eq(a->in[i], b->in[i]);
	assert_int_equal(a->nout, b->nout);
	for (i = 0; i < a->nout; i++)
		assert_str_eq(a->out[i], b->out[i]);
	assert_int_equal(a->nattr, b->nattr);
	for (i = 0; i < a->nattr; i++) {
		const sym_attr *x = &a->attrs[i], *y = &b->attrs[i];
		assert_str_eq(x->name, y->name);
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->n, y->n);
		for (k = 0; k < x->n; k++) {
			if (x->type == SYM_ATTR_INT || x->type == SYM_ATTR_INTS)
				assert_int_equal(x->ints[k], y->ints[k]);
			else if (x->type == SYM_ATTR_FLOAT || x->type == SYM_ATTR_FLOATS)
				assert_memory_equal(&x->floats[k], &y->floats[k], sizeof(double));
			else if (x->type == SYM_ATTR_STRING || x->type == SYM_ATTR_STRINGS)
				assert_str_eq(x->strs[k], y->strs[k]);
		}
		if (x->type == SYM_ATTR_TENSOR) {
			int d;
			assert_int_equal(x->tensor->rank, y->tensor->rank);
			assert_int_equal(x->tensor->dtype, y->tensor->dtype);
			for (d = 0; d < x->tensor->rank; d++)
				assert_same_int(x->tensor->dims[d], y->tensor->dims[d]);
			assert_int_equal(x->tensor->nvalue, y->tensor->nvalue);
			for (k = 0; k < x->tensor->nvalue; k++)
				assert_same_int(x->tensor->value[k], y->tensor->value[k]);
		}
	}
	assert_int_equal(a->ngraphs, b->ngraphs);
	for (i = 0; i < a->ngraphs; i++) {
		assert_str_eq(a->graphs[i].name, b->graphs[i].name);
		assert_graphs_equal(a->graphs[i].graph, b->graphs[i].graph);
	}
}

static void assert_graphs_equal(const sym_mgraph *a, const sym_mgraph *b)
{
	size_t i;
	assert_int_equal(a->ninputs, b->ninputs);
	for (i = 0; i < a->ninputs; i++)
		assert_tensors_equal(&a->inputs[i], &b->inputs[i]);
	assert_int_equal(a->ninits, b->ninits);
	for (i = 0; i < a->ninits; i++)
		assert_tensors_equal(&a->inits[i], &b->inits[i]);
	assert_int_equal(a->nnodes, b->nnodes);
	for (i = 0; i < a->nnodes; i++)
		assert_nodes_equal(&a->nodes[i], &b->nodes[i]);
	assert_int_equal(a->noutputs, b->noutputs);
	for (i = 0; i < a->noutputs; i++)
		assert_str_eq(a->outputs[i], b->outputs[i]);
}

static void assert_models_equal(const sym_model *a, const sym_model *b)
{
	size_t i;
	assert_int_equal(a->opset, b->opset);
	assert_int_equal(a->ninputs, b->ninputs);
	for (i = 0; i < a->ninputs; i++)
		assert_tensors_equal(&a->inputs[i], &b->inputs[i]);
	assert_int_equal(a->ninits, b->ninits);
	for (i = 0; i < a->ninits; i++)
		assert_tensors_equal(&a->inits[i], &b->inits[i]);
	assert_int_equal(a->nnodes, b->nnodes);
	for (i = 0; i < a->nnodes; i++)
		assert_nodes_equal(&a->nodes[i], &b->nodes[i]);
	assert_int_equal(a->noutputs, b->noutputs);
	for (i = 0; i < a->noutputs; i++)
		assert_str_eq(a->outputs[i], b->outputs[i]);
}

/* A model around the nodes list (its text after "nodes": ). */
static char *model_text(const char *nodes)
{
	static const char head[] = "{\"opset\": 18, \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\", 3]}],"
	                           " \"nodes\": ";
	static const char tail[] = ", \"outputs\": [\"y\"]}";
	char *t = malloc(sizeof(head) + strlen(nodes) + sizeof(tail));
	assert_non_null(t);
	sprintf(t, "%s%s%s", head, nodes, tail);
	return t;
}

/* Loads the model of nodes as written and escaped; both load, or both fail
 * with one message, which is returned (NULL: both loaded and are equal). */
static char *load_both(const char *nodes)
{
	char *plain = model_text(nodes), *esc = escaped(plain), *msg = NULL;
	sym_ctx *c1 = sym_ctx_new(), *c2 = sym_ctx_new();
	sym_model *a, *b;
	assert_non_null(c1);
	assert_non_null(c2);
	assert_string_not_equal(plain, esc);
	a = sym_model_from_json(c1, plain, strlen(plain));
	b = sym_model_from_json(c2, esc, strlen(esc));
	if (a && b) {
		assert_models_equal(a, b);
	} else {
		if (a || b)
			fail_msg("only one form loaded: %s", sym_ctx_last_message(a ? c2 : c1));
		assert_string_equal(sym_ctx_last_message(c1), sym_ctx_last_message(c2));
		msg = strdup(sym_ctx_last_message(c1));
	}
	sym_model_free(a);
	sym_model_free(b);
	sym_ctx_free(c1);
	sym_ctx_free(c2);
	free(plain);
	free(esc);
	return msg;
}

static const char *const same_models[] = {
    /* names, empty optional inputs, a generated name, domains */
    "[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"t\"]},"
    " {\"op\": \"Identity\", \"inputs\": [\"t\"], \"outputs\": [\"u\"], \"domain\": \"ai.onnx\"},"
    " {\"name\": \"c\", \"op\": \"Clip\", \"inputs\": [\"u\", \"\", \"\"], \"outputs\": [\"y\"], \"domain\": "
    "\"\"}]",
    /* integers: signs, -0, 15 digits; booleans, strings, lists */
    "[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"t\"], \"attrs\": {\"i\": 7,"
    " \"n\": -12, \"z\": -0, \"big\": 123456789012345, \"nbig\": -999999999999999, \"l\": [1, -2, 0, 3],"
    " \"t\": true, \"no\": false, \"s\": \"text\", \"ls\": [\"p\", \"q\"], \"empty\": []}},"
    /* fractions and exponents, 16 digits within 2**53, 2**53 itself */
    " {\"name\": \"b\", \"op\": \"Relu\", \"inputs\": [\"t\"], \"outputs\": [\"v\"], \"attrs\": {"
    "\"f\": 1.5, \"e\": 1e-5, \"E\": -2.5E+3, \"p\": 0.1, \"i\": 3.0, \"h\": 1e2, \"lf\": [1, 2.5],"
    " \"b16\": 1234567890123456, \"two53\": 9007199254740992}},"
    /* what only cJSON reads: a number written inexactly (and one of 65 bytes) */
    " {\"name\": \"c\", \"op\": \"Relu\", \"inputs\": [\"v\"], \"outputs\": [\"y\"], \"attrs\": {"
    "\"x\": 3.0000000000000001, \"long\": "
    "1.000000000000000000000000000000000000000000000000000000000000005}}]",
    /* a tensor attribute, named by its key or by itself */
    "[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": {"
    "\"value\": {\"dtype\": \"int64\", \"shape\": [2], \"data\": [4, -5]},"
    " \"other\": {\"name\": \"own\", \"dtype\": \"int64\", \"shape\": [], \"data\": [9]}}}]",
    /* repeated keys (the first counts), spacing, UTF-8 bytes, empty objects */
    "[ {\"name\": \"a\", \"name\": \"b\", \"op\": \"Relu\",\n\t\"inputs\" : [ \"x\" ] ,\r\n"
    " \"outputs\": [\"y\"], \"attrs\": {}, \"caf\xc3\xa9\": {\"k\": [[], {}, null]}} ]",
    /* a subgraph: If with two branches, one of them nested in a Loop body */
    "[{\"name\": \"c\", \"op\": \"Constant\", \"outputs\": [\"cond\"], \"attrs\": {\"value\":"
    " {\"dtype\": \"bool\", \"shape\": [], \"data\": [1]}}},"
    " {\"name\": \"if\", \"op\": \"If\", \"inputs\": [\"cond\"], \"outputs\": [\"y\"], \"attrs\": {"
    "\"then_branch\": {\"nodes\": [{\"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"p\"]}],"
    " \"outputs\": [\"p\"]},"
    " \"else_branch\": {\"nodes\": [{\"name\": \"n\", \"op\": \"Neg\", \"inputs\": [\"x\"],"
    " \"outputs\": [\"q\"]}], \"outputs\": [\"q\"]}}}]",
};

static void plain_and_escaped_models_read_the_same(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(same_models) / sizeof(same_models[0]); i++) {
		char *msg = load_both(same_models[i]);
		if (msg)
			fail_msg("model %zu failed to load: %s", i, msg);
	}
}

static void bad_nodes_fail_alike_in_both_readers(void **state)
{
	static const struct {
		const char *nodes, *msg;
	} bad[] = {
	    {"[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": "
	     "{\"p\": [1, "
	     "\"a\"]}}]",
	     "model: node 'a' attribute 'p': a list mixes numbers and strings"},
	    {"[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [3], \"outputs\": [\"y\"]}]",
	     "model: node 'a' \"inputs\"[0] must be a tensor name"},
	    {"[{\"name\": \"a\", \"op\": \"Relu\", \"outputs\": []}]",
	     "model: node 'a': needs at least one output"},
	    {"[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": "
	     "{\"v\": "
	     "{\"dtype\": \"int64\", \"shape\": [null], \"data\": [1]}}}]",
	     "model: tensor 'v' dim 0: initializers need concrete dims"},
	    {"[7]", "model: nodes[0]: expected an object"},
	    {"[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": "
	     "{\"k\": "
	     "9007199254740993}}]",
	     "model: node 'a' attribute 'k': 9007199254740993 is not an exact integer (write integers beyond "
	     "2**53 "
	     "as decimal strings)"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *msg = load_both(bad[i].nodes);
		assert_non_null(msg);
		assert_string_equal(msg, bad[i].msg);
		free(msg);
	}
}

/* A malformed entry is cJSON's syntax error of the whole text, with its
 * byte offset. */
static void malformed_nodes_give_the_syntax_error_of_the_whole_text(void **state)
{
	static const char *const bad[] = {
	    "[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"],}]",
	    "[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]} {}]",
	    "[{\"name\": \"a\" \"op\": \"Relu\"}]",
	    "[{\"name\": \"a\", \"op\": \"Relu\", \"inputs\": [\"x\",], \"outputs\": [\"y\"]}]",
	    "[{\"name\": \"a\", \"op\": \"Relu\", \"attrs\": {\"k\": tru}, \"outputs\": [\"y\"]}]",
	    "[{\"name\": \"a\", \"op\": \"Relu\", \"attrs\": {\"k\": -}, \"outputs\": [\"y\"]}]",
	    "[{\"name\": \"a\", \"op\": \"Relu\", \"outputs\": [\"y\"]",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = model_text(bad[i]), want[64];
		sym_ctx *ctx = sym_ctx_new();
		cJSON *whole = cJSON_ParseWithLength(text, strlen(text));
		assert_null(whole);
		snprintf(want, sizeof(want), "model: invalid JSON near byte %ld",
		         (long)(cJSON_GetErrorPtr() - text));
		assert_null(sym_model_from_json(ctx, text, strlen(text)));
		assert_int_equal(sym_ctx_last_error(ctx), SYM_ESYNTAX);
		assert_string_equal(sym_ctx_last_message(ctx), want);
		sym_ctx_free(ctx);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(plain_and_escaped_models_read_the_same),
	    cmocka_unit_test(bad_nodes_fail_alike_in_both_readers),
	    cmocka_unit_test(malformed_nodes_give_the_syntax_error_of_the_whole_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
