/* The inference driver: symbolize the inputs, order the nodes, run one rule
 * per node, then simplify and prune the guards and build the merge keys. */
#include "facts_private.h"
#include "infer/result.h"
#include "print_private.h"
#include "storage_private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

size_t sym__graph_find(const sym_graph_result *r, const char *name)
{
	size_t j;
	if (!r->tcap)
		return (size_t)-1;
	for (j = hash_str(name) & (r->tcap - 1); r->table[j]; j = (j + 1) & (r->tcap - 1))
		if (!strcmp(r->tensors[r->table[j] - 1].name, name))
			return r->table[j] - 1;
	return (size_t)-1;
}

static int fail_nomem(sym_graph_result *r)
{
	sym__error(r->ctx, SYM_ENOMEM, -1, "out of memory");
	return -1;
}

static int gerr(sym_graph_result *r, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static int gerr(sym_graph_result *r, const char *fmt, ...)
{
	char msg[240];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sym__error(r->ctx, SYM_EDOMAIN, -1, "%s", msg);
	return -1;
}

static int table_rehash(sym_graph_result *r, size_t ncap)
{
	size_t *nt = calloc(ncap, sizeof(*nt)), i, j;
	if (!nt)
		return fail_nomem(r);
	for (i = 0; i < r->ntensors; i++) {
		for (j = hash_str(r->tensors[i].name) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = i + 1;
	}
	free(r->table);
	r->table = nt, r->tcap = ncap;
	return 0;
}

/* Adds a tensor; a name defined twice is an error. */
static gtensor *add_tensor(sym_graph_result *r, const char *name, long producer, const char *what)
{
	gtensor *t;
	size_t j;
	if (sym__graph_find(r, name) != (size_t)-1) {
		gerr(r, "model: tensor '%.80s' is defined twice (%s)", name, what);
		return NULL;
	}
	if (r->ntensors == r->captensors) {
		size_t nc = r->captensors ? r->captensors * 2 : 64;
		gtensor *nt = realloc(r->tensors, nc * sizeof(*nt));
		if (!nt) {
			fail_nomem(r);
			return NULL;
		}
		r->tensors = nt, r->captensors = nc;
	}
	if ((r->ntensors + 1) * 2 > r->tcap && table_rehash(r, r->tcap ? r->tcap * 2 : 256) < 0)
		return NULL;
	t = &r->tensors[r->ntensors];
	memset(t, 0, sizeof(*t));
	t->name = sym__infer_strdup(&r->inf, name);
	if (!t->name) {
		fail_nomem(r);
		return NULL;
	}
	t->producer = producer;
	t->tv.present = 1;
	t->tv.rank = -2;
	for (j = hash_str(name) & (r->tcap - 1); r->table[j]; j = (j + 1) & (r->tcap - 1))
		;
	r->table[j] = ++r->ntensors;
	return t;
}

static int add_error(sym_graph_result *r, const char *node, const char *msg)
{
	if (r->nerrors == r->caperrors) {
		size_t nc = r->caperrors ? r->caperrors * 2 : 8;
		gerror *ne = realloc(r->errors, nc * sizeof(*ne));
		if (!ne)
			return fail_nomem(r);
		r->errors = ne, r->caperrors = nc;
	}
	r->errors[r->nerrors].node = sym__infer_strdup(&r->inf, node);
	r->errors[r->nerrors].msg = sym__infer_strdup(&r->inf, msg);
	if (!r->errors[r->nerrors].node || !r->errors[r->nerrors].msg)
		return fail_nomem(r);
	r->nerrors++;
	return 0;
}

gsym *sym__graph_find_sym(const sym_graph_result *r, const sym_expr *s)
{
	size_t i;
	for (i = 0; i < r->nsyms; i++)
		if (r->syms[i].sym == s)
			return &r->syms[i];
	return NULL;
}

static int add_sym(sym_graph_result *r, const sym_expr *s, const char *source)
{
	gsym *g;
	if (sym__graph_find_sym(r, s))
		return 0;
	if (r->nsyms == r->capsyms) {
		size_t nc = r->capsyms ? r->capsyms * 2 : 16;
		gsym *ns = realloc(r->syms, nc * sizeof(*ns));
		if (!ns)
			return fail_nomem(r);
		r->syms = ns, r->capsyms = nc;
	}
	g = &r->syms[r->nsyms++];
	g->sym = s;
	g->source = sym__infer_strdup(&r->inf, source);
	g->min = g->max = NULL;
	return g->source ? 0 : fail_nomem(r);
}

/* A fresh symbol name for an anonymous dim: the input name (as an
 * identifier) and the dim index, made unique. */
static const sym_expr *anon_symbol(sym_graph_result *r, const char *input, int k)
{
	char name[96];
	size_t i, n = 0;
	const sym_expr *s;
	for (i = 0; input[i] && n < 60; i++) {
		char c = input[i];
		int ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		name[n++] = ok ? c : '_';
	}
	if (!n || (name[0] >= '0' && name[0] <= '9'))
		name[0] = n ? '_' : 'd', n = n ? n : 1;
	snprintf(name + n, sizeof(name) - n, "_%d", k);
	for (;;) {
		s = sym_expr_symbol(r->ctx, name);
		if (!s || !sym__graph_find_sym(r, s))
			return s;
		strcat(name, "_");
	}
}

static int symbolize_inputs(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i;
	char src[160];
	for (i = 0; i < m->ninputs; i++) {
		const sym_mtensor *mt = &m->inputs[i];
		gtensor *t = add_tensor(r, mt->name, -1, "an input");
		int k;
		if (!t)
			return -1;
		t->is_input = 1;
		t->tv.dtype = mt->dtype;
		t->tv.rank = mt->rank;
		if (mt->rank < 0)
			continue;
		t->tv.dims = sym__infer_alloc(&r->inf, (size_t)(mt->rank ? mt->rank : 1) * sizeof(*t->tv.dims));
		if (!t->tv.dims)
			return fail_nomem(r);
		for (k = 0; k < mt->rank; k++) {
			const sym_expr *d = NULL;
			snprintf(src, sizeof(src), "%.120s.shape[%d]", mt->name, k);
			switch (mt->dims[k].kind) {
			case SYM_DIM_CONST:
				d = sym_expr_from_si(r->ctx, mt->dims[k].value);
				break;
			case SYM_DIM_ANON:
				d = anon_symbol(r, mt->name, k);
				if (d && add_sym(r, d, src) < 0)
					return -1;
				break;
			case SYM_DIM_EXPR: {
				const sym_expr *found[16];
				size_t ns, j;
				d = sym_expr_from_str(r->ctx, mt->dims[k].text);
				if (!d) {
					char msg[256];
					snprintf(msg, sizeof(msg), "%s", sym_ctx_last_message(r->ctx));
					sym_ctx_clear_error(r->ctx);
					return gerr(r, "model: input '%.60s' dim %d '%.60s': %s", mt->name, k,
						    mt->dims[k].text, msg);
				}
				if (sym_expr_is_pred(d))
					return gerr(r, "model: input '%.60s' dim %d is a predicate", mt->name, k);
				ns = sym_expr_symbols(r->ctx, d, found, 16);
				for (j = 0; j < ns && j < 16; j++) {
					char dsrc[300];
					if (sym_expr_kind(d) == SYM_KIND_SYM)
						snprintf(dsrc, sizeof(dsrc), "%s", src);
					else
						snprintf(dsrc, sizeof(dsrc), "%s == %.60s", src, mt->dims[k].text);
					if (add_sym(r, found[j], dsrc) < 0)
						return -1;
				}
				break;
			}
			}
			if (!d)
				return -1;
			t->tv.dims[k] = d;
		}
	}
	return 0;
}

static int add_initializers(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i, j;
	for (i = 0; i < m->ninits; i++) {
		const sym_mtensor *mt = &m->inits[i];
		gtensor *t = add_tensor(r, mt->name, -1, "an initializer");
		int k;
		if (!t)
			return -1;
		t->tv.dtype = mt->dtype;
		t->tv.rank = mt->rank;
		t->tv.dims = sym__infer_alloc(&r->inf, (size_t)(mt->rank ? mt->rank : 1) * sizeof(*t->tv.dims));
		if (!t->tv.dims)
			return fail_nomem(r);
		for (k = 0; k < mt->rank; k++)
			t->tv.dims[k] = sym_expr_from_si(r->ctx, mt->dims[k].value);
		if (mt->has_data && mt->ndata <= 65536) {
			const sym_expr **v = sym__infer_alloc(&r->inf, (mt->ndata ? mt->ndata : 1) * sizeof(*v));
			if (!v)
				return fail_nomem(r);
			for (j = 0; j < mt->ndata; j++)
				v[j] = sym_expr_from_si(r->ctx, mt->data[j]);
			t->tv.has_value = 1, t->tv.nvalue = mt->ndata, t->tv.value = v;
		} else if (mt->fdata) {
			/* small floating-point tensors (Resize scales) as exact rationals */
			const sym_expr **v = sym__infer_alloc(&r->inf, (mt->nfdata ? mt->nfdata : 1) * sizeof(*v));
			if (!v)
				return fail_nomem(r);
			for (j = 0; j < mt->nfdata; j++)
				if (!(v[j] = sym__expr_from_double(r->ctx, mt->fdata[j])))
					return -1;
			t->tv.has_value = 1, t->tv.nvalue = mt->nfdata, t->tv.value = v;
		}
	}
	return sym__failed(r->ctx) ? -1 : 0;
}

/* Declares every node output (a name produced twice is an error) and
 * checks that every input exists; then orders the nodes (Kahn). */
static int order_nodes(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i, j, *indeg, *queue, head = 0, tail = 0, nedges = 0, *first, *next, *dst;
	for (i = 0; i < m->nnodes; i++)
		for (j = 0; j < m->nodes[i].nout; j++) {
			char what[120];
			snprintf(what, sizeof(what), "an output of node '%.60s'", m->nodes[i].name);
			if (!add_tensor(r, m->nodes[i].out[j], (long)i, what))
				return -1;
		}
	for (i = 0; i < m->nnodes; i++)
		for (j = 0; j < m->nodes[i].nin; j++)
			if (*m->nodes[i].in[j] && sym__graph_find(r, m->nodes[i].in[j]) == (size_t)-1)
				return gerr(r, "model: node '%.60s' reads tensor '%.60s', which nothing defines",
					    m->nodes[i].name, m->nodes[i].in[j]);
	for (i = 0; i < m->noutputs; i++)
		if (sym__graph_find(r, m->outputs[i]) == (size_t)-1)
			return gerr(r, "model: output '%.60s' is not a tensor of the graph", m->outputs[i]);
	for (i = 0; i < m->nnodes; i++)
		nedges += m->nodes[i].nin;
	indeg = calloc(m->nnodes + 1, sizeof(*indeg));
	queue = calloc(m->nnodes + 1, sizeof(*queue));
	first = malloc((m->nnodes + 1) * sizeof(*first));
	next = malloc((nedges + 1) * sizeof(*next));
	dst = malloc((nedges + 1) * sizeof(*dst));
	r->order = malloc((m->nnodes + 1) * sizeof(*r->order));
	if (!indeg || !queue || !first || !next || !dst || !r->order) {
		free(indeg), free(queue), free(first), free(next), free(dst);
		return fail_nomem(r);
	}
	for (i = 0; i < m->nnodes; i++)
		first[i] = (size_t)-1;
	nedges = 0;
	for (i = 0; i < m->nnodes; i++)
		for (j = 0; j < m->nodes[i].nin; j++) {
			size_t t;
			long p;
			if (!*m->nodes[i].in[j])
				continue;
			t = sym__graph_find(r, m->nodes[i].in[j]);
			p = r->tensors[t].producer;
			if (p < 0)
				continue;
			indeg[i]++;
			dst[nedges] = i;
			next[nedges] = first[p];
			first[p] = nedges++;
		}
	for (i = 0; i < m->nnodes; i++)
		if (!indeg[i])
			queue[tail++] = i;
	while (head < tail) {
		size_t n = queue[head++], e;
		r->order[r->norder++] = n;
		for (e = first[n]; e != (size_t)-1; e = next[e])
			if (--indeg[dst[e]] == 0)
				queue[tail++] = dst[e];
	}
	if (r->norder != m->nnodes) {
		for (i = 0; i < m->nnodes && !indeg[i]; i++)
			;
		gerr(r, "model: the graph has a cycle through node '%.60s'", m->nodes[i].name);
	}
	free(indeg), free(queue), free(first), free(next), free(dst);
	return sym__failed(r->ctx) ? -1 : 0;
}

/* ONNX operators are read for opsets 7 to 21; other domains than ONNX and
 * CANN have no rules.  Returns 1 with an error entry for the node, 0 when
 * the node can be run, -1 on a fatal error. */
static int unsupported_domain_or_opset(sym_graph_result *r, const sym_mnode *nd)
{
	char msg[240];
	int opset = r->model->opset;
	if (*nd->domain && strcmp(nd->domain, "cann"))
		snprintf(msg, sizeof(msg), "node '%.60s' (%.40s): unsupported domain '%.60s'", nd->name, nd->op,
			 nd->domain);
	else if (!*nd->domain && (opset < 7 || opset > 21))
		snprintf(msg, sizeof(msg), "node '%.60s' (%.40s): unsupported opset %d (7 to 21 are read)", nd->name,
			 nd->op, opset);
	else
		return 0;
	return add_error(r, nd->name, msg) < 0 ? -1 : 1;
}

static int run_nodes(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t k, j;
	sym_tval *ins = NULL, *outs = NULL;
	size_t capin = 0, capout = 0;
	int status = 0;
	for (k = 0; k < r->norder && status == 0; k++) {
		const sym_mnode *nd = &m->nodes[r->order[k]];
		const char *blocked = NULL;
		if (nd->nin > capin) {
			free(ins);
			capin = nd->nin * 2;
			ins = malloc(capin * sizeof(*ins));
		}
		if (nd->nout > capout) {
			free(outs);
			capout = nd->nout * 2;
			outs = malloc(capout * sizeof(*outs));
		}
		if ((nd->nin && !ins) || !outs) {
			status = fail_nomem(r);
			break;
		}
		for (j = 0; j < nd->nin; j++) {
			if (!*nd->in[j]) {
				memset(&ins[j], 0, sizeof(ins[j]));
				ins[j].rank = -1;
				continue;
			}
			ins[j] = r->tensors[sym__graph_find(r, nd->in[j])].tv;
			if (ins[j].rank == -2)
				blocked = nd->in[j];
		}
		if (blocked) {
			char msg[300];
			snprintf(msg, sizeof(msg), "node '%.60s' (%.40s): not inferred: input '%.60s' is unknown", nd->name,
				 nd->op, blocked);
			if (add_error(r, nd->name, msg) < 0)
				status = -1;
			continue;
		}
		if (unsupported_domain_or_opset(r, nd) != 0) {
			status = sym__failed(r->ctx) ? -1 : 0;
			continue;
		}
		if (sym__rule_run(&r->inf, nd->domain, nd->op, nd->name, m->opset, nd->nin, ins, nd->nattr, nd->attrs,
				  nd->nout, outs) < 0) {
			sym_status st = sym_ctx_last_error(r->ctx);
			if (st == SYM_ENOMEM || r->inf.fatal) {
				status = -1;
				break;
			}
			if (add_error(r, nd->name, sym_ctx_last_message(r->ctx)) < 0) {
				status = -1;
				break;
			}
			sym_ctx_clear_error(r->ctx);
			continue;
		}
		for (j = 0; j < nd->nout; j++)
			r->tensors[sym__graph_find(r, nd->out[j])].tv = outs[j];
	}
	free(ins);
	free(outs);
	return status;
}

/* A declared dim contradicts the inferred one when the two are different
 * constants, or when the inferred dim is proven to differ from a declared
 * constant. */
static int dim_contradicts(sym_graph_result *r, const sym_dimspec *ds, const sym_expr *d)
{
	const sym_expr *c;
	sym_truth t;
	if (ds->kind != SYM_DIM_CONST)
		return 0;
	if (!(c = sym_expr_from_si(r->ctx, ds->value)))
		return -1;
	t = sym_prove(r->ctx, r->facts, sym_expr_rel(r->ctx, SYM_REL_EQ, d, c));
	if (sym__failed(r->ctx)) {
		if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
			return -1;
		sym_ctx_clear_error(r->ctx);
		return 0;
	}
	return t == SYM_FALSE;
}

/* Compares the shapes the model declares (ONNX value_info and outputs)
 * with the inferred ones; a contradiction is an error entry naming the
 * tensor. */
static int check_declared(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i;
	for (i = 0; i < m->ndeclared; i++) {
		const sym_mtensor *dt = &m->declared[i];
		size_t t = sym__graph_find(r, dt->name);
		const sym_tval *tv;
		char msg[300], *text;
		const char *node;
		int k, c;
		if (t == (size_t)-1 || dt->rank < 0)
			continue;
		tv = &r->tensors[t].tv;
		node = r->tensors[t].producer >= 0 ? m->nodes[r->tensors[t].producer].name : dt->name;
		if (tv->rank < 0)
			continue;
		if (tv->rank != dt->rank) {
			snprintf(msg, sizeof(msg), "tensor '%.60s': declared rank %d, inferred rank %d", dt->name, dt->rank,
				 tv->rank);
			if (add_error(r, node, msg) < 0)
				return -1;
			continue;
		}
		for (k = 0; k < tv->rank; k++) {
			if ((c = dim_contradicts(r, &dt->dims[k], tv->dims[k])) < 0)
				return -1;
			if (!c)
				continue;
			text = sym_expr_to_str(r->ctx, tv->dims[k]);
			snprintf(msg, sizeof(msg), "tensor '%.60s': dim %d is declared %lld, inferred %.80s", dt->name, k,
				 (long long)dt->dims[k].value, text ? text : "?");
			sym_str_free(r->ctx, text);
			if (add_error(r, node, msg) < 0)
				return -1;
			break;
		}
	}
	return 0;
}

/* Collects into *out the guards to prune: r's own, then, when r was inferred
 * with hints, the asserts of the model inferred without them that r lacks.
 * A rule that takes a hinted branch states the choice as an expect and
 * works under it, so validity conditions the expect implies are never
 * stated; they hold whatever the hints, and with them a hinted program
 * still tells invalid input from a failed choice.  Returns the count, or
 * (size_t)-1 when memory runs out. */
static size_t guards_to_prune(sym_graph_result *r, const sym_infer_options *opt, sym_guard **out)
{
	sym_infer_options plain;
	sym_graph_result *r0 = NULL;
	size_t n = r->inf.nguards, i, j, k;
	*out = NULL;
	if (opt && opt->nhints) {
		plain = *opt;
		plain.nhints = 0, plain.hint_names = NULL, plain.hint_values = NULL;
		if (!(r0 = sym_model_infer(r->ctx, r->model, &plain)))
			sym_ctx_clear_error(r->ctx); /* then the asserts r states */
	}
	*out = calloc(n + (r0 ? r0->nguards : 0) + 1, sizeof(**out));
	if (!*out) {
		sym_graph_result_free(r0);
		fail_nomem(r);
		return (size_t)-1;
	}
	if (n)
		memcpy(*out, r->inf.guards, n * sizeof(**out));
	for (i = 0; r0 && i < r0->nguards; i++) {
		const sym_guard *g = &r0->guards[i];
		const sym_expr *syms[16];
		size_t ns = sym_expr_symbols(r->ctx, g->pred, syms, 16);
		if (g->kind != SYM_GUARD_ASSERT || ns > 16)
			continue;
		for (k = 0; k < ns && sym__graph_find_sym(r, syms[k]); k++)
			;
		for (j = 0; j < n && r->inf.guards[j].pred != g->pred; j++)
			;
		if (k < ns || j < n)
			continue; /* a symbol r does not have, or a guard r states */
		(*out)[n] = *g;
		(*out)[n].node = sym__infer_strdup(&r->inf, g->node);
		(*out)[n].reason = sym__infer_strdup(&r->inf, g->reason);
		if (!(*out)[n].node || !(*out)[n].reason) {
			sym_graph_result_free(r0);
			free(*out);
			*out = NULL;
			fail_nomem(r);
			return (size_t)-1;
		}
		n++;
	}
	sym_graph_result_free(r0);
	return n;
}

/* Drops the guards implied by the symbol ranges and the other guards: an
 * expect by any guards, an assert by the asserts alone (an expect is a
 * choice of the hints, so a hinted program still tells invalid input from a
 * failed choice).  Guard i is tested against the guards of that kind kept
 * before it and every one after it; by induction from the last guard, the
 * kept ones imply every dropped one (two guards implying each other keep
 * the first), and the kept asserts every dropped assert. */
/* After a facts or prover call that failed: out of memory fails the pass
 * (-1, the error kept); any other failure (a limit, say) only means the
 * fact or the proof is not had, and is cleared (0). */
static int soft_failure(sym_graph_result *r)
{
	if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
		return -1;
	sym_ctx_clear_error(r->ctx);
	return 0;
}

static int prune_guards(sym_graph_result *r, const sym_infer_options *opt)
{
	sym_guard *all;
	size_t n = guards_to_prune(r, opt, &all), i, j, w = 0;
	if (n == (size_t)-1)
		return -1;
	r->guards = calloc(n + 1, sizeof(*r->guards));
	if (!r->guards) {
		free(all);
		return fail_nomem(r);
	}
	for (i = 0; i < n; i++) {
		const sym_guard *g = &all[i];
		int implied = 0, asserts_only = g->kind == SYM_GUARD_ASSERT;
		if (n <= 256) {
			sym_facts *f = sym__graph_range_facts(r);
			if (!f) {
				free(all);
				return -1;
			}
			int st = 0;
			for (j = 0; j < w && !st; j++)
				if ((!asserts_only || r->guards[j].kind == SYM_GUARD_ASSERT) &&
				    sym_facts_assume(f, r->guards[j].pred) != SYM_EOK)
					st = soft_failure(r);
			for (j = i + 1; j < n && !st; j++)
				if ((!asserts_only || all[j].kind == SYM_GUARD_ASSERT) &&
				    sym_facts_assume(f, all[j].pred) != SYM_EOK)
					st = soft_failure(r);
			if (!st)
				implied = sym_prove(r->ctx, f, g->pred) == SYM_TRUE;
			sym_facts_free(f);
			if (!st && sym__failed(r->ctx))
				st = soft_failure(r);
			if (st) {
				free(all);
				return -1;
			}
		}
		if (!implied)
			r->guards[w++] = *g;
	}
	free(all);
	r->nguards = w;
	/* asserts before expects (stable): a run that reaches an expect guard
	 * has checked every validity condition, so a failing expect guard
	 * means "recompile", never "maybe invalid" */
	{
		sym_guard *tmp = calloc(w + 1, sizeof(*tmp));
		size_t k = 0;
		if (!tmp)
			return fail_nomem(r);
		for (i = 0; i < w; i++)
			if (r->guards[i].kind == SYM_GUARD_ASSERT)
				tmp[k++] = r->guards[i];
		for (i = 0; i < w; i++)
			if (r->guards[i].kind != SYM_GUARD_ASSERT)
				tmp[k++] = r->guards[i];
		memcpy(r->guards, tmp, w * sizeof(*tmp));
		free(tmp);
	}
	return 0;
}

static int key_cmp(const void *x, const void *y)
{
	const gkey *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	return c ? c : (a->n > b->n) - (a->n < b->n); /* then model order */
}

/* The merge key of a node: its output shapes printed canonically, one
 * bracket per output, "[d0, d1][d0]" ("[*]" for an unknown rank).  A
 * top-level ", " or "][" cannot occur inside a printed expression, so two
 * nodes share a key exactly when their output shapes are the same. */
static int merge_keys(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i, j, nk = 0;
	gkey *all = calloc(m->nnodes + 1, sizeof(*all));
	r->node_keys = calloc(m->nnodes + 1, sizeof(*r->node_keys));
	if (!all || !r->node_keys) {
		free(all);
		return fail_nomem(r);
	}
	for (i = 0; i < m->nnodes; i++) {
		sym_sbuf b;
		int ok = 1;
		sym__sbuf_init(&b, r->ctx);
		for (j = 0; j < m->nodes[i].nout && ok; j++) {
			const sym_tval *tv = &r->tensors[sym__graph_find(r, m->nodes[i].out[j])].tv;
			int d;
			if (tv->rank < -1) {
				ok = 0;
				break;
			}
			sym__sbuf_puts(&b, "[");
			if (tv->rank < 0)
				sym__sbuf_puts(&b, "*");
			for (d = 0; d < tv->rank; d++) {
				if (d)
					sym__sbuf_puts(&b, ", ");
				if (!sym__print(&b, tv->dims[d]))
					b.fail = 1;
			}
			sym__sbuf_puts(&b, "]");
		}
		/* a dim's text too long, no memory, or a key cut short by a failed
		 * allocation (it would group wrongly) */
		if (b.fail || sym__failed(r->ctx) ||
		    (ok && b.s && !(r->node_keys[i] = sym__infer_strdup(&r->inf, b.s)))) {
			sym__sbuf_clear(&b);
			free(all);
			return sym__failed(r->ctx) ? -1 : fail_nomem(r);
		}
		if (ok && b.s) {
			all[nk].key = r->node_keys[i];
			all[nk].n = i; /* node index */
			nk++;
		}
		sym__sbuf_clear(&b);
	}
	qsort(all, nk, sizeof(*all), key_cmp);
	r->keys = calloc(nk + 1, sizeof(*r->keys));
	if (!r->keys) {
		free(all);
		return fail_nomem(r);
	}
	for (i = 0; i < nk;) {
		size_t e = i, k;
		gkey *g = &r->keys[r->nkeys++];
		while (e < nk && !strcmp(all[e].key, all[i].key))
			e++;
		g->key = all[i].key;
		g->nodes = sym__infer_alloc(&r->inf, (e - i) * sizeof(*g->nodes));
		if (!g->nodes) {
			free(all);
			return fail_nomem(r);
		}
		for (k = i; k < e; k++) /* in model order */
			g->nodes[k - i] = m->nodes[all[k].n].name;
		g->n = e - i;
		i = e;
	}
	free(all);
	return 0;
}

static int symbol_ranges(sym_graph_result *r)
{
	size_t i;
	for (i = 0; i < r->nsyms; i++) {
		sym_ival iv;
		sym__ival_init(&iv);
		if (sym__bounds(r->ctx, r->facts, r->syms[i].sym, &iv)) {
			r->syms[i].min = iv.lo.inf ? NULL : sym__num_node(r->ctx, &iv.lo.v);
			r->syms[i].max = iv.hi.inf ? NULL : sym__num_node(r->ctx, &iv.hi.v);
		}
		sym__ival_clear(&iv);
	}
	return sym__failed(r->ctx) ? -1 : 0;
}

void sym_graph_result_free(sym_graph_result *r)
{
	if (!r)
		return;
	sym__infer_clear(&r->inf);
	sym_facts_free(r->facts);
	free(r->syms);
	free(r->tensors);
	free(r->table);
	free(r->guards);
	free(r->keys);
	free(r->errors);
	free(r->order);
	free(r->node_keys);
	sym__graph_ext_free(r);
	free(r);
}

sym_graph_result *sym_model_infer(sym_ctx *ctx, const sym_model *m, const sym_infer_options *opt)
{
	sym_graph_result *r;
	size_t i;
	if (sym__failed(ctx))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return NULL;
	}
	r->ctx = ctx;
	r->model = m;
	r->facts = sym_facts_new(ctx);
	if (!r->facts)
		goto fail;
	sym_facts_set_default_min(r->facts, opt && opt->allow_empty ? 0 : 1);
	sym__infer_init(&r->inf, ctx, r->facts);
	if (symbolize_inputs(r) < 0 || add_initializers(r) < 0)
		goto fail;
	for (i = 0; opt && i < opt->nhints; i++) {
		const sym_expr *s = sym_expr_symbol(ctx, opt->hint_names[i]);
		if (!s)
			goto fail;
		if (!sym__graph_find_sym(r, s)) {
			gerr(r, "--hint: '%.60s' is not a symbol of the model", opt->hint_names[i]);
			goto fail;
		}
		if (sym__infer_add_hint(&r->inf, s, opt->hint_values[i]) < 0)
			goto fail;
	}
	if (sym__graph_assume(r, opt) < 0 || order_nodes(r) < 0 || run_nodes(r) < 0 || check_declared(r) < 0)
		goto fail;
	/* data-dependent symbols made by rules, with the node as source */
	for (i = 0; i < r->inf.nfresh; i++)
		if (add_sym(r, r->inf.fresh_syms[i], r->inf.fresh_src[i]) < 0)
			goto fail;
	if (sym__graph_fresh_bounds(r) < 0 || prune_guards(r, opt) < 0 || merge_keys(r) < 0 ||
	    symbol_ranges(r) < 0 || sym__graph_storage(r, opt) < 0)
		goto fail;
	return r;
fail:
	sym_graph_result_free(r);
	return NULL;
}

/* ---- accessors ---------------------------------------------------------- */

size_t sym_graph_num_symbols(const sym_graph_result *r) { return r->nsyms; }

const sym_expr *sym_graph_symbol(const sym_graph_result *r, size_t i, const char **source, const sym_expr **min,
				 const sym_expr **max)
{
	if (i >= r->nsyms)
		return NULL;
	if (source)
		*source = r->syms[i].source;
	if (min)
		*min = r->syms[i].min;
	if (max)
		*max = r->syms[i].max;
	return r->syms[i].sym;
}

size_t sym_graph_num_tensors(const sym_graph_result *r) { return r->ntensors; }

const char *sym_graph_tensor(const sym_graph_result *r, size_t i, int *rank, const sym_expr *const **dims,
			     const char **dtype)
{
	if (i >= r->ntensors)
		return NULL;
	if (rank)
		*rank = r->tensors[i].tv.rank;
	if (dims)
		*dims = r->tensors[i].tv.dims;
	if (dtype)
		*dtype = sym__dtype_name(r->tensors[i].tv.dtype);
	return r->tensors[i].name;
}

size_t sym_graph_find_tensor(const sym_graph_result *r, const char *name) { return sym__graph_find(r, name); }
size_t sym_graph_num_guards(const sym_graph_result *r) { return r->nguards; }

const sym_expr *sym_graph_guard(const sym_graph_result *r, size_t i, const char **kind, const char **node,
				const char **reason)
{
	if (i >= r->nguards)
		return NULL;
	if (kind)
		*kind = r->guards[i].kind == SYM_GUARD_ASSERT ? "assert" : "expect";
	if (node)
		*node = r->guards[i].node;
	if (reason)
		*reason = r->guards[i].reason;
	return r->guards[i].pred;
}

size_t sym_graph_num_merge_keys(const sym_graph_result *r) { return r->nkeys; }

const char *sym_graph_merge_key(const sym_graph_result *r, size_t i, size_t *nnodes, const char *const **nodes)
{
	if (i >= r->nkeys)
		return NULL;
	if (nnodes)
		*nnodes = r->keys[i].n;
	if (nodes)
		*nodes = r->keys[i].nodes;
	return r->keys[i].key;
}

size_t sym_graph_num_errors(const sym_graph_result *r) { return r->nerrors; }

const char *sym_graph_error(const sym_graph_result *r, size_t i, const char **node)
{
	if (i >= r->nerrors)
		return NULL;
	if (node)
		*node = r->errors[i].node;
	return r->errors[i].msg;
}
