/* The public rules API (symshape/rules.h) over the rule context: a session
 * wraps an inference session, an operator application holds copies of its
 * inputs and attributes in its own storage and runs one rule. */
#include "rules_private.h"
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_OPSET 21

struct sym_rules {
	sym_ctx *ctx;
	sym_facts *facts;
	int own_facts;
	sym_infer inf;
};

struct sym_op {
	sym_rules *r;
	sym_infer mem; /* storage of the copies below, freed with the op */
	const char *domain, *op, *node;
	int opset;
	sym_tval *in;
	size_t nin, capin;
	sym_attr *attrs;
	size_t nattr, capattr;
	sym_tval *out; /* nout entries, set by a successful sym_op_infer */
	size_t nout;
	int inferred;
};

/* Records an error unless one is recorded and returns the first error. */
static sym_status fail(sym_ctx *ctx, sym_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static sym_status fail(sym_ctx *ctx, sym_status st, const char *fmt, ...)
{
	sym_sbuf b;
	va_list ap;
	sym__sbuf_init(&b, ctx);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.fail && b.s)
		sym__error(ctx, st, -1, "%s", b.s);
	else
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	sym__sbuf_clear(&b);
	return sym_ctx_last_error(ctx);
}

static sym_status nomem(sym_ctx *ctx)
{
	return sym__failed(ctx) ? sym_ctx_last_error(ctx) : fail(ctx, SYM_ENOMEM, "out of memory");
}

static const char *onnx_domain(const char *domain)
{
	return !domain || !strcmp(domain, "ai.onnx") ? "" : domain;
}

/* ---- element types and the operator set --------------------------------- */

int sym_dtype_from_name(const char *name)
{
	return sym__dtype_from_name(name);
}

const char *sym_dtype_name(int dtype)
{
	return sym__dtype_name(dtype);
}

int sym_rules_is_supported(const char *domain, const char *op)
{
	return op && sym__rule_find(onnx_domain(domain), op) != NULL;
}

const char *sym_rules_op_name(size_t i, const char **domain)
{
	const sym_rule_entry *e = sym__rule_at(i);
	if (domain)
		*domain = e ? e->domain : NULL;
	return e ? e->name : NULL;
}

/* ---- sessions ------------------------------------------------------------ */

sym_rules *sym_rules_new(sym_ctx *ctx, sym_facts *facts)
{
	sym_rules *r;
	if (!ctx)
		return NULL;
	r = sym__alloc(ctx, sizeof(*r));
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->facts = facts;
	if (!facts) {
		r->own_facts = 1;
		r->facts = sym_facts_new(ctx);
		if (!r->facts || sym_facts_set_default_min(r->facts, 1) != SYM_EOK ||
		    sym__facts_bound_dims(r->facts) != SYM_EOK)
			goto error;
	}
	if (sym__infer_init(&r->inf, ctx, r->facts) < 0)
		goto error;
	return r;
error:
	if (r->own_facts)
		sym_facts_free(r->facts);
	sym__free(ctx, r, sizeof(*r));
	nomem(ctx);
	return NULL;
}

void sym_rules_free(sym_rules *r)
{
	if (!r)
		return;
	sym__infer_clear(&r->inf);
	if (r->own_facts)
		sym_facts_free(r->facts);
	sym__free(r->ctx, r, sizeof(*r));
}

sym_status sym_rules_set_hint(sym_rules *r, const sym_expr *sym, long long v)
{
	if (!r)
		return SYM_EMISUSE;
	if (!sym)
		return sym__failed(r->ctx) ? sym_ctx_last_error(r->ctx)
		                           : fail(r->ctx, SYM_EMISUSE, "a hint needs a symbol, not NULL");
	if (sym_expr_kind(sym) != SYM_KIND_SYM)
		return fail(r->ctx, SYM_EMISUSE, "a hint needs a symbol, not an expression");
	return sym__infer_add_hint(&r->inf, sym, v) < 0 ? nomem(r->ctx) : SYM_EOK;
}

size_t sym_rules_num_guards(const sym_rules *r)
{
	return r ? r->inf.nguards : 0;
}

const sym_expr *sym_rules_guard(const sym_rules *r, size_t i, const char **kind, const char **node,
                                const char **reason)
{
	const sym_guard *g;
	if (!r || i >= r->inf.nguards)
		return NULL;
	g = &r->inf.guards[i];
	if (kind)
		*kind = g->kind == SYM_GUARD_ASSERT ? "assert" : "expect";
	if (node)
		*node = g->node;
	if (reason)
		*reason = g->reason;
	return g->pred;
}

/* ---- operator applications ----------------------------------------------- */

sym_op *sym_op_new(sym_rules *r, const char *domain, const char *op, const char *node_name, int opset)
{
	sym_ctx *ctx;
	sym_op *o;
	if (!r)
		return NULL;
	ctx = r->ctx;
	if (!op) {
		fail(ctx, SYM_EMISUSE, "an operator application needs an operator name");
		return NULL;
	}
	o = sym__alloc(ctx, sizeof(*o));
	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	o->r = r;
	sym__infer_init(&o->mem, ctx, r->facts);
	o->domain = sym__infer_strdup(&o->mem, onnx_domain(domain));
	o->op = sym__infer_strdup(&o->mem, op);
	o->node = sym__infer_strdup(&o->mem, node_name ? node_name : "");
	o->opset = opset > 0 ? opset : DEFAULT_OPSET;
	o->nout = 1;
	if (!o->domain || !o->op || !o->node) {
		sym_op_free(o);
		nomem(ctx);
		return NULL;
	}
	return o;
}

void sym_op_free(sym_op *op)
{
	sym_ctx *ctx;
	if (!op)
		return;
	ctx = op->r->ctx;
	sym__infer_clear(&op->mem);
	sym__free(ctx, op->in, op->capin * sizeof(*op->in));
	sym__free(ctx, op->attrs, op->capattr * sizeof(*op->attrs));
	sym__free(ctx, op, sizeof(*op));
}

/* Copies n numeric expressions into the op's storage; what names them in
 * messages. */
static sym_status copy_exprs(sym_op *op, size_t n, const sym_expr *const *v, const char *what,
                             const sym_expr ***out)
{
	sym_ctx *ctx = op->r->ctx;
	const sym_expr **d;
	size_t k;
	if (n && !v)
		return fail(ctx, SYM_EMISUSE, "%s: %zu elements given as NULL", what, n);
	for (k = 0; k < n; k++) {
		if (!v[k])
			return sym__failed(ctx) ? sym_ctx_last_error(ctx)
			                        : fail(ctx, SYM_EMISUSE, "%s: element %zu is NULL", what, k);
		if (sym_expr_is_pred(v[k]))
			return fail(ctx, SYM_EMISUSE, "%s: element %zu is a predicate, not a number", what,
			            k);
	}
	d = sym__infer_alloc(&op->mem, (n ? n : 1) * sizeof(*d));
	if (!d)
		return nomem(ctx);
	if (n)
		memcpy(d, v, n * sizeof(*d));
	*out = d;
	return SYM_EOK;
}

static sym_status check_dtype(sym_op *op, int dtype)
{
	if (dtype < 0 || dtype >= SYM_DT_COUNT)
		return fail(op->r->ctx, SYM_EMISUSE, "element type %d is not a TensorProto data type", dtype);
	return SYM_EOK;
}

/* Fills t with a tensor of rank dims (unknown when rank is -1). */
static sym_status make_tensor(sym_op *op, sym_tval *t, int rank, const sym_expr *const *dims, int dtype,
                              const char *what)
{
	sym_status st;
	const sym_expr **d = NULL;
	if (rank < -1)
		return fail(op->r->ctx, SYM_EMISUSE, "%s: rank %d (-1 is unknown)", what, rank);
	if ((st = check_dtype(op, dtype)) != SYM_EOK)
		return st;
	if (rank >= 0 && (st = copy_exprs(op, (size_t)rank, dims, what, &d)) != SYM_EOK)
		return st;
	memset(t, 0, sizeof(*t));
	t->present = 1;
	t->rank = rank;
	t->dims = rank >= 0 ? d : NULL;
	t->dtype = dtype;
	return SYM_EOK;
}

sym_status sym_op_add_input(sym_op *op, int rank, const sym_expr *const *dims, int dtype)
{
	char what[48];
	sym_tval t;
	sym_status st;
	if (!op)
		return SYM_EMISUSE;
	snprintf(what, sizeof(what), "input %zu", op->nin);
	if ((st = make_tensor(op, &t, rank, dims, dtype, what)) != SYM_EOK)
		return st;
	if (SYM_GROW(op->r->ctx, op->in, op->nin + 1, op->capin, 4) < 0)
		return nomem(op->r->ctx);
	op->in[op->nin++] = t;
	op->inferred = 0;
	return SYM_EOK;
}

sym_status sym_op_add_absent_input(sym_op *op)
{
	if (!op)
		return SYM_EMISUSE;
	if (SYM_GROW(op->r->ctx, op->in, op->nin + 1, op->capin, 4) < 0)
		return nomem(op->r->ctx);
	memset(&op->in[op->nin], 0, sizeof(op->in[op->nin]));
	op->in[op->nin++].rank = -1;
	op->inferred = 0;
	return SYM_EOK;
}

size_t sym_op_num_inputs(const sym_op *op)
{
	return op ? op->nin : 0;
}

sym_status sym_op_set_input_value(sym_op *op, size_t i, size_t n, const sym_expr *const *v)
{
	char what[48];
	const sym_expr **d;
	sym_status st;
	if (!op)
		return SYM_EMISUSE;
	if (i >= op->nin || !op->in[i].present)
		return fail(op->r->ctx, SYM_EMISUSE, "input %zu is not a present input of the operator", i);
	snprintf(what, sizeof(what), "value of input %zu", i);
	if ((st = copy_exprs(op, n, v, what, &d)) != SYM_EOK)
		return st;
	op->in[i].has_value = 1;
	op->in[i].nvalue = n;
	op->in[i].value = d;
	op->inferred = 0;
	return SYM_EOK;
}

sym_status sym_op_set_num_outputs(sym_op *op, size_t n)
{
	if (!op)
		return SYM_EMISUSE;
	op->nout = n;
	op->inferred = 0;
	return SYM_EOK;
}

/* ---- attributes ---------------------------------------------------------- */

/* Returns the slot for the attribute name (replacing one of that name),
 * with the name copied, or NULL with the error recorded. */
static sym_attr *attr_slot(sym_op *op, const char *name, sym_attr_type type, size_t n)
{
	sym_attr *a = NULL;
	size_t i;
	if (!name || !*name) {
		fail(op->r->ctx, SYM_EMISUSE, "an attribute needs a name");
		return NULL;
	}
	for (i = 0; i < op->nattr && !a; i++)
		if (!strcmp(op->attrs[i].name, name))
			a = &op->attrs[i];
	if (!a) {
		const char *copy = sym__infer_strdup(&op->mem, name);
		if (!copy || SYM_GROW(op->r->ctx, op->attrs, op->nattr + 1, op->capattr, 4) < 0) {
			nomem(op->r->ctx);
			return NULL;
		}
		a = &op->attrs[op->nattr++];
		memset(a, 0, sizeof(*a));
		a->name = copy;
	}
	a->type = type;
	a->n = n;
	a->ints = NULL;
	a->floats = NULL;
	a->strs = NULL;
	a->tensor = NULL;
	op->inferred = 0;
	return a;
}

static sym_status set_ints(sym_op *op, const char *name, sym_attr_type type, size_t n, const long long *v)
{
	int64_t *x;
	sym_attr *a;
	size_t k;
	if (!op)
		return SYM_EMISUSE;
	if (n && !v)
		return fail(op->r->ctx, SYM_EMISUSE, "attribute '%s': %zu integers given as NULL",
		            name ? name : "", n);
	if (!(x = sym__infer_alloc(&op->mem, (n ? n : 1) * sizeof(*x))))
		return nomem(op->r->ctx);
	for (k = 0; k < n; k++)
		x[k] = (int64_t)v[k];
	if (!(a = attr_slot(op, name, type, n)))
		return sym_ctx_last_error(op->r->ctx);
	a->ints = x;
	return SYM_EOK;
}

static sym_status set_floats(sym_op *op, const char *name, sym_attr_type type, size_t n, const double *v)
{
	double *x;
	sym_attr *a;
	if (!op)
		return SYM_EMISUSE;
	if (n && !v)
		return fail(op->r->ctx, SYM_EMISUSE, "attribute '%s': %zu floats given as NULL",
		            name ? name : "", n);
	if (!(x = sym__infer_alloc(&op->mem, (n ? n : 1) * sizeof(*x))))
		return nomem(op->r->ctx);
	if (n)
		memcpy(x, v, n * sizeof(*x));
	if (!(a = attr_slot(op, name, type, n)))
		return sym_ctx_last_error(op->r->ctx);
	a->floats = x;
	return SYM_EOK;
}

static sym_status set_strings(sym_op *op, const char *name, sym_attr_type type, size_t n,
                              const char *const *v)
{
	const char **x;
	sym_attr *a;
	size_t k;
	if (!op)
		return SYM_EMISUSE;
	if (n && !v)
		return fail(op->r->ctx, SYM_EMISUSE, "attribute '%s': %zu strings given as NULL",
		            name ? name : "", n);
	if (!(x = sym__infer_alloc(&op->mem, (n ? n : 1) * sizeof(*x))))
		return nomem(op->r->ctx);
	for (k = 0; k < n; k++) {
		if (!v[k])
			return fail(op->r->ctx, SYM_EMISUSE, "attribute '%s': string %zu is NULL",
			            name ? name : "", k);
		if (!(x[k] = sym__infer_strdup(&op->mem, v[k])))
			return nomem(op->r->ctx);
	}
	if (!(a = attr_slot(op, name, type, n)))
		return sym_ctx_last_error(op->r->ctx);
	a->strs = x;
	return SYM_EOK;
}

sym_status sym_op_set_attr_int(sym_op *op, const char *name, long long v)
{
	return set_ints(op, name, SYM_ATTR_INT, 1, &v);
}

sym_status sym_op_set_attr_ints(sym_op *op, const char *name, size_t n, const long long *v)
{
	return set_ints(op, name, SYM_ATTR_INTS, n, v);
}

sym_status sym_op_set_attr_float(sym_op *op, const char *name, double v)
{
	return set_floats(op, name, SYM_ATTR_FLOAT, 1, &v);
}

sym_status sym_op_set_attr_floats(sym_op *op, const char *name, size_t n, const double *v)
{
	return set_floats(op, name, SYM_ATTR_FLOATS, n, v);
}

sym_status sym_op_set_attr_string(sym_op *op, const char *name, const char *v)
{
	return set_strings(op, name, SYM_ATTR_STRING, 1, &v);
}

sym_status sym_op_set_attr_strings(sym_op *op, const char *name, size_t n, const char *const *v)
{
	return set_strings(op, name, SYM_ATTR_STRINGS, n, v);
}

/* sym_op_set_attr_tensor with what, the builder of the name in messages. */
static sym_status set_attr_tensor(sym_op *op, sym_sbuf *what, const char *name, int rank,
                                  const sym_expr *const *dims, int dtype, size_t n, const sym_expr *const *v)
{
	sym_tval *t;
	sym_attr *a;
	sym_status st;
	if (rank < 0)
		return fail(op->r->ctx, SYM_EMISUSE, "attribute '%s': a tensor needs a known rank",
		            name ? name : "");
	if (!(t = sym__infer_alloc(&op->mem, sizeof(*t))))
		return nomem(op->r->ctx);
	sym__sbuf_printf(what, "attribute '%s'", name ? name : "");
	if (what->fail)
		return nomem(op->r->ctx);
	if ((st = make_tensor(op, t, rank, dims, dtype, what->s)) != SYM_EOK)
		return st;
	if (v) {
		const sym_expr **d;
		if ((st = copy_exprs(op, n, v, what->s, &d)) != SYM_EOK)
			return st;
		t->has_value = 1;
		t->nvalue = n;
		t->value = d;
	}
	if (!(a = attr_slot(op, name, SYM_ATTR_TENSOR, 1)))
		return sym_ctx_last_error(op->r->ctx);
	a->tensor = t;
	return SYM_EOK;
}

sym_status sym_op_set_attr_tensor(sym_op *op, const char *name, int rank, const sym_expr *const *dims,
                                  int dtype, size_t n, const sym_expr *const *v)
{
	sym_sbuf what;
	sym_status st;
	if (!op)
		return SYM_EMISUSE;
	sym__sbuf_init(&what, op->r->ctx);
	st = set_attr_tensor(op, &what, name, rank, dims, dtype, n, v);
	sym__sbuf_clear(&what);
	return st;
}

/* ---- running and results ------------------------------------------------- */

sym_status sym_op_infer(sym_op *op)
{
	sym_ctx *ctx;
	sym_tval *in;
	size_t i;
	if (!op)
		return SYM_EMISUSE;
	ctx = op->r->ctx;
	op->inferred = 0;
	in = sym__infer_alloc(&op->mem, (op->nin ? op->nin : 1) * sizeof(*in));
	op->out = sym__infer_alloc(&op->mem, (op->nout ? op->nout : 1) * sizeof(*op->out));
	if (!in || !op->out)
		return nomem(ctx);
	/* an input given without an element type is int64 when it holds a
	 * value (shapes, axes, indices), float32 otherwise */
	for (i = 0; i < op->nin; i++) {
		in[i] = op->in[i];
		if (in[i].present && in[i].dtype == SYM_DT_UNDEFINED)
			in[i].dtype = in[i].has_value ? SYM_DT_INT64 : SYM_DT_FLOAT32;
	}
	if (sym__rule_run(&op->r->inf, op->domain, op->op, op->node, op->opset, op->nin, in, op->nattr,
	                  op->attrs, op->nout, op->out) < 0)
		return sym__failed(ctx) ? sym_ctx_last_error(ctx) : nomem(ctx);
	op->inferred = 1;
	return SYM_EOK;
}

size_t sym_op_num_outputs(const sym_op *op)
{
	return op ? op->nout : 0;
}

static const sym_tval *output(const sym_op *op, size_t i)
{
	return op && op->inferred && i < op->nout ? &op->out[i] : NULL;
}

int sym_op_output_rank(const sym_op *op, size_t i)
{
	const sym_tval *t = output(op, i);
	return t ? t->rank : -2;
}

const sym_expr *const *sym_op_output_dims(const sym_op *op, size_t i)
{
	const sym_tval *t = output(op, i);
	return t && t->rank >= 0 ? t->dims : NULL;
}

const sym_expr *const *sym_op_output_value(const sym_op *op, size_t i, size_t *n)
{
	const sym_tval *t = output(op, i);
	if (!t || !t->has_value) {
		if (n)
			*n = 0;
		return NULL;
	}
	if (n)
		*n = t->nvalue;
	return t->value;
}

int sym_op_output_dtype(const sym_op *op, size_t i)
{
	const sym_tval *t = output(op, i);
	return t ? t->dtype : 0;
}
