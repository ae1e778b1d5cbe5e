/* Gather, GatherElements, GatherND and the Scatter operators. */
#include "rules_private.h"

const sym_rule_entry sym__rules_gather[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_gather_count = 0;
