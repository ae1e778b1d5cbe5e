/* Slice (ONNX and CANN) and StridedSlice. */
#include "rules_private.h"

const sym_rule_entry sym__rules_slice[] = {
	{NULL, NULL, NULL, 0},
};
const size_t sym__rules_slice_count = 0;
