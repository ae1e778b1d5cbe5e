/* The final shapes: every tensor's dims simplified under the facts of the
 * whole graph.  A rule simplifies its output under the guards stated before
 * it runs; a guard a later node states can simplify it further
 * (transformer's add_mask gives [max(batch, mbatch), ...] before
 * merge_heads states mbatch <= batch).  The facts hold every guard stated
 * and the symbol ranges; the pruned guards imply them all, and a compiled
 * program checks the guards before it computes a shape, so a dim equal
 * under the facts is equal wherever a shape is computed. */
#include "infer/passes.h"

#include <string.h>

/* A memo from a dim to its simplified form: dims repeat across tensors. */
typedef struct memo {
	const sym_expr **key, **val;
	size_t cap, n; /* cap a power of two, n < cap/2 */
} memo;

static size_t slot(const memo *mo, const sym_expr *e)
{
	size_t h = (size_t)(uintptr_t)e;
	h ^= h >> 17;
	h *= (size_t)0x9e3779b97f4a7c15ULL;
	return (h >> 7) & (mo->cap - 1);
}

static int memo_grow(sym_ctx *ctx, memo *mo)
{
	memo g;
	size_t i;
	g.cap = mo->cap ? 2 * mo->cap : 256;
	g.n = 0;
	g.key = sym__alloc(ctx, g.cap * sizeof(*g.key));
	g.val = g.key ? sym__alloc(ctx, g.cap * sizeof(*g.val)) : NULL;
	if (!g.val) {
		sym__free(ctx, g.key, g.cap * sizeof(*g.key));
		return -1;
	}
	memset(g.key, 0, g.cap * sizeof(*g.key));
	for (i = 0; i < mo->cap; i++)
		if (mo->key[i]) {
			size_t s = slot(&g, mo->key[i]);
			while (g.key[s])
				s = (s + 1) & (g.cap - 1);
			g.key[s] = mo->key[i], g.val[s] = mo->val[i], g.n++;
		}
	sym__free(ctx, mo->key, mo->cap * sizeof(*mo->key));
	sym__free(ctx, mo->val, mo->cap * sizeof(*mo->val));
	*mo = g;
	return 0;
}

/* The simplified form of e, or e itself when the simplifier gives up on a
 * limit (the fact is then not used, which is sound); NULL when memory runs
 * out. */
static const sym_expr *final_dim(sym_graph_result *r, memo *mo, const sym_expr *e)
{
	const sym_expr *s;
	size_t k;
	if (sym_expr_kind(e) == SYM_KIND_NUM)
		return e;
	if (2 * (mo->n + 1) > mo->cap && memo_grow(r->ctx, mo) < 0)
		return NULL;
	for (k = slot(mo, e); mo->key[k]; k = (k + 1) & (mo->cap - 1))
		if (mo->key[k] == e)
			return mo->val[k];
	s = sym_simplify(r->ctx, r->facts, e);
	if (!s) {
		if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
			return NULL;
		sym_ctx_clear_error(r->ctx);
		s = e;
	}
	mo->key[k] = e, mo->val[k] = s, mo->n++;
	return s;
}

int sym__final_shapes(sym_graph_result *r)
{
	memo mo = {NULL, NULL, 0, 0};
	size_t i;
	int d, ret = -1;
	for (i = 0; i < r->ntensors; i++) {
		sym_tval *tv = &r->tensors[i].tv;
		const sym_expr **dims = tv->dims;
		if (r->tensors[i].producer < 0)
			continue; /* an input's dims are what binds its symbols */
		for (d = 0; d < tv->rank; d++) {
			const sym_expr *s = final_dim(r, &mo, tv->dims[d]);
			if (!s)
				goto error;
			if (s == tv->dims[d])
				continue;
			/* a fresh array: dims arrays may be shared between tensors */
			if (dims == tv->dims) {
				if (!(dims = sym__infer_alloc(&r->inf, (size_t)tv->rank * sizeof(*dims))))
					goto error;
				memcpy(dims, tv->dims, (size_t)tv->rank * sizeof(*dims));
			}
			dims[d] = s;
		}
		tv->dims = dims;
	}
	ret = 0;
error:
	sym__free(r->ctx, mo.key, mo.cap * sizeof(*mo.key));
	sym__free(r->ctx, mo.val, mo.cap * sizeof(*mo.val));
	return ret;
}
