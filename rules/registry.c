/* The operator registry: the families' static tables, looked up by domain
 * and name. */
#include "rules_private.h"

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
			if (e->flags & SYM_RULE_ANY_DOMAIN)
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
