/* Model programs: binding of input dims to symbols, guards and shapes
 * compiled into one runtime program; run and C emission with the model ABI. */
#define SYM_SEAM_LOWERING /* walks nodes to lower them (seam.h) */
#include "seam.h"
#include "infer/result.h"
#include "storage_private.h"
#include "symshape/program.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sym_model_program {
	sym_program *prog;
	size_t ndims, nbind, nguards, ntensors, nout;
	char **bind_text;  /* nbind messages */
	char **guard_text; /* nguards printed guards */
	char **guard_node;
	int *guard_kind;
	char **tnames;
	int *tranks;
	sym_model_ext *ext;     /* storage shapes, byte sizes, bound symbols */
};

void sym_model_program_free(sym_model_program *mp)
{
	size_t i;
	if (!mp)
		return;
	sym_program_free(mp->prog);
	sym__ext_free(mp->ext);
	for (i = 0; i < mp->nbind; i++)
		free(mp->bind_text[i]);
	for (i = 0; i < mp->nguards; i++) {
		free(mp->guard_text[i]);
		free(mp->guard_node[i]);
	}
	for (i = 0; i < mp->ntensors; i++)
		free(mp->tnames[i]);
	free(mp->bind_text);
	free(mp->guard_text);
	free(mp->guard_node);
	free(mp->guard_kind);
	free(mp->tnames);
	free(mp->tranks);
	free(mp);
}

size_t sym_model_program_num_dims(const sym_model_program *mp) { return mp->ndims; }
size_t sym_model_program_num_out_dims(const sym_model_program *mp) { return mp->nout; }
size_t sym_model_program_num_tensors(const sym_model_program *mp) { return mp->ntensors; }

const char *sym_model_program_tensor(const sym_model_program *mp, size_t i, int *rank)
{
	if (i >= mp->ntensors)
		return NULL;
	if (rank)
		*rank = mp->tranks[i];
	return mp->tnames[i];
}

/* Growable list of expressions. */
typedef struct elist {
	const sym_expr **v;
	size_t n, cap;
} elist;

static int push(elist *l, const sym_expr *e)
{
	if (!e)
		return -1;
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 32;
		const sym_expr **nv = realloc(l->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		l->v = nv, l->cap = nc;
	}
	l->v[l->n++] = e;
	return 0;
}

typedef struct slist {
	char **v;
	size_t n, cap;
} slist;

static int spush(slist *l, char *s)
{
	if (!s)
		return -1;
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 32;
		char **nv = realloc(l->v, nc * sizeof(*nv));
		if (!nv) {
			free(s);
			return -1;
		}
		l->v = nv, l->cap = nc;
	}
	l->v[l->n++] = s;
	return 0;
}

static char *fmt(const char *f, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *r;
	int k;
	va_start(ap, f);
	k = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (k < 0 || !(r = malloc((size_t)k + 1)))
		return NULL;
	va_start(ap, f);
	vsnprintf(r, (size_t)k + 1, f, ap);
	va_end(ap);
	return r;
}

sym_model_program *sym_graph_compile(sym_ctx *ctx, const sym_graph_result *r, int all_tensors)
{
	const sym_model *m = r->model;
	sym_model_program *mp = calloc(1, sizeof(*mp));
	elist pos = {0}, gsyms = {0}, gby = {0}, guards = {0}, outs = {0};
	slist bind = {0};
	size_t i, k, p = 0, *gat = NULL; /* gat[k]: the dim position binding gsyms.v[k] */
	const char **pin = NULL;         /* pin[p], pdim[p]: input and dim of position p */
	int d, *pdim = NULL;
	sym_facts *rf = NULL;
	if (!mp) {
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return NULL;
	}
	/* one symbol per input dim position; graph symbols bound to the first
	 * position that is exactly that symbol */
	for (i = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		if (t->tv.rank < 0) {
			sym__error(ctx, SYM_EDOMAIN, -1, "input '%.60s' has unknown rank: the runtime program needs it",
				   m->inputs[i].name);
			goto fail;
		}
		for (d = 0; d < t->tv.rank; d++, p++) {
			char name[32];
			const sym_expr *ps, *dim = t->tv.dims[d];
			snprintf(name, sizeof(name), "_d%zu", p);
			ps = sym_expr_symbol(ctx, name);
			if (push(&pos, ps) < 0)
				goto nomem;
			if (sym_expr_kind(dim) == SYM_KIND_SYM) {
				for (k = 0; k < gsyms.n && gsyms.v[k] != dim; k++)
					;
				if (k == gsyms.n) {
					if (push(&gsyms, dim) < 0 || push(&gby, ps) < 0)
						goto nomem;
					continue;
				}
			}
		}
	}
	pin = calloc(p + 1, sizeof(*pin));
	pdim = calloc(p + 1, sizeof(*pdim));
	gat = calloc(2 * p + 1, sizeof(*gat)); /* a symbol per position at most, twice */
	if (!pin || !pdim || !gat)
		goto nomem;
	for (i = 0, p = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		for (d = 0; d < t->tv.rank; d++, p++)
			pin[p] = m->inputs[i].name, pdim[p] = d;
	}
	for (k = 0; k < gsyms.n; k++)
		for (gat[k] = 0; pos.v[gat[k]] != gby.v[k]; gat[k]++)
			;
	/* data-dependent dims follow the input dims, bound once their
	 * producing kernel has run */
	for (i = 0; i < r->inf.nfresh; i++)
		if (push(&pos, r->inf.fresh_syms[i]) < 0)
			goto nomem;
	mp->ndims = pos.n;
	/* a symbol that only appears inside a dim expression a*s + b (b over
	 * bound symbols) is solved from that dim: s = (d - b)/a, checked below
	 * by the binding of that dim and by s being an integer >= its minimum */
	p = 0;
	for (i = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		for (d = 0; d < t->tv.rank; d++, p++) {
			const sym_expr *dim = t->tv.dims[d], *found[8], *s = NULL, *rest, *sol;
			size_t nf = sym_expr_symbols(ctx, dim, found, 8), j, nun = 0;
			sym_lin v;
			size_t ti;
			if (sym_expr_kind(dim) == SYM_KIND_SYM || nf > 8)
				continue;
			for (j = 0; j < nf; j++) {
				for (k = 0; k < gsyms.n && gsyms.v[k] != found[j]; k++)
					;
				if (k == gsyms.n)
					s = found[j], nun++;
			}
			if (nun != 1)
				continue;
			sym__lin_view(dim, &v);
			for (ti = 0; ti < v.n && v.t[ti].m != s; ti++)
				;
			if (ti == v.n)
				continue; /* s is not a linear term */
			rest = sym_expr_sub(ctx, dim, sym__scale(ctx, &v.t[ti].coef, s));
			{
				const sym_expr *rf[8];
				size_t nr = sym_expr_symbols(ctx, rest, rf, 8), q;
				int uses_s = 0;
				for (q = 0; q < nr && q < 8; q++)
					if (rf[q] == s)
						uses_s = 1;
				if (uses_s)
					continue;
			}
			sol = sym_expr_div(ctx, sym_expr_sub(ctx, pos.v[p], sym_expr_subst(ctx, rest, gsyms.n, gsyms.v, gby.v)),
					   sym__num_node(ctx, &v.t[ti].coef));
			if (!sol || push(&gsyms, s) < 0 || push(&gby, sol) < 0)
				goto fail;
			gat[gsyms.n - 1] = p;
			/* s must be an integer (its range is checked below) */
			{
				const sym_expr *ok = sym_expr_rel(ctx, SYM_REL_EQ, sym_expr_floor(ctx, sol), sol);
				char *st = sym_expr_to_str(ctx, dim);
				if (push(&guards, ok) < 0 ||
				    spush(&bind, fmt("input '%s' dim %d must be %s for an integer %s", m->inputs[i].name, d,
						     st ? st : "?", sym_expr_symbol_name(s))) < 0) {
					sym_str_free(ctx, st);
					goto nomem;
				}
				sym_str_free(ctx, st);
			}
		}
	}
	/* binding checks: every dim equals its declared form */
	p = 0;
	for (i = 0; i < m->ninputs; i++) {
		const gtensor *t = &r->tensors[sym__graph_find(r, m->inputs[i].name)];
		for (d = 0; d < t->tv.rank; d++, p++) {
			const sym_expr *dim = t->tv.dims[d], *want;
			char *text;
			if (sym_expr_kind(dim) == SYM_KIND_SYM) {
				for (k = 0; k < gsyms.n && gsyms.v[k] != dim; k++)
					;
				if (gby.v[k] == pos.v[p])
					continue; /* the binding occurrence */
			}
			want = sym_expr_subst(ctx, dim, gsyms.n, gsyms.v, gby.v);
			if (!want)
				goto fail;
			{
				const sym_expr *left[4];
				size_t nl = sym_expr_symbols(ctx, want, left, 4), j;
				for (j = 0; j < nl && j < 4; j++)
					if (sym_expr_symbol_name(left[j])[0] != '_') {
						sym__error(ctx, SYM_EDOMAIN, -1,
							   "input '%.60s' dim %d: symbol '%s' is not bound by any input dim",
							   m->inputs[i].name, d, sym_expr_symbol_name(left[j]));
						goto fail;
					}
			}
			if (push(&guards, sym_expr_rel(ctx, SYM_REL_EQ, pos.v[p], want)) < 0)
				goto nomem;
			{
				char *wt = sym_expr_to_str(ctx, dim);
				text = fmt("input '%s' dim %d must be %s", m->inputs[i].name, d, wt ? wt : "?");
				sym_str_free(ctx, wt);
			}
			if (spush(&bind, text) < 0)
				goto nomem;
		}
	}
	/* the input symbols' ranges (the default minimum, --range): the
	 * formulas hold only inside them */
	if (!(rf = sym__graph_range_facts(r)))
		goto fail;
	for (k = 0; k < gsyms.n; k++) {
		sym_ival iv;
		const sym_expr *ok = sym_expr_bool(ctx, 1), *lo = NULL, *hi = NULL;
		char *lt, *ht;
		sym__ival_init(&iv);
		sym__facts_sym_range(rf, gsyms.v[k], &iv);
		if (!iv.lo.inf)
			lo = sym__num_node(ctx, &iv.lo.v);
		if (!iv.hi.inf)
			hi = sym__num_node(ctx, &iv.hi.v);
		sym__ival_clear(&iv);
		if (lo)
			ok = sym_expr_and(ctx, ok, sym_expr_rel(ctx, SYM_REL_GE, gby.v[k], lo));
		if (hi)
			ok = sym_expr_and(ctx, ok, sym_expr_rel(ctx, SYM_REL_LE, gby.v[k], hi));
		if (!ok)
			goto fail;
		if (!lo && !hi)
			continue;
		lt = lo ? sym_expr_to_str(ctx, lo) : NULL;
		ht = hi ? sym_expr_to_str(ctx, hi) : NULL;
		if (push(&guards, ok) < 0 ||
		    spush(&bind, fmt("%s must be in the range %s%s, %s%s (input '%s' dim %d)", sym_expr_symbol_name(gsyms.v[k]),
				     lo ? "[" : "(", lt ? lt : "-inf", ht ? ht : "inf", hi ? "]" : ")", pin[gat[k]],
				     pdim[gat[k]])) < 0) {
			sym_str_free(ctx, lt), sym_str_free(ctx, ht);
			goto nomem;
		}
		sym_str_free(ctx, lt), sym_str_free(ctx, ht);
	}
	/* the ranges of data-dependent dims */
	{
		size_t nx, j;
		const sym_expr **xp;
		char **xt;
		if (sym__ext_bind_checks(ctx, r, gsyms.n, gsyms.v, gby.v, &nx, &xp, &xt) < 0)
			goto fail;
		for (j = 0; j < nx; j++)
			if (push(&guards, xp[j]) < 0 || spush(&bind, xt[j]) < 0)
				break;
		for (k = j + 1; k < nx; k++)
			free(xt[k]);
		free(xp), free(xt);
		if (j < nx)
			goto nomem;
	}
	mp->nbind = guards.n;
	/* the graph's guards */
	mp->nguards = r->nguards;
	mp->guard_text = calloc(r->nguards + 1, sizeof(char *));
	mp->guard_node = calloc(r->nguards + 1, sizeof(char *));
	mp->guard_kind = calloc(r->nguards + 1, sizeof(int));
	if (!mp->guard_text || !mp->guard_node || !mp->guard_kind)
		goto nomem;
	for (i = 0; i < r->nguards; i++) {
		char *t = sym_expr_to_str(ctx, r->guards[i].pred);
		if (!t)
			goto nomem; /* or the text too long, recorded in ctx */
		mp->guard_text[i] = strdup(t);
		sym_str_free(ctx, t);
		mp->guard_node[i] = strdup(r->guards[i].node);
		mp->guard_kind[i] = r->guards[i].kind;
		if (push(&guards, sym_expr_subst(ctx, r->guards[i].pred, gsyms.n, gsyms.v, gby.v)) < 0)
			goto fail;
	}
	/* the outputs */
	mp->tnames = calloc(r->ntensors + 1, sizeof(char *));
	mp->tranks = calloc(r->ntensors + 1, sizeof(int));
	if (!mp->tnames || !mp->tranks)
		goto nomem;
	for (i = 0; i < (all_tensors ? r->ntensors : m->noutputs); i++) {
		const gtensor *t = all_tensors ? &r->tensors[i] : &r->tensors[sym__graph_find(r, m->outputs[i])];
		if (t->tv.rank < 0) {
			if (!all_tensors) {
				sym__error(ctx, SYM_EDOMAIN, -1, "output '%.60s' has %s: no program computes it", t->name,
					   t->tv.rank == -1 ? "unknown rank" : "no inferred shape");
				goto fail;
			}
			continue;
		}
		mp->tnames[mp->ntensors] = strdup(t->name);
		mp->tranks[mp->ntensors++] = t->tv.rank;
		for (d = 0; d < t->tv.rank; d++)
			if (push(&outs, sym_expr_subst(ctx, t->tv.dims[d], gsyms.n, gsyms.v, gby.v)) < 0)
				goto fail;
	}
	mp->nout = outs.n;
	mp->prog = sym_program_compile(ctx, pos.n, pos.v, guards.n, guards.v, outs.n, outs.v);
	if (!mp->prog)
		goto fail;
	mp->ext = sym__ext_compile(ctx, r, all_tensors, pos.n, pos.v, gsyms.n, gsyms.v, gby.v);
	if (!mp->ext)
		goto fail;
	mp->bind_text = bind.v;
	free(pos.v), free(gsyms.v), free(gby.v), free(guards.v), free(outs.v);
	free(pin), free(pdim), free(gat);
	sym_facts_free(rf);
	return mp;
nomem:
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
fail:
	free(pos.v), free(gsyms.v), free(gby.v), free(guards.v), free(outs.v);
	free(pin), free(pdim), free(gat);
	sym_facts_free(rf);
	for (i = 0; i < bind.n; i++)
		free(bind.v[i]);
	free(bind.v);
	mp->nbind = 0;
	sym_model_program_free(mp);
	return NULL;
}

static void run_or_check(const sym_model_program *mp, const int64_t *dims, int64_t *out, sym_model_run *res);

void sym_model_program_run(const sym_model_program *mp, const int64_t *dims, int64_t *out, sym_model_run *res)
{
	run_or_check(mp, dims, out, res);
}

void sym__model_program_check(const sym_model_program *mp, const int64_t *dims, sym_model_run *res)
{
	run_or_check(mp, dims, NULL, res);
}

const sym_model_ext *sym__model_program_ext(const sym_model_program *mp) { return mp->ext; }

/* Runs p on dims (its guards alone when out is NULL) with scratch on the
 * stack or the heap.  Fills res (cleared first) for every outcome but a
 * failed guard (status 3 out of memory or overflow, 4 division by zero, 5
 * inexact) and returns the run status, -1 when out of memory. */
static int exec(const sym_program *p, const int64_t *dims, int64_t *out, size_t *failed, sym_model_run *res)
{
	int64_t stack[4096], *scratch = stack;
	size_t need = sym_program_scratch_size(p);
	sym_run_status st;
	memset(res, 0, sizeof(*res));
	*failed = 0;
	if (need > sizeof(stack) / sizeof(stack[0]) && !(scratch = malloc(need * sizeof(*scratch)))) {
		res->status = 3;
		res->message = "out of memory";
		return -1;
	}
	st = out ? sym_program_run(p, dims, out, scratch, failed) : sym_program_check(p, dims, scratch, failed);
	if (scratch != stack)
		free(scratch);
	switch (st) {
	case SYM_RUN_OK:
	case SYM_RUN_GUARD:
		break;
	case SYM_RUN_OVERFLOW:
		res->status = 3;
		res->message = "a value overflows int64";
		break;
	case SYM_RUN_DIVZERO:
		res->status = 4;
		res->message = "division by zero";
		break;
	default:
		res->status = 5;
		res->message = "a shape is not an integer";
		break;
	}
	return (int)st;
}

/* Runs the program, or checks its guards alone when out is NULL. */
static void run_or_check(const sym_model_program *mp, const int64_t *dims, int64_t *out, sym_model_run *res)
{
	size_t failed;
	if (exec(mp->prog, dims, out, &failed, res) != SYM_RUN_GUARD)
		return;
	if (failed < mp->nbind) {
		res->status = 2;
		res->message = mp->bind_text[failed];
	} else {
		res->status = 1;
		res->failed = failed - mp->nbind;
		res->message = mp->guard_text[res->failed];
		res->node = mp->guard_node[res->failed];
		res->kind = mp->guard_kind[res->failed] == SYM_GUARD_ASSERT ? "assert" : "expect";
	}
}

void sym__model_program_run_part(const sym_model_program *mp, const sym_program *p, const int64_t *dims,
                                 int64_t *out, sym_model_run *res)
{
	size_t failed;
	run_or_check(mp, dims, NULL, res);
	if (!res->status && exec(p, dims, out, &failed, res) == SYM_RUN_GUARD) {
		res->status = 5; /* the extra programs hold no guards */
		res->message = "a shape is not an integer";
	}
}

/* Appends a C string literal of s. */
static void c_string(sym_sbuf *b, const char *s)
{
	sym__sbuf_puts(b, "\"");
	for (; *s; s++) {
		char esc[8];
		if (*s == '"' || *s == '\\') {
			esc[0] = '\\', esc[1] = *s, esc[2] = 0;
			sym__sbuf_puts(b, esc);
		} else if ((unsigned char)*s < 32 || (unsigned char)*s > 126) {
			snprintf(esc, sizeof(esc), "\\%03o", (unsigned char)*s);
			sym__sbuf_puts(b, esc);
		} else {
			sym__sbuf_put(b, s, 1);
		}
	}
	sym__sbuf_puts(b, "\"");
}

char *sym_model_program_emit_c(const sym_model_program *mp, const char *prefix)
{
	char *code = NULL, *res = NULL;
	sym_ctx *tmp = sym_ctx_new();
	sym_sbuf b, inner;
	size_t i;
	if (!prefix || !*prefix)
		prefix = "symshape";
	if (!sym_program_is_c_identifier(prefix) || !tmp) {
		sym_ctx_free(tmp);
		return NULL;
	}
	sym__sbuf_init(&inner, tmp);
	sym__sbuf_printf(&inner, "%s__prog", prefix);
	if (!inner.fail)
		code = sym_program_emit_c(mp->prog, inner.s, NULL);
	if (!code) {
		sym__sbuf_clear(&inner);
		sym_ctx_free(tmp);
		return NULL;
	}
	sym__sbuf_init(&b, tmp);
	sym__sbuf_puts(&b, code);
	sym__sbuf_printf(&b,
		 "\n/* The model ABI: guard k+1 for the k-th guard of `symshape infer`, -2 when\n"
		 " * the dims contradict the declared input shapes or the input symbols' ranges\n"
		 " * (the first %zu checks). */\n"
		 "static int %s__map(int r)\n{\n\tif (r <= 0)\n\t\treturn r;\n\treturn r <= %zu ? -2 : r - %zu;\n}\n\n",
		 mp->nbind, prefix, mp->nbind, mp->nbind);
	sym__sbuf_printf(&b,
		 "int %s_check(const int64_t *dims)\n{\n\treturn %s__map(%s_check(dims));\n}\n\n"
		 "int %s_shapes(const int64_t *dims, int64_t *out)\n{\n\treturn %s__map(%s_shapes(dims, out));\n}\n\n"
		 "const int %s_num_guards = %zu;\n",
		 prefix, prefix, inner.s, prefix, prefix, inner.s, prefix, mp->nguards);
	sym__sbuf_clear(&inner);
	sym__sbuf_printf(&b, "const char *const %s_guard_text[] = {", prefix);
	for (i = 0; i < mp->nguards; i++) {
		sym__sbuf_puts(&b, i ? ",\n\t" : "\n\t");
		c_string(&b, mp->guard_text[i]);
	}
	sym__sbuf_puts(&b, mp->nguards ? ",\n\t0\n};\n" : "0};\n");
	/* "assert": the input is invalid; "expect": a choice of the hints,
	 * recompile */
	sym__sbuf_printf(&b, "const char *const %s_guard_kind[] = {", prefix);
	for (i = 0; i < mp->nguards; i++)
		sym__sbuf_printf(&b, "%s\"%s\"", i ? ", " : "",
				 mp->guard_kind[i] == SYM_GUARD_ASSERT ? "assert" : "expect");
	sym__sbuf_puts(&b, mp->nguards ? ", 0};\n" : "0};\n");
	sym__ext_emit_c(mp->ext, prefix, &b);
	if (!b.fail)
		res = strdup(b.s);
	sym__sbuf_clear(&b);
	sym_ctx_free(tmp);
	free(code);
	return res;
}
