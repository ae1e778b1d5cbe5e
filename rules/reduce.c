/* Reduce*, ArgMax/ArgMin, TopK and CumSum. */
#include "rules_private.h"

const sym_rule_entry sym__rules_reduce[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_reduce_count = 0;
