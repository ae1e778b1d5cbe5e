/* Expand and Tile. */
#include "rules_private.h"

const sym_rule_entry sym__rules_expand[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_expand_count = 0;
