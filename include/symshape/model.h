/* symshape: models and whole-graph inference.
 *
 * A model (JSON of SPEC §6) is loaded into a graph; inference gives every
 * tensor's symbolic shape, the guards under which the result is valid and
 * the merge keys that group nodes with identical output shapes. */
#ifndef SYMSHAPE_MODEL_H
#define SYMSHAPE_MODEL_H

#include "symshape/expr.h"
#include "symshape/facts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_model sym_model;
typedef struct sym_graph_result sym_graph_result;

/* Loads a JSON model from text (len bytes).  Returns NULL with a message in
 * ctx naming the field or node on malformed input.  Free with
 * sym_model_free. */
SYM_API SYM_GIVE sym_model *sym_model_from_json(sym_ctx *ctx, const char *text, size_t len);
/* Loads an ONNX ModelProto from len bytes.  Returns NULL with a message in
 * ctx ("not an ONNX model (truncated or corrupt)", or one naming the
 * tensor, node or attribute at fault).  Free with sym_model_free. */
SYM_API SYM_GIVE sym_model *sym_model_from_onnx(sym_ctx *ctx, const void *data, size_t len);
/* Loads a model file: ONNX when it is named .onnx or does not start like a
 * JSON object, JSON otherwise. */
SYM_API SYM_GIVE sym_model *sym_model_load(sym_ctx *ctx, const char *path);
SYM_API void sym_model_free(SYM_TAKE sym_model *m);
SYM_API size_t sym_model_num_inputs(const sym_model *m);
SYM_API const char *sym_model_input_name(const sym_model *m, size_t i);
/* Returns the rank of input i (-1 when unknown). */
SYM_API int sym_model_input_rank(const sym_model *m, size_t i);
SYM_API size_t sym_model_num_outputs(const sym_model *m);
SYM_API const char *sym_model_output_name(const sym_model *m, size_t i);

/* Inference options; zero-initialise, then set what is needed. */
typedef struct sym_infer_options {
	int allow_empty; /* dims may be 0 (default: dims >= 1) */
	size_t nhints;   /* hints NAME=VALUE for specialisation */
	const char *const *hint_names;
	const long long *hint_values;
	size_t nranges; /* ranges lo <= NAME <= hi of input symbols */
	const char *const *range_names;
	const sym_expr *const *range_lo; /* NULL entries: open ends */
	const sym_expr *const *range_hi;
	long long align; /* byte sizes align up to this (0: 32) */
} sym_infer_options;

/* Runs inference over the whole graph.  Returns NULL only on a fatal error
 * (out of memory, a guard proven false: the message names the node); nodes
 * that cannot be inferred (an unsupported operator, an unknown rank) are
 * reported as diagnostics (sym_graph_diagnostic) and inference goes on
 * around them. */
SYM_API SYM_GIVE sym_graph_result *sym_model_infer(sym_ctx *ctx, const sym_model *m,
                                                   const sym_infer_options *opt);
SYM_API void sym_graph_result_free(SYM_TAKE sym_graph_result *r);

/* The symbols: name, source ("x.shape[0]"), range (NULL ends are open). */
SYM_API size_t sym_graph_num_symbols(const sym_graph_result *r);
SYM_API const sym_expr *sym_graph_symbol(const sym_graph_result *r, size_t i, const char **source,
                                         const sym_expr **min, const sym_expr **max);
/* Tensors in model order (inputs, initializers, node outputs). */
SYM_API size_t sym_graph_num_tensors(const sym_graph_result *r);
/* Returns the name; *rank is -1 for an unknown rank (dims NULL), -2 when
 * inference did not reach the tensor. */
SYM_API const char *sym_graph_tensor(const sym_graph_result *r, size_t i, int *rank,
                                     const sym_expr *const **dims, const char **dtype);
/* Returns the index of the tensor called name, or (size_t)-1. */
SYM_API size_t sym_graph_find_tensor(const sym_graph_result *r, const char *name);
/* Guards in order: predicate, kind ("assert" or "expect"), node, reason. */
SYM_API size_t sym_graph_num_guards(const sym_graph_result *r);
SYM_API const sym_expr *sym_graph_guard(const sym_graph_result *r, size_t i, const char **kind,
                                        const char **node, const char **reason);
/* Merge keys: groups of nodes whose output shapes print identically. */
SYM_API size_t sym_graph_num_merge_keys(const sym_graph_result *r);
SYM_API const char *sym_graph_merge_key(const sym_graph_result *r, size_t i, size_t *nnodes,
                                        const char *const **nodes);
/* The diagnostics, in the order they were found: problems of one node or
 * tensor (an unsupported operator, domain or opset, an unknown rank, a
 * declared shape that disagrees, a node whose input is unknown).  Returns
 * the whole message ("node 'N' (Op): ..."), NULL past the end; *node is
 * the node (for a declared input, the tensor), *op its operator and *tensor
 * the tensor at fault, each NULL when there is none.  Owned by the result. */
SYM_API size_t sym_graph_num_diagnostics(const sym_graph_result *r);
SYM_API const char *sym_graph_diagnostic(const sym_graph_result *r, size_t i, const char **node,
                                         const char **op, const char **tensor);
/* The same list, message and node only. */
SYM_API size_t sym_graph_num_errors(const sym_graph_result *r);
SYM_API const char *sym_graph_error(const sym_graph_result *r, size_t i, const char **node);

/* Returns the ONNX model of len bytes again with the inference result
 * written in: a value_info with the inferred shape for every tensor a node
 * produces, the shapes of the graph inputs and outputs, symbolic dims as
 * dim_param in the expression syntax, and the guards and symbols as
 * metadata_props ("symshape.guard.0", "symshape.symbol.NAME").  Fields the
 * result does not touch are kept as they are.  Caller frees with free();
 * NULL with an error in ctx. */
SYM_API SYM_GIVE unsigned char *sym_graph_to_onnx(sym_ctx *ctx, const sym_graph_result *r, const void *model,
                                                  size_t len, size_t *out_len);
/* Reads the ONNX model at model_path, writes it with the result to
 * out_path (see sym_graph_to_onnx).  Returns 0, or -1 with an error. */
SYM_API int sym_graph_save_onnx(sym_ctx *ctx, const sym_graph_result *r, const char *model_path,
                                const char *out_path);

/* ---- runtime ----------------------------------------------------------- */

typedef struct sym_model_program sym_model_program;

/* Compiles the guards and shapes of an inference result into a runtime
 * program whose inputs are the concrete dims of every model input,
 * concatenated in input order.  It first checks that the dims match the
 * declared shapes (constants, dims sharing a symbol), the symbols' ranges
 * and that no dim exceeds SYM_DIM_MAX, then every guard in
 * order, then computes the dims of the model outputs, or of every tensor
 * when all_tensors is set.  Returns NULL on error (an input of unknown rank,
 * a symbol that no input dim binds, a constant beyond int64).  The program
 * is allocated with ctx's allocator hook and keeps a copy of it: it may
 * outlive ctx, not the hook's ud. */
SYM_API SYM_GIVE sym_model_program *sym_graph_compile(sym_ctx *ctx, const sym_graph_result *r,
                                                      int all_tensors);
SYM_API void sym_model_program_free(SYM_TAKE sym_model_program *mp);
/* Number of input dims the program takes, and of output dims it writes. */
SYM_API size_t sym_model_program_num_dims(const sym_model_program *mp);
SYM_API size_t sym_model_program_num_out_dims(const sym_model_program *mp);
/* The tensors whose dims the program writes, in order, with their ranks. */
SYM_API size_t sym_model_program_num_tensors(const sym_model_program *mp);
SYM_API const char *sym_model_program_tensor(const sym_model_program *mp, size_t i, int *rank);

/* The output segments of a model program: each is computed after the
 * input checks and the guards, with a status of its own (an overflow in a
 * byte size never fails the shapes). */
typedef enum sym_model_segment {
	SYM_SEGMENT_SHAPES = 0,  /* the dims of the program's tensors */
	SYM_SEGMENT_STORAGE = 1, /* their storage dims (symshape/storage.h) */
	SYM_SEGMENT_BYTES = 2,   /* their byte sizes, then the total */
	SYM_SEGMENT_COUNT = 3
} sym_model_segment;

/* Outcome of a run of a model program. */
typedef struct sym_model_run {
	sym_status status;   /* SYM_EOK; SYM_EINPUT the dims contradict the
	                        declared shapes or the symbols' ranges, or
	                        exceed SYM_DIM_MAX;
	                        SYM_EGUARD a guard failed; SYM_EOVERFLOW,
	                        SYM_EDIVZERO, SYM_EINEXACT (an output is not an
	                        integer); SYM_ENOMEM (scratch beyond the stack) */
	size_t failed;       /* the failing guard (SYM_EGUARD) */
	const char *message; /* what failed, in words (static storage of mp) */
	const char *node;    /* the node of the failing guard */
	const char *kind;    /* "assert" or "expect" */
	int segment;         /* the failing segment (sym_model_segment), -1
	                        when the checks or guards failed or none did */
} sym_model_run;

/* Runs the program on dims (num_dims values) and writes the output dims to
 * out (num_out_dims values): the checks, the guards, the shapes segment.
 * Allocation-free; thread-safe for one mp. */
SYM_API void sym_model_program_run(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                   sym_model_run *res);
/* Runs the checks and the guards once, then every segment s whose out[s]
 * (SYM_SEGMENT_COUNT pointers) is not NULL, each with its own status; res
 * reports the first failure: of the checks or guards, else of the
 * segments in order (res->segment).  Allocation-free; thread-safe. */
SYM_API void sym_model_program_run_segments(const sym_model_program *mp, const int64_t *dims,
                                            int64_t *const *out, sym_model_run *res);
/* Writes standalone C source with the ABI of SPEC §8 (P = prefix, NULL or
 * "": "symshape"): the guard functions return 0, k+1 for the first failing
 * guard k, -1 on overflow, division by zero or an inexact output, and -2
 * when the dims contradict the declared input shapes or the input symbols'
 * ranges; P_guard_kind[k] is "assert" or "expect".  The text is
 * allocated through mp's copy of the allocator hook: the caller frees it
 * with sym_model_program_str_free; NULL when the prefix is not a C
 * identifier (sym_program_is_c_identifier) or memory runs out.  Calls the
 * hook: emit where calling it is allowed. */
SYM_API SYM_GIVE char *sym_model_program_emit_c(const sym_model_program *mp, const char *prefix);
/* Frees a text of sym_model_program_emit_c(mp, ...) through mp's hook,
 * with its size; NULL is ignored.  For a program of a context without a
 * hook (sym_ctx_new), that is free(). */
SYM_API void sym_model_program_str_free(const sym_model_program *mp, SYM_TAKE char *s);

#ifdef __cplusplus
}
#endif
#endif
