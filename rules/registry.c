/* The operator registry: the families' static tables, looked up by domain
 * and name. */
#include "rules_private.h"

#include <string.h>

static const struct {
	const sym_rule_entry *tab;
	const size_t *count;
} families[] = {
#define SYM__FAMILY_ENTRY(fam) {sym__rules_##fam, &sym__rules_##fam##_count},
    SYM_RULE_FAMILIES(SYM__FAMILY_ENTRY)
#undef SYM__FAMILY_ENTRY
};

const sym_rule_entry *sym__rule_at(size_t i)
{
	size_t f;
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		if (i < *families[f].count)
			return &families[f].tab[i];
		i -= *families[f].count;
	}
	return NULL;
}

const sym_rule_entry *sym__rule_find(const char *domain, const char *name)
{
	const sym_rule_entry *any = NULL;
	size_t f, i;
	if (!domain)
		domain = "";
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		for (i = 0; i < *families[f].count; i++) {
			const sym_rule_entry *e = &families[f].tab[i];
			if (strcmp(e->name, name))
				continue;
			if (!strcmp(e->domain, domain))
				return e;
			if (e->flags & SYM_RULE_ANY_DOMAIN)
				any = e;
		}
	}
	return any;
}
