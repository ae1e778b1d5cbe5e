/* Storage shapes and byte sizes: a tensor's origin shape is expanded to the
 * full rank of its origin format, then transferred to its storage format;
 * its byte size is the storage element count times the element size,
 * aligned up. */
#include "infer/passes.h"
#include "infer/storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static const struct {
	const char *name;
	int rank;
} formats[] = {
#define SYM__FMT_ROW(name, str, rank) {str, rank},
    SYM_FORMAT_MAP(SYM__FMT_ROW)
#undef SYM__FMT_ROW
};

int sym__format_from_name(const char *name)
{
	int i;
	if (!name)
		return -1;
	if (!strcmp(name, "FZ"))
		return SYM_FMT_FRACTAL_Z;
	if (!strcmp(name, "NZ"))
		return SYM_FMT_FRACTAL_NZ;
	for (i = 0; i < SYM_FMT_COUNT; i++)
		if (!strcmp(name, formats[i].name))
			return i;
	return -1;
}

const char *sym__format_name(int fmt)
{
	return fmt >= 0 && fmt < SYM_FMT_COUNT ? formats[fmt].name : "?";
}

int sym__format_c0(int dtype)
{
	return sym__dtype_size(dtype) == 1 ? 32 : 16;
}

/* The axes a shape of rank k < full occupies in a full-rank origin format
 * when nothing else is said: the channel axis and those next to it, so a
 * [C] bias in NCHW is [1, C, 1, 1] and a [W, C] tensor in NHWC is
 * [1, 1, W, C]. */
static const char *default_axes(int fmt, int k)
{
	static const char *const nchw[] = {"", "C", "CH", "CHW"};
	static const char *const nhwc[] = {"", "C", "WC", "HWC"};
	static const char *const hwcn[] = {"", "N", "CN", "WCN"};
	static const char *const ncdhw[] = {"", "C", "CD", "CDH", "CDHW"};
	static const char *const ndhwc[] = {"", "C", "WC", "HWC", "DHWC"};
	switch (fmt) {
	case SYM_FMT_NCHW:
		return nchw[k];
	case SYM_FMT_NHWC:
		return nhwc[k];
	case SYM_FMT_HWCN:
		return hwcn[k];
	case SYM_FMT_NCDHW:
		return ncdhw[k];
	default:
		return ndhwc[k];
	}
}

static int is_origin_4d(int f)
{
	return f == SYM_FMT_NCHW || f == SYM_FMT_NHWC || f == SYM_FMT_HWCN;
}
static int is_origin_5d(int f)
{
	return f == SYM_FMT_NCDHW || f == SYM_FMT_NDHWC;
}

/* (x + k - 1)//k */
static const sym_expr *ceil_div(sym_ctx *ctx, const sym_expr *x, int64_t k)
{
	return sym_expr_floordiv(ctx, sym_expr_add(ctx, x, sym_expr_from_si(ctx, k - 1)),
	                         sym_expr_from_si(ctx, k));
}

/* The dim of axis letter a in a full-rank origin shape. */
static const sym_expr *axis(int fmt, const sym_expr *const *full, char a)
{
	const char *p = strchr(formats[fmt].name, a);
	return p ? full[p - formats[fmt].name] : NULL;
}

int sym__storage_shape(sym_ctx *ctx, int origin, int storage, int dtype, int rank,
                       const sym_expr *const *dims, const sym_expr **out, int *out_rank)
{
	const sym_expr *full[8], *one = sym_expr_from_si(ctx, 1), *n, *c, *h, *w, *d;
	int64_t c0 = sym__format_c0(dtype);
	int i, fr = formats[origin].rank;
	if (!one || rank < 0)
		return -1;
	if (storage == origin || storage == SYM_FMT_ND || storage == SYM_FMT_FRACTAL_NZ) {
		if (storage == SYM_FMT_FRACTAL_NZ) {
			/* [..., m, n] -> [..., ceil(n/C0), ceil(m/16), 16, C0]; a
			 * vector is one row */
			const sym_expr *m = rank >= 2 ? dims[rank - 2] : one,
			               *k = rank >= 1 ? dims[rank - 1] : one;
			if (rank > 6)
				goto bad_rank;
			for (i = 0; i < rank - 2; i++)
				out[i] = dims[i];
			*out_rank = (rank > 2 ? rank - 2 : 0) + 4;
			out[*out_rank - 4] = ceil_div(ctx, k, c0);
			out[*out_rank - 3] = ceil_div(ctx, m, 16);
			out[*out_rank - 2] = sym_expr_from_si(ctx, 16);
			out[*out_rank - 1] = sym_expr_from_si(ctx, c0);
		} else {
			if (rank > 8)
				goto bad_rank;
			for (i = 0; i < rank; i++)
				out[i] = dims[i];
			*out_rank = rank;
		}
		return sym__failed(ctx) ? -1 : 0;
	}
	if (!fr)
		goto bad_pair;
	if (rank > fr)
		goto bad_rank;
	/* expand to the full rank of the origin format */
	{
		const char *ax = rank == fr ? formats[origin].name : default_axes(origin, rank);
		for (i = 0; i < fr; i++)
			full[i] = one;
		for (i = 0; i < rank; i++)
			full[strchr(formats[origin].name, ax[i]) - formats[origin].name] = dims[i];
	}
	n = axis(origin, full, 'N'), c = axis(origin, full, 'C'), h = axis(origin, full, 'H');
	w = axis(origin, full, 'W'), d = axis(origin, full, 'D');
	switch (storage) {
	case SYM_FMT_NCHW:
	case SYM_FMT_NHWC:
	case SYM_FMT_HWCN:
		if (!is_origin_4d(origin))
			goto bad_pair;
		*out_rank = 4;
		for (i = 0; i < 4; i++)
			out[i] = axis(origin, full, formats[storage].name[i]);
		break;
	case SYM_FMT_NCDHW:
	case SYM_FMT_NDHWC:
		if (!is_origin_5d(origin))
			goto bad_pair;
		*out_rank = 5;
		for (i = 0; i < 5; i++)
			out[i] = axis(origin, full, formats[storage].name[i]);
		break;
	case SYM_FMT_NC1HWC0:
		if (!is_origin_4d(origin))
			goto bad_pair;
		*out_rank = 5;
		out[0] = n, out[1] = ceil_div(ctx, c, c0), out[2] = h, out[3] = w;
		out[4] = sym_expr_from_si(ctx, c0);
		break;
	case SYM_FMT_NDC1HWC0:
		if (!is_origin_5d(origin))
			goto bad_pair;
		*out_rank = 6;
		out[0] = n, out[1] = d, out[2] = ceil_div(ctx, c, c0), out[3] = h, out[4] = w;
		out[5] = sym_expr_from_si(ctx, c0);
		break;
	case SYM_FMT_FRACTAL_Z:
		/* conv weights [N, C, H, W]: [C1*H*W, ceil(N/16), 16, C0] */
		if (!is_origin_4d(origin))
			goto bad_pair;
		*out_rank = 4;
		out[0] = sym_expr_mul(ctx, sym_expr_mul(ctx, ceil_div(ctx, c, c0), h), w);
		out[1] = ceil_div(ctx, n, 16);
		out[2] = sym_expr_from_si(ctx, 16);
		out[3] = sym_expr_from_si(ctx, c0);
		break;
	default:
		goto bad_pair;
	}
	return sym__failed(ctx) ? -1 : 0;
bad_pair:
	sym__error(ctx, SYM_EDOMAIN, -1, "no layout transfers %s to %s", formats[origin].name,
	           formats[storage].name);
	return -1;
bad_rank:
	sym__error(ctx, SYM_EDOMAIN, -1, "a tensor of rank %d does not fit %s (as %s)", rank,
	           formats[storage].name, formats[origin].name);
	return -1;
}

const sym_expr *sym__storage_bytes(sym_ctx *ctx, int dtype, int rank, const sym_expr *const *dims,
                                   int64_t align)
{
	const sym_expr *e;
	int i, size = sym__dtype_size(dtype);
	int64_t per_block;
	if (size <= 0 || rank < 0)
		return NULL;
	/* size*P aligned up to a multiple of align, P the product of the dims;
	 * when size divides align that is align*ceil(P/(align/size)), made in
	 * that form (the simplifier would reach it from the other) */
	per_block = align > 1 && align % size == 0 ? align / size : 0;
	e = sym_expr_from_si(ctx, per_block ? 1 : size);
	for (i = 0; i < rank; i++)
		e = sym_expr_mul(ctx, e, dims[i]);
	if (align > 1)
		e = sym_expr_mul(ctx, sym_expr_from_si(ctx, align),
		                 ceil_div(ctx, e, per_block ? per_block : align));
	return e;
}

/* ---- the graph's annotations ------------------------------------------- */

/* The key of a tensor's byte size: its element size and its dims (nodes,
 * so equal dims are equal pointers). */
static size_t bytes_key(int size, int rank, const sym_expr *const *dims)
{
	size_t h = (size_t)size * 0x9e3779b97f4a7c15ULL ^ (size_t)(rank + 1);
	int k;
	for (k = 0; k < rank; k++)
		h = (h ^ (size_t)(uintptr_t)dims[k]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int same_bytes_key(int size, const sym_tstorage *a, int osize, const sym_tstorage *b)
{
	int k;
	if (size != osize || a->rank != b->rank)
		return 0;
	for (k = 0; k < a->rank; k++)
		if (a->dims[k] != b->dims[k])
			return 0;
	return 1;
}

/* After the total failed: a limit (too many terms, a number too large)
 * only leaves the total out, with its reason; anything else (out of
 * memory) fails the pass.  Returns 0 or -1. */
static int total_failed(sym_graph_result *r, struct sym_graph_ext *x)
{
	sym_ctx *ctx = r->ctx;
	if (sym_ctx_last_error(ctx) != SYM_ELIMIT)
		return -1;
	if (!(x->total_error = sym__infer_strdup(&r->inf, sym_ctx_last_message(ctx)))) {
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return -1;
	}
	sym_ctx_clear_error(ctx);
	x->total = NULL;
	return 0;
}

int sym__graph_storage(sym_graph_result *r, const sym_infer_options *opt)
{
	const sym_model *m = r->model;
	sym_ctx *ctx = r->ctx;
	struct sym_graph_ext *x;
	size_t i;
	int k;
	if (sym__graph_ext_get(r) < 0)
		return -1;
	x = r->ext;
	x->align = opt && opt->align ? opt->align : 32;
	if (x->align < 1 || x->align > ((int64_t)1 << 40)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "the byte alignment must be in [1, 2**40], got %lld",
		           (long long)x->align);
		return -1;
	}
	if (!(x->t = sym__infer_alloc(&r->inf, (r->ntensors + 1) * sizeof(*x->t))))
		return -1;
	for (i = 0; i < r->ntensors; i++) {
		x->t[i].origin = x->t[i].storage = -1;
		x->t[i].rank = r->tensors[i].tv.rank >= 0 ? r->tensors[i].tv.rank : -1;
		x->t[i].dims = r->tensors[i].tv.dims;
	}
	for (i = 0; i < m->nformats; i++) {
		const sym_mformat *mf = &m->formats[i];
		size_t t = sym__graph_find(r, mf->tensor);
		int of = sym__format_from_name(mf->format), sf = sym__format_from_name(mf->storage_format);
		const sym_expr *out[8];
		sym_tstorage *ts;
		if (t == (size_t)-1) {
			sym__error(ctx, SYM_EDOMAIN, -1,
			           "model: \"formats\" names '%s', which is not a tensor of the graph",
			           mf->tensor);
			return -1;
		}
		if (of < 0 || sf < 0 || of >= SYM_FMT_NC1HWC0) {
			sym__error(ctx, SYM_EDOMAIN, -1,
			           "model: formats['%s']: unknown %s format '%s' (origin: ND, NCHW, "
			           "NHWC, HWCN, "
			           "NCDHW, NDHWC; storage also NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_NZ)",
			           mf->tensor, of < 0 || of >= SYM_FMT_NC1HWC0 ? "origin" : "storage",
			           of < 0 || of >= SYM_FMT_NC1HWC0 ? mf->format : mf->storage_format);
			return -1;
		}
		ts = &x->t[t];
		if (ts->origin >= 0) {
			/* a second entry would read the first one's storage rank */
			sym__error(ctx, SYM_EDOMAIN, -1, "model: \"formats\" names tensor '%s' twice",
			           mf->tensor);
			return -1;
		}
		ts->origin = of, ts->storage = sf;
		if (ts->rank < 0)
			continue; /* storage unknown with the origin shape */
		if (sym__storage_shape(ctx, of, sf, r->tensors[t].tv.dtype, r->tensors[t].tv.rank,
		                       r->tensors[t].tv.dims, out, &ts->rank) < 0) {
			return sym__result_refail(r, "model: tensor '%s'", mf->tensor);
		}
		ts->dims = sym__infer_alloc(&r->inf, (size_t)(ts->rank + 1) * sizeof(*ts->dims));
		if (!ts->dims) {
			sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
			return -1;
		}
		for (k = 0; k < ts->rank; k++)
			if (!(ts->dims[k] = sym_simplify(ctx, r->facts, out[k])))
				return -1;
	}
	{
		/* the total is summed once: one sum per tensor would cost the
		 * square of the tensors with sizes of their own; a tensor with
		 * the element size and the dims of an earlier one has its bytes
		 * (the memo, open addressing over 2**k >= 2 * tensors slots) */
		const sym_expr **terms = sym__alloc(ctx, (r->ntensors + 1) * sizeof(*terms));
		size_t cap = 16, *memo;
		int known = 1;
		while (cap < 2 * r->ntensors)
			cap *= 2;
		memo = sym__alloc(ctx, cap * sizeof(*memo));
		if (!terms || !memo) {
			if (terms)
				sym__free(ctx, terms, (r->ntensors + 1) * sizeof(*terms));
			if (memo)
				sym__free(ctx, memo, cap * sizeof(*memo));
			return -1;
		}
		memset(memo, 0, cap * sizeof(*memo));
		for (i = 0; i < r->ntensors; i++) {
			sym_tstorage *ts = &x->t[i];
			int size = sym__dtype_size(r->tensors[i].tv.dtype);
			size_t h = bytes_key(size, ts->rank, ts->dims) & (cap - 1), j;
			const sym_expr *b = NULL;
			int found = 0;
			for (; (j = memo[h]) != 0; h = (h + 1) & (cap - 1)) {
				const sym_tstorage *o = &x->t[j - 1];
				if (same_bytes_key(size, ts, sym__dtype_size(r->tensors[j - 1].tv.dtype),
				                   o)) {
					b = o->bytes, found = 1;
					break;
				}
			}
			if (!found) {
				b = sym__storage_bytes(ctx, r->tensors[i].tv.dtype, ts->rank, ts->dims,
				                       x->align);
				if (b && !(b = sym_simplify(ctx, r->facts, b))) {
					sym__free(ctx, terms, (r->ntensors + 1) * sizeof(*terms));
					sym__free(ctx, memo, cap * sizeof(*memo));
					return -1;
				}
				memo[h] = i + 1;
			}
			ts->bytes = b;
			terms[i] = b;
			known &= b != NULL;
		}
		sym__free(ctx, memo, cap * sizeof(*memo));
		x->total = known ? sym__expr_sum(ctx, r->ntensors, terms) : NULL;
		sym__free(ctx, terms, (r->ntensors + 1) * sizeof(*terms));
		if (known && !x->total)
			return total_failed(r, x);
	}
	if (x->total && !(x->total = sym_simplify(ctx, r->facts, x->total)))
		return total_failed(r, x);
	return sym__failed(ctx) ? -1 : 0;
}

/* ---- accessors ---------------------------------------------------------- */

const char *sym_graph_tensor_format(const sym_graph_result *r, size_t i, const char **storage_format)
{
	if (!r->ext || !r->ext->t || i >= r->ntensors || r->ext->t[i].origin < 0)
		return NULL;
	if (storage_format)
		*storage_format = formats[r->ext->t[i].storage].name;
	return formats[r->ext->t[i].origin].name;
}

int sym_graph_tensor_storage(const sym_graph_result *r, size_t i, const sym_expr *const **dims)
{
	if (!r->ext || !r->ext->t || i >= r->ntensors)
		return -1;
	if (dims)
		*dims = r->ext->t[i].dims;
	return r->ext->t[i].rank;
}

const sym_expr *sym_graph_tensor_bytes(const sym_graph_result *r, size_t i)
{
	if (!r->ext || !r->ext->t || i >= r->ntensors)
		return NULL;
	return r->ext->t[i].bytes;
}

const sym_expr *sym_graph_total_bytes(const sym_graph_result *r)
{
	return r->ext ? r->ext->total : NULL;
}

const char *sym_graph_total_bytes_error(const sym_graph_result *r)
{
	return r->ext ? r->ext->total_error : NULL;
}
