/* The symshape Python extension: the Expr type, its operators, and the
 * expression functions (min, max, floor, ceil, abs, relations, simplify,
 * prove, equal). */
#include "symshape_py.h"

#include <string.h>

/* The context of a call: that of the first Expr among args, else the
 * default one. */
static SymContext *ctx_of(PyObject *const *args, Py_ssize_t n)
{
	Py_ssize_t i;
	for (i = 0; i < n; i++)
		if (PyObject_TypeCheck(args[i], &SymExpr_Type))
			return ((SymExpr *)args[i])->ctx;
	return sympy_default_ctx();
}

#define EXPR(o) (((SymExpr *)(o))->e)
#define ECTX(o) (((SymExpr *)(o))->ctx)

/* ---- the type ------------------------------------------------------------ */

static void expr_dealloc(SymExpr *x)
{
	Py_DECREF(x->ctx);
	PyObject_Free(x);
}

static PyObject *expr_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"value", "ctx", NULL};
	PyObject *v, *cobj = Py_None;
	SymContext *c;
	const sym_expr *e;
	(void)type;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Expr", kwlist, &v, &cobj) ||
	    !(c = sympy_ctx_arg(cobj)))
		return NULL;
	if (PyUnicode_Check(v)) {
		PyObject *m = PyObject_GetAttrString((PyObject *)c, "parse"), *r;
		if (!m)
			return NULL;
		r = PyObject_CallOneArg(m, v);
		Py_DECREF(m);
		return r;
	}
	if (PyObject_TypeCheck(v, &SymExpr_Type) && ECTX(v) == c)
		return Py_NewRef(v);
	e = sympy_to_expr(c, v);
	return e ? sympy_expr_new(c, e) : NULL;
}

static PyObject *expr_str(PyObject *self)
{
	return sympy_expr_text(ECTX(self), EXPR(self));
}

static PyObject *expr_repr(PyObject *self)
{
	PyObject *t = expr_str(self), *r;
	if (!t)
		return NULL;
	r = PyUnicode_FromFormat("Expr(%R)", t);
	Py_DECREF(t);
	return r;
}

/* Equal Exprs (one canonical form, one pointer) hash alike; a constant
 * hashes as its Python value, since it compares equal to it. */
static Py_hash_t expr_hash(PyObject *self)
{
	const sym_expr *e = EXPR(self);
	long long v;
	int k = sym_expr_get_si(e, &v);
	if (k == 1 || k == 2 || sym_expr_kind(e) == SYM_KIND_BOOL) {
		PyObject *val = sympy_expr_value(ECTX(self), e);
		Py_hash_t h;
		if (!val)
			return -1;
		h = PyObject_Hash(val);
		Py_DECREF(val);
		return h;
	}
	{
		Py_hash_t h = (Py_hash_t)(sym_expr_hash(e) & 0x7fffffffffffffffULL);
		return h == -1 ? -2 : h;
	}
}

static PyObject *binary(PyObject *a, PyObject *b,
                        const sym_expr *(*fn)(sym_ctx *, const sym_expr *, const sym_expr *))
{
	SymContext *c;
	const sym_expr *x, *y;
	PyObject *args[2] = {a, b};
	if (!sympy_is_convertible(a) || !sympy_is_convertible(b))
		Py_RETURN_NOTIMPLEMENTED;
	c = ctx_of(args, 2);
	if (!(x = sympy_to_expr(c, a)) || !(y = sympy_to_expr(c, b)))
		return NULL;
	return sympy_expr_new(c, fn(c->ctx, x, y));
}

static PyObject *rel(SymContext *c, sym_relop op, PyObject *a, PyObject *b)
{
	const sym_expr *x, *y;
	if (!(x = sympy_to_expr(c, a)) || !(y = sympy_to_expr(c, b)))
		return NULL;
	return sympy_expr_new(c, sym_expr_rel(c->ctx, op, x, y));
}

static PyObject *expr_richcompare(PyObject *a, PyObject *b, int op)
{
	static const sym_relop rels[] = {
	    [Py_LT] = SYM_REL_LT, [Py_LE] = SYM_REL_LE, [Py_GT] = SYM_REL_GT, [Py_GE] = SYM_REL_GE};
	PyObject *args[2] = {a, b};
	SymContext *c;
	if (!sympy_is_convertible(a) || !sympy_is_convertible(b) ||
	    (PyBool_Check(b) && op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	c = ctx_of(args, 2);
	if (op == Py_EQ || op == Py_NE) {
		/* identity of canonical forms: an Expr of another context is
		 * another object */
		const sym_expr *x, *y;
		int same;
		if (PyObject_TypeCheck(a, &SymExpr_Type) && PyObject_TypeCheck(b, &SymExpr_Type) &&
		    ECTX(a) != ECTX(b))
			same = 0;
		else {
			if (!(x = sympy_to_expr(c, a)) || !(y = sympy_to_expr(c, b)))
				return NULL;
			same = x == y;
		}
		return PyBool_FromLong(op == Py_EQ ? same : !same);
	}
	return rel(c, rels[op], a, b);
}

static PyObject *nb_add(PyObject *a, PyObject *b)
{
	return binary(a, b, sym_expr_add);
}
static PyObject *nb_sub(PyObject *a, PyObject *b)
{
	return binary(a, b, sym_expr_sub);
}
static PyObject *nb_mul(PyObject *a, PyObject *b)
{
	return binary(a, b, sym_expr_mul);
}
static PyObject *nb_truediv(PyObject *a, PyObject *b)
{
	return binary(a, b, sym_expr_div);
}
static PyObject *nb_floordiv(PyObject *a, PyObject *b)
{
	return binary(a, b, sym_expr_floordiv);
}
static PyObject *nb_mod(PyObject *a, PyObject *b)
{
	return binary(a, b, sym_expr_mod);
}

static int is_pred_operand(PyObject *o)
{
	return PyBool_Check(o) || PyObject_TypeCheck(o, &SymExpr_Type);
}

static PyObject *nb_and(PyObject *a, PyObject *b)
{
	if (!is_pred_operand(a) || !is_pred_operand(b))
		Py_RETURN_NOTIMPLEMENTED;
	return binary(a, b, sym_expr_and);
}
static PyObject *nb_or(PyObject *a, PyObject *b)
{
	if (!is_pred_operand(a) || !is_pred_operand(b))
		Py_RETURN_NOTIMPLEMENTED;
	return binary(a, b, sym_expr_or);
}
static PyObject *nb_invert(PyObject *a)
{
	return sympy_expr_new(ECTX(a), sym_expr_not(ECTX(a)->ctx, EXPR(a)));
}
static PyObject *nb_neg(PyObject *a)
{
	return sympy_expr_new(ECTX(a), sym_expr_neg(ECTX(a)->ctx, EXPR(a)));
}
static PyObject *nb_pos(PyObject *a)
{
	if (sym_expr_is_pred(EXPR(a)))
		return sympy_raise_msg(sympy_Error, SYM_EDOMAIN, "a predicate cannot be used as a number");
	return Py_NewRef(a);
}
static PyObject *nb_abs(PyObject *a)
{
	return sympy_expr_new(ECTX(a), sym_expr_abs(ECTX(a)->ctx, EXPR(a)));
}

/* a ** n for an integer constant n (an int or a constant Expr). */
static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *mod)
{
	PyObject *args[2] = {a, b};
	SymContext *c;
	const sym_expr *x;
	long long n;
	int overflow = 0;
	if (mod != Py_None)
		Py_RETURN_NOTIMPLEMENTED;
	if (!sympy_is_convertible(a) || !sympy_is_convertible(b))
		Py_RETURN_NOTIMPLEMENTED;
	c = ctx_of(args, 2);
	if (PyObject_TypeCheck(b, &SymExpr_Type)) {
		if (ECTX(b) != c)
			return sympy_to_expr(c, b) ? NULL : NULL;
		if (sym_expr_get_si(EXPR(b), &n) != 1)
			return sympy_raise_msg(sympy_Error, SYM_EDOMAIN,
			                       "** takes an integer constant exponent");
	} else if (PyLong_Check(b) && !PyBool_Check(b)) {
		n = PyLong_AsLongLongAndOverflow(b, &overflow);
		if (n == -1 && PyErr_Occurred())
			return NULL;
		if (overflow)
			return sympy_raise_msg(sympy_Error, SYM_ELIMIT,
			                       "the exponent of ** does not fit 64 bits");
	} else
		return sympy_raise_msg(sympy_Error, SYM_EDOMAIN, "** takes an integer constant exponent");
	if (!(x = sympy_to_expr(c, a)))
		return NULL;
	return sympy_expr_new(c, sym_expr_pow_si(c->ctx, x, n));
}

static int nb_bool(PyObject *a)
{
	PyObject *v = sympy_expr_value(ECTX(a), EXPR(a)), *t;
	int r;
	if (!v)
		return -1;
	if (v != Py_None) {
		r = PyObject_IsTrue(v);
		Py_DECREF(v);
		return r;
	}
	Py_DECREF(v);
	t = expr_str(a);
	if (t)
		PyErr_Format(
		    PyExc_TypeError,
		    "the truth of '%U' depends on its symbols: decide it with symshape.prove(), or compare "
		    "canonical forms with ==",
		    t);
	Py_XDECREF(t);
	return -1;
}

static PyObject *nb_int(PyObject *a)
{
	PyObject *v = sympy_expr_value(ECTX(a), EXPR(a)), *t;
	if (!v)
		return NULL;
	if (PyLong_Check(v) && !PyBool_Check(v))
		return v;
	Py_DECREF(v);
	t = expr_str(a);
	if (t)
		PyErr_Format(PyExc_TypeError, "int() needs an integer constant, not '%U'", t);
	Py_XDECREF(t);
	return NULL;
}

static PyObject *nb_float(PyObject *a)
{
	PyObject *v = sympy_expr_value(ECTX(a), EXPR(a)), *r, *t;
	if (!v)
		return NULL;
	if (v != Py_None && !PyBool_Check(v)) {
		r = PyNumber_Float(v);
		Py_DECREF(v);
		return r;
	}
	Py_DECREF(v);
	t = expr_str(a);
	if (t)
		PyErr_Format(PyExc_TypeError, "float() needs a numeric constant, not '%U'", t);
	Py_XDECREF(t);
	return NULL;
}

static PyNumberMethods expr_as_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_sub,
    .nb_multiply = nb_mul,
    .nb_remainder = nb_mod,
    .nb_power = nb_pow,
    .nb_negative = nb_neg,
    .nb_positive = nb_pos,
    .nb_absolute = nb_abs,
    .nb_bool = nb_bool,
    .nb_invert = nb_invert,
    .nb_and = nb_and,
    .nb_or = nb_or,
    .nb_int = nb_int,
    .nb_float = nb_float,
    .nb_floor_divide = nb_floordiv,
    .nb_true_divide = nb_truediv,
};

/* ---- methods ------------------------------------------------------------- */

/* Fills syms and vals (n entries, caller frees with PyMem_Free) from a dict
 * whose keys are symbols (Expr or name) and whose values convert to
 * expressions.  Returns 0 or -1. */
static int bindings(SymContext *c, PyObject *d, Py_ssize_t *n, const sym_expr ***syms, const sym_expr ***vals)
{
	Py_ssize_t pos = 0, i = 0;
	PyObject *k, *v;
	*syms = *vals = NULL;
	if (!PyDict_Check(d)) {
		PyErr_Format(PyExc_TypeError, "expected a dict of symbol: value, not %.100s",
		             Py_TYPE(d)->tp_name);
		return -1;
	}
	*n = PyDict_Size(d);
	*syms = PyMem_Calloc((size_t)*n + 1, sizeof(**syms));
	*vals = PyMem_Calloc((size_t)*n + 1, sizeof(**vals));
	if (!*syms || !*vals) {
		PyErr_NoMemory();
		goto error;
	}
	while (PyDict_Next(d, &pos, &k, &v)) {
		const sym_expr *s;
		if (PyUnicode_Check(k)) {
			const char *name = PyUnicode_AsUTF8(k);
			if (!name)
				goto error;
			s = sym_expr_symbol(c->ctx, name);
			if (!s) {
				sympy_raise(c, sympy_Error, 0);
				goto error;
			}
		} else if (PyObject_TypeCheck(k, &SymExpr_Type)) {
			if (!(s = sympy_to_expr(c, k)))
				goto error;
			if (!sym_expr_symbol_name(s)) {
				PyObject *t = sympy_expr_text(c, s);
				if (t)
					PyErr_Format(sympy_Error, "only symbols can be bound, not '%U'", t);
				Py_XDECREF(t);
				goto error;
			}
		} else {
			PyErr_Format(PyExc_TypeError,
			             "a binding's key must be a symbol (Expr or str), not %.100s",
			             Py_TYPE(k)->tp_name);
			goto error;
		}
		(*syms)[i] = s;
		if (!((*vals)[i] = sympy_to_expr(c, v)))
			goto error;
		i++;
	}
	return 0;
error:
	PyMem_Free(*syms);
	PyMem_Free(*vals);
	*syms = *vals = NULL;
	return -1;
}

/* Merges a positional dict and keyword bindings into a new dict. */
static PyObject *binding_dict(PyObject *args, PyObject *kw, const char *fname)
{
	PyObject *d = PyDict_New(), *a = NULL;
	if (!d)
		return NULL;
	if (!PyArg_ParseTuple(args, fname, &a))
		goto error;
	if (a && a != Py_None) {
		if (!PyDict_Check(a)) {
			PyErr_Format(PyExc_TypeError, "expected a dict of symbol: value, not %.100s",
			             Py_TYPE(a)->tp_name);
			goto error;
		}
		if (PyDict_Update(d, a) < 0)
			goto error;
	}
	if (kw && PyDict_Update(d, kw) < 0)
		goto error;
	return d;
error:
	Py_DECREF(d);
	return NULL;
}

static PyObject *do_subs(PyObject *self, PyObject *d)
{
	SymContext *c = ECTX(self);
	Py_ssize_t n;
	const sym_expr **syms, **vals;
	PyObject *r;
	if (bindings(c, d, &n, &syms, &vals) < 0)
		return NULL;
	r = sympy_expr_new(c, sym_expr_subst(c->ctx, EXPR(self), (size_t)n, syms, vals));
	PyMem_Free(syms);
	PyMem_Free(vals);
	return r;
}

static PyObject *expr_subs(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *d = binding_dict(args, kw, "|O:subs"), *r;
	if (!d)
		return NULL;
	r = do_subs(self, d);
	Py_DECREF(d);
	return r;
}

static PyObject *expr_eval(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *d = binding_dict(args, kw, "|O:eval"), *r, *v;
	const sym_expr *e;
	if (!d)
		return NULL;
	r = do_subs(self, d);
	Py_DECREF(d);
	if (!r)
		return NULL;
	e = EXPR(r);
	v = sympy_expr_value(ECTX(r), e);
	if (v == Py_None) {
		PyObject *t = expr_str(r);
		Py_DECREF(v);
		v = NULL;
		if (t)
			PyErr_Format(sympy_Error, "eval: unbound symbols remain in '%U'", t);
		Py_XDECREF(t);
	}
	Py_DECREF(r);
	return v;
}

static PyObject *expr_free_symbols(PyObject *self, void *closure)
{
	SymContext *c = ECTX(self);
	size_t n = sym_expr_symbols(c->ctx, EXPR(self), NULL, 0), i;
	const sym_expr **out = PyMem_Calloc(n + 1, sizeof(*out));
	PyObject *t;
	(void)closure;
	if (!out)
		return PyErr_NoMemory();
	sym_expr_symbols(c->ctx, EXPR(self), out, n);
	t = PyTuple_New((Py_ssize_t)n);
	for (i = 0; t && i < n; i++) {
		PyObject *x = sympy_expr_new(c, out[i]);
		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
	}
	PyMem_Free(out);
	return t;
}

static PyObject *expr_reduce(PyObject *self, PyObject *noargs)
{
	PyObject *t = expr_str(self), *mod, *parse, *r;
	(void)noargs;
	if (!t)
		return NULL;
	if (ECTX(self) != sympy_default_ctx()) {
		Py_DECREF(t);
		PyErr_SetString(PyExc_TypeError, "only Exprs of the default context can be pickled");
		return NULL;
	}
	mod = PyImport_ImportModule("symshape");
	parse = mod ? PyObject_GetAttrString(mod, "parse") : NULL;
	Py_XDECREF(mod);
	r = parse ? Py_BuildValue("(O(N))", parse, t) : NULL;
	if (!parse)
		Py_DECREF(t);
	Py_XDECREF(parse);
	return r;
}

static PyObject *expr_floor_m(PyObject *self, PyObject *noargs)
{
	(void)noargs;
	return sympy_expr_new(ECTX(self), sym_expr_floor(ECTX(self)->ctx, EXPR(self)));
}

static PyObject *expr_ceil_m(PyObject *self, PyObject *noargs)
{
	(void)noargs;
	return sympy_expr_new(ECTX(self), sym_expr_ceil(ECTX(self)->ctx, EXPR(self)));
}

static PyMethodDef expr_methods[] = {
    {"subs", (PyCFunction)(void (*)(void))expr_subs, METH_VARARGS | METH_KEYWORDS,
     "subs(bindings={}, **names) -> Expr: the symbols replaced by values or expressions, simultaneously."},
    {"eval", (PyCFunction)(void (*)(void))expr_eval, METH_VARARGS | METH_KEYWORDS,
     "eval(bindings={}, **names) -> int | Fraction | bool: the exact value with every symbol bound;\n"
     "symshape.Error on division by zero or an unbound symbol."},
    {"__floor__", expr_floor_m, METH_NOARGS, "math.floor(e)"},
    {"__ceil__", expr_ceil_m, METH_NOARGS, "math.ceil(e)"},
    {"__reduce__", expr_reduce, METH_NOARGS, "pickles as its text (default context only)"},
    {NULL, NULL, 0, NULL}};

static PyObject *expr_kind(PyObject *self, void *closure)
{
	static const char *const names[] = {
#define SYMPY_KIND_NAME(name, str) str,
	    SYM_KIND_MAP(SYMPY_KIND_NAME)
#undef SYMPY_KIND_NAME
	};
	(void)closure;
	return PyUnicode_FromString(names[sym_expr_kind(EXPR(self))]);
}

static PyObject *expr_is_predicate(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(sym_expr_is_pred(EXPR(self)));
}

static PyObject *expr_is_constant(PyObject *self, void *closure)
{
	long long v;
	(void)closure;
	return PyBool_FromLong(sym_expr_get_si(EXPR(self), &v) != 0 ||
	                       sym_expr_kind(EXPR(self)) == SYM_KIND_BOOL);
}

static PyObject *expr_name(PyObject *self, void *closure)
{
	(void)closure;
	return sympy_str_or_none(sym_expr_symbol_name(EXPR(self)));
}

static PyObject *expr_value(PyObject *self, void *closure)
{
	(void)closure;
	return sympy_expr_value(ECTX(self), EXPR(self));
}

static PyObject *expr_context(PyObject *self, void *closure)
{
	(void)closure;
	return Py_NewRef((PyObject *)ECTX(self));
}

static PyGetSetDef expr_getset[] = {
    {"kind", expr_kind, NULL, "the node kind: num sym add mul floor abs min max bool eq ne le lt and or",
     NULL},
    {"is_predicate", expr_is_predicate, NULL, "True for relations, connectives, true and false", NULL},
    {"is_constant", expr_is_constant, NULL, "True for numeric constants, true and false", NULL},
    {"name", expr_name, NULL, "the symbol's name, None for other expressions", NULL},
    {"value", expr_value, NULL, "the constant's value (int, Fraction, bool), None when not constant", NULL},
    {"free_symbols", expr_free_symbols, NULL, "the distinct symbols, in canonical order (a tuple)", NULL},
    {"context", expr_context, NULL, "the Context the expression lives in", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject SymExpr_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "symshape.Expr",
    .tp_basicsize = sizeof(SymExpr),
    .tp_dealloc = (destructor)expr_dealloc,
    .tp_repr = expr_repr,
    .tp_as_number = &expr_as_number,
    .tp_hash = expr_hash,
    .tp_str = expr_str,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Expr(value, ctx=None): an exact, canonical symbolic expression or predicate.\n\n"
              "value is expression text (parsed), an int, a Fraction or an Expr.  Operators\n"
              "+ - * / // % ** build expressions (/ is exact, // and % floor), < <= > >=\n"
              "build predicates, & | ~ combine predicates; == and != compare canonical\n"
              "identity (symshape.eq and symshape.ne build those relations).",
    .tp_richcompare = expr_richcompare,
    .tp_methods = expr_methods,
    .tp_getset = expr_getset,
    .tp_new = expr_new,
};

/* ---- functions ----------------------------------------------------------- */

static PyObject *nary(PyObject *const *args, Py_ssize_t n, const char *name,
                      const sym_expr *(*fn)(sym_ctx *, size_t, const sym_expr *const *))
{
	SymContext *c;
	const sym_expr **xs;
	PyObject *r, *seq = NULL;
	Py_ssize_t i;
	if (n == 1 && !sympy_is_convertible(args[0])) {
		/* min(iterable) */
		if (!(seq = PySequence_Fast(args[0], "min/max take expressions or one iterable of them")))
			return NULL;
		n = PySequence_Fast_GET_SIZE(seq);
		args = PySequence_Fast_ITEMS(seq);
	}
	if (n == 0) {
		Py_XDECREF(seq);
		return PyErr_Format(PyExc_TypeError, "%s() needs at least one argument", name);
	}
	c = ctx_of(args, n);
	if (!(xs = PyMem_Calloc((size_t)n, sizeof(*xs)))) {
		Py_XDECREF(seq);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n; i++)
		if (!(xs[i] = sympy_to_expr(c, args[i]))) {
			PyMem_Free(xs);
			Py_XDECREF(seq);
			return NULL;
		}
	r = sympy_expr_new(c, fn(c->ctx, (size_t)n, xs));
	PyMem_Free(xs);
	Py_XDECREF(seq);
	return r;
}

static PyObject *f_min(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	(void)self;
	return nary(args, n, "min", sym_expr_min);
}

static PyObject *f_max(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	(void)self;
	return nary(args, n, "max", sym_expr_max);
}

static PyObject *unary(PyObject *o, const sym_expr *(*fn)(sym_ctx *, const sym_expr *))
{
	SymContext *c = ctx_of(&o, 1);
	const sym_expr *x = sympy_to_expr(c, o);
	return x ? sympy_expr_new(c, fn(c->ctx, x)) : NULL;
}

static PyObject *f_floor(PyObject *self, PyObject *o)
{
	(void)self;
	return unary(o, sym_expr_floor);
}
static PyObject *f_ceil(PyObject *self, PyObject *o)
{
	(void)self;
	return unary(o, sym_expr_ceil);
}
static PyObject *f_abs(PyObject *self, PyObject *o)
{
	(void)self;
	return unary(o, sym_expr_abs);
}

static PyObject *f_rel(PyObject *const *args, Py_ssize_t n, sym_relop op, const char *name)
{
	if (n != 2)
		return PyErr_Format(PyExc_TypeError, "%s() takes two expressions", name);
	return rel(ctx_of(args, 2), op, args[0], args[1]);
}

static PyObject *f_eq(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	(void)self;
	return f_rel(args, n, SYM_REL_EQ, "eq");
}
static PyObject *f_ne(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	(void)self;
	return f_rel(args, n, SYM_REL_NE, "ne");
}

/* Converts o (Expr, number, or text) to an Expr object of c or of its own
 * context. */
static PyObject *expr_arg(PyObject *o, PyObject *cobj)
{
	PyObject *args, *kw = NULL, *r;
	if (PyBool_Check(o)) {
		/* prove(x % 4 == 3) got the identity comparison's answer */
		PyErr_Format(
		    PyExc_TypeError,
		    "got the bool %s: == and != compare canonical identity; write symshape.eq(a, b) or "
		    "the text 'a == b'",
		    o == Py_True ? "True" : "False");
		return NULL;
	}
	if (!(args = Py_BuildValue("(O)", o)))
		return NULL;
	if (cobj && cobj != Py_None && !(kw = Py_BuildValue("{s:O}", "ctx", cobj))) {
		Py_DECREF(args);
		return NULL;
	}
	if (PyObject_TypeCheck(o, &SymExpr_Type) && !kw)
		r = Py_NewRef(o);
	else
		r = expr_new(&SymExpr_Type, args, kw);
	Py_DECREF(args);
	Py_XDECREF(kw);
	return r;
}

static PyObject *f_simplify(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"e", "assume", "dims", "ctx", NULL};
	PyObject *o, *assume = Py_None, *cobj = Py_None, *x, *r;
	int dims = 0;
	sym_facts *f;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$pO:simplify", kwlist, &o, &assume, &dims, &cobj) ||
	    !(x = expr_arg(o, cobj)))
		return NULL;
	if (sympy_make_facts(ECTX(x), assume, dims, &f) < 0) {
		Py_DECREF(x);
		return NULL;
	}
	r = sympy_expr_new(ECTX(x), sym_simplify(ECTX(x)->ctx, f, EXPR(x)));
	sym_facts_free(f);
	Py_DECREF(x);
	return r;
}

static PyObject *truth(SymContext *c, sym_truth t)
{
	switch (t) {
	case SYM_TRUE:
		Py_RETURN_TRUE;
	case SYM_FALSE:
		Py_RETURN_FALSE;
	case SYM_UNKNOWN:
		Py_RETURN_NONE;
	default:
		return sympy_raise(c, sympy_Error, 0);
	}
}

static PyObject *f_prove(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"p", "assume", "dims", "ctx", NULL};
	PyObject *o, *assume = Py_None, *cobj = Py_None, *x, *r;
	int dims = 0;
	sym_facts *f;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$pO:prove", kwlist, &o, &assume, &dims, &cobj) ||
	    !(x = expr_arg(o, cobj)))
		return NULL;
	if (sympy_make_facts(ECTX(x), assume, dims, &f) < 0) {
		Py_DECREF(x);
		return NULL;
	}
	r = truth(ECTX(x), sym_prove(ECTX(x)->ctx, f, EXPR(x)));
	sym_facts_free(f);
	Py_DECREF(x);
	return r;
}

static PyObject *witness_dict(SymContext *c, const sym_witness *w)
{
	PyObject *d = PyDict_New();
	size_t i;
	for (i = 0; d && i < w->n; i++) {
		PyObject *v = sympy_expr_value(c, w->vals[i]);
		if (!v || PyDict_SetItemString(d, sym_expr_symbol_name(w->syms[i]), v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *f_equal(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"a", "b", "assume", "dims", "ctx", NULL};
	PyObject *oa, *ob, *assume = Py_None, *cobj = Py_None, *x, *y = NULL, *r = NULL, *wd;
	int dims = 0;
	sym_facts *f = NULL;
	sym_witness w;
	sym_truth t;
	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O$pO:equal", kwlist, &oa, &ob, &assume, &dims, &cobj))
		return NULL;
	if (cobj == Py_None && !PyObject_TypeCheck(oa, &SymExpr_Type) &&
	    PyObject_TypeCheck(ob, &SymExpr_Type))
		cobj = (PyObject *)ECTX(ob);
	if (!(x = expr_arg(oa, cobj)))
		return NULL;
	if (!(y = expr_arg(ob, cobj == Py_None ? (PyObject *)ECTX(x) : cobj)))
		goto done;
	if (ECTX(x) != ECTX(y)) {
		sympy_to_expr(ECTX(x), y);
		goto done;
	}
	if (sympy_make_facts(ECTX(x), assume, dims, &f) < 0)
		goto done;
	memset(&w, 0, sizeof(w));
	t = sym_equal(ECTX(x)->ctx, f, EXPR(x), EXPR(y), &w);
	if (t == SYM_ERROR) {
		sympy_raise(ECTX(x), sympy_Error, 0);
		goto done;
	}
	wd = t == SYM_FALSE ? witness_dict(ECTX(x), &w) : PyDict_New();
	sym_witness_clear(ECTX(x)->ctx, &w);
	if (wd) {
		PyObject *ans = truth(ECTX(x), t);
		r = ans ? PyTuple_Pack(2, ans, wd) : NULL;
		Py_XDECREF(ans);
		Py_DECREF(wd);
	}
done:
	sym_facts_free(f);
	Py_XDECREF(x);
	Py_XDECREF(y);
	return r;
}

PyMethodDef sympy_expr_functions[] = {
    {"min", (PyCFunction)(void (*)(void))f_min, METH_FASTCALL,
     "min(*exprs) -> Expr: the n-ary minimum (also of one iterable)."},
    {"max", (PyCFunction)(void (*)(void))f_max, METH_FASTCALL,
     "max(*exprs) -> Expr: the n-ary maximum (also of one iterable)."},
    {"floor", f_floor, METH_O, "floor(e) -> Expr"},
    {"ceil", f_ceil, METH_O, "ceil(e) -> Expr"},
    {"abs", f_abs, METH_O, "abs(e) -> Expr"},
    {"eq", (PyCFunction)(void (*)(void))f_eq, METH_FASTCALL, "eq(a, b) -> Expr: the relation a == b."},
    {"ne", (PyCFunction)(void (*)(void))f_ne, METH_FASTCALL, "ne(a, b) -> Expr: the relation a != b."},
    {"simplify", (PyCFunction)(void (*)(void))f_simplify, METH_VARARGS | METH_KEYWORDS,
     "simplify(e, assume=None, *, dims=False, ctx=None) -> Expr: the simplified canonical form of e\n"
     "(an Expr or text) under the assumptions (predicates or texts); dims=True assumes every\n"
     "symbol >= 1.  The value is the same at every admissible point."},
    {"prove", (PyCFunction)(void (*)(void))f_prove, METH_VARARGS | METH_KEYWORDS,
     "prove(p, assume=None, *, dims=False, ctx=None) -> True | False | None: whether the predicate\n"
     "holds at every admissible point (True), at none (False), or unknown (None)."},
    {"equal", (PyCFunction)(void (*)(void))f_equal, METH_VARARGS | METH_KEYWORDS,
     "equal(a, b, assume=None, *, dims=False, ctx=None) -> (True | False | None, witness): whether a\n"
     "and b are equal at every admissible point; after False, witness is a checked point\n"
     "{name: value} at which they differ ({} otherwise)."},
    {NULL, NULL, 0, NULL}};
