/* Guards: the guards the rules stated are pruned (dropped when the symbol
 * ranges and the other guards imply them) and ordered, asserts before
 * expects.  Deduplication happened as they were stated: equal predicates
 * are equal pointers after simplification. */
#include "infer/passes.h"

#include <stdlib.h>
#include <string.h>

/* Collects into *out the guards to prune: r's own, then, when r was inferred
 * with hints, the asserts of r0 (the model inferred without them) that r
 * lacks.
 * A rule that takes a hinted branch states the choice as an expect and
 * works under it, so validity conditions the expect implies are never
 * stated; they hold whatever the hints, and with them a hinted program
 * still tells invalid input from a failed choice.  Returns the count, or
 * (size_t)-1 when memory runs out. */
static size_t guards_to_prune(sym_graph_result *r, const sym_graph_result *r0, sym_guard **out, size_t *cap)
{
	size_t n0 = r->inf.nguards, n = n0, i, k;
	*cap = n + (r0 ? r0->nguards : 0) + 1;
	if (!(*out = sym__alloc(r->ctx, *cap * sizeof(**out))))
		return (size_t)-1;
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
		if (k < ns || sym__infer_guard_find(&r->inf, g->pred, n0) >= 0)
			continue; /* a symbol r does not have, or a guard r states */
		(*out)[n] = *g;
		(*out)[n].node = sym__infer_strdup(&r->inf, g->node);
		(*out)[n].reason = sym__infer_strdup(&r->inf, g->reason);
		if (!(*out)[n].node || !(*out)[n].reason) {
			sym__free(r->ctx, *out, *cap * sizeof(**out));
			*out = NULL;
			return (size_t)-1;
		}
		n++;
	}
	return n;
}

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

/* Up to PRUNE_ALL guards, or up to PRUNE_ALL_SMALL guards of at most
 * PRUNE_WORK nodes all together times their count, each is proven under
 * every other one it may be pruned by (n*n assumptions, their cost
 * bounded).  Past that, under the guards connected to
 * it through shared symbols (directly or through other such guards), and
 * only when there are at most PRUNE_GROUP of them, found within
 * PRUNE_VISITS index entries; a guard with more than PRUNE_SYMS symbols is
 * neither pruned nor used as a fact.  Fewer facts prove less, never
 * more: a guard is still dropped only when it is implied, and the pass is
 * linear in the guards. */
#define PRUNE_ALL 32
#define PRUNE_ALL_SMALL 256
#define PRUNE_WORK (1u << 15)
#define PRUNE_GROUP 32
#define PRUNE_VISITS 1024
#define PRUNE_SYMS 64
#define PRUNE_NODES 256

/* Which guards may imply guard i: those of the kind it may be pruned by
 * (an assert by asserts only) among the ones kept before it and every one
 * after it. */
typedef struct pruner {
	sym_graph_result *r;
	sym_guard *all;
	size_t n;
	unsigned char *kept; /* per guard of all[] before the one tested */
	/* the symbol index (past PRUNE_ALL guards): each guard's symbols as
	 * indices into syms[], and each symbol's guards */
	size_t *gsym_at, *gsym; /* guard g's symbols: gsym[gsym_at[g] .. gsym_at[g + 1]) */
	const sym_expr **syms;  /* distinct symbols (open addressing, symcap slots) */
	size_t *sym_slot;       /* per guard symbol: its slot in syms[] */
	size_t *shead, *snext;  /* per slot: first link + 1; per link: next + 1 */
	size_t *link_guard;
	size_t symcap, nlinks;
	size_t *gmark, *smark; /* the tested guard + 1 that last visited them */
	size_t *group;
} pruner;

static int may_imply(const pruner *p, size_t i, size_t j)
{
	if (j == i || (j < i && !p->kept[j]))
		return 0;
	return p->all[i].kind != SYM_GUARD_ASSERT || p->all[j].kind == SYM_GUARD_ASSERT;
}

/* Whether the guards given (indices into all[], ascending) and the symbol
 * ranges prove guard i; -1 when memory runs out. */
static int implied_by(pruner *p, size_t i, const size_t *given, size_t ngiven)
{
	sym_graph_result *r = p->r;
	sym_facts *f = sym__graph_range_facts(r);
	size_t j;
	int st = 0, implied = 0;
	if (!f)
		return -1;
	/* a disjunction is only remembered: the store keeps it for
	 * witnesses and for proving itself, which is all it would give it
	 * unless the other guards turned it into a relation (it was
	 * simplified under the ones before it when it was stated) */
	for (j = 0; j < ngiven && !st; j++) {
		const sym_expr *g = p->all[given[j]].pred;
		if ((sym_expr_kind(g) == SYM_KIND_OR ? sym__facts_remember(f, g) : sym_facts_assume(f, g)) !=
		    SYM_EOK)
			st = soft_failure(r);
	}
	if (!st)
		implied = sym_prove(r->ctx, f, p->all[i].pred) == SYM_TRUE;
	sym_facts_free(f);
	if (!st && sym__failed(r->ctx))
		st = soft_failure(r);
	return st < 0 ? -1 : implied;
}

static size_t sym_slot_of(const pruner *p, const sym_expr *s)
{
	size_t j;
	for (j = sym_expr_hash(s) & (p->symcap - 1); p->syms[j] && p->syms[j] != s;
	     j = (j + 1) & (p->symcap - 1))
		;
	return j;
}

#define PRUNER_ALLOC(p, ptr, count)                                                                          \
	((ptr) = sym__alloc((p)->r->ctx, (count) * sizeof(*(ptr))),                                          \
	 (ptr) ? (memset((ptr), 0, (count) * sizeof(*(ptr))), 1) : 0)

/* The distinct symbols of predicate e into out (at most PRUNE_SYMS); their
 * count, or (size_t)-1 past PRUNE_SYMS symbols or PRUNE_NODES distinct
 * nodes (a wide guard).  Stops there, so a guard over the max of a
 * thousand dims costs what one over PRUNE_SYMS does. */
static size_t guard_symbols(const sym_expr *e, const sym_expr **out, size_t *nodes)
{
	const sym_expr *seen[2 * PRUNE_NODES], *stack[PRUNE_NODES];
	size_t nseen = 1, sp = 0, ns = 0, i, j;
	memset(seen, 0, sizeof(seen));
	seen[sym_expr_hash(e) & (2 * PRUNE_NODES - 1)] = e;
	stack[sp++] = e;
	*nodes = PRUNE_NODES; /* when it stops early */
	while (sp) {
		const sym_expr *x = stack[--sp];
		size_t na = sym__expr_nargs(x);
		if (sym_expr_kind(x) == SYM_KIND_SYM) {
			if (ns == PRUNE_SYMS)
				return (size_t)-1;
			out[ns++] = x;
			continue;
		}
		/* a min or max has distinct arguments: more than PRUNE_NODES
		 * of them pass the limit whatever was seen before */
		if ((sym_expr_kind(x) == SYM_KIND_MIN || sym_expr_kind(x) == SYM_KIND_MAX) &&
		    na > PRUNE_NODES)
			return (size_t)-1;
		for (i = 0; i < na; i++) {
			const sym_expr *c = sym__expr_arg(x, i);
			for (j = sym_expr_hash(c) & (2 * PRUNE_NODES - 1); seen[j] && seen[j] != c;
			     j = (j + 1) & (2 * PRUNE_NODES - 1))
				;
			if (seen[j])
				continue;
			if (nseen == PRUNE_NODES)
				return (size_t)-1;
			seen[j] = c;
			nseen++;
			stack[sp++] = c;
		}
	}
	*nodes = nseen;
	return ns;
}

/* Whether the n guards take the rule of every other guard: few, or few
 * and small. */
static int prune_all(const sym_guard *all, size_t n)
{
	const sym_expr *buf[PRUNE_SYMS];
	size_t g, nodes, work = 0;
	if (n <= PRUNE_ALL)
		return 1;
	if (n > PRUNE_ALL_SMALL)
		return 0;
	for (g = 0; g < n; g++) {
		guard_symbols(all[g].pred, buf, &nodes);
		work += nodes * n;
		if (work > PRUNE_WORK)
			return 0;
	}
	return 1;
}

/* Builds the symbol index of every guard.  -1 when memory runs out. */
static int pruner_index(pruner *p)
{
	sym_ctx *ctx = p->r->ctx;
	const sym_expr *buf[PRUNE_SYMS];
	size_t g, k, total = 0;
	if (!PRUNER_ALLOC(p, p->gsym_at, p->n + 1))
		return -1;
	for (g = 0; g < p->n; g++) {
		size_t nodes, ns = guard_symbols(p->all[g].pred, buf, &nodes);
		p->gsym_at[g] = total;
		total += ns != (size_t)-1 ? ns : 0; /* a wide guard stays out of the index */
	}
	p->gsym_at[p->n] = total;
	for (p->symcap = 64; p->symcap < 2 * total + 2; p->symcap *= 2)
		;
	if (!PRUNER_ALLOC(p, p->gsym, total + 1) || !PRUNER_ALLOC(p, p->syms, p->symcap) ||
	    !PRUNER_ALLOC(p, p->shead, p->symcap) || !PRUNER_ALLOC(p, p->snext, total + 1) ||
	    !PRUNER_ALLOC(p, p->link_guard, total + 1) || !PRUNER_ALLOC(p, p->smark, p->symcap) ||
	    !PRUNER_ALLOC(p, p->gmark, p->n) || !PRUNER_ALLOC(p, p->group, PRUNE_GROUP + 1))
		return -1;
	for (g = 0; g < p->n; g++) {
		size_t nodes, ns = p->gsym_at[g + 1] - p->gsym_at[g];
		if (!ns)
			continue;
		guard_symbols(p->all[g].pred, buf, &nodes);
		for (k = 0; k < ns; k++) {
			size_t slot = sym_slot_of(p, buf[k]), l = p->nlinks++;
			p->syms[slot] = buf[k];
			p->gsym[p->gsym_at[g] + k] = slot;
			p->link_guard[l] = g;
			p->snext[l] = p->shead[slot];
			p->shead[slot] = l + 1;
		}
	}
	return sym__failed(ctx) ? -1 : 0;
}

static void pruner_free(pruner *p)
{
	sym_ctx *ctx = p->r->ctx;
	size_t total = p->gsym_at ? p->gsym_at[p->n] : 0;
	sym__free(ctx, p->kept, (p->n + 1) * sizeof(*p->kept));
	if (p->gsym_at)
		sym__free(ctx, p->gsym_at, (p->n + 1) * sizeof(*p->gsym_at));
	sym__free(ctx, p->gsym, (total + 1) * sizeof(*p->gsym));
	sym__free(ctx, p->syms, p->symcap * sizeof(*p->syms));
	sym__free(ctx, p->shead, p->symcap * sizeof(*p->shead));
	sym__free(ctx, p->snext, (total + 1) * sizeof(*p->snext));
	sym__free(ctx, p->link_guard, (total + 1) * sizeof(*p->link_guard));
	sym__free(ctx, p->smark, p->symcap * sizeof(*p->smark));
	sym__free(ctx, p->gmark, p->n * sizeof(*p->gmark));
	sym__free(ctx, p->group, (PRUNE_GROUP + 1) * sizeof(*p->group));
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The guards connected to guard i through shared symbols that may imply
 * it, into p->group (ascending); returns their count, or (size_t)-1 when
 * there are more than PRUNE_GROUP or the search passes PRUNE_VISITS index
 * entries (or guard i is wide). */
static size_t connected_group(pruner *p, size_t i)
{
	size_t queue[PRUNE_GROUP + 1], nq = 0, head = 0, ng = 0, visits = 0, k, g = i;
	size_t mark = i + 1;
	if (p->gsym_at[i + 1] == p->gsym_at[i])
		return (size_t)-1;
	p->gmark[i] = mark;
	/* breadth first over guards; each guard's symbols lead to more guards */
	queue[nq++] = i;
	while (head < nq) {
		g = queue[head++];
		for (k = p->gsym_at[g]; k < p->gsym_at[g + 1]; k++) {
			size_t slot = p->gsym[k], l;
			if (p->smark[slot] == mark)
				continue;
			p->smark[slot] = mark;
			for (l = p->shead[slot]; l; l = p->snext[l - 1]) {
				size_t j = p->link_guard[l - 1];
				if (++visits > PRUNE_VISITS)
					return (size_t)-1;
				if (p->gmark[j] == mark || !may_imply(p, i, j))
					continue;
				p->gmark[j] = mark;
				if (ng == PRUNE_GROUP)
					return (size_t)-1;
				p->group[ng++] = j;
				queue[nq++] = j;
			}
		}
	}
	qsort(p->group, ng, sizeof(*p->group), size_cmp);
	return ng;
}

/* Drops the guards implied by the symbol ranges and the other guards: an
 * expect by any guards, an assert by the asserts alone (an expect is a
 * choice of the hints, so a hinted program still tells invalid input from a
 * failed choice).  Guard i is tested against guards of that kind kept
 * before it and after it (every other one up to PRUNE_ALL guards, the
 * connected ones past that); by induction from the last guard, the kept
 * ones imply every dropped one (two guards implying each other keep the
 * first), and the kept asserts every dropped assert. */
int sym__guards_prune(sym_graph_result *r, const sym_graph_result *r0)
{
	sym_guard *all, *tmp;
	size_t cap, n = guards_to_prune(r, r0, &all, &cap), i, j, w = 0, k = 0;
	size_t *given = NULL;
	pruner p;
	int ret = -1, exact;
	if (n == (size_t)-1)
		return -1;
	memset(&p, 0, sizeof(p));
	p.r = r, p.all = all, p.n = n;
	if (!(r->guards = sym__infer_alloc(&r->inf, (n + 1) * sizeof(*r->guards))))
		goto error;
	if (!PRUNER_ALLOC(&p, p.kept, n + 1))
		goto error;
	exact = prune_all(all, n);
	if (exact) {
		if (!(given = sym__alloc(r->ctx, (n + 1) * sizeof(*given))))
			goto error;
	} else if (pruner_index(&p) < 0) {
		goto error;
	}
	for (i = 0; i < n; i++) {
		int implied = 0;
		if (exact) {
			size_t ng = 0;
			for (j = 0; j < n; j++)
				if (may_imply(&p, i, j))
					given[ng++] = j;
			implied = implied_by(&p, i, given, ng);
		} else {
			size_t ng = connected_group(&p, i);
			if (ng != (size_t)-1 && ng > 0)
				implied = implied_by(&p, i, p.group, ng);
		}
		if (implied < 0)
			goto error;
		if (!implied) {
			r->guards[w++] = all[i];
			p.kept[i] = 1;
		}
	}
	r->nguards = w;
	/* asserts before expects (stable): a run that reaches an expect guard
	 * has checked every validity condition, so a failing expect guard
	 * means "recompile", never "maybe invalid"; all is the scratch */
	tmp = all;
	for (i = 0; i < w; i++)
		if (r->guards[i].kind == SYM_GUARD_ASSERT)
			tmp[k++] = r->guards[i];
	for (i = 0; i < w; i++)
		if (r->guards[i].kind != SYM_GUARD_ASSERT)
			tmp[k++] = r->guards[i];
	if (w)
		memcpy(r->guards, tmp, w * sizeof(*tmp));
	ret = 0;
error:
	if (given)
		sym__free(r->ctx, given, (n + 1) * sizeof(*given));
	pruner_free(&p);
	sym__free(r->ctx, all, cap * sizeof(*all));
	return ret;
}
