/* symshape: operator rules without a model.
 *
 * A rules session (sym_rules) holds the facts, hints and guards shared by
 * the operators run in it; an operator application (sym_op) names an
 * operator, takes its inputs' symbolic shapes (and, for integer tensors that
 * hold shapes, indices or axes, their symbolic values) and its attributes,
 * and gives its outputs' shapes, values and element types.  Guards that a
 * rule cannot prove are recorded in the session; a guard proven false, a
 * bad attribute or an unsupported operator is an error in the context whose
 * message names the node and the operator.
 *
 * Element types are ints: ONNX's TensorProto.DataType numbers (1 float32,
 * 2 uint8, 3 int8, 4 uint16, 5 int16, 6 int32, 7 int64, 8 string, 9 bool,
 * 10 float16, 11 float64, 12 uint32, 13 uint64, 14 complex64,
 * 15 complex128, 16 bfloat16), 0 for unknown; sym_dtype_from_name and
 * sym_dtype_name convert names. */
#ifndef SYMSHAPE_RULES_H
#define SYMSHAPE_RULES_H

#include "symshape/expr.h"
#include "symshape/facts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_rules sym_rules;
typedef struct sym_op sym_op;

/* ---- element types ------------------------------------------------------ */

/* Returns the element type called name ("float32", "int64", "bool", ...;
 * also "float", "double", "half", "int", "long", "fp16", "fp32", "bf16"),
 * or -1 when the name is unknown. */
SYM_API int sym_dtype_from_name(const char *name);
/* Returns the name of element type dtype ("undefined" for 0 and for numbers
 * that are not element types); static storage. */
SYM_API const char *sym_dtype_name(int dtype);

/* ---- the operator set ---------------------------------------------------- */

/* Returns nonzero when an operator rule exists for op in domain ("" or NULL
 * for ONNX, "ai.onnx" likewise, "cann" for CANN's operators). */
SYM_API int sym_rules_is_supported(const char *domain, const char *op);
/* Returns the name of supported operator i (0, 1, ... in registry order),
 * or NULL past the last one; stores its domain ("" for ONNX) in *domain
 * when domain is non-NULL.  Strings are static. */
SYM_API const char *sym_rules_op_name(size_t i, const char **domain);

/* ---- sessions ------------------------------------------------------------ */

/* Returns a new session over facts (borrowed: it must outlive the session,
 * which adds the guards it records to it), or over a fresh store in which
 * every dim is at least 1 when facts is NULL.  NULL on error (recorded in
 * ctx).  Free it with sym_rules_free before the context. */
SYM_API SYM_GIVE sym_rules *sym_rules_new(sym_ctx *ctx, SYM_KEEP sym_facts *facts);
/* Frees the session, the store it made (not a given one), and the output
 * shapes and values of every operator run in it; NULL is a no-op. */
SYM_API void sym_rules_free(SYM_TAKE sym_rules *r);
/* Hints that the symbol sym is expected to be v: where no exact closed form
 * exists (two broadcast dims), rules take the branch the hints select and
 * record it as an expect guard.  Setting a symbol again replaces its value.
 * Returns SYM_EOK, or SYM_EMISUSE (recorded) when sym is not a symbol. */
SYM_API sym_status sym_rules_set_hint(sym_rules *r, const sym_expr *sym, long long v);
/* Returns the number of guards the session has recorded. */
SYM_API size_t sym_rules_num_guards(const sym_rules *r);
/* Returns guard i's predicate (NULL past the end) and stores its kind
 * ("assert": validity, "expect": a hint's specialisation), the node that
 * needed it and the reason in the non-NULL pointers; strings are owned by
 * the session. */
SYM_API const sym_expr *sym_rules_guard(const sym_rules *r, size_t i, const char **kind, const char **node,
                                        const char **reason);

/* ---- operator applications ----------------------------------------------- */

/* Returns a new application of op from domain ("" or NULL for ONNX, "cann")
 * named node_name (NULL: "") at opset (<= 0: 21), with no inputs, no
 * attributes and one output.  Strings are copied.  An unsupported operator
 * is reported by sym_op_infer.  NULL on error (recorded in the session's
 * context).  Free it with sym_op_free before the session. */
SYM_API SYM_GIVE sym_op *sym_op_new(sym_rules *r, const char *domain, const char *op, const char *node_name,
                                    int opset);
/* Frees the application; the output shapes and values stay valid until the
 * session is freed.  NULL is a no-op. */
SYM_API void sym_op_free(SYM_TAKE sym_op *op);
/* Appends an input of rank dims (copied; numeric expressions), or of unknown
 * rank when rank is -1 (dims ignored), with element type dtype (0: int64
 * when the input is given a value, float32 otherwise).  Returns SYM_EOK or
 * an error code (recorded): SYM_EMISUSE for a NULL or predicate dim, a rank
 * below -1 or a dtype that is no TensorProto number. */
SYM_API sym_status sym_op_add_input(sym_op *op, int rank, const sym_expr *const *dims, int dtype);
/* Appends an omitted optional input. */
SYM_API sym_status sym_op_add_absent_input(sym_op *op);
/* Returns the number of inputs added (present or omitted). */
SYM_API size_t sym_op_num_inputs(const sym_op *op);
/* Gives input i (already added and present) its symbolic value: n numeric
 * expressions (copied), the elements in row-major order. */
SYM_API sym_status sym_op_set_input_value(sym_op *op, size_t i, size_t n, const sym_expr *const *v);
/* Sets the number of outputs the node has (default 1): Split divides into
 * this many parts; optional outputs (LayerNormalization's Mean and
 * InvStdDev, Dropout's mask) are inferred only when counted. */
SYM_API sym_status sym_op_set_num_outputs(sym_op *op, size_t n);

/* Attributes, copied; setting a name again replaces it.  Their types are
 * checked by the rule (sym_op_infer), against ONNX's: a float attribute
 * also accepts an integer. */
SYM_API sym_status sym_op_set_attr_int(sym_op *op, const char *name, long long v);
SYM_API sym_status sym_op_set_attr_ints(sym_op *op, const char *name, size_t n, const long long *v);
SYM_API sym_status sym_op_set_attr_float(sym_op *op, const char *name, double v);
SYM_API sym_status sym_op_set_attr_floats(sym_op *op, const char *name, size_t n, const double *v);
SYM_API sym_status sym_op_set_attr_string(sym_op *op, const char *name, const char *v);
SYM_API sym_status sym_op_set_attr_strings(sym_op *op, const char *name, size_t n, const char *const *v);
/* Sets a tensor attribute (Constant's and ConstantOfShape's "value") of
 * rank dims with element type dtype and, when v is non-NULL, the n
 * elements v (numeric expressions, row-major). */
SYM_API sym_status sym_op_set_attr_tensor(sym_op *op, const char *name, int rank, const sym_expr *const *dims,
                                          int dtype, size_t n, const sym_expr *const *v);

/* Runs the operator's rule on the inputs and attributes.  Returns SYM_EOK
 * with the outputs set and the guards it could not prove added to the
 * session, or an error code with a message in the context naming the node
 * and the operator (SYM_EDOMAIN: an unsupported operator, a bad attribute,
 * an input the rule needs but lacks, a guard proven false, a hint needed).
 * Guards recorded before a failure stay in the session; a context that
 * already holds an error gives that error without running.  May be run again
 * after changing the inputs or attributes. */
SYM_API sym_status sym_op_infer(sym_op *op);
/* Returns the number of outputs (sym_op_set_num_outputs). */
SYM_API size_t sym_op_num_outputs(const sym_op *op);
/* Returns the rank of output i: -1 when unknown, -2 when i is out of range
 * or sym_op_infer has not succeeded. */
SYM_API int sym_op_output_rank(const sym_op *op, size_t i);
/* Returns the rank dims of output i (owned by the session, valid until it is
 * freed), or NULL when the rank is unknown or the output not inferred. */
SYM_API const sym_expr *const *sym_op_output_dims(const sym_op *op, size_t i);
/* Returns the symbolic value of output i, its element count in *n, or NULL
 * (*n = 0) when the rule gives none (owned by the session). */
SYM_API const sym_expr *const *sym_op_output_value(const sym_op *op, size_t i, size_t *n);
/* Returns the element type of output i (0 when unknown or not inferred). */
SYM_API int sym_op_output_dtype(const sym_op *op, size_t i);

#ifdef __cplusplus
}
#endif
#endif
