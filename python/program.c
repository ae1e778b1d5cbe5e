/* The symshape Python extension: compiled model programs (the _Program
 * type) and the guard cache (_GuardCache).  Both are standalone: they hold
 * no context. */
#include "symshape_py.h"

#include <string.h>

typedef struct {
	PyObject_HEAD sym_model_program *mp;
} SymProgram;

static void program_dealloc(SymProgram *p)
{
	sym_model_program_free(p->mp);
	Py_TYPE(p)->tp_free((PyObject *)p);
}

PyObject *sympy_program_wrap(sym_model_program *mp)
{
	SymProgram *p = PyObject_New(SymProgram, &SymProgram_Type);
	if (!p) {
		sym_model_program_free(mp);
		return NULL;
	}
	p->mp = mp;
	return (PyObject *)p;
}

static PyObject *int64_tuple(const int64_t *v, size_t n)
{
	PyObject *t = PyTuple_New((Py_ssize_t)n);
	size_t i;
	for (i = 0; t && i < n; i++) {
		PyObject *x = PyLong_FromLongLong((long long)v[i]);
		if (!x)
			Py_CLEAR(t);
		else
			PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
	}
	return t;
}

/* Checks that seq is a sequence of n values (the program's inputs). */
static int64_t *input_dims(PyObject *seq, size_t n)
{
	Py_ssize_t len;
	if (!PySequence_Check(seq) || PyUnicode_Check(seq)) {
		PyErr_SetString(PyExc_TypeError, "dims must be a sequence of ints");
		return NULL;
	}
	if ((len = PySequence_Size(seq)) < 0)
		return NULL;
	if ((size_t)len != n) {
		PyErr_Format(PyExc_ValueError, "the program takes %zu dims, got %zd", n, len);
		return NULL;
	}
	return sympy_int64_array(seq, n, "dims");
}

/* run(dims, shapes=True, storage=False, bytes=False) -> (status, failed, message, node,
 * kind, segment, shapes, storage, bytes): the raw outcome of
 * sym_model_program_run_segments. */
static PyObject *program_run(SymProgram *p, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"dims", "shapes", "storage", "bytes", NULL};
	PyObject *seq, *r = NULL;
	int want_out = 1, want_sto = 0, want_bytes = 0;
	size_t nt = sym_model_program_num_tensors(p->mp);
	int64_t *dims, *out = NULL, *sto = NULL, *bytes = NULL;
	sym_model_run res;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ppp:run", kwlist, &seq, &want_out, &want_sto,
	                                 &want_bytes))
		return NULL;
	if (!(dims = input_dims(seq, sym_model_program_num_dims(p->mp) + sym_model_program_num_bound(p->mp))))
		return NULL;
	out = PyMem_Calloc(sym_model_program_num_out_dims(p->mp) + 1, sizeof(*out));
	sto = PyMem_Calloc(sym_model_program_num_storage_dims(p->mp) + 1, sizeof(*sto));
	bytes = PyMem_Calloc(nt + 2, sizeof(*bytes));
	if (!out || !sto || !bytes) {
		PyErr_NoMemory();
		goto done;
	}
	memset(&res, 0, sizeof(res));
	{
		int64_t *const segs[SYM_SEGMENT_COUNT] = {want_out ? out : NULL, want_sto ? sto : NULL,
		                                          want_bytes ? bytes : NULL};
		sym_model_program_run_segments(p->mp, dims, segs, &res);
	}
	{
		int ok = res.status == SYM_EOK;
		r = Py_BuildValue("(inNNNiNNN)", (int)res.status, (Py_ssize_t)res.failed,
		                  sympy_str_or_none(res.message), sympy_str_or_none(res.node),
		                  sympy_str_or_none(res.kind), res.segment,
		                  ok && want_out ? int64_tuple(out, sym_model_program_num_out_dims(p->mp))
		                                 : Py_NewRef(Py_None),
		                  ok && want_sto ? int64_tuple(sto, sym_model_program_num_storage_dims(p->mp))
		                                 : Py_NewRef(Py_None),
		                  ok && want_bytes ? int64_tuple(bytes, nt + 1) : Py_NewRef(Py_None));
	}
done:
	PyMem_Free(dims);
	PyMem_Free(out);
	PyMem_Free(sto);
	PyMem_Free(bytes);
	return r;
}

/* tensors() -> [(name, rank, storage_format, storage_rank)] */
static PyObject *tensor_item(void *self, size_t i)
{
	SymProgram *p = self;
	int rank = 0, srank = 0;
	const char *name = sym_model_program_tensor(p->mp, i, &rank);
	const char *sf = sym_model_program_tensor_storage(p->mp, i, &srank);
	return Py_BuildValue("(NiNi)", sympy_str_or_none(name), rank, sympy_str_or_none(sf), srank);
}

static PyObject *program_tensors(SymProgram *p, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_model_program_num_tensors(p->mp), tensor_item, p);
}

/* bound() -> [(name, source)]: the data-dependent symbols it takes last. */
static PyObject *bound_item(void *self, size_t i)
{
	const char *src = NULL, *name = sym_model_program_bound(((SymProgram *)self)->mp, i, &src);
	return Py_BuildValue("(NN)", sympy_str_or_none(name), sympy_str_or_none(src));
}

static PyObject *program_bound(SymProgram *p, PyObject *noargs)
{
	(void)noargs;
	return sympy_list_of(sym_model_program_num_bound(p->mp), bound_item, p);
}

static PyObject *program_num_dims(SymProgram *p, PyObject *noargs)
{
	(void)noargs;
	return PyLong_FromSize_t(sym_model_program_num_dims(p->mp));
}

static PyObject *program_emit_c(SymProgram *p, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"prefix", NULL};
	const char *prefix = "symshape";
	char *src;
	PyObject *r;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|s:emit_c", kwlist, &prefix))
		return NULL;
	if (!sym_program_is_c_identifier(prefix))
		return PyErr_Format(PyExc_ValueError, "emit_c: the prefix '%s' is not a C identifier",
		                    prefix);
	src = sym_model_program_emit_c(p->mp, prefix);
	if (!src)
		return PyErr_NoMemory();
	r = PyUnicode_FromString(src);
	sym_model_program_str_free(p->mp, src);
	return r;
}

static PyMethodDef program_methods[] = {
    {"run", (PyCFunction)(void (*)(void))program_run, METH_VARARGS | METH_KEYWORDS,
     "run(dims, shapes=True, storage=False, bytes=False) -> raw outcome (use symshape.Program)"},
    {"tensors", (PyCFunction)program_tensors, METH_NOARGS, "[(name, rank, storage_format, storage_rank)]"},
    {"bound", (PyCFunction)program_bound, METH_NOARGS, "[(name, source)]"},
    {"num_dims", (PyCFunction)program_num_dims, METH_NOARGS, "the number of input dims"},
    {"emit_c", (PyCFunction)(void (*)(void))program_emit_c, METH_VARARGS | METH_KEYWORDS,
     "emit_c(prefix='symshape') -> str: standalone C11 source of the guard and shape functions"},
    {NULL, NULL, 0, NULL}};

PyTypeObject SymProgram_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "symshape._Program",
    .tp_basicsize = sizeof(SymProgram),
    .tp_dealloc = (destructor)program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled model program (see symshape.Program).",
    .tp_methods = program_methods,
};

/* ---- the guard cache ----------------------------------------------------- */

typedef struct {
	PyObject_HEAD sym_guard_cache *c;
	size_t ndims; /* the dims every program takes (0 until one is given) */
} SymCache;

sym_model_program *sympy_graph_program(PyObject *o);

static PyObject *cache_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"capacity", NULL};
	Py_ssize_t cap = 8;
	SymCache *c;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|n:_GuardCache", kwlist, &cap))
		return NULL;
	if (cap < 1)
		return PyErr_Format(PyExc_ValueError, "the capacity must be at least 1, not %zd", cap);
	if (!(c = (SymCache *)type->tp_alloc(type, 0)))
		return NULL;
	if (!(c->c = sym_guard_cache_new((size_t)cap))) {
		Py_DECREF(c);
		return PyErr_NoMemory();
	}
	return (PyObject *)c;
}

static void cache_dealloc(SymCache *c)
{
	sym_guard_cache_free(c->c);
	Py_TYPE(c)->tp_free((PyObject *)c);
}

/* The program of a result, refused when it takes bound symbols or a
 * different number of dims than the programs held. */
static sym_model_program *cache_program(SymCache *c, PyObject *graph)
{
	sym_model_program *mp = sympy_graph_program(graph);
	if (!mp)
		return NULL;
	if (sym_model_program_num_bound(mp)) {
		PyErr_Format(sympy_ModelError,
		             "the model has data-dependent dims (%s): the guard cache takes input dims only",
		             sym_model_program_bound(mp, 0, NULL));
		sym_model_program_free(mp);
		return NULL;
	}
	if (c->ndims && sym_model_program_num_dims(mp) != c->ndims) {
		PyErr_Format(sympy_Error, "the program takes %zu dims, the cache's programs %zu",
		             sym_model_program_num_dims(mp), c->ndims);
		sym_model_program_free(mp);
		return NULL;
	}
	c->ndims = sym_model_program_num_dims(mp);
	return mp;
}

static PyObject *cache_set_validity(SymCache *c, PyObject *graph)
{
	sym_model_program *mp = cache_program(c, graph);
	if (!mp)
		return NULL;
	if (sym_guard_cache_set_validity(c->c, mp) < 0)
		return PyErr_NoMemory();
	Py_RETURN_NONE;
}

static PyObject *cache_add(SymCache *c, PyObject *args)
{
	PyObject *graph;
	const char *label;
	sym_model_program *mp;
	long id;
	if (!PyArg_ParseTuple(args, "Os:add", &graph, &label) || !(mp = cache_program(c, graph)))
		return NULL;
	id = sym_guard_cache_add(c->c, mp, label);
	if (id < 0)
		return PyErr_NoMemory();
	return PyLong_FromLong(id);
}

static PyObject *cache_label(SymCache *c, PyObject *arg)
{
	long id = PyLong_AsLong(arg);
	if (id == -1 && PyErr_Occurred())
		return NULL;
	return sympy_str_or_none(sym_guard_cache_label(c->c, id));
}

static PyObject *cache_size(SymCache *c, PyObject *noargs)
{
	(void)noargs;
	return PyLong_FromSize_t(sym_guard_cache_size(c->c));
}

/* lookup(dims) -> (answer, id, reason) */
static PyObject *cache_lookup(SymCache *c, PyObject *seq)
{
	int64_t *dims;
	long id = -1;
	const char *reason = NULL;
	sym_cache_answer a;
	if (!c->ndims)
		return sympy_raise_msg(sympy_Error, SYM_EMISUSE, "the cache holds no program yet");
	if (!(dims = input_dims(seq, c->ndims)))
		return NULL;
	a = sym_guard_cache_lookup(c->c, dims, &id, &reason);
	PyMem_Free(dims);
	return Py_BuildValue("(ilN)", (int)a, a == SYM_CACHE_HIT ? id : -1L, sympy_str_or_none(reason));
}

static PyMethodDef cache_methods[] = {
    {"set_validity", (PyCFunction)cache_set_validity, METH_O,
     "set_validity(result): the unhinted program that tells invalid from recompile"},
    {"add", (PyCFunction)cache_add, METH_VARARGS, "add(result, label) -> id"},
    {"label", (PyCFunction)cache_label, METH_O, "label(id) -> str or None once evicted"},
    {"size", (PyCFunction)cache_size, METH_NOARGS, "the number of variants held"},
    {"lookup", (PyCFunction)cache_lookup, METH_O, "lookup(dims) -> (answer, id, reason)"},
    {NULL, NULL, 0, NULL}};

PyTypeObject SymCache_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "symshape._GuardCache",
    .tp_basicsize = sizeof(SymCache),
    .tp_dealloc = (destructor)cache_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The guard cache (see symshape.GuardCache).",
    .tp_methods = cache_methods,
    .tp_new = cache_new,
};
