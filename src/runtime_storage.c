/* The model program's storage part: data-dependent inputs, storage shapes
 * and byte sizes compiled to programs of their own (a byte size that
 * overflows never fails the shapes), run after the guards, emitted as
 * P_storage_shapes and P_bytes. */
#define SYM_SEAM_LOWERING /* walks nodes to lower them (seam.h) */
#include "seam.h"
#include "storage_private.h"
#include "symshape/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sym_model_ext {
	sym_program *storage, *bytes;
	size_t nbound;
	char **bound_names, **bound_src;
	size_t ntensors;
	const char **sfmt; /* storage format of each tensor (NULL: none) */
	int *srank;
	size_t nstorage;
};

static char *text(sym_ctx *ctx, const sym_expr *e)
{
	char *t = sym_expr_to_str(ctx, e), *r = strdup(t ? t : "?");
	sym_str_free(ctx, t);
	return r;
}

void sym__ext_free(sym_model_ext *x)
{
	size_t i;
	if (!x)
		return;
	sym_program_free(x->storage);
	sym_program_free(x->bytes);
	for (i = 0; i < x->nbound; i++) {
		free(x->bound_names[i]);
		free(x->bound_src[i]);
	}
	free(x->bound_names);
	free(x->bound_src);
	free(x->sfmt);
	free(x->srank);
	free(x);
}

int sym__ext_bind_checks(sym_ctx *ctx, const sym_graph_result *r, size_t nsubst, const sym_expr *const *from,
                         const sym_expr *const *to, size_t *n, const sym_expr ***preds, char ***texts)
{
	size_t i, k = 0;
	*n = 0;
	*preds = calloc(r->inf.nfresh + 1, sizeof(**preds));
	*texts = calloc(r->inf.nfresh + 1, sizeof(**texts));
	if (!*preds || !*texts)
		goto nomem;
	for (i = 0; i < r->inf.nfresh; i++) {
		const sym_expr *u = r->inf.fresh_syms[i], *lo = r->inf.fresh_lo[i], *hi = r->inf.fresh_hi[i],
		               *p;
		char *lt, *ht, buf[300];
		p = sym_expr_rel(ctx, SYM_REL_GE, u, lo);
		if (hi)
			p = sym_expr_and(ctx, p, sym_expr_rel(ctx, SYM_REL_LE, u, hi));
		(*preds)[k] = sym_expr_subst(ctx, p, nsubst, from, to);
		lt = text(ctx, lo);
		ht = hi ? text(ctx, hi) : strdup("inf");
		snprintf(buf, sizeof(buf), "data-dependent %s must be in the range [%.100s, %.100s%s",
		         sym_expr_symbol_name(u), lt ? lt : "?", ht ? ht : "?", hi ? "]" : ")");
		free(lt), free(ht);
		(*texts)[k] = strdup(buf);
		if (!(*preds)[k] || !(*texts)[k++])
			goto fail;
	}
	*n = k;
	return 0;
nomem:
fail:
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	for (i = 0; *texts && i < r->inf.nfresh; i++)
		free((*texts)[i]);
	free(*preds), free(*texts);
	*preds = NULL, *texts = NULL;
	return -1;
}

sym_model_ext *sym__ext_compile(sym_ctx *ctx, const sym_graph_result *r, int all_tensors, size_t nins,
                                const sym_expr *const *ins, size_t nsubst, const sym_expr *const *from,
                                const sym_expr *const *to)
{
	const sym_model *m = r->model;
	sym_model_ext *x = calloc(1, sizeof(*x));
	const sym_expr **souts = NULL, **bouts = NULL, *minus1 = sym_expr_from_si(ctx, -1);
	size_t ns = 0, nb = 0, i, nt = all_tensors ? r->ntensors : m->noutputs, cap = 0;
	int d;
	if (!x || !minus1)
		goto nomem;
	x->nbound = r->inf.nfresh;
	x->bound_names = calloc(x->nbound + 1, sizeof(char *));
	x->bound_src = calloc(x->nbound + 1, sizeof(char *));
	x->sfmt = calloc(nt + 1, sizeof(*x->sfmt));
	x->srank = calloc(nt + 1, sizeof(*x->srank));
	if (!x->bound_names || !x->bound_src || !x->sfmt || !x->srank)
		goto nomem;
	for (i = 0; i < x->nbound; i++) {
		x->bound_names[i] = strdup(sym_expr_symbol_name(r->inf.fresh_syms[i]));
		x->bound_src[i] = strdup(r->inf.fresh_src[i]);
		if (!x->bound_names[i] || !x->bound_src[i])
			goto nomem;
	}
	for (i = 0; i < nt; i++) {
		size_t t = all_tensors ? i : sym__graph_find(r, m->outputs[i]);
		if (r->tensors[t].tv.rank >= 0 && r->ext && r->ext->t)
			cap += (size_t)r->ext->t[t].rank;
	}
	souts = calloc(cap + 1, sizeof(*souts));
	bouts = calloc(nt + 2, sizeof(*bouts));
	if (!souts || !bouts)
		goto nomem;
	/* the tensors of the shapes program, in its order */
	for (i = 0; i < nt; i++) {
		size_t t = all_tensors ? i : sym__graph_find(r, m->outputs[i]);
		const sym_tstorage *ts = r->ext && r->ext->t ? &r->ext->t[t] : NULL;
		const sym_expr *b;
		if (r->tensors[t].tv.rank < 0)
			continue;
		if (!ts) {
			sym__error(ctx, SYM_EMISUSE, -1, "the result has no storage annotations");
			goto fail;
		}
		x->sfmt[x->ntensors] = ts->storage >= 0 ? sym__format_name(ts->storage) : NULL;
		x->srank[x->ntensors++] = ts->rank;
		for (d = 0; d < ts->rank; d++)
			if (!(souts[ns++] = sym_expr_subst(ctx, ts->dims[d], nsubst, from, to)))
				goto fail;
		b = ts->bytes ? sym_expr_subst(ctx, ts->bytes, nsubst, from, to) : minus1;
		if (!(bouts[nb++] = b))
			goto fail;
	}
	if (!(bouts[nb++] =
	          r->ext && r->ext->total ? sym_expr_subst(ctx, r->ext->total, nsubst, from, to) : minus1))
		goto fail;
	x->nstorage = ns;
	x->storage = sym_program_compile(ctx, nins, ins, 0, NULL, ns, souts);
	x->bytes = x->storage ? sym_program_compile(ctx, nins, ins, 0, NULL, nb, bouts) : NULL;
	if (!x->bytes)
		goto fail;
	free(souts), free(bouts);
	return x;
nomem:
	sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
fail:
	free(souts), free(bouts);
	sym__ext_free(x);
	return NULL;
}

/* Appends program p emitted as PREFIX__WHAT; -1 (and b->fail) on failure. */
static int emit_inner(const sym_program *p, const char *prefix, const char *what, sym_sbuf *b)
{
	sym_sbuf inner;
	char *code;
	sym__sbuf_init(&inner, b->ctx);
	sym__sbuf_printf(&inner, "%s__%s", prefix, what);
	code = inner.fail ? NULL : sym_program_emit_c(p, inner.s, NULL);
	sym__sbuf_clear(&inner);
	if (!code) {
		b->fail = 1;
		return -1;
	}
	sym__sbuf_puts(b, "\n");
	sym__sbuf_puts(b, code);
	free(code);
	return 0;
}

void sym__ext_emit_c(const sym_model_ext *x, const char *prefix, sym_sbuf *b)
{
	if (emit_inner(x->storage, prefix, "storage", b) < 0 || emit_inner(x->bytes, prefix, "bytes", b) < 0)
		return;
	sym__sbuf_printf(b,
	         "\n/* Storage shapes and byte sizes, after %s_check: the storage dims of every\n"
	         " * model output (its origin dims when it has no storage format), concatenated\n"
	         " * in output order; the byte size of every model output, then the total of\n"
	         " * every tensor of the graph (-1 for a size that is unknown).  Same return\n"
	         " * convention as %s_shapes. */\n"
	         "int %s_storage_shapes(const int64_t *dims, int64_t *out);\n"
	         "int %s_bytes(const int64_t *dims, int64_t *out);\n\n"
	         "int %s_storage_shapes(const int64_t *dims, int64_t *out)\n{\n"
	         "\tint r = %s_check(dims);\n\tif (r)\n\t\treturn r;\n"
	         "\treturn %s__storage_shapes(dims, out) ? -1 : 0;\n}\n\n"
	         "int %s_bytes(const int64_t *dims, int64_t *out)\n{\n"
	         "\tint r = %s_check(dims);\n\tif (r)\n\t\treturn r;\n"
	         "\treturn %s__bytes_shapes(dims, out) ? -1 : 0;\n}\n",
	         prefix, prefix, prefix, prefix, prefix, prefix, prefix, prefix, prefix, prefix);
	if (x->nbound) {
		size_t i;
		sym__sbuf_puts(b,
		               "\n/* Data-dependent dims: every function above takes their values after the\n"
		               " * input dims, in this order, once their producing kernels have run:");
		for (i = 0; i < x->nbound; i++) {
			sym__sbuf_printf(b, "\n *   %s: %.200s", x->bound_names[i], x->bound_src[i]);
		}
		sym__sbuf_puts(b, " */\n");
	}
}

/* ---- runs and accessors ------------------------------------------------- */

void sym_model_program_run_storage(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                   sym_model_run *res)
{
	sym__model_program_run_part(mp, sym__model_program_ext(mp)->storage, dims, out, res);
}

void sym_model_program_run_bytes(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                 sym_model_run *res)
{
	sym__model_program_run_part(mp, sym__model_program_ext(mp)->bytes, dims, out, res);
}

size_t sym_model_program_num_bound(const sym_model_program *mp)
{
	return sym__model_program_ext(mp)->nbound;
}

const char *sym_model_program_bound(const sym_model_program *mp, size_t i, const char **source)
{
	const sym_model_ext *x = sym__model_program_ext(mp);
	if (i >= x->nbound)
		return NULL;
	if (source)
		*source = x->bound_src[i];
	return x->bound_names[i];
}

const char *sym_model_program_tensor_storage(const sym_model_program *mp, size_t i, int *storage_rank)
{
	const sym_model_ext *x = sym__model_program_ext(mp);
	if (i >= x->ntensors)
		return NULL;
	if (storage_rank)
		*storage_rank = x->srank[i];
	return x->sfmt[i];
}

size_t sym_model_program_num_storage_dims(const sym_model_program *mp)
{
	return sym__model_program_ext(mp)->nstorage;
}
