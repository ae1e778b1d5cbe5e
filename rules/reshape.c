/* Reshape and Flatten. */
#include "rules_private.h"

const sym_rule_entry sym__rules_reshape[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_reshape_count = 0;
