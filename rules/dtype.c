/* Element types: names, sizes and kinds, from SYM_DTYPE_MAP. */
#include "rules_private.h"

#include <string.h>

static const struct {
	const char *name;
	int size;
} dtypes[] = {
#define SYM__DT_ENTRY(name, str, size) {str, size},
    SYM_DTYPE_MAP(SYM__DT_ENTRY)
#undef SYM__DT_ENTRY
};

const char *sym__dtype_name(int dt)
{
	return dt >= 0 && dt < SYM_DT_COUNT ? dtypes[dt].name : "undefined";
}

int sym__dtype_size(int dt)
{
	return dt >= 0 && dt < SYM_DT_COUNT ? dtypes[dt].size : 0;
}

int sym__dtype_from_name(const char *name)
{
	static const struct {
		const char *alias;
		int dt;
	} aliases[] = {{"float", SYM_DT_FLOAT32}, {"double", SYM_DT_FLOAT64}, {"half", SYM_DT_FLOAT16},
	               {"long", SYM_DT_INT64},    {"int", SYM_DT_INT32},      {"bf16", SYM_DT_BFLOAT16},
	               {"fp16", SYM_DT_FLOAT16},  {"fp32", SYM_DT_FLOAT32}};
	int i;
	size_t k;
	if (!name)
		return -1;
	for (i = 1; i < SYM_DT_COUNT; i++)
		if (!strcmp(name, dtypes[i].name))
			return i;
	for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
		if (!strcmp(name, aliases[k].alias))
			return aliases[k].dt;
	return -1;
}

int sym__dtype_is_int(int dt)
{
	switch (dt) {
	case SYM_DT_UINT8:
	case SYM_DT_INT8:
	case SYM_DT_UINT16:
	case SYM_DT_INT16:
	case SYM_DT_INT32:
	case SYM_DT_INT64:
	case SYM_DT_UINT32:
	case SYM_DT_UINT64:
	case SYM_DT_BOOL:
		return 1;
	default:
		return 0;
	}
}

int sym__dtype_holds(int dt, long long c)
{
	switch (dt) {
	case SYM_DT_BOOL:
		return c == 0 || c == 1;
	case SYM_DT_UINT8:
		return c >= 0 && c <= UINT8_MAX;
	case SYM_DT_INT8:
		return c >= INT8_MIN && c <= INT8_MAX;
	case SYM_DT_UINT16:
		return c >= 0 && c <= UINT16_MAX;
	case SYM_DT_INT16:
		return c >= INT16_MIN && c <= INT16_MAX;
	case SYM_DT_INT32:
		return c >= INT32_MIN && c <= INT32_MAX;
	case SYM_DT_UINT32:
		return c >= 0 && c <= (long long)UINT32_MAX;
	case SYM_DT_UINT64:
		return c >= 0;
	default:
		return 1;
	}
}

int sym__dtype_is_float(int dt)
{
	return dt == SYM_DT_FLOAT32 || dt == SYM_DT_FLOAT64 || dt == SYM_DT_FLOAT16 || dt == SYM_DT_BFLOAT16;
}
