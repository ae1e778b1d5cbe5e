/* Concat, Split, Pack and Unpack. */
#include "rules_private.h"

const sym_rule_entry sym__rules_concat[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_concat_count = 0;
