/* The symshape Python extension: models, inference and its result (the
 * _Graph type), and the ONNX write-back. */
#include "symshape_py.h"

#include <string.h>

typedef struct {
	PyObject_HEAD SymContext *ctx;
	sym_model *m;
	sym_graph_result *r;
	PyObject *onnx; /* the ONNX bytes the model was loaded from, or NULL */
} SymGraph;

static void graph_dealloc(SymGraph *g)
{
	/* the result and the model before their context */
	sym_graph_result_free(g->r);
	sym_model_free(g->m);
	Py_XDECREF(g->onnx);
	Py_XDECREF(g->ctx);
	Py_TYPE(g)->tp_free((PyObject *)g);
}

/* Hints (a dict name: int) into arrays of the options; the names borrow
 * from the dict's keys. */
static int set_hints(PyObject *hints, sym_infer_options *opt, const char ***names, long long **vals)
{
	Py_ssize_t pos = 0, i = 0, n;
	PyObject *k, *v;
	if (!hints || hints == Py_None)
		return 0;
	if (!PyDict_Check(hints)) {
		PyErr_SetString(PyExc_TypeError, "hints must be a dict {symbol name: int}");
		return -1;
	}
	n = PyDict_Size(hints);
	*names = PyMem_Calloc((size_t)n + 1, sizeof(**names));
	*vals = PyMem_Calloc((size_t)n + 1, sizeof(**vals));
	if (!*names || !*vals) {
		PyErr_NoMemory();
		return -1;
	}
	while (PyDict_Next(hints, &pos, &k, &v)) {
		PyObject *iv;
		if (!PyUnicode_Check(k) || !PyIndex_Check(v) || PyBool_Check(v)) {
			PyErr_SetString(PyExc_TypeError, "hints must be a dict {symbol name: int}");
			return -1;
		}
		if (!((*names)[i] = PyUnicode_AsUTF8(k)) || !(iv = PyNumber_Index(v)))
			return -1;
		(*vals)[i] = PyLong_AsLongLong(iv);
		Py_DECREF(iv);
		if ((*vals)[i] == -1 && PyErr_Occurred())
			return -1;
		i++;
	}
	opt->nhints = (size_t)n;
	opt->hint_names = *names;
	opt->hint_values = *vals;
	return 0;
}

/* Ranges (a dict name: (lo, hi), None for an open end) into the options. */
static int set_ranges(SymContext *c, PyObject *ranges, sym_infer_options *opt, const char ***names,
                      const sym_expr ***lo, const sym_expr ***hi)
{
	Py_ssize_t pos = 0, i = 0, n;
	PyObject *k, *v;
	if (!ranges || ranges == Py_None)
		return 0;
	if (!PyDict_Check(ranges)) {
		PyErr_SetString(PyExc_TypeError, "ranges must be a dict {symbol name: (lo, hi)}");
		return -1;
	}
	n = PyDict_Size(ranges);
	*names = PyMem_Calloc((size_t)n + 1, sizeof(**names));
	*lo = PyMem_Calloc((size_t)n + 1, sizeof(**lo));
	*hi = PyMem_Calloc((size_t)n + 1, sizeof(**hi));
	if (!*names || !*lo || !*hi) {
		PyErr_NoMemory();
		return -1;
	}
	while (PyDict_Next(ranges, &pos, &k, &v)) {
		PyObject *a, *b;
		if (!PyUnicode_Check(k) || !PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) {
			PyErr_SetString(PyExc_TypeError, "ranges must be a dict {symbol name: (lo, hi)}");
			return -1;
		}
		if (!((*names)[i] = PyUnicode_AsUTF8(k)))
			return -1;
		a = PyTuple_GET_ITEM(v, 0), b = PyTuple_GET_ITEM(v, 1);
		if ((a != Py_None && !((*lo)[i] = sympy_to_expr(c, a))) ||
		    (b != Py_None && !((*hi)[i] = sympy_to_expr(c, b))))
			return -1;
		i++;
	}
	opt->nranges = (size_t)n;
	opt->range_names = *names;
	opt->range_lo = *lo;
	opt->range_hi = *hi;
	return 0;
}

/* _infer(data, kind, hints, ranges, allow_empty, align, ctx): kind "onnx" or
 * "json"; data bytes. */
static PyObject *f_infer(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"data", "kind", "hints", "ranges", "allow_empty", "align", "ctx", NULL};
	PyObject *data, *hints = Py_None, *ranges = Py_None, *cobj = Py_None;
	const char *kind;
	int allow_empty = 0;
	long long align = 0;
	SymContext *c;
	SymGraph *g = NULL;
	sym_infer_options opt;
	const char **hn = NULL, **rn = NULL;
	long long *hv = NULL;
	const sym_expr **rlo = NULL, **rhi = NULL;
	char *buf;
	Py_ssize_t len;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "Ss|OOpLO:_infer", kwlist, &data, &kind, &hints, &ranges,
	                                 &allow_empty, &align, &cobj) ||
	    !(c = sympy_ctx_arg(cobj)))
		return NULL;
	if (align < 0)
		return PyErr_Format(PyExc_ValueError, "align must be positive, not %lld", align);
	memset(&opt, 0, sizeof(opt));
	opt.allow_empty = allow_empty;
	opt.align = align;
	if (set_hints(hints, &opt, &hn, &hv) < 0 || set_ranges(c, ranges, &opt, &rn, &rlo, &rhi) < 0)
		goto done;
	if (PyBytes_AsStringAndSize(data, &buf, &len) < 0)
		goto done;
	if (!(g = PyObject_New(SymGraph, &SymGraph_Type)))
		goto done;
	g->m = NULL, g->r = NULL, g->onnx = NULL;
	Py_INCREF(c);
	g->ctx = c;
	if (!strcmp(kind, "onnx")) {
		g->m = sym_model_from_onnx(c->ctx, buf, (size_t)len);
		g->onnx = Py_NewRef(data);
	} else
		g->m = sym_model_from_json(c->ctx, buf, (size_t)len);
	if (!g->m || !(g->r = sym_model_infer(c->ctx, g->m, &opt))) {
		sympy_raise(c, sympy_ModelError, 0);
		Py_CLEAR(g);
	}
done:
	PyMem_Free(hn);
	PyMem_Free(hv);
	PyMem_Free(rn);
	PyMem_Free(rlo);
	PyMem_Free(rhi);
	return (PyObject *)g;
}

PyMethodDef sympy_model_functions[] = {
    {"_infer", (PyCFunction)(void (*)(void))f_infer, METH_VARARGS | METH_KEYWORDS,
     "_infer(data, kind, hints, ranges, allow_empty, align, ctx) -> _Graph (use symshape.infer)."},
    {NULL, NULL, 0, NULL}};

/* ---- reading the result -------------------------------------------------- */

static PyObject *dims_tuple(SymContext *c, int rank, const sym_expr *const *dims)
{
	PyObject *t;
	int d;
	if (rank < 0 || !dims)
		Py_RETURN_NONE;
	if (!(t = PyTuple_New(rank)))
		return NULL;
	for (d = 0; d < rank; d++) {
		PyObject *x = sympy_expr_new(c, dims[d]);
		if (!x) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, d, x);
	}
	return t;
}

/* symbols() -> [(expr, source, min, max, max_expr)] */
static PyObject *symbol_item(void *self, size_t i)
{
	SymGraph *g = self;
	const char *src = NULL;
	const sym_expr *lo = NULL, *hi = NULL, *s = sym_graph_symbol(g->r, i, &src, &lo, &hi);
	return Py_BuildValue("(NNNNN)", sympy_expr_new(g->ctx, s), sympy_str_or_none(src),
	                     sympy_expr_or_none(g->ctx, lo), sympy_expr_or_none(g->ctx, hi),
	                     sympy_expr_or_none(g->ctx, sym_graph_symbol_bound(g->r, i)));
}

static PyObject *graph_symbols(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_graph_num_symbols(g->r), symbol_item, g);
}

/* tensors() -> [(name, rank, dims, dtype, ranges, format, storage_format,
 * storage_dims, bytes)] */
static PyObject *tensor_item(void *self, size_t i)
{
	SymGraph *g = self;
	int rank = -2, srank, d;
	const sym_expr *const *dims = NULL, *const *sdims = NULL;
	const char *dtype = NULL, *sf = NULL, *name = sym_graph_tensor(g->r, i, &rank, &dims, &dtype);
	const char *of = sym_graph_tensor_format(g->r, i, &sf);
	PyObject *ranges = NULL;
	srank = sym_graph_tensor_storage(g->r, i, &sdims);
	if (rank >= 0) {
		ranges = PyTuple_New(rank);
		for (d = 0; ranges && d < rank; d++) {
			const sym_expr *lo = NULL, *hi = NULL;
			PyObject *p;
			if (sym_graph_dim_range(g->r, i, d, &lo, &hi) < 0) {
				sympy_raise(g->ctx, sympy_Error, 0);
				Py_CLEAR(ranges);
				break;
			}
			p = Py_BuildValue("(NN)", sympy_expr_or_none(g->ctx, lo),
			                  sympy_expr_or_none(g->ctx, hi));
			if (!p)
				Py_CLEAR(ranges);
			else
				PyTuple_SET_ITEM(ranges, d, p);
		}
		if (!ranges)
			return NULL;
	} else
		ranges = Py_NewRef(Py_None);
	return Py_BuildValue("(NiNNNNNNN)", sympy_str_or_none(name), rank, dims_tuple(g->ctx, rank, dims),
	                     sympy_str_or_none(dtype), ranges, sympy_str_or_none(of), sympy_str_or_none(sf),
	                     of ? dims_tuple(g->ctx, srank, sdims) : Py_NewRef(Py_None),
	                     sympy_expr_or_none(g->ctx, sym_graph_tensor_bytes(g->r, i)));
}

static PyObject *graph_tensors(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_graph_num_tensors(g->r), tensor_item, g);
}

/* guards() -> [(expr, kind, node, reason)] */
static PyObject *guard_item(void *self, size_t i)
{
	SymGraph *g = self;
	const char *kind = NULL, *node = NULL, *reason = NULL;
	const sym_expr *p = sym_graph_guard(g->r, i, &kind, &node, &reason);
	return Py_BuildValue("(NNNN)", sympy_expr_new(g->ctx, p), sympy_str_or_none(kind),
	                     sympy_str_or_none(node), sympy_str_or_none(reason));
}

static PyObject *graph_guards(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_graph_num_guards(g->r), guard_item, g);
}

/* merge_keys() -> [(key, (node, ...))] */
static PyObject *merge_key_item(void *self, size_t i)
{
	SymGraph *g = self;
	size_t k, nn = 0;
	const char *const *nodes = NULL;
	const char *key = sym_graph_merge_key(g->r, i, &nn, &nodes);
	PyObject *ns = PyTuple_New((Py_ssize_t)nn);
	for (k = 0; ns && k < nn; k++) {
		PyObject *s = PyUnicode_FromString(nodes[k]);
		if (!s)
			Py_CLEAR(ns);
		else
			PyTuple_SET_ITEM(ns, (Py_ssize_t)k, s);
	}
	return ns ? Py_BuildValue("(NN)", sympy_str_or_none(key), ns) : NULL;
}

static PyObject *graph_merge_keys(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_graph_num_merge_keys(g->r), merge_key_item, g);
}

/* diagnostics() -> [(message, node, op, tensor)] */
static PyObject *diagnostic_item(void *self, size_t i)
{
	SymGraph *g = self;
	const char *node = NULL, *op = NULL, *tensor = NULL;
	const char *msg = sym_graph_diagnostic(g->r, i, &node, &op, &tensor);
	return Py_BuildValue("(NNNN)", sympy_str_or_none(msg), sympy_str_or_none(node), sympy_str_or_none(op),
	                     sympy_str_or_none(tensor));
}

static PyObject *graph_diagnostics(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_graph_num_diagnostics(g->r), diagnostic_item, g);
}

static PyObject *graph_total_bytes(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_expr_or_none(g->ctx, sym_graph_total_bytes(g->r));
}

static PyObject *graph_total_bytes_error(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_str_or_none(sym_graph_total_bytes_error(g->r));
}

/* inputs() -> [(name, rank)], outputs() -> [name] */
static PyObject *input_item(void *self, size_t i)
{
	SymGraph *g = self;
	return Py_BuildValue("(si)", sym_model_input_name(g->m, i), sym_model_input_rank(g->m, i));
}

static PyObject *graph_inputs(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_model_num_inputs(g->m), input_item, g);
}

static PyObject *output_item(void *self, size_t i)
{
	return PyUnicode_FromString(sym_model_output_name(((SymGraph *)self)->m, i));
}

static PyObject *graph_outputs(SymGraph *g, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_model_num_outputs(g->m), output_item, g);
}

/* to_onnx() -> bytes: the ONNX model with the result written in. */
static PyObject *graph_to_onnx(SymGraph *g, PyObject *noargs)
{
	char *buf;
	Py_ssize_t len;
	size_t out_len = 0;
	unsigned char *out;
	PyObject *r;
	(void)noargs;
	if (!g->onnx)
		return sympy_raise_msg(
		    sympy_ModelError, SYM_EMISUSE,
		    "the model was not loaded from ONNX: there is no ONNX file to write back");
	if (PyBytes_AsStringAndSize(g->onnx, &buf, &len) < 0)
		return NULL;
	out = sym_graph_to_onnx(g->ctx->ctx, g->r, buf, (size_t)len, &out_len);
	if (!out)
		return sympy_raise(g->ctx, sympy_ModelError, 0);
	r = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)out_len);
	free(out);
	return r;
}

PyObject *sympy_program_wrap(sym_model_program *mp);

/* compile(all_tensors) -> _Program */
static PyObject *graph_compile(SymGraph *g, PyObject *args)
{
	int all = 0;
	sym_model_program *mp;
	if (!PyArg_ParseTuple(args, "|p:compile", &all))
		return NULL;
	mp = sym_graph_compile(g->ctx->ctx, g->r, all);
	if (!mp)
		return sympy_raise(g->ctx, sympy_ModelError, 0);
	return sympy_program_wrap(mp);
}

/* diff(other, map) -> (answer, reason, witness): answer 1 same, 0
 * different, 2 unknown; witness [(input, (dims...))] (empty unless
 * different); map a dict {name in self: name in other}. */
static PyObject *graph_diff(SymGraph *g, PyObject *args)
{
	PyObject *other, *map = Py_None, *key, *val, *res = NULL, *wit = NULL;
	const char **ma = NULL, **mb = NULL;
	sym_diff_options opt;
	sym_model_diff *d = NULL;
	Py_ssize_t pos = 0, n = 0;
	size_t i;
	if (!PyArg_ParseTuple(args, "O!|O:diff", &SymGraph_Type, &other, &map))
		return NULL;
	if (((SymGraph *)other)->ctx != g->ctx)
		return PyErr_Format(PyExc_ValueError, "diff: both results must be inferred in one Context");
	memset(&opt, 0, sizeof(opt));
	if (map != Py_None) {
		if (!PyDict_Check(map))
			return PyErr_Format(PyExc_TypeError, "map must be a dict {name in a: name in b}");
		ma = PyMem_Calloc((size_t)PyDict_Size(map) + 1, sizeof(*ma));
		mb = PyMem_Calloc((size_t)PyDict_Size(map) + 1, sizeof(*mb));
		if (!ma || !mb) {
			PyErr_NoMemory();
			goto done;
		}
		while (PyDict_Next(map, &pos, &key, &val)) {
			if (!PyUnicode_Check(key) || !PyUnicode_Check(val)) {
				PyErr_SetString(PyExc_TypeError, "map: names are str");
				goto done;
			}
			if (!(ma[n] = PyUnicode_AsUTF8(key)) || !(mb[n] = PyUnicode_AsUTF8(val)))
				goto done;
			n++;
		}
		opt.nmap = (size_t)n, opt.map_a = ma, opt.map_b = mb;
	}
	if (!(d = sym_graph_diff(g->ctx->ctx, g->r, ((SymGraph *)other)->r, &opt))) {
		sympy_raise(g->ctx, sympy_ModelError, 0);
		goto done;
	}
	if (!(wit = PyList_New(0)))
		goto done;
	for (i = 0; i < sym_model_diff_num_inputs(d); i++) {
		int rank, k;
		const int64_t *dims;
		const char *name = sym_model_diff_input(d, i, &rank, &dims);
		PyObject *t = PyTuple_New(rank), *item;
		for (k = 0; t && k < rank; k++) {
			PyObject *v = PyLong_FromLongLong((long long)dims[k]);
			if (!v)
				Py_CLEAR(t);
			else
				PyTuple_SET_ITEM(t, k, v);
		}
		item = t ? Py_BuildValue("(sN)", name, t) : NULL;
		if (!item || PyList_Append(wit, item) < 0) {
			Py_XDECREF(item);
			goto done;
		}
		Py_DECREF(item);
	}
	res = Py_BuildValue("(isO)", (int)sym_model_diff_answer(d), sym_model_diff_reason(d), wit);
done:
	Py_XDECREF(wit);
	sym_model_diff_free(d);
	PyMem_Free(ma);
	PyMem_Free(mb);
	return res;
}

static PyObject *graph_context(SymGraph *g, void *closure)
{
	(void)closure;
	return Py_NewRef((PyObject *)g->ctx);
}

static PyMethodDef graph_methods[] = {
    {"symbols", (PyCFunction)graph_symbols, METH_NOARGS, "[(expr, source, min, max, max_expr)]"},
    {"tensors", (PyCFunction)graph_tensors, METH_NOARGS,
     "[(name, rank, dims, dtype, ranges, format, storage_format, storage_dims, bytes)]"},
    {"guards", (PyCFunction)graph_guards, METH_NOARGS, "[(expr, kind, node, reason)]"},
    {"merge_keys", (PyCFunction)graph_merge_keys, METH_NOARGS, "[(key, nodes)]"},
    {"diagnostics", (PyCFunction)graph_diagnostics, METH_NOARGS, "[(message, node, op, tensor)]"},
    {"total_bytes", (PyCFunction)graph_total_bytes, METH_NOARGS, "Expr or None"},
    {"total_bytes_error", (PyCFunction)graph_total_bytes_error, METH_NOARGS,
     "why the total was not made (a limit), or None"},
    {"inputs", (PyCFunction)graph_inputs, METH_NOARGS, "[(name, rank)]"},
    {"outputs", (PyCFunction)graph_outputs, METH_NOARGS, "[name]"},
    {"to_onnx", (PyCFunction)graph_to_onnx, METH_NOARGS,
     "bytes of the ONNX model with the shapes written in"},
    {"compile", (PyCFunction)graph_compile, METH_VARARGS, "compile(all_tensors=False) -> _Program"},
    {"diff", (PyCFunction)graph_diff, METH_VARARGS,
     "diff(other, map=None) -> (answer, reason, [(input, dims)]) (use symshape.diff)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef graph_getset[] = {{"context", (getter)graph_context, NULL, "the result's Context", NULL},
                                     {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject SymGraph_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "symshape._Graph",
    .tp_basicsize = sizeof(SymGraph),
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A model and its inference result (see symshape.InferResult).",
    .tp_methods = graph_methods,
    .tp_getset = graph_getset,
};

/* For the cache: the model program of a result, or NULL with an exception. */
sym_model_program *sympy_graph_program(PyObject *o)
{
	SymGraph *g = (SymGraph *)o;
	sym_model_program *mp;
	if (!PyObject_TypeCheck(o, &SymGraph_Type)) {
		PyErr_SetString(PyExc_TypeError, "expected an inference result");
		return NULL;
	}
	mp = sym_graph_compile(g->ctx->ctx, g->r, 0);
	if (!mp)
		sympy_raise(g->ctx, sympy_ModelError, 0);
	return mp;
}
