/* The result of whole-graph inference. */
#ifndef SYM_INFER_RESULT_H
#define SYM_INFER_RESULT_H

#include "model/ir.h"

typedef struct gsym {
	const sym_expr *sym;
	char *source;
	const sym_expr *min, *max;
} gsym;

typedef struct gtensor {
	char *name;
	sym_tval tv;  /* rank -2: not reached */
	long producer; /* node index, -1 for inputs and initializers */
	int is_input;
} gtensor;

typedef struct gkey {
	char *key;
	size_t n;
	const char **nodes;
} gkey;

typedef struct gerror {
	char *node;
	char *msg;
} gerror;

struct sym_graph_result {
	sym_ctx *ctx;
	sym_facts *facts;
	sym_infer inf;
	const sym_model *model;
	gsym *syms;
	size_t nsyms, capsyms;
	gtensor *tensors;
	size_t ntensors, captensors;
	size_t *table; /* name hash -> tensor index + 1 */
	size_t tcap;
	sym_guard *guards; /* after pruning */
	size_t nguards;
	gkey *keys;
	size_t nkeys;
	gerror *errors;
	size_t nerrors, caperrors;
	size_t *order; /* topological order of nodes */
	size_t norder;
	char **node_keys; /* merge key of each node (model order) */
	struct sym_graph_ext *ext; /* storage shapes, byte sizes, ranges */
};

/* Index of the tensor called name, or (size_t)-1. */
size_t sym__graph_find(const sym_graph_result *r, const char *name);
/* The model symbol s (input-dim or data-dependent), or NULL. */
gsym *sym__graph_find_sym(const sym_graph_result *r, const sym_expr *s);

#endif
