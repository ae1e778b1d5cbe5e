/* The symshape Python extension: the module, its exceptions, contexts and
 * the conversions between Python values and expressions. */
#include "symshape_py.h"

#include <gmp.h>
#include <string.h>
#include <symshape/gmp.h>

PyObject *sympy_Error, *sympy_ParseError, *sympy_ModelError, *sympy_GuardError;

static SymContext *default_ctx;
static PyObject *fraction_type; /* fractions.Fraction */
static PyObject *status_enum;   /* symshape.Status, once the package set it */

/* ---- errors -------------------------------------------------------------- */

static PyObject *status_object(sym_status st)
{
	if (status_enum)
		return PyObject_CallFunction(status_enum, "i", (int)st);
	return PyLong_FromLong((long)st);
}

/* Raises type(msg) with the attributes status and position. */
static PyObject *raise_with(PyObject *type, sym_status st, const char *msg, long pos, const char *text)
{
	PyObject *exc = PyObject_CallFunction(type, "s", msg), *v;
	if (!exc)
		return NULL;
	v = status_object(st);
	if (!v || PyObject_SetAttrString(exc, "status", v) < 0)
		goto error;
	Py_DECREF(v);
	v = pos >= 0 ? PyLong_FromLong(pos) : Py_NewRef(Py_None);
	if (!v || PyObject_SetAttrString(exc, "position", v) < 0)
		goto error;
	Py_DECREF(v);
	v = NULL;
	if (type == sympy_ParseError) {
		/* SyntaxError's fields: 1-based column and the text */
		PyObject *off = pos >= 0 ? PyLong_FromLong(pos + 1) : Py_NewRef(Py_None);
		PyObject *t = text ? PyUnicode_FromString(text) : Py_NewRef(Py_None);
		int bad = !off || !t || PyObject_SetAttrString(exc, "offset", off) < 0 ||
		          PyObject_SetAttrString(exc, "text", t) < 0;
		Py_XDECREF(off);
		Py_XDECREF(t);
		if (bad)
			goto error;
	}
	PyErr_SetObject(type, exc);
	Py_DECREF(exc);
	return NULL;
error:
	Py_XDECREF(v);
	Py_DECREF(exc);
	return NULL;
}

PyObject *sympy_raise_msg(PyObject *type, sym_status st, const char *msg)
{
	return raise_with(type, st, msg, -1, NULL);
}

static PyObject *raise_ctx(SymContext *c, PyObject *type, int parsing, const char *text)
{
	sym_status st = sym_ctx_last_error(c->ctx);
	long pos = sym_ctx_last_position(c->ctx);
	PyObject *r;
	if (PyErr_Occurred())
		return NULL;
	if (st == SYM_EOK) {
		/* a NULL without a recorded error: the operand was NULL already */
		return sympy_raise_msg(sympy_Error, SYM_EMISUSE, "invalid use of the API");
	}
	if (st == SYM_ENOMEM) {
		sym_ctx_clear_error(c->ctx);
		return PyErr_NoMemory();
	}
	if (parsing && st == SYM_ESYNTAX)
		type = sympy_ParseError;
	r = raise_with(type, st, sym_ctx_last_message(c->ctx), pos, parsing ? text : NULL);
	sym_ctx_clear_error(c->ctx);
	return r;
}

PyObject *sympy_raise(SymContext *c, PyObject *type, int parsing)
{
	return raise_ctx(c, type, parsing, NULL);
}

/* ---- contexts ------------------------------------------------------------ */

SymContext *sympy_default_ctx(void)
{
	return default_ctx;
}

SymContext *sympy_ctx_arg(PyObject *ctx)
{
	if (!ctx || ctx == Py_None)
		return default_ctx;
	if (!PyObject_TypeCheck(ctx, &SymContext_Type)) {
		PyErr_Format(PyExc_TypeError, "ctx must be a symshape.Context or None, not %.100s",
		             Py_TYPE(ctx)->tp_name);
		return NULL;
	}
	return (SymContext *)ctx;
}

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	SymContext *c;
	if (!PyArg_ParseTuple(args, ":Context") || (kw && PyDict_Size(kw))) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "Context() takes no arguments");
		return NULL;
	}
	c = (SymContext *)type->tp_alloc(type, 0);
	if (!c)
		return NULL;
	c->ctx = sym_ctx_new();
	if (!c->ctx) {
		Py_DECREF(c);
		return PyErr_NoMemory();
	}
	return (PyObject *)c;
}

static void context_dealloc(SymContext *c)
{
	sym_ctx_free(c->ctx);
	Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *context_parse(SymContext *c, PyObject *arg)
{
	const char *text;
	const sym_expr *e;
	if (!PyUnicode_Check(arg))
		return PyErr_Format(PyExc_TypeError, "parse() takes a str, not %.100s",
		                    Py_TYPE(arg)->tp_name);
	text = PyUnicode_AsUTF8(arg);
	if (!text)
		return NULL;
	if (PyUnicode_FindChar(arg, 0, 0, PyUnicode_GET_LENGTH(arg), 1) >= 0)
		return sympy_raise_msg(sympy_ParseError, SYM_ESYNTAX, "the text contains a NUL character");
	e = sym_expr_from_str(c->ctx, text);
	if (!e)
		return raise_ctx(c, sympy_Error, 1, text);
	return sympy_expr_new(c, e);
}

static PyObject *context_symbol(SymContext *c, PyObject *arg)
{
	const char *name;
	if (!PyUnicode_Check(arg))
		return PyErr_Format(PyExc_TypeError, "a symbol name must be a str, not %.100s",
		                    Py_TYPE(arg)->tp_name);
	name = PyUnicode_AsUTF8(arg);
	if (!name)
		return NULL;
	if (PyUnicode_FindChar(arg, 0, 0, PyUnicode_GET_LENGTH(arg), 1) >= 0)
		return sympy_raise_msg(sympy_Error, SYM_EDOMAIN, "a symbol name contains a NUL character");
	return sympy_expr_new(c, sym_expr_symbol(c->ctx, name));
}

static PyObject *context_node_count(SymContext *c, PyObject *noargs)
{
	(void)noargs;
	return PyLong_FromSize_t(sym_ctx_node_count(c->ctx, NULL));
}

/* Rebuilds an expression of another context in this one (through its text). */
static PyObject *context_convert(SymContext *c, PyObject *arg)
{
	SymExpr *x;
	PyObject *t, *r;
	if (!PyObject_TypeCheck(arg, &SymExpr_Type)) {
		const sym_expr *e = sympy_to_expr(c, arg);
		return e ? sympy_expr_new(c, e) : NULL;
	}
	x = (SymExpr *)arg;
	if (x->ctx == c)
		return Py_NewRef(arg);
	t = sympy_expr_text(x->ctx, x->e);
	if (!t)
		return NULL;
	r = context_parse(c, t);
	Py_DECREF(t);
	return r;
}

static PyMethodDef context_methods[] = {
    {"parse", (PyCFunction)context_parse, METH_O, "parse(text) -> Expr: the canonical Expr of the text."},
    {"symbol", (PyCFunction)context_symbol, METH_O, "symbol(name) -> Expr: the integer symbol name."},
    {"node_count", (PyCFunction)context_node_count, METH_NOARGS,
     "node_count() -> int: the number of distinct nodes the context holds."},
    {"convert", (PyCFunction)context_convert, METH_O,
     "convert(e) -> Expr: e (of any context, or a number) as an Expr of this context."},
    {NULL, NULL, 0, NULL}};

PyTypeObject SymContext_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "symshape.Context",
    .tp_basicsize = sizeof(SymContext),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(): a separate store of expressions.\n\n"
              "Expressions, inference results and their symbols belong to one context;\n"
              "the module's functions use a default one unless given ctx=.  A context is\n"
              "freed when the last object made in it is.",
    .tp_methods = context_methods,
    .tp_new = context_new,
};

/* ---- conversions --------------------------------------------------------- */

PyObject *sympy_expr_new(SymContext *c, const sym_expr *e)
{
	SymExpr *x;
	if (!e)
		return sympy_raise(c, sympy_Error, 0);
	x = PyObject_New(SymExpr, &SymExpr_Type);
	if (!x)
		return NULL;
	Py_INCREF(c);
	x->ctx = c;
	x->e = e;
	return (PyObject *)x;
}

PyObject *sympy_expr_or_none(SymContext *c, const sym_expr *e)
{
	return e ? sympy_expr_new(c, e) : Py_NewRef(Py_None);
}

PyObject *sympy_str_or_none(const char *s)
{
	return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
}

PyObject *sympy_list_of(size_t n, PyObject *(*item)(void *self, size_t i), void *self)
{
	PyObject *l = n > PY_SSIZE_T_MAX ? PyErr_NoMemory() : PyList_New((Py_ssize_t)n);
	size_t i;
	for (i = 0; l && i < n; i++) {
		PyObject *t = item(self, i);
		if (!t)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, (Py_ssize_t)i, t);
	}
	return l;
}

int sympy_is_convertible(PyObject *o)
{
	return PyObject_TypeCheck(o, &SymExpr_Type) || PyLong_Check(o) ||
	       (fraction_type && PyObject_IsInstance(o, fraction_type) == 1);
}

/* The integer of the hex digits d ("0x..." or "-0x...", as int's hex
 * form writes them); NULL when d is not that. */
static const sym_expr *hex_expr(SymContext *c, const char *d)
{
	const sym_expr *e = NULL;
	int neg = *d == '-';
	mpz_t z;
	if (strncmp(d + neg, "0x", 2))
		return NULL;
	mpz_init(z);
	if (mpz_set_str(z, d + neg + 2, 16) == 0) {
		if (neg)
			mpz_neg(z, z);
		e = sym_expr_from_mpz(c->ctx, z);
	}
	mpz_clear(z);
	return e;
}

static const sym_expr *int_expr(SymContext *c, PyObject *o)
{
	int overflow = 0;
	long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
	PyObject *s;
	const sym_expr *e;
	const char *d;
	if (v == -1 && PyErr_Occurred())
		return NULL;
	if (!overflow)
		e = sym_expr_from_si(c->ctx, v);
	else {
		/* beyond 64 bits: the hex digits, which have no length limit
		 * (the decimal ones stop at sys.get_int_max_str_digits()) */
		s = PyNumber_ToBase(o, 16);
		if (!s)
			return NULL;
		d = PyUnicode_AsUTF8(s);
		e = d ? hex_expr(c, d) : NULL;
		Py_DECREF(s);
		if (!d)
			return NULL;
	}
	if (!e)
		sympy_raise(c, sympy_Error, 0);
	return e;
}

const sym_expr *sympy_to_expr(SymContext *c, PyObject *o)
{
	if (PyObject_TypeCheck(o, &SymExpr_Type)) {
		SymExpr *x = (SymExpr *)o;
		if (x->ctx != c) {
			sympy_raise_msg(sympy_Error, SYM_EMISUSE,
			                "expressions from different contexts cannot be combined (use "
			                "Context.convert)");
			return NULL;
		}
		return x->e;
	}
	if (PyBool_Check(o)) {
		const sym_expr *e = sym_expr_bool(c->ctx, o == Py_True);
		if (!e)
			sympy_raise(c, sympy_Error, 0);
		return e;
	}
	if (PyLong_Check(o))
		return int_expr(c, o);
	if (fraction_type && PyObject_IsInstance(o, fraction_type) == 1) {
		PyObject *p = PyObject_GetAttrString(o, "numerator"), *q = NULL;
		const sym_expr *a = NULL, *b = NULL, *e = NULL;
		if (p && (q = PyObject_GetAttrString(o, "denominator")) && PyLong_Check(p) &&
		    PyLong_Check(q) && (a = int_expr(c, p)) && (b = int_expr(c, q))) {
			e = sym_expr_div(c->ctx, a, b);
			if (!e)
				sympy_raise(c, sympy_Error, 0);
		} else if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "a Fraction needs int numerator and denominator");
		Py_XDECREF(p);
		Py_XDECREF(q);
		return e;
	}
	PyErr_Format(PyExc_TypeError, "cannot make an expression of %.100s (use Expr, int or Fraction)",
	             Py_TYPE(o)->tp_name);
	return NULL;
}

PyObject *sympy_expr_text(SymContext *c, const sym_expr *e)
{
	char *s = sym_expr_to_str(c->ctx, e);
	PyObject *r;
	if (!s)
		return sympy_raise(c, sympy_Error, 0);
	r = PyUnicode_FromString(s);
	sym_str_free(c->ctx, s);
	return r;
}

/* The Python int of z, through its hex digits (no length limit). */
static PyObject *mpz_int(mpz_srcptr z)
{
	void (*gmp_free)(void *, size_t);
	char *d = mpz_get_str(NULL, 16, z);
	PyObject *r;
	if (!d)
		return PyErr_NoMemory();
	r = PyLong_FromString(d, NULL, 16);
	mp_get_memory_functions(NULL, NULL, &gmp_free);
	gmp_free(d, strlen(d) + 1);
	return r;
}

PyObject *sympy_expr_value(SymContext *c, const sym_expr *e)
{
	long long v;
	int k = sym_expr_get_si(e, &v);
	PyObject *p, *q = NULL, *r = NULL;
	mpq_t x;
	if (k == 1)
		return PyLong_FromLongLong(v);
	if (sym_expr_kind(e) == SYM_KIND_BOOL)
		return PyBool_FromLong(e == sym_expr_bool(c->ctx, 1));
	if (k != 2)
		Py_RETURN_NONE;
	/* a big integer or a fraction: its exact numerator and denominator */
	mpq_init(x);
	sym_expr_get_mpq(e, x);
	p = mpz_int(mpq_numref(x));
	if (p && mpz_cmp_ui(mpq_denref(x), 1) == 0)
		r = Py_NewRef(p);
	else if (p && (q = mpz_int(mpq_denref(x))))
		r = PyObject_CallFunctionObjArgs(fraction_type, p, q, NULL);
	mpq_clear(x);
	Py_XDECREF(p);
	Py_XDECREF(q);
	return r;
}

int64_t *sympy_int64_array(PyObject *seq, size_t n, const char *what)
{
	int64_t *a = PyMem_Calloc(n + 1, sizeof(*a));
	size_t i;
	if (!a) {
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		PyObject *v = PySequence_GetItem(seq, (Py_ssize_t)i), *iv;
		long long x;
		if (!v)
			goto error;
		/* ints and what converts to one exactly (numpy integers) */
		if (PyBool_Check(v) || !PyIndex_Check(v)) {
			PyErr_Format(PyExc_TypeError, "%s: a dim must be an int, not %.100s", what,
			             Py_TYPE(v)->tp_name);
			Py_DECREF(v);
			goto error;
		}
		iv = PyNumber_Index(v);
		Py_DECREF(v);
		if (!iv)
			goto error;
		x = PyLong_AsLongLong(iv);
		Py_DECREF(iv);
		if (x == -1 && PyErr_Occurred()) {
			PyErr_Clear();
			PyErr_Format(PyExc_OverflowError, "%s: a dim does not fit int64", what);
			goto error;
		}
		a[i] = (int64_t)x;
	}
	return a;
error:
	PyMem_Free(a);
	return NULL;
}

/* ---- facts --------------------------------------------------------------- */

int sympy_make_facts(SymContext *c, PyObject *assume, int dims, sym_facts **facts)
{
	PyObject *it = NULL, *item;
	*facts = NULL;
	if ((!assume || assume == Py_None) && !dims)
		return 0;
	if (!(*facts = sym_facts_new(c->ctx))) {
		PyErr_NoMemory();
		return -1;
	}
	if (dims && sym_facts_set_default_min(*facts, 1) != SYM_EOK)
		goto ctx_error;
	if (!assume || assume == Py_None)
		return 0;
	if (PyUnicode_Check(assume) || PyObject_TypeCheck(assume, &SymExpr_Type)) {
		PyErr_SetString(PyExc_TypeError, "assume= takes a list of predicates");
		goto error;
	}
	if (!(it = PyObject_GetIter(assume)))
		goto error;
	while ((item = PyIter_Next(it))) {
		const sym_expr *p;
		PyObject *ex = NULL;
		if (PyUnicode_Check(item)) {
			ex = context_parse(c, item);
			p = ex ? ((SymExpr *)ex)->e : NULL;
		} else if (PyBool_Check(item)) {
			/* x % 8 == 0 in Python compares canonical identity */
			PyErr_Format(PyExc_TypeError,
			             "an assumption is the bool %s: == and != compare canonical identity; "
			             "write symshape.eq(a, b) or the text 'a == b'",
			             item == Py_True ? "True" : "False");
			p = NULL;
		} else if (PyObject_TypeCheck(item, &SymExpr_Type))
			p = sympy_to_expr(c, item);
		else {
			PyErr_Format(PyExc_TypeError,
			             "an assumption must be a predicate (Expr or str), not %.100s",
			             Py_TYPE(item)->tp_name);
			p = NULL;
		}
		if (p && !sym_expr_is_pred(p)) {
			PyObject *t = sympy_expr_text(c, p);
			if (t)
				PyErr_Format(sympy_Error,
				             "assumption '%U' is not a predicate (expected a relation such "
				             "as 's0 >= 1')",
				             t);
			Py_XDECREF(t);
			p = NULL;
		}
		if (p && sym_facts_assume(*facts, p) != SYM_EOK) {
			/* the message first: nothing prints while an error is recorded */
			sym_status st = sym_ctx_last_error(c->ctx);
			PyObject *m = PyUnicode_FromString(sym_ctx_last_message(c->ctx)), *t;
			sym_ctx_clear_error(c->ctx);
			t = m ? sympy_expr_text(c, p) : NULL;
			if (t) {
				PyObject *full = PyUnicode_FromFormat("assumption '%U': %U", t, m);
				const char *u = full ? PyUnicode_AsUTF8(full) : NULL;
				if (u)
					raise_with(sympy_Error, st, u, -1, NULL);
				Py_XDECREF(full);
			}
			Py_XDECREF(m);
			Py_XDECREF(t);
			p = NULL;
		}
		Py_XDECREF(ex);
		Py_DECREF(item);
		if (!p)
			goto error;
	}
	Py_DECREF(it);
	if (PyErr_Occurred())
		goto error;
	return 0;
ctx_error:
	sympy_raise(c, sympy_Error, 0);
error:
	Py_XDECREF(it);
	sym_facts_free(*facts);
	*facts = NULL;
	return -1;
}

/* ---- the module ---------------------------------------------------------- */

static PyObject *set_status_enum(PyObject *self, PyObject *e)
{
	(void)self;
	Py_XSETREF(status_enum, Py_NewRef(e));
	Py_RETURN_NONE;
}

static PyObject *default_context(PyObject *self, PyObject *noargs)
{
	(void)self, (void)noargs;
	return Py_NewRef((PyObject *)default_ctx);
}

static PyMethodDef module_functions[] = {
    {"_set_status_enum", set_status_enum, METH_O, "Sets the enum class exceptions carry as .status."},
    {"default_context", default_context, METH_NOARGS,
     "default_context() -> Context: the context the module's functions use without ctx=."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "symshape._symshape",
                                        "The C core of the symshape module (use the symshape package).",
                                        -1,
                                        module_functions,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

static int add_functions(PyObject *m, PyMethodDef *defs)
{
	for (; defs->ml_name; defs++) {
		PyObject *f = PyCFunction_NewEx(defs, NULL, PyModule_GetNameObject(m));
		if (!f || PyModule_AddObject(m, defs->ml_name, f) < 0) {
			Py_XDECREF(f);
			return -1;
		}
	}
	return 0;
}

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
	if (PyType_Ready(t) < 0)
		return -1;
	Py_INCREF(t);
	if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
		Py_DECREF(t);
		return -1;
	}
	return 0;
}

static int add_exceptions(PyObject *m)
{
	PyObject *bases;
	sympy_Error = PyErr_NewExceptionWithDoc("symshape.Error",
	                                        "An error of the symshape library; .status is a Status, "
	                                        ".position the byte offset in parsed text (or None).",
	                                        NULL, NULL);
	if (!sympy_Error)
		return -1;
	bases = PyTuple_Pack(2, sympy_Error, PyExc_SyntaxError);
	if (!bases)
		return -1;
	sympy_ParseError = PyErr_NewExceptionWithDoc(
	    "symshape.ParseError",
	    "Expression text that does not parse (also a SyntaxError: .offset is the "
	    "1-based column, .text the text).",
	    bases, NULL);
	Py_DECREF(bases);
	sympy_ModelError = PyErr_NewExceptionWithDoc(
	    "symshape.ModelError", "A model that cannot be loaded or inferred.", sympy_Error, NULL);
	sympy_GuardError = PyErr_NewExceptionWithDoc(
	    "symshape.GuardError",
	    "Concrete dims that a compiled program rejects; .result is the CheckResult.", sympy_Error, NULL);
	if (!sympy_ParseError || !sympy_ModelError || !sympy_GuardError)
		return -1;
	Py_INCREF(sympy_Error), Py_INCREF(sympy_ParseError), Py_INCREF(sympy_ModelError),
	    Py_INCREF(sympy_GuardError);
	if (PyModule_AddObject(m, "Error", sympy_Error) < 0 ||
	    PyModule_AddObject(m, "ParseError", sympy_ParseError) < 0 ||
	    PyModule_AddObject(m, "ModelError", sympy_ModelError) < 0 ||
	    PyModule_AddObject(m, "GuardError", sympy_GuardError) < 0)
		return -1;
	return 0;
}

/* The status codes as (name, value, message): the package builds its Status
 * enum from them, so it mirrors sym_status exactly. */
static PyObject *status_table(void)
{
	PyObject *l = PyList_New(0);
	if (!l)
		return NULL;
#define SYMPY_STATUS_ITEM(name, msg)                                                                         \
	do {                                                                                                 \
		PyObject *t = Py_BuildValue("(sis)", #name, (int)SYM_E##name, msg);                          \
		if (!t || PyList_Append(l, t) < 0) {                                                         \
			Py_XDECREF(t);                                                                       \
			Py_DECREF(l);                                                                        \
			return NULL;                                                                         \
		}                                                                                            \
		Py_DECREF(t);                                                                                \
	} while (0);
	SYM_STATUS_MAP(SYMPY_STATUS_ITEM)
#undef SYMPY_STATUS_ITEM
	return l;
}

PyMODINIT_FUNC PyInit__symshape(void)
{
	PyObject *m = PyModule_Create(&module_def), *fr, *st;
	if (!m)
		return NULL;
	if (!(fr = PyImport_ImportModule("fractions")))
		goto error;
	fraction_type = PyObject_GetAttrString(fr, "Fraction");
	Py_DECREF(fr);
	if (!fraction_type)
		goto error;
	if (add_exceptions(m) < 0 || add_type(m, &SymContext_Type, "Context") < 0 ||
	    add_type(m, &SymExpr_Type, "Expr") < 0 || add_type(m, &SymGraph_Type, "_Graph") < 0 ||
	    add_type(m, &SymProgram_Type, "_Program") < 0 || add_type(m, &SymCache_Type, "_GuardCache") < 0 ||
	    add_functions(m, sympy_expr_functions) < 0 || add_functions(m, sympy_model_functions) < 0)
		goto error;
	if (!(st = status_table()) || PyModule_AddObject(m, "_statuses", st) < 0) {
		Py_XDECREF(st);
		goto error;
	}
	/* the largest dim a compiled program accepts (SYM_DIM_MAX) */
	if (!(st = PyLong_FromLongLong(SYM_DIM_MAX)) || PyModule_AddObject(m, "DIM_MAX", st) < 0) {
		Py_XDECREF(st);
		goto error;
	}
	default_ctx = (SymContext *)PyObject_CallNoArgs((PyObject *)&SymContext_Type);
	if (!default_ctx)
		goto error;
	return m;
error:
	Py_DECREF(m);
	return NULL;
}
