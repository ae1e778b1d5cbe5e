/* JSON (de)serialisation of expressions, and GMP interop. */
#include "print_private.h"
#include "symshape/gmp.h"
#include "symshape/json.h"

#include <stdio.h>

static const char *const kind_names[] = {
#define SYM__KIND_NAME(name, str) str,
    SYM_KIND_MAP(SYM__KIND_NAME)
#undef SYM__KIND_NAME
};

static cJSON *num_json(sym_ctx *ctx, const sym_num *v)
{
	sym_sbuf b;
	cJSON *j;
	sym__sbuf_init(&b, ctx);
	sym__sbuf_num(&b, v);
	j = b.fail ? NULL : cJSON_CreateString(b.s);
	sym__sbuf_clear(&b);
	return j;
}

/* Adds item to o (or to the array o), failing when item is NULL. */
static int put(cJSON *o, const char *name, cJSON *item)
{
	if (!item)
		return 0;
	if (name)
		return cJSON_AddItemToObject(o, name, item) ? 1 : (cJSON_Delete(item), 0);
	return cJSON_AddItemToArray(o, item) ? 1 : (cJSON_Delete(item), 0);
}

static cJSON *to_json(sym_ctx *ctx, const sym_expr *e)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t i;
	int ok = 1;
	if (!o)
		return NULL;
	ok = put(o, "kind", cJSON_CreateString(kind_names[e->kind]));
	switch (e->kind) {
	case SYM_KIND_NUM:
		ok = ok && put(o, "value", num_json(ctx, node_num(e)));
		break;
	case SYM_KIND_SYM:
		ok = ok && put(o, "name", cJSON_CreateString(node_name(e)));
		break;
	case SYM_KIND_BOOL:
		ok = ok && put(o, "value", cJSON_CreateBool(*(const int64_t *)NODE_PAYLOAD(e) != 0));
		break;
	case SYM_KIND_ADD:
		ok = ok && put(o, "const", num_json(ctx, node_add_const(e)));
		arr = ok ? cJSON_CreateArray() : NULL;
		ok = ok && put(o, "terms", arr);
		for (i = 0; ok && i < e->n; i++) {
			cJSON *t = cJSON_CreateObject();
			ok = put(arr, NULL, t) && put(t, "coef", num_json(ctx, node_coef(e, i))) &&
			     put(t, "mono", to_json(ctx, node_mono(e, i)));
		}
		break;
	case SYM_KIND_MUL:
		arr = ok ? cJSON_CreateArray() : NULL;
		ok = ok && put(o, "factors", arr);
		for (i = 0; ok && i < e->n; i++) {
			cJSON *t = cJSON_CreateObject();
			char buf[32];
			snprintf(buf, sizeof(buf), "%lld", (long long)node_factors(e)[i].exp);
			ok = put(arr, NULL, t) && put(t, "base", to_json(ctx, node_factors(e)[i].base)) &&
			     put(t, "exp", cJSON_CreateString(buf));
		}
		break;
	default:
		arr = ok ? cJSON_CreateArray() : NULL;
		ok = ok && put(o, "args", arr);
		for (i = 0; ok && i < e->n; i++)
			ok = put(arr, NULL, to_json(ctx, node_kids(e)[i]));
	}
	if (!ok) {
		cJSON_Delete(o);
		if (!sym__failed(ctx))
			sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return NULL;
	}
	return o;
}

/* Node counts of the trees of distinct nodes (open addressing). */
typedef struct tcount {
	sym_ctx *ctx;
	const sym_expr **key;
	size_t *val, cap, n;
} tcount;

/* Returns the number of objects of e's JSON tree, saturating just above
 * SYM_MAX_JSON_NODES, in time linear in the distinct nodes; 0 when out of
 * memory. */
static size_t tree_count(tcount *t, const sym_expr *e)
{
	size_t i, r = 1, k;
	if (t->cap)
		for (i = e->hash & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
			if (t->key[i] == e)
				return t->val[i];
	if (e->kind == SYM_KIND_ADD || e->kind == SYM_KIND_MUL || e->kind == SYM_KIND_MIN ||
	    e->kind == SYM_KIND_MAX || e->kind == SYM_KIND_AND || e->kind == SYM_KIND_OR ||
	    e->kind == SYM_KIND_FLOOR || e->kind == SYM_KIND_ABS || node_is_rel(e)) {
		for (i = 0; i < e->n && r <= SYM_MAX_JSON_NODES; i++) {
			const sym_expr *c = e->kind == SYM_KIND_ADD   ? node_mono(e, i)
			                    : e->kind == SYM_KIND_MUL ? node_factors(e)[i].base
			                                              : node_kids(e)[i];
			k = tree_count(t, c);
			if (!k)
				return 0;
			r += k + (e->kind == SYM_KIND_ADD || e->kind == SYM_KIND_MUL); /* the term object */
		}
		if (r > SYM_MAX_JSON_NODES)
			r = SYM_MAX_JSON_NODES + 1;
	}
	if (2 * (t->n + 1) > t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64, j;
		const sym_expr **nk = sym__alloc(t->ctx, nc * sizeof(*nk));
		size_t *nv = nk ? sym__alloc(t->ctx, nc * sizeof(*nv)) : NULL;
		if (!nv) {
			sym__free(t->ctx, nk, nk ? nc * sizeof(*nk) : 0);
			return 0;
		}
		memset(nk, 0, nc * sizeof(*nk));
		for (j = 0; j < t->cap; j++) {
			if (!t->key[j])
				continue;
			for (i = t->key[j]->hash & (nc - 1); nk[i]; i = (i + 1) & (nc - 1))
				;
			nk[i] = t->key[j], nv[i] = t->val[j];
		}
		sym__free(t->ctx, t->key, t->cap * sizeof(*t->key));
		sym__free(t->ctx, t->val, t->cap * sizeof(*t->val));
		t->key = nk, t->val = nv, t->cap = nc;
	}
	for (i = e->hash & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		;
	t->key[i] = e, t->val[i] = r, t->n++;
	return r;
}

cJSON *sym_expr_to_json(sym_ctx *ctx, const sym_expr *e)
{
	tcount t = {ctx, NULL, NULL, 0, 0};
	size_t n;
	if (!e || sym__failed(ctx))
		return NULL;
	n = tree_count(&t, e);
	sym__free(ctx, t.key, t.cap * sizeof(*t.key));
	sym__free(ctx, t.val, t.cap * sizeof(*t.val));
	if (!n)
		return NULL; /* out of memory, recorded */
	if (n > SYM_MAX_JSON_NODES) {
		sym__error(ctx, SYM_ELIMIT, -1, "expression JSON too large (more than %zu nodes)",
		           SYM_MAX_JSON_NODES);
		return NULL;
	}
	return to_json(ctx, e);
}

static const sym_expr *jerr(sym_ctx *ctx, const char *what)
{
	return sym__error(ctx, SYM_EDOMAIN, -1, "malformed expression JSON: %s", what);
}

static const sym_expr *num_from(sym_ctx *ctx, const cJSON *j, const char *field)
{
	const sym_expr *r;
	char msg[96];
	if (!cJSON_IsString(j)) {
		snprintf(msg, sizeof(msg), "\"%s\" must be a number string", field);
		return jerr(ctx, msg);
	}
	r = sym_expr_from_str(ctx, j->valuestring);
	if (r && r->kind != SYM_KIND_NUM) {
		snprintf(msg, sizeof(msg), "\"%s\" is not a number", field);
		return jerr(ctx, msg);
	}
	return r;
}

static const sym_expr *from_json(sym_ctx *ctx, const cJSON *j, int depth)
{
	const cJSON *kind, *x;
	int k;
	if (sym__failed(ctx))
		return NULL;
	if (depth > SYM_MAX_DEPTH)
		return jerr(ctx, "nested too deeply");
	if (cJSON_IsString(j))
		return sym_expr_from_str(ctx, j->valuestring);
	kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	if (!cJSON_IsString(kind))
		return jerr(ctx, "missing \"kind\"");
	for (k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++)
		if (!strcmp(kind->valuestring, kind_names[k]))
			break;
	switch (k) {
	case SYM_KIND_NUM:
		return num_from(ctx, cJSON_GetObjectItemCaseSensitive(j, "value"), "value");
	case SYM_KIND_SYM:
		x = cJSON_GetObjectItemCaseSensitive(j, "name");
		if (!cJSON_IsString(x))
			return jerr(ctx, "\"name\" must be a string");
		return sym_expr_symbol(ctx, x->valuestring);
	case SYM_KIND_BOOL:
		x = cJSON_GetObjectItemCaseSensitive(j, "value");
		if (!cJSON_IsBool(x))
			return jerr(ctx, "\"value\" must be true or false");
		return sym_expr_bool(ctx, cJSON_IsTrue(x));
	case SYM_KIND_ADD: {
		const sym_expr *r = num_from(ctx, cJSON_GetObjectItemCaseSensitive(j, "const"), "const");
		const cJSON *t;
		x = cJSON_GetObjectItemCaseSensitive(j, "terms");
		if (!cJSON_IsArray(x))
			return jerr(ctx, "\"terms\" must be an array");
		cJSON_ArrayForEach(t, x)
		{
			const sym_expr *c =
			    num_from(ctx, cJSON_GetObjectItemCaseSensitive(t, "coef"), "coef");
			const cJSON *mj = cJSON_GetObjectItemCaseSensitive(t, "mono");
			const sym_expr *m =
			    mj ? from_json(ctx, mj, depth + 1) : jerr(ctx, "a term needs \"mono\"");
			r = sym_expr_add(ctx, r, sym_expr_mul(ctx, c, m));
		}
		return r;
	}
	case SYM_KIND_MUL: {
		const sym_expr *r = ctx->one;
		const cJSON *t;
		x = cJSON_GetObjectItemCaseSensitive(j, "factors");
		if (!cJSON_IsArray(x))
			return jerr(ctx, "\"factors\" must be an array");
		cJSON_ArrayForEach(t, x)
		{
			const cJSON *bj = cJSON_GetObjectItemCaseSensitive(t, "base");
			const sym_expr *b =
			    bj ? from_json(ctx, bj, depth + 1) : jerr(ctx, "a factor needs \"base\"");
			const sym_expr *e = num_from(ctx, cJSON_GetObjectItemCaseSensitive(t, "exp"), "exp");
			long long n;
			if (!b || !e)
				return NULL;
			if (sym_expr_get_si(e, &n) != 1)
				return jerr(ctx, "\"exp\" must be a 64-bit integer");
			r = sym_expr_mul(ctx, r, sym_expr_pow_si(ctx, b, n));
		}
		return r;
	}
	default:
		break;
	}
	if (k >= (int)(sizeof(kind_names) / sizeof(kind_names[0])))
		return jerr(ctx, "unknown \"kind\"");
	{
		const sym_expr *stack[64], **v;
		const cJSON *t;
		int n, i = 0;
		const sym_expr *r = NULL;
		x = cJSON_GetObjectItemCaseSensitive(j, "args");
		if (!cJSON_IsArray(x) || (n = cJSON_GetArraySize(x)) < 1)
			return jerr(ctx, "\"args\" must be a non-empty array");
		v = n <= 64 ? stack : sym__alloc(ctx, (size_t)n * sizeof(*v));
		if (!v)
			return NULL;
		cJSON_ArrayForEach(t, x) v[i++] = from_json(ctx, t, depth + 1);
		if (!sym__failed(ctx)) {
			switch (k) {
			case SYM_KIND_FLOOR:
				r = n == 1 ? sym_expr_floor(ctx, v[0])
				           : jerr(ctx, "floor takes one argument");
				break;
			case SYM_KIND_ABS:
				r = n == 1 ? sym_expr_abs(ctx, v[0]) : jerr(ctx, "abs takes one argument");
				break;
			case SYM_KIND_MIN:
				r = sym_expr_min(ctx, (size_t)n, v);
				break;
			case SYM_KIND_MAX:
				r = sym_expr_max(ctx, (size_t)n, v);
				break;
			case SYM_KIND_EQ:
			case SYM_KIND_NE:
			case SYM_KIND_LE:
			case SYM_KIND_LT: {
				static const sym_relop ops[] = {SYM_REL_EQ, SYM_REL_NE, SYM_REL_LE,
				                                SYM_REL_LT};
				r = n == 1 ? sym_expr_rel(ctx, ops[k - SYM_KIND_EQ], v[0], ctx->zero)
				           : jerr(ctx, "a relation takes one argument");
				break;
			}
			default:
				r = v[0];
				for (i = 1; i < n && r; i++)
					r = k == SYM_KIND_AND ? sym_expr_and(ctx, r, v[i])
					                      : sym_expr_or(ctx, r, v[i]);
			}
		}
		if (v != stack)
			sym__free(ctx, v, (size_t)n * sizeof(*v));
		return r;
	}
}

const sym_expr *sym_expr_from_json(sym_ctx *ctx, const cJSON *j)
{
	if (sym__failed(ctx))
		return NULL;
	if (!j)
		return jerr(ctx, "no JSON value");
	return from_json(ctx, j, 0);
}

const sym_expr *sym_expr_from_mpq(sym_ctx *ctx, mpq_srcptr v)
{
	sym_num n;
	const sym_expr *r;
	if (mpz_sgn(mpq_denref(v)) == 0)
		return sym__error(ctx, SYM_EDIVZERO, -1, "rational with zero denominator");
	sym__num_init(&n);
	{
		mpq_t t;
		mpq_init(t);
		mpq_set(t, v);
		mpq_canonicalize(t);
		sym__num_set_mpq(&n, t);
		mpq_clear(t);
	}
	r = sym__num_node(ctx, &n);
	sym__num_clear(&n);
	return r;
}

const sym_expr *sym_expr_from_mpz(sym_ctx *ctx, mpz_srcptr v)
{
	sym_num n;
	const sym_expr *r;
	sym__num_init(&n);
	sym__num_set_mpz(&n, v);
	r = sym__num_node(ctx, &n);
	sym__num_clear(&n);
	return r;
}

int sym_expr_get_mpq(const sym_expr *e, mpq_ptr v)
{
	if (!e || e->kind != SYM_KIND_NUM)
		return 0;
	sym__num_get_mpq(v, node_num(e));
	return 1;
}
