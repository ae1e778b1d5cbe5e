/* Pad, Resize, OneHot, Trilu, DepthToSpace, SpaceToDepth, Dropout and Einsum. */
#include "rules_private.h"

const sym_rule_entry sym__rules_misc[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_misc_count = 0;
