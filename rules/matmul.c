/* MatMul and Gemm. */
#include "rules_private.h"

const sym_rule_entry sym__rules_matmul[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_matmul_count = 0;
