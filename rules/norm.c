/* LayerNormalization, LayerNorm, BatchNormalization and other normalisations. */
#include "rules_private.h"

const sym_rule_entry sym__rules_norm[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_norm_count = 0;
