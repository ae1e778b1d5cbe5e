/* The inference driver: symbolize the inputs, order the nodes, run one rule
 * per node, check the declared shapes, then hand the result to the guard,
 * merge-key, range and storage passes (passes.h). */
#include "infer/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declares every node output (a name produced twice is an error) and
 * checks that every input exists; then orders the nodes (Kahn). */
static int order_nodes(sym_graph_result *r)
{
	const sym_model *m = r->model;
	size_t i, j, *scratch, nscratch, *indeg, *queue, head = 0, tail = 0, nedges = 0, *first, *next, *dst;
	for (i = 0; i < m->nnodes; i++)
		for (j = 0; j < m->nodes[i].nout; j++)
			if (!sym__result_add_tensor(r, m->nodes[i].out[j], (long)i, NULL))
				return -1;
	for (i = 0; i < m->nnodes; i++)
		nedges += m->nodes[i].nin + m->nodes[i].nouter + m->nodes[i].nout;
	if (!(r->tix = sym__infer_alloc(&r->inf, (nedges + 1) * sizeof(*r->tix))) ||
	    !(r->tix_at = sym__infer_alloc(&r->inf, (m->nnodes + 1) * sizeof(*r->tix_at))))
		return -1;
	nedges = 0;
	for (i = 0; i < m->nnodes; i++) {
		const sym_mnode *nd = &m->nodes[i];
		size_t *tx = r->tix + nedges;
		r->tix_at[i] = nedges;
		nedges += nd->nin + nd->nouter + nd->nout;
		for (j = 0; j < nd->nin; j++)
			if (*nd->in[j] && (tx[j] = sym__graph_find(r, nd->in[j])) == (size_t)-1)
				return sym__result_fail(
				    r, "model: node '%s' reads tensor '%s', which nothing defines", nd->name,
				    nd->in[j]);
			else if (!*nd->in[j])
				tx[j] = (size_t)-1;
		for (j = 0; j < nd->nouter; j++)
			if ((tx[nd->nin + j] = sym__graph_find(r, nd->outer[j])) == (size_t)-1)
				return sym__result_fail(
				    r,
				    "model: a subgraph of node '%s' reads tensor '%s', which nothing defines",
				    nd->name, nd->outer[j]);
		for (j = 0; j < nd->nout; j++)
			tx[nd->nin + nd->nouter + j] = sym__graph_find(r, nd->out[j]);
	}
	nedges = 0;
	for (i = 0; i < m->noutputs; i++)
		if (sym__graph_find(r, m->outputs[i]) == (size_t)-1)
			return sym__result_fail(r, "model: output '%s' is not a tensor of the graph",
			                        m->outputs[i]);
	for (i = 0; i < m->nnodes; i++)
		nedges += m->nodes[i].nin + m->nodes[i].nouter;
	/* one scratch block: indeg, queue, first (a node each), next, dst (an
	 * edge each); the order stays with the result */
	nscratch = 3 * (m->nnodes + 1) + 2 * (nedges + 1);
	if (!(r->order = sym__infer_alloc(&r->inf, (m->nnodes + 1) * sizeof(*r->order))) ||
	    !(scratch = sym__alloc(r->ctx, nscratch * sizeof(*scratch))))
		return -1;
	memset(scratch, 0, nscratch * sizeof(*scratch));
	indeg = scratch, queue = indeg + m->nnodes + 1, first = queue + m->nnodes + 1;
	next = first + m->nnodes + 1, dst = next + nedges + 1;
	for (i = 0; i < m->nnodes; i++)
		first[i] = (size_t)-1;
	nedges = 0;
	/* a node with subgraphs also runs after what its bodies read */
	for (i = 0; i < m->nnodes; i++)
		for (j = 0; j < m->nodes[i].nin + m->nodes[i].nouter; j++) {
			size_t t = r->tix[r->tix_at[i] + j];
			long p;
			if (t == (size_t)-1)
				continue;
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
		sym__result_fail(r, "model: the graph has a cycle through node '%s'", m->nodes[i].name);
	}
	sym__free(r->ctx, scratch, nscratch * sizeof(*scratch));
	return sym__failed(r->ctx) ? -1 : 0;
}

/* ONNX models are read for opsets 1 to 21 (each rule names the oldest
 * opset of its operator that it reads, rules/registry.c); other domains
 * than ONNX, CANN and com.microsoft have no rules.  Returns 1 with an error entry for the node, 0 when
 * the node can be run, -1 on a fatal error. */
static int unsupported_domain_or_opset(sym_graph_result *r, const sym_mnode *nd)
{
	int opset = r->model->opset, st;
	if (*nd->domain && strcmp(nd->domain, "cann") && strcmp(nd->domain, "com.microsoft"))
		st =
		    sym__result_add_diag(r, nd->name, nd->op, NULL, "node '%s' (%s): unsupported domain '%s'",
		                         nd->name, nd->op, nd->domain);
	else if (!*nd->domain && (opset < 1 || opset > 21))
		st = sym__result_add_diag(r, nd->name, nd->op, NULL,
		                          "node '%s' (%s): unsupported opset %d (1 to 21 are read)", nd->name,
		                          nd->op, opset);
	else
		return 0;
	return st < 0 ? -1 : 1;
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
		const size_t *tx = r->tix + r->tix_at[r->order[k]];
		const char *blocked = NULL;
		if (SYM_GROW(r->ctx, ins, nd->nin, capin, 4) < 0 ||
		    SYM_GROW(r->ctx, outs, nd->nout + 1, capout, 4) < 0) {
			status = -1;
			break;
		}
		for (j = 0; j < nd->nin; j++) {
			if (!*nd->in[j]) {
				memset(&ins[j], 0, sizeof(ins[j]));
				ins[j].rank = -1;
				continue;
			}
			ins[j] = r->tensors[tx[j]].tv;
			if (ins[j].rank == -2)
				blocked = nd->in[j];
		}
		for (j = 0; j < nd->nouter && !blocked; j++)
			if (r->tensors[tx[nd->nin + j]].tv.rank == -2)
				blocked = nd->outer[j];
		if (blocked) {
			if (sym__result_add_diag(r, nd->name, nd->op, blocked,
			                         "node '%s' (%s): not inferred: input '%s' is unknown",
			                         nd->name, nd->op, blocked) < 0)
				status = -1;
			continue;
		}
		if (unsupported_domain_or_opset(r, nd) != 0) {
			status = sym__failed(r->ctx) ? -1 : 0;
			continue;
		}
		if (nd->ngraphs) {
			/* control flow: the driver runs the bodies (subgraph.c) */
			int st = sym__subgraph_node(r, nd, ins, outs);
			if (st < 0) {
				status = -1;
				break;
			}
			if (st > 0)
				continue;
		} else if (sym__rule_run(&r->inf, nd->domain, nd->op, nd->name, m->opset, nd->nin, ins,
		                         nd->nattr, nd->attrs, nd->nout, outs) < 0) {
			sym_status st = sym_ctx_last_error(r->ctx);
			if (st == SYM_ENOMEM || r->inf.fatal) {
				status = -1;
				break;
			}
			if (sym__result_add_diag(r, nd->name, nd->op, NULL, "%s",
			                         sym_ctx_last_message(r->ctx)) < 0) {
				status = -1;
				break;
			}
			sym_ctx_clear_error(r->ctx);
			continue;
		}
		for (j = 0; j < nd->nout; j++)
			r->tensors[tx[nd->nin + nd->nouter + j]].tv = outs[j];
	}
	sym__free(r->ctx, ins, capin * sizeof(*ins));
	sym__free(r->ctx, outs, capout * sizeof(*outs));
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
		char *text;
		const char *node, *op;
		int k, c;
		if (t == (size_t)-1 || dt->rank < 0)
			continue;
		tv = &r->tensors[t].tv;
		node = r->tensors[t].producer >= 0 ? m->nodes[r->tensors[t].producer].name : dt->name;
		op = r->tensors[t].producer >= 0 ? m->nodes[r->tensors[t].producer].op : NULL;
		if (tv->rank < 0)
			continue;
		if (tv->rank != dt->rank) {
			if (sym__result_add_diag(r, node, op, dt->name,
			                         "tensor '%s': declared rank %d, inferred rank %d", dt->name,
			                         dt->rank, tv->rank) < 0)
				return -1;
			continue;
		}
		for (k = 0; k < tv->rank; k++) {
			if ((c = dim_contradicts(r, &dt->dims[k], tv->dims[k])) < 0)
				return -1;
			if (!c)
				continue;
			text = sym_expr_to_str(r->ctx, tv->dims[k]);
			c = sym__result_add_diag(
			    r, node, op, dt->name, "tensor '%s': dim %d is declared %lld, inferred %s",
			    dt->name, k, (long long)dt->dims[k].value, text ? text : "?");
			sym_str_free(r->ctx, text);
			if (c < 0)
				return -1;
			break;
		}
	}
	return 0;
}

/* The result of m inferred without the hints of opt, for the guard pass
 * (the asserts a hinted choice leaves unstated); NULL when there are no
 * hints or that inference fails (its error cleared: r's asserts stand). */
static sym_graph_result *infer_without_hints(sym_graph_result *r, const sym_infer_options *opt)
{
	sym_infer_options plain;
	sym_graph_result *r0;
	if (!opt || !opt->nhints)
		return NULL;
	plain = *opt;
	plain.nhints = 0, plain.hint_names = NULL, plain.hint_values = NULL;
	if (!(r0 = sym_model_infer(r->ctx, r->model, &plain)))
		sym_ctx_clear_error(r->ctx);
	return r0;
}

/* A fresh name is taken when it is a symbol of the model's inputs or one
 * made already in this inference. */
static int name_taken(const sym_infer *inf, const sym_expr *sym)
{
	const sym_graph_result *r = inf->name_owner;
	size_t i;
	for (i = 0; i < inf->nfresh; i++)
		if (inf->fresh_syms[i] == sym)
			return 1;
	return sym__graph_find_sym(r, sym) != NULL;
}

sym_graph_result *sym_model_infer(sym_ctx *ctx, const sym_model *m, const sym_infer_options *opt)
{
	sym_graph_result *r, *r0;
	size_t i;
	int st;
	if (sym__failed(ctx))
		return NULL;
	if (!(r = sym__result_new(ctx, m, opt && opt->allow_empty)))
		return NULL;
	r->inf.name_taken = name_taken, r->inf.name_owner = r;
	if (sym__symbolize(r) < 0)
		goto fail;
	for (i = 0; opt && i < opt->nhints; i++) {
		const sym_expr *s = sym_expr_symbol(ctx, opt->hint_names[i]);
		if (!s)
			goto fail;
		if (!sym__graph_find_sym(r, s)) {
			sym__result_fail(r, "--hint: '%s' is not a symbol of the model", opt->hint_names[i]);
			goto fail;
		}
		if (sym__infer_add_hint(&r->inf, s, opt->hint_values[i]) < 0)
			goto fail;
	}
	if (sym__graph_assume(r, opt) < 0 || order_nodes(r) < 0 || run_nodes(r) < 0 || check_declared(r) < 0)
		goto fail;
	/* data-dependent symbols made by rules, with the node as source */
	for (i = 0; i < r->inf.nfresh; i++)
		if (sym__result_add_sym(r, r->inf.fresh_syms[i], r->inf.fresh_src[i]) < 0)
			goto fail;
	if (sym__graph_fresh_bounds(r) < 0)
		goto fail;
	r0 = infer_without_hints(r, opt);
	st = sym__guards_prune(r, r0);
	sym_graph_result_free(r0);
	if (st < 0 || sym__final_shapes(r) < 0 || sym__merge_keys(r) < 0 || sym__ranges_of_symbols(r) < 0 ||
	    sym__graph_storage(r, opt) < 0)
		goto fail;
	return r;
fail:
	sym_graph_result_free(r);
	return NULL;
}
