/* Transpose. */
#include "rules_private.h"

const sym_rule_entry sym__rules_transpose[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_transpose_count = 0;
