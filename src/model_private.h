/* The graph IR: tensors, nodes, attributes and initializer values. */
#ifndef SYM_MODEL_PRIVATE_H
#define SYM_MODEL_PRIVATE_H

#include "symshape/model.h"
#include "rules_private.h"

/* One dim of a declared input shape. */
typedef enum sym_dimspec_kind {
	SYM_DIM_CONST, /* value */
	SYM_DIM_EXPR,  /* text: a symbol name or an expression */
	SYM_DIM_ANON   /* null or "?": a fresh symbol */
} sym_dimspec_kind;

typedef struct sym_dimspec {
	sym_dimspec_kind kind;
	int64_t value;
	char *text;
} sym_dimspec;

typedef struct sym_mtensor {
	char *name;
	int dtype;
	int rank; /* -1: unknown rank */
	sym_dimspec *dims;
	int has_data; /* integer initializer data */
	size_t ndata;
	int64_t *data;
} sym_mtensor;

typedef struct sym_mnode {
	char *name, *op, *domain;
	size_t nin, nout, nattr;
	char **in, **out; /* "" for an omitted optional input */
	sym_attr *attrs;
} sym_mnode;

typedef struct sym_mformat {
	char *tensor, *format, *storage_format;
} sym_mformat;

struct sym_model {
	int opset;
	size_t ninputs, ninits, nnodes, noutputs, nformats;
	sym_mtensor *inputs, *inits;
	sym_mnode *nodes;
	char **outputs;
	sym_mformat *formats;
	/* every allocation of the model, freed together */
	void **blocks;
	size_t nblocks, capblocks;
};

void *sym__model_alloc(sym_model *m, size_t n);
char *sym__model_strdup(sym_model *m, const char *s);

#endif
