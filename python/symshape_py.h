/* The symshape Python extension: what its files share.
 *
 * Context model: every expression lives in a context (sym_ctx).  The module
 * keeps one default context for the life of the interpreter; a
 * symshape.Context() is a separate one, freed when the last object made in
 * it (expression, inference result) goes away.  Each Expr and each result
 * holds a strong reference to its context.  Calls hold the GIL throughout,
 * so a context is never used by two threads at once.  Compiled programs and
 * guard caches are standalone (no context).  Objects from different
 * contexts never combine: the operation raises symshape.Error. */
#ifndef SYMSHAPE_PY_H
#define SYMSHAPE_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <symshape/symshape.h>

typedef struct {
	PyObject_HEAD sym_ctx *ctx;
} SymContext;

typedef struct {
	PyObject_HEAD SymContext *ctx;
	const sym_expr *e;
} SymExpr;

extern PyTypeObject SymContext_Type;
extern PyTypeObject SymExpr_Type;
extern PyTypeObject SymGraph_Type;
extern PyTypeObject SymProgram_Type;
extern PyTypeObject SymCache_Type;

/* The exception classes (module attributes Error, ParseError, ModelError,
 * GuardError). */
extern PyObject *sympy_Error, *sympy_ParseError, *sympy_ModelError, *sympy_GuardError;

/* Returns the default context (borrowed). */
SymContext *sympy_default_ctx(void);
/* Returns the context ctx names (a Context, or None for the default), borrowed;
 * NULL with TypeError for anything else. */
SymContext *sympy_ctx_arg(PyObject *ctx);

/* Raises the context's recorded error as exception type (ParseError is used
 * instead for a syntax error when parsing is set), clears it, returns NULL. */
PyObject *sympy_raise(SymContext *c, PyObject *type, int parsing);
/* Raises symshape.Error with a message and status (a sym_status). */
PyObject *sympy_raise_msg(PyObject *type, sym_status st, const char *msg);

/* Returns a new Expr for e in c, or raises the context's error when e is NULL. */
PyObject *sympy_expr_new(SymContext *c, const sym_expr *e);
/* Converts o (Expr, int, fractions.Fraction, bool) to a node of c; returns
 * NULL with an exception set (TypeError for another type, symshape.Error
 * for an Expr of another context). */
const sym_expr *sympy_to_expr(SymContext *c, PyObject *o);
/* Returns 1 when o converts to an expression (see sympy_to_expr). */
int sympy_is_convertible(PyObject *o);
/* Returns the Python value of a constant (int, Fraction, bool), None when e
 * is not a constant; NULL on error. */
PyObject *sympy_expr_value(SymContext *c, const sym_expr *e);
/* Returns the canonical text of e as a str, or NULL with an exception. */
PyObject *sympy_expr_text(SymContext *c, const sym_expr *e);
/* Returns a new Expr, or None when e is NULL (an open range end). */
PyObject *sympy_expr_or_none(SymContext *c, const sym_expr *e);
/* Returns a str of s, None when s is NULL. */
PyObject *sympy_str_or_none(const char *s);
/* Returns the list of n items, item i made by item(self, i) (a new
 * reference, or NULL with an exception set); NULL with the exception. */
PyObject *sympy_list_of(size_t n, PyObject *(*item)(void *self, size_t i), void *self);

/* Fills *facts (NULL when there is nothing to assume) from the assumptions
 * (an iterable of Exprs or texts, or None) and dims; returns 0, or -1 with an
 * exception set. */
int sympy_make_facts(SymContext *c, PyObject *assume, int dims, sym_facts **facts);

/* Converts a sequence of Python ints to an int64 array of n values (caller
 * frees with PyMem_Free); NULL with an exception. */
int64_t *sympy_int64_array(PyObject *seq, size_t n, const char *what);

/* Module functions defined by the type files. */
extern PyMethodDef sympy_expr_functions[];
extern PyMethodDef sympy_model_functions[];

#endif
