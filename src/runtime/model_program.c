/* Model programs: one runtime program per inference result, with the input
 * checks (bind.c) and the guards once, then three output segments (the
 * shapes, the storage shapes, the byte sizes) each with its own status;
 * runs and C emission with the model ABI (SPEC §8).  A model program is
 * standalone: no pointer into the context; its blocks come from the
 * context's allocator hook and go back through its copy of the hook
 * (program_private.h). */
#include "bind_private.h"
#include "model_program_private.h"
#include "program_private.h"
#include "infer/passes.h"
#include "infer/storage.h"
#include "symshape/storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sym_model_program {
	sym_allocator alloc; /* the hook every block below came from */
	sym_program *prog;   /* checks: nbind; guards: nguards; SYM_SEGMENT_COUNT segments */
	size_t ndims, nbind, nguards, ntensors, nout;
	size_t bind_cap, tcap; /* the allocated lengths of bind_text and of the tensor arrays */
	char **bind_text;      /* nbind messages */
	char **guard_text;     /* nguards printed guards */
	char **guard_node;
	int *guard_kind;
	char **tnames;
	int *tranks;
	/* the storage segment's tensors and the data-dependent inputs */
	const char **sfmt; /* storage format of each tensor (NULL: none) */
	int *srank;
	size_t nstorage;
	size_t nbound;
	char **bound_names, **bound_src;
};

void sym_model_program_free(sym_model_program *mp)
{
	const sym_allocator *a;
	size_t i;
	if (!mp)
		return;
	a = &mp->alloc;
	sym_program_free(mp->prog);
	for (i = 0; i < mp->nbind; i++)
		sym__hook_free_str(a, mp->bind_text[i]);
	for (i = 0; i < mp->nguards; i++) {
		sym__hook_free_str(a, mp->guard_text ? mp->guard_text[i] : NULL);
		sym__hook_free_str(a, mp->guard_node ? mp->guard_node[i] : NULL);
	}
	for (i = 0; i < mp->ntensors; i++)
		sym__hook_free_str(a, mp->tnames[i]);
	for (i = 0; i < mp->nbound; i++) {
		sym__hook_free_str(a, mp->bound_names ? mp->bound_names[i] : NULL);
		sym__hook_free_str(a, mp->bound_src ? mp->bound_src[i] : NULL);
	}
	sym__hook_free(a, mp->bind_text, mp->bind_cap * sizeof(char *));
	sym__hook_free(a, mp->guard_text, (mp->nguards + 1) * sizeof(char *));
	sym__hook_free(a, mp->guard_node, (mp->nguards + 1) * sizeof(char *));
	sym__hook_free(a, mp->guard_kind, (mp->nguards + 1) * sizeof(int));
	sym__hook_free(a, mp->tnames, mp->tcap * sizeof(char *));
	sym__hook_free(a, mp->tranks, mp->tcap * sizeof(int));
	sym__hook_free(a, mp->sfmt, mp->tcap * sizeof(*mp->sfmt));
	sym__hook_free(a, mp->srank, mp->tcap * sizeof(*mp->srank));
	sym__hook_free(a, mp->bound_names, (mp->nbound + 1) * sizeof(char *));
	sym__hook_free(a, mp->bound_src, (mp->nbound + 1) * sizeof(char *));
	sym__hook_free(a, mp, sizeof(*mp));
}

/* A zeroed block of n bytes from ctx's hook (NULL with SYM_ENOMEM). */
static void *zalloc(sym_ctx *ctx, size_t n)
{
	void *p = sym__alloc(ctx, n);
	if (p)
		memset(p, 0, n);
	return p;
}

/* ---- compilation ---------------------------------------------------------- */

/* The outputs of the three segments, over the program's inputs. */
typedef struct segouts {
	sym__elist shapes, storage, bytes;
} segouts;

/* Records the program's tensors (every tensor of known rank, or the model
 * outputs) and appends their dims, storage dims and byte sizes (then the
 * graph total) to o. */
static int collect_outputs(sym_ctx *ctx, const sym_graph_result *r, int all_tensors, const sym__binding *b,
                           sym_model_program *mp, segouts *o)
{
	const sym_model *m = r->model;
	const sym_expr *minus1 = sym_expr_from_si(ctx, -1), *total;
	size_t i, nt = all_tensors ? r->ntensors : m->noutputs;
	int d;
	mp->tcap = nt + 1;
	mp->tnames = zalloc(ctx, mp->tcap * sizeof(char *));
	mp->tranks = zalloc(ctx, mp->tcap * sizeof(int));
	mp->sfmt = zalloc(ctx, mp->tcap * sizeof(*mp->sfmt));
	mp->srank = zalloc(ctx, mp->tcap * sizeof(*mp->srank));
	if (!minus1 || !mp->tnames || !mp->tranks || !mp->sfmt || !mp->srank)
		return -1;
	for (i = 0; i < nt; i++) {
		size_t ti = all_tensors ? i : sym__graph_find(r, m->outputs[i]);
		const gtensor *t = &r->tensors[ti];
		const sym_tstorage *ts = r->ext && r->ext->t ? &r->ext->t[ti] : NULL;
		if (t->tv.rank < 0) {
			if (!all_tensors) {
				sym__error(ctx, SYM_EDOMAIN, -1, "output '%s' has %s: no program computes it",
				           t->name, t->tv.rank == -1 ? "unknown rank" : "no inferred shape");
				return -1;
			}
			continue;
		}
		if (!ts) {
			sym__error(ctx, SYM_EMISUSE, -1, "the result has no storage annotations");
			return -1;
		}
		if (!(mp->tnames[mp->ntensors] = sym__ctx_strdup(ctx, t->name)))
			return -1;
		mp->tranks[mp->ntensors] = t->tv.rank;
		mp->sfmt[mp->ntensors] = ts->storage >= 0 ? sym__format_name(ts->storage) : NULL;
		mp->srank[mp->ntensors++] = ts->rank;
		for (d = 0; d < t->tv.rank; d++)
			if (sym__elist_push(
			        ctx, &o->shapes,
			        sym_expr_subst(ctx, t->tv.dims[d], b->from.n, b->from.v, b->to.v)) < 0)
				return -1;
		for (d = 0; d < ts->rank; d++)
			if (sym__elist_push(ctx, &o->storage,
			                    sym_expr_subst(ctx, ts->dims[d], b->from.n, b->from.v, b->to.v)) <
			    0)
				return -1;
		if (sym__elist_push(ctx, &o->bytes,
		                    ts->bytes ? sym_expr_subst(ctx, ts->bytes, b->from.n, b->from.v, b->to.v)
		                              : minus1) < 0)
			return -1;
	}
	total = r->ext && r->ext->total ? sym_expr_subst(ctx, r->ext->total, b->from.n, b->from.v, b->to.v)
	                                : minus1;
	if (sym__elist_push(ctx, &o->bytes, total) < 0)
		return -1;
	mp->nout = o->shapes.n;
	mp->nstorage = o->storage.n;
	return 0;
}

/* Records the graph's guards (text, node, kind) and appends their
 * predicates over the program's inputs to preds. */
static int collect_guards(sym_ctx *ctx, const sym_graph_result *r, const sym__binding *b,
                          sym_model_program *mp, sym__elist *preds)
{
	size_t i;
	/* the arrays are zeroed and sized for every guard first, so that
	 * sym_model_program_free gives back what a failure left */
	mp->nguards = r->nguards;
	mp->guard_text = zalloc(ctx, (r->nguards + 1) * sizeof(char *));
	mp->guard_node = zalloc(ctx, (r->nguards + 1) * sizeof(char *));
	mp->guard_kind = zalloc(ctx, (r->nguards + 1) * sizeof(int));
	if (!mp->guard_text || !mp->guard_node || !mp->guard_kind)
		return -1;
	for (i = 0; i < r->nguards; i++) {
		char *t = sym_expr_to_str(ctx, r->guards[i].pred);
		if (!t)
			return -1; /* or the text too long, recorded in ctx */
		mp->guard_text[i] = sym__ctx_strdup(ctx, t);
		sym_str_free(ctx, t);
		mp->guard_node[i] = sym__ctx_strdup(ctx, r->guards[i].node);
		mp->guard_kind[i] = r->guards[i].kind;
		if (!mp->guard_text[i] || !mp->guard_node[i] ||
		    sym__elist_push(ctx, preds,
		                    sym_expr_subst(ctx, r->guards[i].pred, b->from.n, b->from.v, b->to.v)) <
		        0)
			return -1;
	}
	return 0;
}

/* Records the data-dependent inputs (name and source). */
static int collect_bound(sym_ctx *ctx, const sym_graph_result *r, sym_model_program *mp)
{
	size_t i;
	mp->nbound = r->inf.nfresh;
	mp->bound_names = zalloc(ctx, (mp->nbound + 1) * sizeof(char *));
	mp->bound_src = zalloc(ctx, (mp->nbound + 1) * sizeof(char *));
	if (!mp->bound_names || !mp->bound_src)
		return -1;
	for (i = 0; i < r->inf.nfresh; i++) {
		mp->bound_names[i] = sym__ctx_strdup(ctx, sym_expr_symbol_name(r->inf.fresh_syms[i]));
		mp->bound_src[i] = sym__ctx_strdup(ctx, r->inf.fresh_src[i]);
		if (!mp->bound_names[i] || !mp->bound_src[i])
			return -1;
	}
	return 0;
}

sym_model_program *sym_graph_compile(sym_ctx *ctx, const sym_graph_result *r, int all_tensors)
{
	sym_model_program *mp = zalloc(ctx, sizeof(*mp));
	sym__binding b;
	segouts o;
	sym__elist preds = {0}, outs = {0};
	size_t i, seg_nouts[SYM_SEGMENT_COUNT];
	int ok = 0;
	memset(&b, 0, sizeof(b));
	memset(&o, 0, sizeof(o));
	if (!mp)
		return NULL;
	mp->alloc = sym__ctx_allocator(ctx);
	if (sym__bind_inputs(ctx, r, &b) < 0)
		goto done;
	mp->ndims = b.ins.n;
	/* the checks first (the program takes their texts), then the guards */
	mp->nbind = b.texts.n;
	mp->bind_text = b.texts.v;
	mp->bind_cap = b.texts.cap;
	b.texts.v = NULL, b.texts.n = b.texts.cap = 0;
	for (i = 0; i < b.checks.n; i++)
		if (sym__elist_push(ctx, &preds, b.checks.v[i]) < 0)
			goto done;
	if (collect_guards(ctx, r, &b, mp, &preds) < 0 ||
	    collect_outputs(ctx, r, all_tensors, &b, mp, &o) < 0 || collect_bound(ctx, r, mp) < 0)
		goto done;
	seg_nouts[SYM_SEGMENT_SHAPES] = o.shapes.n;
	seg_nouts[SYM_SEGMENT_STORAGE] = o.storage.n;
	seg_nouts[SYM_SEGMENT_BYTES] = o.bytes.n;
	for (i = 0; i < o.shapes.n; i++)
		if (sym__elist_push(ctx, &outs, o.shapes.v[i]) < 0)
			goto done;
	for (i = 0; i < o.storage.n; i++)
		if (sym__elist_push(ctx, &outs, o.storage.v[i]) < 0)
			goto done;
	for (i = 0; i < o.bytes.n; i++)
		if (sym__elist_push(ctx, &outs, o.bytes.v[i]) < 0)
			goto done;
	mp->prog = sym__program_compile(ctx, b.ins.n, b.ins.v, mp->nbind, preds.n, preds.v, SYM_SEGMENT_COUNT,
	                                seg_nouts, outs.v);
	ok = mp->prog != NULL;
done:
	if (!ok && !sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	sym__binding_free(ctx, &b);
	sym__elist_free(ctx, &o.shapes), sym__elist_free(ctx, &o.storage), sym__elist_free(ctx, &o.bytes);
	sym__elist_free(ctx, &preds), sym__elist_free(ctx, &outs);
	if (!ok) {
		sym_model_program_free(mp);
		return NULL;
	}
	return mp;
}

/* ---- accessors ------------------------------------------------------------ */

size_t sym_model_program_num_dims(const sym_model_program *mp)
{
	return mp->ndims;
}
size_t sym_model_program_num_out_dims(const sym_model_program *mp)
{
	return mp->nout;
}
size_t sym_model_program_num_tensors(const sym_model_program *mp)
{
	return mp->ntensors;
}

const char *sym_model_program_tensor(const sym_model_program *mp, size_t i, int *rank)
{
	if (i >= mp->ntensors)
		return NULL;
	if (rank)
		*rank = mp->tranks[i];
	return mp->tnames[i];
}

size_t sym_model_program_num_bound(const sym_model_program *mp)
{
	return mp->nbound;
}

const char *sym_model_program_bound(const sym_model_program *mp, size_t i, const char **source)
{
	if (i >= mp->nbound)
		return NULL;
	if (source)
		*source = mp->bound_src[i];
	return mp->bound_names[i];
}

const char *sym_model_program_tensor_storage(const sym_model_program *mp, size_t i, int *storage_rank)
{
	if (i >= mp->ntensors)
		return NULL;
	if (storage_rank)
		*storage_rank = mp->srank[i];
	return mp->sfmt[i];
}

size_t sym_model_program_num_storage_dims(const sym_model_program *mp)
{
	return mp->nstorage;
}

/* ---- runs ----------------------------------------------------------------- */

/* The message of a segment's failure. */
static const char *segment_message(sym_status st)
{
	switch (st) {
	case SYM_EOVERFLOW:
		return "a value overflows int64";
	case SYM_EDIVZERO:
		return "division by zero";
	case SYM_ENOMEM:
		return "out of memory";
	default:
		return "a shape is not an integer";
	}
}

void sym__model_program_run_counted(const sym_model_program *mp, const int64_t *dims, int64_t *const *out,
                                    sym_model_run *res, sym__run_count *count)
{
	int64_t stack[4096], *scratch = stack;
	size_t need = sym_program_scratch_size(mp->prog), failed = 0, s;
	sym_status st, seg[SYM_SEGMENT_COUNT];
	memset(res, 0, sizeof(*res));
	res->segment = -1;
	if (need > sizeof(stack) / sizeof(stack[0]) && !(scratch = malloc(need * sizeof(*scratch)))) {
		res->status = SYM_ENOMEM;
		res->message = segment_message(SYM_ENOMEM);
		return;
	}
	st = sym__program_run_segments(mp->prog, dims, out, scratch, &failed, seg, count);
	if (scratch != stack)
		free(scratch);
	res->status = st;
	switch (st) {
	case SYM_EOK:
		for (s = 0; s < SYM_SEGMENT_COUNT; s++)
			if (seg[s] != SYM_EOK) {
				res->status = seg[s];
				res->segment = (int)s;
				res->message = segment_message(seg[s]);
				break;
			}
		break;
	case SYM_EINPUT:
		res->message = mp->bind_text[failed];
		break;
	case SYM_EGUARD:
		res->failed = failed;
		res->message = mp->guard_text[failed];
		res->node = mp->guard_node[failed];
		res->kind = mp->guard_kind[failed] == SYM_GUARD_ASSERT ? "assert" : "expect";
		break;
	default:
		res->message = segment_message(st); /* in the checks' own code */
		break;
	}
}

void sym_model_program_run_segments(const sym_model_program *mp, const int64_t *dims, int64_t *const *out,
                                    sym_model_run *res)
{
	sym__model_program_run_counted(mp, dims, out, res, NULL);
}

/* Runs the checks and guards, then segment s alone into out. */
static void run_one(const sym_model_program *mp, sym_model_segment s, const int64_t *dims, int64_t *out,
                    sym_model_run *res)
{
	int64_t *outs[SYM_SEGMENT_COUNT] = {NULL, NULL, NULL};
	outs[s] = out;
	sym__model_program_run_counted(mp, dims, outs, res, NULL);
}

void sym_model_program_run(const sym_model_program *mp, const int64_t *dims, int64_t *out, sym_model_run *res)
{
	run_one(mp, SYM_SEGMENT_SHAPES, dims, out, res);
}

void sym_model_program_run_storage(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                   sym_model_run *res)
{
	run_one(mp, SYM_SEGMENT_STORAGE, dims, out, res);
}

void sym_model_program_run_bytes(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                 sym_model_run *res)
{
	run_one(mp, SYM_SEGMENT_BYTES, dims, out, res);
}

const sym_program *sym__model_program_code(const sym_model_program *mp)
{
	return mp->prog;
}

size_t sym__model_program_longest_guard(const sym_model_program *mp)
{
	size_t k, n = 0;
	for (k = 0; k < mp->nguards; k++) {
		size_t m = strlen(mp->guard_text[k]) + strlen(mp->guard_node[k] ? mp->guard_node[k] : "");
		if (m > n)
			n = m;
	}
	return n;
}

int sym__model_program_guard_is_assert(const sym_model_program *mp, size_t k)
{
	return k < mp->nguards && mp->guard_kind[k] == SYM_GUARD_ASSERT;
}

/* ---- C emission ----------------------------------------------------------- */

char *sym_model_program_emit_c(const sym_model_program *mp, const char *prefix)
{
	static const char *const names[SYM_SEGMENT_COUNT] = {"shapes", "storage_shapes", "bytes"};
	static const char *const docs[SYM_SEGMENT_COUNT] = {
	    NULL,
	    "/* Storage shapes and byte sizes: the storage dims of every model output (its\n"
	    " * origin dims when it has no storage format), concatenated in output order;\n"
	    " * the byte size of every model output, then the total of every tensor of the\n"
	    " * graph (-1 for a size that is unknown).  The same returns as the shapes.\n"
	    " */\n",
	    NULL};
	const char **kinds;
	sym__model_abi abi;
	char *code;
	size_t i, kbytes = (mp->nguards + 1) * sizeof(*kinds);
	if (!prefix || !*prefix)
		prefix = "symshape";
	if (!sym_program_is_c_identifier(prefix) ||
	    !(kinds = mp->alloc.realloc_fn(mp->alloc.ud, NULL, 0, kbytes)))
		return NULL;
	for (i = 0; i < mp->nguards; i++)
		kinds[i] = mp->guard_kind[i] == SYM_GUARD_ASSERT ? "assert" : "expect";
	kinds[mp->nguards] = NULL;
	abi.nsegs = SYM_SEGMENT_COUNT;
	abi.seg_names = names;
	abi.seg_doc = docs;
	abi.nguards = mp->nguards;
	abi.guard_text = (const char *const *)mp->guard_text;
	abi.guard_kind = kinds;
	abi.nbound = mp->nbound;
	abi.bound_names = (const char *const *)mp->bound_names;
	abi.bound_src = (const char *const *)mp->bound_src;
	code = sym__program_emit_model(mp->prog, prefix, &abi);
	sym__hook_free(&mp->alloc, (void *)kinds, kbytes);
	return code;
}

void sym_model_program_str_free(const sym_model_program *mp, char *s)
{
	if (mp)
		sym_program_str_free(mp->prog, s);
}
