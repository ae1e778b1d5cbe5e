/* symshape: storage shapes, byte sizes, dim ranges and data-dependent dims.
 *
 * A tensor named in the model's "formats" has an origin shape (the inferred
 * one) and a storage shape (its layout in memory: NC1HWC0, FRACTAL_Z, ...);
 * every tensor of a fixed-size element type has a byte size.  These
 * functions read them from an inference result and evaluate them with a
 * model program.  See docs/storage.md. */
#ifndef SYMSHAPE_STORAGE_H
#define SYMSHAPE_STORAGE_H

#include "symshape/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the origin format of tensor i as the model names it ("NCHW") and
 * its storage format in *storage_format, or NULL when the model names no
 * format for the tensor.  Strings are static. */
SYM_API const char *sym_graph_tensor_format(const sym_graph_result *r, size_t i, const char **storage_format);
/* Returns the storage rank of tensor i (its origin rank when it has no
 * storage format) with the dims in *dims (owned by r), or -1 when unknown. */
SYM_API int sym_graph_tensor_storage(const sym_graph_result *r, size_t i, const sym_expr *const **dims);
/* Returns the byte size of tensor i (storage element count times element
 * size, aligned up), or NULL when unknown (unknown rank, a string tensor). */
SYM_API const sym_expr *sym_graph_tensor_bytes(const sym_graph_result *r, size_t i);
/* Returns the sum of every tensor's byte size, or NULL when some tensor has
 * no known size or the sum is past a limit (sym_graph_total_bytes_error). */
SYM_API const sym_expr *sym_graph_total_bytes(const sym_graph_result *r);
/* Returns why the total was not made (owned by r): a limit, such as a sum of
 * more than 2,000,000 terms; NULL when it was, or when some tensor has no
 * known size.  The total is a summary, so a limit there fails nothing
 * else. */
SYM_API const char *sym_graph_total_bytes_error(const sym_graph_result *r);
/* Sets the exact range of dim d of tensor i under the symbols' ranges
 * (NULL for an open end).  Returns 0, or -1 on a bad index or an error
 * recorded in the result's context. */
SYM_API int sym_graph_dim_range(const sym_graph_result *r, size_t i, int d, const sym_expr **min,
                                const sym_expr **max);
/* Returns the symbolic upper bound of symbol i when its range has no
 * constant upper end but a fact bounds it by an expression (a NonZero count
 * u0 <= 4*n), else NULL. */
SYM_API const sym_expr *sym_graph_symbol_bound(const sym_graph_result *r, size_t i);

/* ---- the model program --------------------------------------------------
 * A program's inputs are the dims of every model input, then the value of
 * every data-dependent symbol (in the order of sym_graph_symbol), bound
 * once the producing kernel has run. */

/* Returns the number of data-dependent symbols the program takes after the
 * input dims. */
SYM_API size_t sym_model_program_num_bound(const sym_model_program *mp);
/* Returns the name of bound symbol i and its source in *source. */
SYM_API const char *sym_model_program_bound(const sym_model_program *mp, size_t i, const char **source);
/* Returns the storage format of the program's tensor i (NULL when it has
 * none: its storage shape is its origin shape) and its storage rank. */
SYM_API const char *sym_model_program_tensor_storage(const sym_model_program *mp, size_t i,
                                                     int *storage_rank);
/* Returns the number of storage dims sym_model_program_run_storage writes. */
SYM_API size_t sym_model_program_num_storage_dims(const sym_model_program *mp);
/* Checks the guards like sym_model_program_run, then writes the storage
 * dims of the program's tensors, concatenated.  Allocation-free. */
SYM_API void sym_model_program_run_storage(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                           sym_model_run *res);
/* Checks the guards, then writes the byte size of each of the program's
 * tensors and last the graph total: num_tensors + 1 values, -1 for a size
 * that is unknown.  Allocation-free. */
SYM_API void sym_model_program_run_bytes(const sym_model_program *mp, const int64_t *dims, int64_t *out,
                                         sym_model_run *res);

#ifdef __cplusplus
}
#endif
#endif
