/* Conv, ConvTranspose and pooling. */
#include "rules_private.h"

const sym_rule_entry sym__rules_conv[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_conv_count = 0;
