/* Writing an inference result back into its ONNX model.  The original
 * ModelProto is unpacked; the messages this file makes replace the graph's
 * inputs, outputs, value_info and the model's metadata_props only for the
 * time of packing, so that protobuf-c frees exactly what it allocated and
 * every field symshape does not model is written back unchanged. */
#include "infer/result.h"
#include "model/onnx_private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wb {
	sym_ctx *ctx;
	const sym_graph_result *r;
	sym_carver blocks; /* every message made here */
} wb;

/* Zeroed memory through the context, freed when the write is done. */
static void *walloc(wb *w, size_t n)
{
	return sym__carve_zeroed(w->ctx, &w->blocks, n);
}

static char *wstrdup(wb *w, const char *s)
{
	return sym__carve_strdup(w->ctx, &w->blocks, s);
}

/* The printed expression, owned by w. */
static char *wexpr(wb *w, const sym_expr *e)
{
	char *t = sym_expr_to_str(w->ctx, e), *r;
	if (!t)
		return NULL;
	r = wstrdup(w, t);
	sym_str_free(w->ctx, t);
	return r;
}

/* The printf-formatted text, owned by w; NULL when memory runs out. */
static char *wprintf(wb *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *wprintf(wb *w, const char *fmt, ...)
{
	sym_sbuf b;
	va_list ap;
	char *r;
	sym__sbuf_init(&b, w->ctx);
	va_start(ap, fmt);
	sym__sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = b.fail || !b.s ? NULL : wstrdup(w, b.s);
	sym__sbuf_clear(&b);
	return r;
}

/* A ValueInfoProto for a tensor of element type elem and the shape of tv
 * (no shape for an unknown rank). */
static OnnxValueInfo *make_vi(wb *w, const OnnxValueInfo *orig, const char *name, int elem,
                              const sym_tval *tv)
{
	OnnxValueInfo *vi = walloc(w, sizeof(*vi));
	OnnxType *ty = walloc(w, sizeof(*ty));
	OnnxTensorType *tt = walloc(w, sizeof(*tt));
	int k;
	if (!vi || !ty || !tt)
		return NULL;
	symshape_onnx__value_info_proto__init(vi);
	symshape_onnx__type_proto__init(ty);
	symshape_onnx__type_proto__tensor__init(tt);
	vi->name = (char *)name;
	vi->doc_string = orig ? orig->doc_string : NULL;
	vi->type = ty;
	if (orig && orig->type)
		ty->denotation = orig->type->denotation;
	ty->value_case = SYMSHAPE_ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	ty->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	if (tv->rank < 0)
		return vi;
	tt->shape = walloc(w, sizeof(*tt->shape));
	if (!tt->shape)
		return NULL;
	symshape_onnx__tensor_shape_proto__init(tt->shape);
	tt->shape->n_dim = (size_t)tv->rank;
	tt->shape->dim = walloc(w, (size_t)(tv->rank ? tv->rank : 1) * sizeof(*tt->shape->dim));
	if (!tt->shape->dim)
		return NULL;
	for (k = 0; k < tv->rank; k++) {
		OnnxDim *d = walloc(w, sizeof(*d));
		long long v;
		if (!d)
			return NULL;
		symshape_onnx__tensor_shape_proto__dimension__init(d);
		if (sym_expr_get_si(tv->dims[k], &v) == 1 && v >= 0) {
			d->value_case = SYMSHAPE_ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = v;
		} else {
			d->value_case = SYMSHAPE_ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			if (!(d->dim_param = wexpr(w, tv->dims[k])))
				return NULL;
		}
		tt->shape->dim[k] = d;
	}
	return vi;
}

static int orig_elem(const OnnxValueInfo *vi)
{
	if (vi && vi->type && vi->type->value_case == SYMSHAPE_ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
	    vi->type->tensor_type->has_elem_type)
		return vi->type->tensor_type->elem_type;
	return 0;
}

/* The tensor of the result called name when its shape was inferred (a
 * known or unknown rank), else NULL. */
static const gtensor *inferred(const sym_graph_result *r, const char *name)
{
	size_t i = name ? sym__graph_find(r, name) : (size_t)-1;
	if (i == (size_t)-1 || r->tensors[i].tv.rank < -1)
		return NULL;
	return &r->tensors[i];
}

/* A replacement for a declared value info (input or output), or the
 * original when the result knows nothing more. */
static OnnxValueInfo *redo_vi(wb *w, OnnxValueInfo *orig)
{
	const gtensor *t = inferred(w->r, orig->name);
	int elem = t && t->tv.dtype ? t->tv.dtype : orig_elem(orig);
	if (!t || t->tv.rank < 0 || !elem)
		return orig;
	if (orig->type && orig->type->value_case != SYMSHAPE_ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
	    orig->type->value_case != SYMSHAPE_ONNX__TYPE_PROTO__VALUE__NOT_SET)
		return orig;
	return make_vi(w, orig, orig->name, elem, &t->tv);
}

static int add_entry(wb *w, OnnxEntry **arr, size_t *n, const char *key, const char *value)
{
	OnnxEntry *e = walloc(w, sizeof(*e));
	if (!e)
		return -1;
	symshape_onnx__string_string_entry_proto__init(e);
	e->key = wstrdup(w, key);
	e->value = wstrdup(w, value);
	if (!e->key || !e->value)
		return -1;
	arr[(*n)++] = e;
	return 0;
}

/* The metadata: the model's own entries, then the guards and the symbols
 * with their sources. */
static int metadata(wb *w, const OnnxModel *mp, OnnxEntry ***out, size_t *nout)
{
	const sym_graph_result *r = w->r;
	size_t i, n = 0, cap = mp->n_metadata_props + r->nguards + r->nsyms + 1;
	OnnxEntry **arr = walloc(w, cap * sizeof(*arr));
	if (!arr)
		return -1;
	for (i = 0; i < mp->n_metadata_props; i++)
		if (!mp->metadata_props[i]->key || strncmp(mp->metadata_props[i]->key, "symshape.", 9))
			arr[n++] = mp->metadata_props[i];
	for (i = 0; i < r->nguards; i++) {
		const sym_guard *g = &r->guards[i];
		char *text = wexpr(w, g->pred), *val, *key;
		if (!text)
			return -1;
		val = wprintf(w, "%s %s: %s (%s)", g->kind == SYM_GUARD_ASSERT ? "assert" : "expect", g->node,
		              text, g->reason);
		key = wprintf(w, "symshape.guard.%zu", i);
		if (!val || !key || add_entry(w, arr, &n, key, val) < 0)
			return -1;
	}
	for (i = 0; i < r->nsyms; i++) {
		char *key = wprintf(w, "symshape.symbol.%s", sym_expr_symbol_name(r->syms[i].sym));
		if (!key || add_entry(w, arr, &n, key, r->syms[i].source) < 0)
			return -1;
	}
	*out = arr;
	*nout = n;
	return 0;
}

unsigned char *sym_graph_to_onnx(sym_ctx *ctx, const sym_graph_result *r, const void *model, size_t len,
                                 size_t *out_len)
{
	wb w;
	OnnxModel *mp;
	OnnxGraph *g;
	OnnxValueInfo **ins = NULL, **outs = NULL, **vis = NULL, **save_in, **save_out, **save_vi;
	OnnxEntry **meta = NULL, **save_meta;
	size_t nvis = 0, nmeta = 0, save_nvi, save_nmeta, i, j, cap;
	unsigned char *buf = NULL;
	char *done = NULL;
	if (sym__failed(ctx))
		return NULL;
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.r = r;
	mp = symshape_onnx__model_proto__unpack(NULL, len, model);
	if (!mp) {
		sym__error(ctx, SYM_ESYNTAX, -1, "onnx: not an ONNX model (truncated or corrupt)");
		return NULL;
	}
	if (!(g = mp->graph)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "onnx: the model has no graph (ModelProto field 7)");
		goto out;
	}
	/* done[t]: tensor t has a value info already (input or output) */
	done = walloc(&w, r->ntensors + 1);
	ins = walloc(&w, (g->n_input + 1) * sizeof(*ins));
	outs = walloc(&w, (g->n_output + 1) * sizeof(*outs));
	cap = g->n_value_info + r->ntensors + 1;
	vis = walloc(&w, cap * sizeof(*vis));
	if (!done || !ins || !outs || !vis)
		goto nomem;
	for (i = 0; i < g->n_input; i++) {
		size_t t = g->input[i]->name ? sym__graph_find(r, g->input[i]->name) : (size_t)-1;
		/* an input that an initializer defaults stays as declared */
		if (t != (size_t)-1 && !r->tensors[t].is_input)
			ins[i] = g->input[i];
		else if (!(ins[i] = redo_vi(&w, g->input[i])))
			goto nomem;
		if (t != (size_t)-1)
			done[t] = 1;
	}
	for (i = 0; i < g->n_output; i++) {
		size_t t = g->output[i]->name ? sym__graph_find(r, g->output[i]->name) : (size_t)-1;
		if (!(outs[i] = redo_vi(&w, g->output[i])))
			goto nomem;
		if (t != (size_t)-1)
			done[t] = 1;
	}
	/* every tensor a node produces, in node order */
	for (i = 0; i < g->n_node; i++)
		for (j = 0; j < g->node[i]->n_output; j++) {
			const char *name = g->node[i]->output[j];
			size_t t = name && *name ? sym__graph_find(r, name) : (size_t)-1;
			const gtensor *gt;
			OnnxValueInfo *orig = NULL;
			size_t k;
			int elem;
			if (t == (size_t)-1 || done[t] || !(gt = inferred(r, name)))
				continue;
			for (k = 0; k < g->n_value_info; k++)
				if (g->value_info[k]->name && !strcmp(g->value_info[k]->name, name))
					orig = g->value_info[k];
			elem = gt->tv.dtype ? gt->tv.dtype : orig_elem(orig);
			if (!elem)
				continue; /* an element type is required */
			if (!(vis[nvis] = make_vi(&w, orig, g->node[i]->output[j], elem, &gt->tv)))
				goto nomem;
			nvis++;
			done[t] = 1;
		}
	/* the model's value infos for tensors the result does not cover */
	for (i = 0; i < g->n_value_info; i++) {
		size_t t = g->value_info[i]->name ? sym__graph_find(r, g->value_info[i]->name) : (size_t)-1;
		if (t == (size_t)-1 || !done[t])
			vis[nvis++] = g->value_info[i];
	}
	if (metadata(&w, mp, &meta, &nmeta) < 0)
		goto nomem;
	save_in = g->input, save_out = g->output, save_vi = g->value_info, save_nvi = g->n_value_info;
	save_meta = mp->metadata_props, save_nmeta = mp->n_metadata_props;
	g->input = ins, g->output = outs, g->value_info = vis, g->n_value_info = nvis;
	mp->metadata_props = meta, mp->n_metadata_props = nmeta;
	*out_len = symshape_onnx__model_proto__get_packed_size(mp);
	buf = malloc(*out_len ? *out_len : 1);
	if (buf)
		symshape_onnx__model_proto__pack(mp, buf);
	g->input = save_in, g->output = save_out, g->value_info = save_vi, g->n_value_info = save_nvi;
	mp->metadata_props = save_meta, mp->n_metadata_props = save_nmeta;
	if (!buf)
		goto nomem;
	goto out;
nomem:
	sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
out:
	sym__carve_free(ctx, &w.blocks);
	symshape_onnx__model_proto__free_unpacked(mp, NULL);
	return buf;
}

int sym_graph_save_onnx(sym_ctx *ctx, const sym_graph_result *r, const char *model_path, const char *out_path)
{
	char *in;
	size_t n, cap, outn = 0;
	unsigned char *out;
	FILE *f;
	int ok, e;
	if (sym__failed(ctx) || sym__model_read_file(ctx, model_path, &in, &n, &cap) < 0)
		return -1;
	out = sym_graph_to_onnx(ctx, r, in, n, &outn);
	sym__free(ctx, in, cap);
	if (!out)
		return -1;
	f = fopen(out_path, "wb");
	ok = f && fwrite(out, 1, outn, f) == outn;
	e = errno;
	if (f && fclose(f) != 0 && ok)
		ok = 0, e = errno;
	if (!ok) {
		free(out);
		sym__error(ctx, SYM_EDOMAIN, -1, "cannot write '%s': %s", out_path, strerror(e));
		return -1;
	}
	free(out);
	return 0;
}
