/* Squeeze and Unsqueeze. */
#include "rules_private.h"

const sym_rule_entry sym__rules_squeeze[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_squeeze_count = 0;
