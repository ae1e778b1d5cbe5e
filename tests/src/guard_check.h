/* Shared by the tests of src/: the guards of an inference result compared
 * with a list.  Include after <cmocka.h>. */
#ifndef SYM_TEST_GUARD_CHECK_H
#define SYM_TEST_GUARD_CHECK_H

#include <stdio.h>
#include <string.h>

#include "symshape/symshape.h"

/* Fails unless the guards of r (in ctx; name for messages) are exactly
 * want, a NULL-terminated list of "pred | kind | node" in order, each with
 * a reason. */
static inline void check_guard_list(sym_ctx *ctx, const sym_graph_result *r, const char *name,
                                    const char *const *want)
{
	size_t i, n = 0;
	while (want[n])
		n++;
	for (i = 0; i < sym_graph_num_guards(r); i++) {
		const char *kind, *node, *reason;
		char *t = sym_expr_to_str(ctx, sym_graph_guard(r, i, &kind, &node, &reason));
		char got[1024];
		snprintf(got, sizeof(got), "%s | %s | %s", t, kind, node);
		sym_str_free(ctx, t);
		if (i >= n)
			fail_msg("%s: unexpected guard %zu: %s (%s)", name, i + 1, got, reason);
		if (strcmp(got, want[i]))
			fail_msg("%s: guard %zu is '%s', expected '%s'", name, i + 1, got, want[i]);
		if (!reason || !*reason)
			fail_msg("%s: guard %zu '%s' has no reason", name, i + 1, got);
	}
	if (i != n)
		fail_msg("%s: %zu guards, expected %zu (missing '%s')", name, i, n, want[i]);
}

#endif
