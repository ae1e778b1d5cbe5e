/* The operator registry: the families' static tables, looked up by domain
 * and name. */
#include "rules_private.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const sym_rule_entry *tab;
	const size_t *count;
} families[] = {
#define SYM__FAMILY_ENTRY(fam) {sym__rules_##fam, &sym__rules_##fam##_count},
    SYM_RULE_FAMILIES(SYM__FAMILY_ENTRY)
#undef SYM__FAMILY_ENTRY
};

const sym_rule_entry *sym__rule_at(size_t i)
{
	size_t f;
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		if (i < *families[f].count)
			return &families[f].tab[i];
		i -= *families[f].count;
	}
	return NULL;
}

/* SYM_RULE_ANY_DOMAIN lets ONNX and CANN find each other's rules; other
 * domains (com.microsoft) find only their own, whose semantics differ. */
static int onnx_or_cann(const char *domain)
{
	return !*domain || !strcmp(domain, "cann");
}

const sym_rule_entry *sym__rule_find(const char *domain, const char *name)
{
	const sym_rule_entry *any = NULL;
	size_t f, i;
	if (!domain)
		domain = "";
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		for (i = 0; i < *families[f].count; i++) {
			const sym_rule_entry *e = &families[f].tab[i];
			if (strcmp(e->name, name))
				continue;
			if (!strcmp(e->domain, domain))
				return e;
			if ((e->flags & SYM_RULE_ANY_DOMAIN) && onnx_or_cann(domain))
				any = e;
		}
	}
	return any;
}

/* The oldest opset at which each ONNX operator's rule holds: the operators
 * whose output shape did not change since their first version (or whose
 * rule reads every older form: Reshape's and Slice's attributes, Pad's
 * 'paddings', TopK's 'k'), and those whose older versions differ (Concat
 * before 4 defaults 'axis' to 1; Tile before 6 takes tiles and axis as
 * inputs; Cast before 6 names its type with a string).  Every other
 * operator is read from opset 7, where multidirectional broadcasting
 * replaced the 'broadcast' and 'axis' attributes of the binary operators. */
static const struct {
	const char *name;
	int since;
} onnx_since[] = {
    {"Abs", 1},
    {"ArgMax", 1},
    {"ArgMin", 1},
    {"AveragePool", 1},
    {"Cast", 6},
    {"Ceil", 1},
    {"Clip", 1},
    {"Concat", 4},
    {"Constant", 1},
    {"Conv", 1},
    {"ConvTranspose", 1},
    {"DepthToSpace", 1},
    {"Dropout", 1},
    {"Elu", 1},
    {"Exp", 1},
    {"Flatten", 1},
    {"Floor", 1},
    {"Gather", 1},
    {"Gemm", 1},
    {"GlobalAveragePool", 1},
    {"GlobalLpPool", 1},
    {"GlobalMaxPool", 1},
    {"HardSigmoid", 1},
    {"Hardmax", 1},
    {"Identity", 1},
    {"InstanceNormalization", 1},
    {"LRN", 1},
    {"LeakyRelu", 1},
    {"Log", 1},
    {"LogSoftmax", 1},
    {"LpNormalization", 1},
    {"LpPool", 1},
    {"MatMul", 1},
    {"MaxPool", 1},
    {"MaxRoiPool", 1},
    {"MeanVarianceNormalization", 1},
    {"Neg", 1},
    {"Not", 1},
    {"Pad", 1},
    {"RandomNormal", 1},
    {"RandomNormalLike", 1},
    {"RandomUniform", 1},
    {"RandomUniformLike", 1},
    {"Reciprocal", 1},
    {"ReduceL1", 1},
    {"ReduceL2", 1},
    {"ReduceLogSum", 1},
    {"ReduceLogSumExp", 1},
    {"ReduceMax", 1},
    {"ReduceMean", 1},
    {"ReduceMin", 1},
    {"ReduceProd", 1},
    {"ReduceSum", 1},
    {"ReduceSumSquare", 1},
    {"Relu", 1},
    {"Reshape", 1},
    {"Selu", 1},
    {"Shape", 1},
    {"Sigmoid", 1},
    {"SimplifiedLayerNormalization", 1},
    {"Size", 1},
    {"Slice", 1},
    {"Softmax", 1},
    {"Softplus", 1},
    {"Softsign", 1},
    {"SpaceToDepth", 1},
    {"Split", 1},
    {"Sqrt", 1},
    {"Squeeze", 1},
    {"Tanh", 1},
    {"Tile", 6},
    {"TopK", 1},
    {"Transpose", 1},
    {"Unsqueeze", 1},
};

int sym__rule_since(const char *domain, const char *name)
{
	size_t i;
	if (domain && *domain)
		return 1;
	for (i = 0; i < sizeof(onnx_since) / sizeof(onnx_since[0]); i++)
		if (!strcmp(onnx_since[i].name, name))
			return onnx_since[i].since;
	return 7;
}

/* ---- the index: the registry sorted by name --------------------------------
 * sym__rule_find compares the name with every entry in turn (a few hundred
 * strcmp for each node of a model); the session sorts the entries by name
 * once and finds a name by binary search.  Entries of one name keep their
 * registry order, so the index answers as the scan does. */

typedef struct rule_pos {
	const sym_rule_entry *e;
	size_t pos; /* in registry order */
} rule_pos;

static int rule_pos_cmp(const void *x, const void *y)
{
	const rule_pos *a = x, *b = y;
	int c = strcmp(a->e->name, b->e->name);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

int sym__rule_index_new(sym_ctx *ctx, sym_rule_slot **out, size_t *n)
{
	size_t i, f, total = 0;
	rule_pos *t;
	sym_rule_slot *ix;
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		total += *families[f].count; /* never 0: every family has rules */
	*out = NULL, *n = 0;
	if (!(t = sym__alloc(ctx, total * sizeof(*t))))
		return -1;
	if (!(ix = sym__alloc(ctx, total * sizeof(*ix)))) {
		sym__free(ctx, t, total * sizeof(*t));
		return -1;
	}
	for (i = 0; i < total; i++)
		t[i].e = sym__rule_at(i), t[i].pos = i;
	qsort(t, total, sizeof(*t), rule_pos_cmp);
	for (i = 0; i < total; i++) {
		ix[i].e = t[i].e;
		ix[i].since = i && !strcmp(t[i].e->name, t[i - 1].e->name)
		                  ? ix[i - 1].since
		                  : sym__rule_since("", t[i].e->name);
	}
	sym__free(ctx, t, total * sizeof(*t));
	*out = ix, *n = total;
	return 0;
}

const sym_rule_slot *sym__rule_index_find(const sym_rule_slot *ix, size_t n, const char *domain,
                                          const char *name)
{
	const sym_rule_slot *any = NULL;
	size_t lo = 0, hi = n;
	if (!domain)
		domain = "";
	while (lo < hi) { /* the first entry not below name */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix[mid].e->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !strcmp(ix[lo].e->name, name); lo++) {
		if (!strcmp(ix[lo].e->domain, domain))
			return &ix[lo];
		if ((ix[lo].e->flags & SYM_RULE_ANY_DOMAIN) && onnx_or_cann(domain))
			any = &ix[lo];
	}
	return any;
}
