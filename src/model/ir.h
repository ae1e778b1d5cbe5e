/* The graph IR: tensors, nodes, attributes and initializer values. */
#ifndef SYM_MODEL_IR_H
#define SYM_MODEL_IR_H

#include "symshape/model.h"
#include "values.h"

#include <stdarg.h>

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
	/* small floating-point data (Resize scales), exact as doubles */
	size_t nfdata;
	double *fdata;
} sym_mtensor;

/* Subgraphs nest at most this deep (the main graph is level 0); a loader
 * rejects a deeper body with an error naming the node. */
#define SYM_MODEL_MAX_DEPTH 16

struct sym_mgraph;

/* A graph-valued attribute (If's then_branch, Loop's and Scan's body). */
typedef struct sym_mgattr {
	char *name;
	struct sym_mgraph *graph;
} sym_mgattr;

typedef struct sym_mnode {
	char *name, *op, *domain;
	size_t nin, nout, nattr;
	char **in, **out; /* "" for an omitted optional input */
	sym_attr *attrs;
	/* the graph attributes, which rules never see (the driver runs them) */
	size_t ngraphs;
	sym_mgattr *graphs;
	/* the tensors of enclosing graphs that the subgraphs read (set by
	 * sym__model_link): the node runs after their producers */
	size_t nouter;
	char **outer;
} sym_mnode;

/* A subgraph: its own inputs (a Loop or Scan body's; declared shapes, rank
 * -1 when none), initializers, nodes and outputs.  Its nodes read its own
 * tensors and those of every graph that encloses it. */
typedef struct sym_mgraph {
	size_t ninputs, ninits, nnodes, noutputs;
	sym_mtensor *inputs, *inits;
	sym_mnode *nodes;
	char **outputs;
} sym_mgraph;

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
	/* shapes the model declares for tensors other than its inputs (ONNX
	 * value_info and outputs), checked against the inferred ones */
	size_t ndeclared;
	sym_mtensor *declared;
	/* the context the model was loaded in: every allocation of the model
	 * goes through its allocator hook, so the model is freed before it */
	sym_ctx *ctx;
	/* every allocation of the model, freed together */
	sym_carver blocks;
};

/* A new, empty model of ctx; NULL with SYM_ENOMEM recorded. */
sym_model *sym__model_new(sym_ctx *ctx);
/* Zeroed memory owned by m (freed with it); NULL with SYM_ENOMEM recorded. */
void *sym__model_alloc(sym_model *m, size_t n);
char *sym__model_strdup(sym_model *m, const char *s);
/* Whether a name (of a tensor, node, operator, attribute) holds a control
 * character; names appear in one-line messages, so both loaders reject
 * such a name. */
int sym__model_name_has_control(const char *s);

/* Fills every node's outer references (sym_mnode.outer) in m and its
 * subgraphs, after a loader read it.  Returns 0, or -1 when out of memory. */
int sym__model_link(sym_model *m);

/* ---- what both loaders report with ------------------------------------ */

/* Records the error "PREFIX: message" (SYM_EDOMAIN; SYM_ENOMEM when the
 * message cannot be built) and returns -1. */
int sym__load_verror(sym_ctx *ctx, const char *prefix, const char *fmt, va_list ap);
/* Records SYM_ENOMEM and returns -1. */
int sym__load_nomem(sym_ctx *ctx);
/* Sets the location text b to the formatted text and returns it; NULL with
 * SYM_ENOMEM recorded. */
const char *sym__load_vat(sym_ctx *ctx, sym_sbuf *b, const char *fmt, va_list ap);
/* 0, or -1 with "PREFIX: WHAT: a name contains a control character" when
 * the name s has one. */
int sym__load_check_name(sym_ctx *ctx, const char *prefix, const char *s, const char *what);
/* Reads a whole file (at most 2 GiB) into a buffer of *cap bytes allocated
 * through ctx (free it with sym__free(ctx, *out, *cap)); -1 with an error
 * in ctx. */
int sym__model_read_file(sym_ctx *ctx, const char *path, char **out, size_t *len, size_t *cap);
/* The exact rational value of a finite double; NULL with an error for an
 * infinity or a NaN. */
const sym_expr *sym__expr_from_double(sym_ctx *ctx, double v);

#endif
