/* The ONNX model loader: a ModelProto read with protobuf-c into the graph IR
 * of model/ir.h.  Every malformed input gives an error naming the
 * tensor, the node or the attribute; nothing in the file is trusted. */
#include "model/ir.h"
#include "model/onnx_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integer data is kept up to this many elements, floating-point data
 * (Resize scales) up to FLOAT_LIMIT. */
#define INT_LIMIT SYM_ONNX_INT_KEEP
#define FLOAT_LIMIT SYM_ONNX_FLOAT_KEEP

enum { ONNX_EXTERNAL = 1 };

typedef struct ld {
	sym_ctx *ctx;
	sym_model *m;
	/* dim_param names that are not identifiers, with the symbol names
	 * given to them */
	struct pname {
		char *raw, *sym;
	} * names;
	size_t nnames, capnames;
	/* the locations messages name: a graph entry, a node's attribute */
	sym_sbuf at_graph, at_attr;
	/* the nesting level of the subgraph being read (0: the main graph)
	 * and the prefix of its unnamed nodes' names */
	int depth;
	const char *gpath;
} ld;

static int oerr(ld *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int oerr(ld *l, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = sym__load_verror(l->ctx, "onnx", fmt, ap);
	va_end(ap);
	return r;
}

static int nomem(ld *l)
{
	return sym__load_nomem(l->ctx);
}

/* Sets the location b (one of l's levels) to the printf-formatted text and
 * returns it; NULL with out of memory recorded. */
static const char *at(ld *l, sym_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static const char *at(ld *l, sym_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	const char *r;
	va_start(ap, fmt);
	r = sym__load_vat(l->ctx, b, fmt, ap);
	va_end(ap);
	return r;
}

/* Names appear in messages of one line and in the printed shapes: a
 * control character in one is an error (what locates it). */
static int check_name(ld *l, const char *s, const char *what)
{
	return sym__load_check_name(l->ctx, "onnx", s, what);
}

/* ---- element data --------------------------------------------------------- */

static uint64_t le_bytes(const uint8_t *p, int size)
{
	uint64_t v = 0;
	int k;
	for (k = size - 1; k >= 0; k--)
		v = (v << 8) | p[k];
	return v;
}

/* The integer value of a little-endian element of an integer dtype. */
static int64_t int_of_bits(int dt, uint64_t bits)
{
	switch (dt) {
	case SYM_DT_INT8:
		return (int8_t)(uint8_t)bits;
	case SYM_DT_INT16:
		return (int16_t)(uint16_t)bits;
	case SYM_DT_INT32:
		return (int32_t)(uint32_t)bits;
	case SYM_DT_BOOL:
		return bits != 0;
	default:
		return (int64_t)bits;
	}
}

static double half_to_double(uint32_t h)
{
	int e = (int)((h >> 10) & 0x1f);
	double m = (double)(h & 0x3ff), v;
	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m + 1024.0, e - 25);
	return (h & 0x8000) ? -v : v;
}

static double float_of_bits(int dt, uint64_t bits)
{
	union {
		uint32_t u;
		float f;
	} f32;
	union {
		uint64_t u;
		double d;
	} f64;
	switch (dt) {
	case SYM_DT_FLOAT32:
		f32.u = (uint32_t)bits;
		return f32.f;
	case SYM_DT_FLOAT64:
		f64.u = bits;
		return f64.d;
	case SYM_DT_FLOAT16:
		return half_to_double((uint32_t)bits & 0xffff);
	default: /* bfloat16: the high half of a float32 */
		f32.u = ((uint32_t)bits & 0xffff) << 16;
		return f32.f;
	}
}

static int is_float_dt(int dt)
{
	return dt == SYM_DT_FLOAT32 || dt == SYM_DT_FLOAT64 || dt == SYM_DT_FLOAT16 || dt == SYM_DT_BFLOAT16;
}

/* Reads the data of an integer or floating-point tensor of numel elements
 * from raw_data or the typed field that ONNX uses for its dtype.  Absent
 * data (external, or stored nowhere) leaves t without data. */
static int load_data(ld *l, const OnnxTensor *tp, const char *what, int64_t numel, sym_mtensor *t)
{
	int dt = t->dtype, isint = sym__dtype_is_int(dt), size = sym__dtype_size(dt);
	size_t n = (size_t)numel, i, have;
	if (tp->has_data_location && tp->data_location == ONNX_EXTERNAL)
		return 0;
	if (!isint && !is_float_dt(dt))
		return 0;
	if (numel > (isint ? INT_LIMIT : FLOAT_LIMIT))
		return 0; /* weights: never copied */
	if (tp->has_raw_data) {
		if (tp->raw_data.len != n * (size_t)size)
			return oerr(l, "%s: raw_data has %zu bytes, %lld elements of %s need %zu", what,
			            tp->raw_data.len, (long long)numel, sym__dtype_name(dt),
			            n * (size_t)size);
		have = n;
	} else {
		switch (dt) {
		case SYM_DT_INT64:
			have = tp->n_int64_data;
			break;
		case SYM_DT_UINT32:
		case SYM_DT_UINT64:
			have = tp->n_uint64_data;
			break;
		case SYM_DT_FLOAT32:
			have = tp->n_float_data;
			break;
		case SYM_DT_FLOAT64:
			have = tp->n_double_data;
			break;
		default:
			have = tp->n_int32_data;
			break;
		}
		if (have == 0 && n > 0)
			return 0; /* no data stored */
		if (have != n)
			return oerr(l, "%s: %zu values, the shape needs %lld", what, have, (long long)numel);
	}
	if (isint) {
		t->data = sym__model_alloc(l->m, (n ? n : 1) * sizeof(*t->data));
		if (!t->data)
			return nomem(l);
		for (i = 0; i < n; i++) {
			if (tp->has_raw_data) {
				uint64_t b = le_bytes(tp->raw_data.data + i * (size_t)size, size);
				if (dt == SYM_DT_UINT64 && b > (uint64_t)INT64_MAX)
					return 0; /* beyond int64: not kept */
				t->data[i] = int_of_bits(dt, b);
			} else if (dt == SYM_DT_INT64) {
				t->data[i] = tp->int64_data[i];
			} else if (dt == SYM_DT_UINT32 || dt == SYM_DT_UINT64) {
				if (tp->uint64_data[i] > (uint64_t)INT64_MAX)
					return 0;
				t->data[i] = (int64_t)tp->uint64_data[i];
			} else {
				t->data[i] = int_of_bits(dt, (uint32_t)tp->int32_data[i]);
			}
		}
		t->has_data = 1;
		t->ndata = n;
		return 0;
	}
	t->fdata = sym__model_alloc(l->m, (n ? n : 1) * sizeof(*t->fdata));
	if (!t->fdata)
		return nomem(l);
	for (i = 0; i < n; i++) {
		double v;
		if (tp->has_raw_data)
			v = float_of_bits(dt, le_bytes(tp->raw_data.data + i * (size_t)size, size));
		else if (dt == SYM_DT_FLOAT32)
			v = tp->float_data[i];
		else if (dt == SYM_DT_FLOAT64)
			v = tp->double_data[i];
		else
			v = float_of_bits(dt, (uint32_t)tp->int32_data[i]);
		if (!isfinite(v)) {
			t->fdata = NULL; /* not a usable scale: no value */
			return 0;
		}
		t->fdata[i] = v;
	}
	t->nfdata = n;
	return 0;
}

/* A TensorProto: name, dtype, concrete dims and the data kept as values. */
static int load_tensor(ld *l, const OnnxTensor *tp, const char *what, sym_mtensor *t)
{
	size_t k;
	int64_t numel = 1;
	int dt = tp->has_data_type ? tp->data_type : 0;
	if (dt <= 0 || dt >= SYM_DT_COUNT)
		return oerr(l, "%s: data_type %d is not a supported element type", what, dt);
	t->dtype = dt;
	if (tp->n_dims > 64)
		return oerr(l, "%s: rank %zu is over the limit of 64", what, tp->n_dims);
	t->rank = (int)tp->n_dims;
	t->dims = sym__model_alloc(l->m, (tp->n_dims ? tp->n_dims : 1) * sizeof(*t->dims));
	if (!t->dims)
		return nomem(l);
	for (k = 0; k < tp->n_dims; k++) {
		int64_t d = tp->dims[k];
		if (d < 0)
			return oerr(l, "%s: dim %zu is negative (%lld)", what, k, (long long)d);
		t->dims[k].kind = SYM_DIM_CONST;
		t->dims[k].value = d;
		if (numel >= 0 && d && numel > (INT64_C(1) << 62) / d)
			numel = -1; /* too large to hold any data we keep */
		else if (numel >= 0)
			numel *= d;
	}
	if (numel < 0)
		return 0;
	return load_data(l, tp, what, numel, t);
}

/* ---- dims and value infos ------------------------------------------------- */

static int is_ident(const char *s)
{
	const char *p;
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (p = s; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

/* The text of a dim_param: a name that parses as a symbol stays itself;
 * an expression in the SPEC syntax ("2*seq") stays an expression; any other
 * text ("batch size", "max", "1-dim") gets an identifier of its own, the
 * same one wherever the same text occurs.  A deliberate naming cut: the
 * identifier keeps at most 100 bytes of the text (the symbol's source names
 * the whole text). */
static const char *param_text(ld *l, const char *raw)
{
	const sym_expr *e;
	char buf[160];
	size_t i, n = 0;
	for (i = 0; i < l->nnames; i++)
		if (!strcmp(l->names[i].raw, raw))
			return l->names[i].sym;
	e = sym__model_name_has_control(raw) ? NULL : sym_expr_from_str(l->ctx, raw);
	if (e && !sym_expr_is_pred(e) &&
	    (sym_expr_kind(e) != SYM_KIND_SYM || !strcmp(sym_expr_symbol_name(e), raw)))
		return raw;
	if (!e)
		sym_ctx_clear_error(l->ctx);
	for (i = 0; raw[i] && n < 100; i++) {
		char c = raw[i];
		buf[n++] =
		    (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		        ? c
		        : '_';
	}
	buf[n] = 0;
	if (!n || (buf[0] >= '0' && buf[0] <= '9')) {
		memmove(buf + 2, buf, n + 1);
		buf[0] = 'd', buf[1] = '_';
	}
	/* a keyword of the syntax, or a name already taken by another text */
	for (;;) {
		int taken = 0;
		e = is_ident(buf) ? sym_expr_from_str(l->ctx, buf) : NULL;
		if (!e)
			sym_ctx_clear_error(l->ctx);
		for (i = 0; i < l->nnames; i++)
			if (!strcmp(l->names[i].sym, buf))
				taken = 1;
		if (e && sym_expr_kind(e) == SYM_KIND_SYM && !taken)
			break;
		if (strlen(buf) > 140)
			return NULL;
		strcat(buf, "_");
	}
	if (SYM_GROW(l->ctx, l->names, l->nnames + 1, l->capnames, 8) < 0)
		return NULL;
	l->names[l->nnames].raw = sym__model_strdup(l->m, raw);
	l->names[l->nnames].sym = sym__model_strdup(l->m, buf);
	if (!l->names[l->nnames].raw || !l->names[l->nnames].sym)
		return NULL;
	return l->names[l->nnames++].sym;
}

/* A ValueInfoProto: the name, the element type and the shape (dim_value,
 * dim_param or unknown); no tensor type or no shape is an unknown rank. */
static int load_value_info(ld *l, const OnnxValueInfo *vi, const char *what, sym_mtensor *t)
{
	const OnnxTensorType *tt;
	size_t k;
	if (!vi->name || !*vi->name)
		return oerr(l, "%s: missing name", what);
	if (check_name(l, vi->name, what) < 0)
		return -1;
	if (!(t->name = sym__model_strdup(l->m, vi->name)))
		return nomem(l);
	t->rank = -1;
	t->dtype = SYM_DT_UNDEFINED;
	if (!vi->type || vi->type->value_case != SYMSHAPE_ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return 0;
	tt = vi->type->tensor_type;
	if (tt->has_elem_type && tt->elem_type > 0 && tt->elem_type < SYM_DT_COUNT)
		t->dtype = tt->elem_type;
	if (!tt->shape)
		return 0;
	if (tt->shape->n_dim > 64)
		return oerr(l, "%s '%s': rank %zu is over the limit of 64", what, vi->name, tt->shape->n_dim);
	t->rank = (int)tt->shape->n_dim;
	t->dims = sym__model_alloc(l->m, (tt->shape->n_dim ? tt->shape->n_dim : 1) * sizeof(*t->dims));
	if (!t->dims)
		return nomem(l);
	for (k = 0; k < tt->shape->n_dim; k++) {
		const OnnxDim *d = tt->shape->dim[k];
		sym_dimspec *ds = &t->dims[k];
		if (d->value_case == SYMSHAPE_ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value >= 0) {
			ds->kind = SYM_DIM_CONST;
			ds->value = d->dim_value;
		} else if (d->value_case == SYMSHAPE_ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		           d->dim_param && *d->dim_param) {
			const char *text = param_text(l, d->dim_param);
			if (!text || !(ds->text = sym__model_strdup(l->m, text)))
				return nomem(l);
			ds->kind = SYM_DIM_EXPR;
		} else {
			ds->kind = SYM_DIM_ANON; /* unknown, or a negative dim_value */
		}
	}
	return 0;
}

/* ---- nodes ------------------------------------------------------------------ */

static char *bytes_str(ld *l, const ProtobufCBinaryData *b)
{
	char *s = sym__model_alloc(l->m, b->len + 1);
	if (s && b->len)
		memcpy(s, b->data, b->len);
	return s;
}

/* A TENSOR attribute as rules see it: concrete dims and, for small
 * integer or floating-point tensors, the value. */
static int tensor_attr(ld *l, const OnnxTensor *tp, const char *what, sym_attr *out)
{
	sym_mtensor t;
	sym_tval *tv;
	size_t i;
	int k;
	memset(&t, 0, sizeof(t));
	if (load_tensor(l, tp, what, &t) < 0)
		return -1;
	if (!(tv = sym__model_alloc(l->m, sizeof(*tv))))
		return nomem(l);
	tv->present = 1;
	tv->rank = t.rank;
	tv->dtype = t.dtype;
	if (t.rank > 0) {
		const sym_expr **d = sym__model_alloc(l->m, (size_t)t.rank * sizeof(*d));
		if (!d)
			return nomem(l);
		for (k = 0; k < t.rank; k++)
			if (!(d[k] = sym_expr_from_si(l->ctx, t.dims[k].value)))
				return -1;
		tv->dims = d;
	}
	if (t.has_data || t.fdata) {
		size_t n = t.has_data ? t.ndata : t.nfdata;
		const sym_expr **v = sym__model_alloc(l->m, (n ? n : 1) * sizeof(*v));
		if (!v)
			return nomem(l);
		for (i = 0; i < n; i++)
			if (!(v[i] = t.has_data ? sym_expr_from_si(l->ctx, t.data[i])
			                        : sym__expr_from_double(l->ctx, t.fdata[i])))
				return -1;
		tv->has_value = 1, tv->nvalue = n, tv->value = v;
	}
	out->type = SYM_ATTR_TENSOR, out->n = 1, out->tensor = tv;
	return 0;
}

enum {
	AT_FLOAT = 1,
	AT_INT,
	AT_STRING,
	AT_TENSOR,
	AT_GRAPH,
	AT_FLOATS,
	AT_INTS,
	AT_STRINGS,
	AT_TENSORS,
	AT_GRAPHS,
	AT_SPARSE_TENSOR,
	AT_SPARSE_TENSORS,
	AT_TYPE_PROTO,
	AT_TYPE_PROTOS
};

/* The type of an attribute written without one (IR version 1): the field
 * that holds a value. */
static int guess_type(const OnnxAttr *a)
{
	if (a->n_floats)
		return AT_FLOATS;
	if (a->n_ints)
		return AT_INTS;
	if (a->n_strings)
		return AT_STRINGS;
	if (a->t)
		return AT_TENSOR;
	if (a->g)
		return AT_GRAPH;
	if (a->n_graphs)
		return AT_GRAPHS;
	if (a->has_s)
		return AT_STRING;
	if (a->has_f)
		return AT_FLOAT;
	if (a->has_i)
		return AT_INT;
	return 0;
}

/* Returns 1 when the attribute is stored, 0 when its type is one rules
 * never read (graphs, sparse tensors, type protos), -1 on error. */
static int load_attr(ld *l, const sym_mnode *nd, const OnnxAttr *a, sym_attr *out)
{
	const char *where;
	int type = a->has_type ? a->type : guess_type(a);
	size_t i;
	if (!a->name || !*a->name)
		return oerr(l, "node '%s': an attribute has no name", nd->name);
	if (!(where = at(l, &l->at_attr, "node '%s' attribute '%s'", nd->name, a->name)))
		return -1;
	if (!(out->name = sym__model_strdup(l->m, a->name)))
		return nomem(l);
	if (a->ref_attr_name && *a->ref_attr_name)
		return oerr(l, "%s refers to a function attribute ('%s'), which only functions may", where,
		            a->ref_attr_name);
	switch (type) {
	case AT_INT: {
		int64_t *v = sym__model_alloc(l->m, sizeof(*v));
		if (!v)
			return nomem(l);
		*v = a->i;
		out->type = SYM_ATTR_INT, out->n = 1, out->ints = v;
		return 1;
	}
	case AT_FLOAT: {
		double *v = sym__model_alloc(l->m, sizeof(*v));
		if (!v)
			return nomem(l);
		*v = a->f;
		out->type = SYM_ATTR_FLOAT, out->n = 1, out->floats = v;
		return 1;
	}
	case AT_STRING: {
		const char **v = sym__model_alloc(l->m, sizeof(*v));
		if (!v || !(v[0] = bytes_str(l, &a->s)))
			return nomem(l);
		out->type = SYM_ATTR_STRING, out->n = 1, out->strs = v;
		return 1;
	}
	case AT_INTS: {
		int64_t *v = sym__model_alloc(l->m, (a->n_ints ? a->n_ints : 1) * sizeof(*v));
		if (!v)
			return nomem(l);
		if (a->n_ints)
			memcpy(v, a->ints, a->n_ints * sizeof(*v));
		out->type = SYM_ATTR_INTS, out->n = a->n_ints, out->ints = v;
		return 1;
	}
	case AT_FLOATS: {
		double *v = sym__model_alloc(l->m, (a->n_floats ? a->n_floats : 1) * sizeof(*v));
		if (!v)
			return nomem(l);
		for (i = 0; i < a->n_floats; i++)
			v[i] = a->floats[i];
		out->type = SYM_ATTR_FLOATS, out->n = a->n_floats, out->floats = v;
		return 1;
	}
	case AT_STRINGS: {
		const char **v = sym__model_alloc(l->m, (a->n_strings ? a->n_strings : 1) * sizeof(*v));
		if (!v)
			return nomem(l);
		for (i = 0; i < a->n_strings; i++)
			if (!(v[i] = bytes_str(l, &a->strings[i])))
				return nomem(l);
		out->type = SYM_ATTR_STRINGS, out->n = a->n_strings, out->strs = v;
		return 1;
	}
	case AT_TENSOR:
		if (!a->t)
			return oerr(l, "%s: of type TENSOR without a tensor", where);
		return tensor_attr(l, a->t, where, out) < 0 ? -1 : 1;
	case AT_GRAPH:
	case AT_TENSORS:
	case AT_GRAPHS:
	case AT_SPARSE_TENSOR:
	case AT_SPARSE_TENSORS:
	case AT_TYPE_PROTO:
	case AT_TYPE_PROTOS:
		return 0;
	default:
		return oerr(l, "%s: unknown attribute type %d", where, type);
	}
}

static int load_node(ld *l, const OnnxNode *np, size_t idx, sym_mnode *nd);

/* Reads the subgraph gp (attribute name of node nd) into out. */
static int load_subgraph(ld *l, const sym_mnode *nd, const char *name, const OnnxGraph *gp, sym_mgattr *out)
{
	sym_mgraph *g;
	const char *saved = l->gpath, *what;
	char *path;
	size_t i;
	int st = -1;
	if (l->depth >= SYM_MODEL_MAX_DEPTH)
		return oerr(l, "node '%s' attribute '%s': subgraphs nest deeper than %d levels", nd->name,
		            name, SYM_MODEL_MAX_DEPTH);
	if (!(what = at(l, &l->at_attr, "%s/%s/", nd->name, name)) ||
	    !(path = sym__model_strdup(l->m, what)) || !(out->name = sym__model_strdup(l->m, name)) ||
	    !(g = sym__model_alloc(l->m, sizeof(*g))))
		return nomem(l);
	out->graph = g;
	g->inits = sym__model_alloc(l->m, (gp->n_initializer ? gp->n_initializer : 1) * sizeof(*g->inits));
	g->inputs = sym__model_alloc(l->m, (gp->n_input ? gp->n_input : 1) * sizeof(*g->inputs));
	g->nodes = sym__model_alloc(l->m, (gp->n_node ? gp->n_node : 1) * sizeof(*g->nodes));
	g->outputs = sym__model_alloc(l->m, (gp->n_output ? gp->n_output : 1) * sizeof(*g->outputs));
	if (!g->inits || !g->inputs || !g->nodes || !g->outputs)
		return nomem(l);
	l->depth++, l->gpath = path;
	for (i = 0; i < gp->n_initializer; i++) {
		const OnnxTensor *tp = gp->initializer[i];
		if (!tp->name || !*tp->name) {
			oerr(l, "node '%s' attribute '%s': initializer %zu: missing name", nd->name, name, i);
			goto out;
		}
		if (!(what = at(l, &l->at_graph, "node '%s' attribute '%s' initializer %zu", nd->name, name,
		                i)) ||
		    check_name(l, tp->name, what) < 0 ||
		    !(what = at(l, &l->at_graph, "initializer '%s'", tp->name)) ||
		    !(g->inits[i].name = sym__model_strdup(l->m, tp->name)) ||
		    load_tensor(l, tp, what, &g->inits[i]) < 0)
			goto out;
		g->ninits++;
	}
	for (i = 0; i < gp->n_input; i++) {
		if (!(what = at(l, &l->at_graph, "node '%s' attribute '%s' input %zu", nd->name, name, i)) ||
		    load_value_info(l, gp->input[i], what, &g->inputs[i]) < 0)
			goto out;
		g->ninputs++;
	}
	for (i = 0; i < gp->n_node; i++) {
		if (load_node(l, gp->node[i], i, &g->nodes[i]) < 0)
			goto out;
		g->nnodes++;
	}
	for (i = 0; i < gp->n_output; i++) {
		sym_mtensor t;
		memset(&t, 0, sizeof(t));
		if (!(what = at(l, &l->at_graph, "node '%s' attribute '%s' output %zu", nd->name, name, i)) ||
		    load_value_info(l, gp->output[i], what, &t) < 0)
			goto out;
		g->outputs[g->noutputs++] = t.name;
	}
	st = 0;
out:
	l->depth--, l->gpath = saved;
	return st;
}

static int load_node(ld *l, const OnnxNode *np, size_t idx, sym_mnode *nd)
{
	size_t i;
	char buf[120];
	snprintf(buf, sizeof(buf), "node %zu", idx);
	if (check_name(l, np->name, buf) < 0 || check_name(l, np->op_type, buf) < 0 ||
	    check_name(l, np->domain, buf) < 0)
		return -1;
	for (i = 0; i < np->n_input; i++)
		if (check_name(l, np->input[i], buf) < 0)
			return -1;
	for (i = 0; i < np->n_output; i++)
		if (check_name(l, np->output[i], buf) < 0)
			return -1;
	for (i = 0; i < np->n_attribute; i++)
		if (check_name(l, np->attribute[i]->name, buf) < 0)
			return -1;
	if (!np->op_type || !*np->op_type)
		return oerr(l, "node %zu%s%s%s: missing op_type", idx, np->name ? " ('" : "",
		            np->name ? np->name : "", np->name ? "')" : "");
	if (np->name && *np->name) {
		nd->name = sym__model_strdup(l->m, np->name);
	} else {
		/* an unnamed node is named after its whole operator and its
		 * index, which keeps the name unique */
		const char *full = at(l, &l->at_attr, "%s%s_%zu", l->gpath ? l->gpath : "", np->op_type, idx);
		if (!full)
			return -1;
		nd->name = sym__model_strdup(l->m, full);
	}
	nd->op = sym__model_strdup(l->m, np->op_type);
	nd->domain = sym__model_strdup(l->m, np->domain && strcmp(np->domain, "ai.onnx") ? np->domain : "");
	if (!nd->name || !nd->op || !nd->domain)
		return nomem(l);
	nd->nin = np->n_input;
	nd->in = sym__model_alloc(l->m, (np->n_input ? np->n_input : 1) * sizeof(*nd->in));
	nd->nout = np->n_output;
	nd->out = sym__model_alloc(l->m, (np->n_output ? np->n_output : 1) * sizeof(*nd->out));
	if (!nd->in || !nd->out)
		return nomem(l);
	for (i = 0; i < np->n_input; i++)
		if (!(nd->in[i] = sym__model_strdup(l->m, np->input[i] ? np->input[i] : "")))
			return nomem(l);
	if (np->n_output == 0)
		return oerr(l, "node '%s': no outputs", nd->name);
	for (i = 0; i < np->n_output; i++) {
		/* an omitted optional output gets a name of its own, which no
		 * ONNX tensor name can have */
		if (np->output[i] && *np->output[i]) {
			nd->out[i] = sym__model_strdup(l->m, np->output[i]);
		} else {
			const char *name = at(l, &l->at_attr, "%s:unused%zu", nd->name, i);
			if (!name)
				return -1;
			nd->out[i] = sym__model_strdup(l->m, name);
		}
		if (!nd->out[i])
			return nomem(l);
	}
	nd->attrs = sym__model_alloc(l->m, (np->n_attribute ? np->n_attribute : 1) * sizeof(*nd->attrs));
	if (!nd->attrs)
		return nomem(l);
	for (i = 0; i < np->n_attribute; i++) {
		const OnnxAttr *a = np->attribute[i];
		int type = a->has_type ? a->type : guess_type(a);
		if (type == AT_GRAPH || type == AT_GRAPHS)
			nd->ngraphs += type == AT_GRAPH ? (a->g ? 1 : 0) : a->n_graphs;
	}
	nd->graphs = sym__model_alloc(l->m, (nd->ngraphs ? nd->ngraphs : 1) * sizeof(*nd->graphs));
	if (!nd->graphs)
		return nomem(l);
	nd->ngraphs = 0;
	for (i = 0; i < np->n_attribute; i++) {
		const OnnxAttr *a = np->attribute[i];
		int type = a->has_type ? a->type : guess_type(a), st;
		size_t k;
		if (type == AT_GRAPH || type == AT_GRAPHS) {
			if (!a->name || !*a->name)
				return oerr(l, "node '%s': an attribute has no name", nd->name);
			if (type == AT_GRAPH && !a->g)
				return oerr(l, "node '%s' attribute '%s': of type GRAPH without a graph",
				            nd->name, a->name);
			for (k = 0; k < (type == AT_GRAPH ? 1 : a->n_graphs); k++)
				if (load_subgraph(l, nd, a->name, type == AT_GRAPH ? a->g : a->graphs[k],
				                  &nd->graphs[nd->ngraphs++]) < 0)
					return -1;
			continue;
		}
		st = load_attr(l, nd, a, &nd->attrs[nd->nattr]);
		if (st < 0)
			return -1;
		nd->nattr += (size_t)st;
	}
	return 0;
}

/* ---- the model ------------------------------------------------------------ */

/* A set of names (open addressing); the initializer names. */
typedef struct nameset {
	const char **slot;
	size_t cap;
} nameset;

static size_t name_hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int nameset_has(const nameset *s, const char *name)
{
	size_t j;
	if (!s->cap)
		return 0;
	for (j = name_hash(name) & (s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (!strcmp(s->slot[j], name))
			return 1;
	return 0;
}

static void nameset_add(nameset *s, const char *name)
{
	size_t j;
	for (j = name_hash(name) & (s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (!strcmp(s->slot[j], name))
			return;
	s->slot[j] = name;
}

static int load_graph(ld *l, const OnnxGraph *g)
{
	sym_model *m = l->m;
	nameset inits = {NULL, 0};
	size_t i, k;
	const char *what;
	int st = -1;
	for (inits.cap = 16; inits.cap < 2 * g->n_initializer + 2; inits.cap *= 2)
		;
	if ((inits.slot = sym__alloc(l->ctx, inits.cap * sizeof(*inits.slot))))
		memset(inits.slot, 0, inits.cap * sizeof(*inits.slot));
	m->inits = sym__model_alloc(m, (g->n_initializer ? g->n_initializer : 1) * sizeof(*m->inits));
	m->inputs = sym__model_alloc(m, (g->n_input ? g->n_input : 1) * sizeof(*m->inputs));
	m->nodes = sym__model_alloc(m, (g->n_node ? g->n_node : 1) * sizeof(*m->nodes));
	m->outputs = sym__model_alloc(m, (g->n_output ? g->n_output : 1) * sizeof(*m->outputs));
	m->declared = sym__model_alloc(m, (g->n_output + g->n_value_info + 1) * sizeof(*m->declared));
	if (!inits.slot || !m->inits || !m->inputs || !m->nodes || !m->outputs || !m->declared) {
		nomem(l);
		goto out;
	}
	for (i = 0; i < g->n_initializer; i++) {
		const OnnxTensor *tp = g->initializer[i];
		if (!tp->name || !*tp->name) {
			oerr(l, "initializer %zu: missing name", i);
			goto out;
		}
		if (!(what = at(l, &l->at_graph, "initializer %zu", i)) ||
		    check_name(l, tp->name, what) < 0 ||
		    !(what = at(l, &l->at_graph, "initializer '%s'", tp->name)))
			goto out;
		if (!(m->inits[i].name = sym__model_strdup(m, tp->name))) {
			nomem(l);
			goto out;
		}
		if (load_tensor(l, tp, what, &m->inits[i]) < 0)
			goto out;
		nameset_add(&inits, tp->name);
	}
	m->ninits = g->n_initializer;
	/* graph inputs that an initializer gives a default (IR < 4 lists
	 * every initializer as an input) are not inputs of the model */
	for (i = 0; i < g->n_input; i++) {
		if (g->input[i]->name && nameset_has(&inits, g->input[i]->name))
			continue;
		if (!(what = at(l, &l->at_graph, "graph input %zu", i)) ||
		    load_value_info(l, g->input[i], what, &m->inputs[m->ninputs]) < 0)
			goto out;
		m->ninputs++;
	}
	for (i = 0; i < g->n_node; i++)
		if (load_node(l, g->node[i], i, &m->nodes[i]) < 0)
			goto out;
	m->nnodes = g->n_node;
	for (i = 0; i < g->n_output; i++) {
		if (!(what = at(l, &l->at_graph, "graph output %zu", i)) ||
		    load_value_info(l, g->output[i], what, &m->declared[m->ndeclared]) < 0)
			goto out;
		m->outputs[i] = m->declared[m->ndeclared].name;
		m->ndeclared++;
	}
	m->noutputs = g->n_output;
	for (i = 0; i < g->n_value_info; i++) {
		if (!(what = at(l, &l->at_graph, "value_info %zu", i)) ||
		    load_value_info(l, g->value_info[i], what, &m->declared[m->ndeclared]) < 0)
			goto out;
		m->ndeclared++;
	}
	/* declared shapes with nothing to compare are dropped */
	for (i = k = 0; i < m->ndeclared; i++)
		if (m->declared[i].rank >= 0)
			m->declared[k++] = m->declared[i];
	m->ndeclared = k;
	st = 0;
out:
	sym__free(l->ctx, inits.slot, inits.cap * sizeof(*inits.slot));
	return st;
}

/* Frees what the loader kept besides the model. */
static void loader_clear(ld *l)
{
	sym__free(l->ctx, l->names, l->capnames * sizeof(*l->names));
	sym__sbuf_clear(&l->at_graph);
	sym__sbuf_clear(&l->at_attr);
}

sym_model *sym_model_from_onnx(sym_ctx *ctx, const void *data, size_t len)
{
	/* the weights are dropped before unpacking, which would copy them */
	char *slim;
	size_t n, cap;
	sym_model *m;
	int st;
	if (sym__failed(ctx))
		return NULL;
	if ((st = sym__onnx_slim_mem(ctx, data, len, &slim, &n, &cap)) < 0)
		return NULL;
	if (st == 0)
		return sym__model_from_onnx_buffer(ctx, data, len);
	m = sym__model_from_onnx_buffer(ctx, slim, n);
	sym__free(ctx, slim, cap);
	if (!m && sym_ctx_last_error(ctx) != SYM_ENOMEM) {
		/* a fault the copy passed over: the message names its place in
		 * data, not in the copy */
		sym_ctx_clear_error(ctx);
		m = sym__model_from_onnx_buffer(ctx, data, len);
	}
	return m;
}

sym_model *sym__model_from_onnx_buffer(sym_ctx *ctx, const void *data, size_t len)
{
	OnnxModel *mp;
	ld l;
	size_t i;
	int64_t opset = -1;
	if (sym__failed(ctx))
		return NULL;
	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	mp = symshape_onnx__model_proto__unpack(NULL, len, data);
	{
		sym_sbuf why;
		sym__sbuf_init(&why, ctx);
		sym__onnx_diagnose(&why, data, len);
		if (!mp || why.n || why.fail) {
			if (mp)
				symshape_onnx__model_proto__free_unpacked(mp, NULL);
			sym__error(ctx, SYM_ESYNTAX, -1, "onnx: not an ONNX model (truncated or corrupt)%s%s",
			           why.n ? ": " : "", why.n ? why.s : "");
			sym__sbuf_clear(&why);
			return NULL;
		}
		sym__sbuf_clear(&why);
	}
	sym__sbuf_init(&l.at_graph, ctx);
	sym__sbuf_init(&l.at_attr, ctx);
	if (!(l.m = sym__model_new(ctx))) {
		symshape_onnx__model_proto__free_unpacked(mp, NULL);
		return NULL;
	}
	if (!mp->graph) {
		oerr(&l, "the model has no graph (ModelProto field 7)");
		goto fail;
	}
	for (i = 0; i < mp->n_opset_import; i++) {
		const OnnxOpset *o = mp->opset_import[i];
		if ((!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) && o->has_version)
			opset = o->version;
	}
	/* an absent or out-of-range opset is reported on every ONNX node by
	 * inference; 0 stands for "none" */
	l.m->opset = opset < 0 || opset > 1000 ? 0 : (int)opset;
	if (load_graph(&l, mp->graph) < 0 || sym__model_link(l.m) < 0)
		goto fail;
	loader_clear(&l);
	symshape_onnx__model_proto__free_unpacked(mp, NULL);
	return l.m;
fail:
	loader_clear(&l);
	symshape_onnx__model_proto__free_unpacked(mp, NULL);
	sym_model_free(l.m);
	return NULL;
}
