/* The values rules read and write, and the records they leave: tensor
 * values (shape, dtype, small integer contents), typed attributes, guards,
 * element types.  The one header the rules share with the model IR and the
 * inference result; it knows nothing of a graph or a session. */
#ifndef SYM_RULES_VALUES_H
#define SYM_RULES_VALUES_H

#include "symshape/symshape.h"
#include "seam.h"

#include <stdint.h>

/* Shape values (integer tensors carried symbolically) hold at most this
 * many elements: a larger value is dropped, not carried.  A shape or axes
 * list longer than this is an error. */
#define SYM_RC_VALUE_LIMIT 4096
/* ... and have rank at most this. */
#define SYM_RC_VALUE_RANK 16

/* Element types with their names and byte sizes (0: not a fixed size). */
#define SYM_DTYPE_MAP(X)                                                                                     \
	X(UNDEFINED, "undefined", 0)                                                                         \
	X(FLOAT32, "float32", 4)                                                                             \
	X(UINT8, "uint8", 1)                                                                                 \
	X(INT8, "int8", 1)                                                                                   \
	X(UINT16, "uint16", 2)                                                                               \
	X(INT16, "int16", 2)                                                                                 \
	X(INT32, "int32", 4)                                                                                 \
	X(INT64, "int64", 8)                                                                                 \
	X(STRING, "string", 0)                                                                               \
	X(BOOL, "bool", 1)                                                                                   \
	X(FLOAT16, "float16", 2)                                                                             \
	X(FLOAT64, "float64", 8)                                                                             \
	X(UINT32, "uint32", 4)                                                                               \
	X(UINT64, "uint64", 8)                                                                               \
	X(COMPLEX64, "complex64", 8)                                                                         \
	X(COMPLEX128, "complex128", 16)                                                                      \
	X(BFLOAT16, "bfloat16", 2)

/* The enum values are ONNX's TensorProto.DataType numbers. */
typedef enum sym_dtype {
#define SYM__DT_ENUM(name, str, size) SYM_DT_##name,
	SYM_DTYPE_MAP(SYM__DT_ENUM)
#undef SYM__DT_ENUM
	    SYM_DT_COUNT
} sym_dtype;

const char *sym__dtype_name(int dt);
int sym__dtype_size(int dt);
/* Returns the dtype for a name ("float32", "float", "int64", ...), or -1. */
int sym__dtype_from_name(const char *name);
int sym__dtype_is_int(int dt);
/* Whether the integer c is a value of the integer type dt (1 for a type
 * that is not an integer type). */
int sym__dtype_holds(int dt, long long c);
/* Whether dt is a floating-point type (float16, bfloat16, float32, float64). */
int sym__dtype_is_float(int dt);

/* What the runtime's floating-point arithmetic makes of one element of a
 * float value (docs/rules.md, "Float shape values").  When cond holds (NULL:
 * always): err 0 means the runtime computes exactly the element's exact
 * rational value v; err n > 0 means it computes some y with
 * |y - v| <= n * 2**-22 * |v| (n operations, each within one unit in the
 * last place of float32).  q, when not SYM_FQ_NONE (and err is 0), says
 * that v * 2**q is an integer of magnitude at most 2**24: v is a float32
 * number, and that is what proves later operations exact.  rn marks a
 * rounded element whose one rounding was an IEEE operation on exact
 * operands (or moved through operations that keep its place between the
 * integers around v). */
typedef struct sym_fmeta {
	int err;
	int q;
	const sym_expr *cond;
	int rn; /* err 1 from monotone roundings only: y * 2**k lies between
	           floor(v * 2**k) and ceil(v * 2**k) for every k */
} sym_fmeta;

#define SYM_FQ_NONE (-100000)
/* Float values lose their value past this many operations. */
#define SYM_FERR_LIMIT 10000

/* The elements of a sequence value (the sequence operators, rules/sequence.c),
 * in order. */
typedef struct sym_tseq {
	size_t n;
	const struct sym_tval *elems;
} sym_tseq;

/* A tensor as rules see it: its shape (or unknown rank) and, for small
 * tensors that hold shapes, indices, axes or shape arithmetic, its
 * symbolic value: row-major elements, of any rank, at most
 * SYM_RC_VALUE_LIMIT of them.  A float value carries fmeta, one entry per
 * element; a float input without fmeta (an initializer, a constant, a
 * value the caller set) holds exactly the numbers given.  A rule that
 * gives a float output a value without fmeta loses it (the driver drops
 * it), so a float value is never taken as exact by mistake. */
typedef struct sym_tval {
	int present;           /* 0: an omitted optional input */
	int rank;              /* -1: unknown rank */
	const sym_expr **dims; /* rank dims */
	int dtype;             /* sym_dtype */
	int has_value;         /* value known (row-major elements) */
	size_t nvalue;
	const sym_expr **value;
	const sym_tseq *seq; /* a sequence of known length (rank -1, the elements' dtype); NULL otherwise */
	const sym_fmeta *fmeta; /* float values: nvalue entries, or NULL */
} sym_tval;

typedef enum sym_attr_type {
	SYM_ATTR_INT,
	SYM_ATTR_INTS,
	SYM_ATTR_FLOAT,
	SYM_ATTR_FLOATS,
	SYM_ATTR_STRING,
	SYM_ATTR_STRINGS,
	SYM_ATTR_TENSOR
} sym_attr_type;

typedef struct sym_attr {
	const char *name;
	sym_attr_type type;
	size_t n;                /* elements of ints/floats/strs */
	const int64_t *ints;     /* INT (n = 1) and INTS */
	const double *floats;    /* FLOAT (n = 1) and FLOATS */
	const char *const *strs; /* STRING (n = 1) and STRINGS */
	const sym_tval *tensor;  /* TENSOR */
} sym_attr;

typedef enum sym_guard_kind { SYM_GUARD_ASSERT, SYM_GUARD_EXPECT } sym_guard_kind;

typedef struct sym_guard {
	const sym_expr *pred;
	sym_guard_kind kind;
	char *node;
	char *reason;
} sym_guard;

#endif
