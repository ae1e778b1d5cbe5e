/* Shape, Size, Constant, ConstantOfShape and Range. */
#include "rules_private.h"

const sym_rule_entry sym__rules_shapeops[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_shapeops_count = 0;
