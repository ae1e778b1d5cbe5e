/* The model IR container: its memory, names, initializer values and the
 * public model accessors.  The loaders (model_json.c, model_onnx.c) fill
 * it; nothing here knows a file format. */
#include "model/ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sym_model *sym__model_new(sym_ctx *ctx)
{
	sym_model *m = sym__alloc(ctx, sizeof(*m));
	if (m) {
		memset(m, 0, sizeof(*m));
		m->ctx = ctx;
	}
	return m;
}

/* Every block of a model, from names to initializer values, is carved
 * from the model's chunks (a model has a few names and arrays per node)
 * and zeroed. */
void *sym__model_alloc(sym_model *m, size_t n)
{
	return sym__carve_zeroed(m->ctx, &m->blocks, n);
}

char *sym__model_strdup(sym_model *m, const char *s)
{
	return sym__carve_strdup(m->ctx, &m->blocks, s);
}

int sym__load_verror(sym_ctx *ctx, const char *prefix, const char *fmt, va_list ap)
{
	sym_sbuf b;
	sym__sbuf_init(&b, ctx);
	sym__sbuf_printf(&b, "%s: ", prefix);
	sym__sbuf_vprintf(&b, fmt, ap);
	if (!b.fail && b.s)
		sym__error(ctx, SYM_EDOMAIN, -1, "%s", b.s);
	else
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	sym__sbuf_clear(&b);
	return -1;
}

int sym__load_nomem(sym_ctx *ctx)
{
	sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	return -1;
}

const char *sym__load_vat(sym_ctx *ctx, sym_sbuf *b, const char *fmt, va_list ap)
{
	b->n = 0;
	if (b->s)
		b->s[0] = 0;
	sym__sbuf_vprintf(b, fmt, ap);
	if (b->fail || !b->s) {
		sym__load_nomem(ctx);
		return NULL;
	}
	return b->s;
}

int sym__load_check_name(sym_ctx *ctx, const char *prefix, const char *s, const char *what)
{
	if (!sym__model_name_has_control(s))
		return 0;
	sym__error(ctx, SYM_EDOMAIN, -1, "%s: %s: a name contains a control character", prefix, what);
	return -1;
}

int sym__model_name_has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

void sym_model_free(sym_model *m)
{
	if (!m)
		return;
	sym__carve_free(m->ctx, &m->blocks);
	sym__free(m->ctx, m, sizeof(*m));
}

size_t sym_model_num_inputs(const sym_model *m)
{
	return m->ninputs;
}
const char *sym_model_input_name(const sym_model *m, size_t i)
{
	return i < m->ninputs ? m->inputs[i].name : NULL;
}
int sym_model_input_rank(const sym_model *m, size_t i)
{
	return i < m->ninputs ? m->inputs[i].rank : -1;
}
size_t sym_model_num_outputs(const sym_model *m)
{
	return m->noutputs;
}
const char *sym_model_output_name(const sym_model *m, size_t i)
{
	return i < m->noutputs ? m->outputs[i] : NULL;
}

const sym_expr *sym__expr_from_double(sym_ctx *ctx, double v)
{
	int e;
	double m;
	long long mi;
	if (!isfinite(v)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "%s is not a finite number", isnan(v) ? "NaN" : "infinity");
		return NULL;
	}
	m = frexp(v, &e); /* v = m * 2**e, 0.5 <= |m| < 1 */
	mi = (long long)ldexp(m, 53);
	return sym_expr_mul(ctx, sym_expr_from_si(ctx, mi),
	                    sym_expr_pow_si(ctx, sym_expr_from_si(ctx, 2), e - 53));
}

/* ---- outer references of subgraphs ---------------------------------------- */

/* Whether graph g defines the tensor name (an input, an initializer, a
 * node output). */
static int graph_defines(const sym_mgraph *g, const char *name)
{
	size_t i, j;
	for (i = 0; i < g->ninputs; i++)
		if (!strcmp(g->inputs[i].name, name))
			return 1;
	for (i = 0; i < g->ninits; i++)
		if (!strcmp(g->inits[i].name, name))
			return 1;
	for (i = 0; i < g->nnodes; i++)
		for (j = 0; j < g->nodes[i].nout; j++)
			if (!strcmp(g->nodes[i].out[j], name))
				return 1;
	return 0;
}

/* Adds name to the outer references of nd unless it is there already. */
static int add_outer(sym_model *m, sym_mnode *nd, size_t *cap, char *name)
{
	size_t i;
	for (i = 0; i < nd->nouter; i++)
		if (!strcmp(nd->outer[i], name))
			return 0;
	if (nd->nouter == *cap) {
		size_t nc = *cap ? 2 * *cap : 8;
		char **a = sym__model_alloc(m, nc * sizeof(*a));
		if (!a)
			return -1;
		if (nd->nouter)
			memcpy(a, nd->outer, nd->nouter * sizeof(*a));
		nd->outer = a, *cap = nc;
	}
	nd->outer[nd->nouter++] = name;
	return 0;
}

static int link_nodes(sym_model *m, sym_mnode *nodes, size_t nnodes);

/* The outer references of nd: what its subgraphs read (their nodes'
 * inputs, their nested nodes' outer references, their outputs) and do not
 * define themselves.  The loaders bound the nesting depth, so the
 * recursion is bounded. */
static int link_node(sym_model *m, sym_mnode *nd)
{
	size_t k, i, j, cap = 0;
	nd->nouter = 0;
	for (k = 0; k < nd->ngraphs; k++) {
		sym_mgraph *g = nd->graphs[k].graph;
		if (link_nodes(m, g->nodes, g->nnodes) < 0)
			return -1;
		for (i = 0; i < g->nnodes; i++) {
			const sym_mnode *b = &g->nodes[i];
			for (j = 0; j < b->nin; j++)
				if (*b->in[j] && !graph_defines(g, b->in[j]) &&
				    add_outer(m, nd, &cap, b->in[j]) < 0)
					return -1;
			for (j = 0; j < b->nouter; j++)
				if (!graph_defines(g, b->outer[j]) && add_outer(m, nd, &cap, b->outer[j]) < 0)
					return -1;
		}
		for (i = 0; i < g->noutputs; i++)
			if (!graph_defines(g, g->outputs[i]) && add_outer(m, nd, &cap, g->outputs[i]) < 0)
				return -1;
	}
	return 0;
}

static int link_nodes(sym_model *m, sym_mnode *nodes, size_t nnodes)
{
	size_t i;
	for (i = 0; i < nnodes; i++)
		if (nodes[i].ngraphs && link_node(m, &nodes[i]) < 0)
			return -1;
	return 0;
}

int sym__model_link(sym_model *m)
{
	if (link_nodes(m, m->nodes, m->nnodes) < 0)
		return sym__load_nomem(m->ctx);
	return 0;
}
