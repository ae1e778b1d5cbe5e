/* Short names for the protobuf-c messages generated from
 * src/model/onnx/onnx-subset.proto. */
#ifndef SYM_ONNX_PRIVATE_H
#define SYM_ONNX_PRIVATE_H

#include "onnx-subset.pb-c.h"
#include "seam.h"
#include "symshape/model.h"

#include <stddef.h>
#include <stdio.h>

typedef SymshapeOnnx__ModelProto OnnxModel;
typedef SymshapeOnnx__GraphProto OnnxGraph;
typedef SymshapeOnnx__NodeProto OnnxNode;
typedef SymshapeOnnx__AttributeProto OnnxAttr;
typedef SymshapeOnnx__TensorProto OnnxTensor;
typedef SymshapeOnnx__ValueInfoProto OnnxValueInfo;
typedef SymshapeOnnx__TypeProto OnnxType;
typedef SymshapeOnnx__TypeProto__Tensor OnnxTensorType;
typedef SymshapeOnnx__TensorShapeProto OnnxShape;
typedef SymshapeOnnx__TensorShapeProto__Dimension OnnxDim;
typedef SymshapeOnnx__OperatorSetIdProto OnnxOpset;
typedef SymshapeOnnx__StringStringEntryProto OnnxEntry;

/* Appends to why what makes data no valid ModelProto of the subset: the
 * first field whose wire type is not the declared one or whose length runs
 * past its message; nothing when the walk finds nothing (why->fail set,
 * out of memory recorded, when the text could not be built). */
void sym__onnx_diagnose(sym_sbuf *why, const void *data, size_t len);

/* The data the loader keeps (model_onnx.c): integer tensors of at most
 * SYM_ONNX_INT_KEEP elements, floating-point ones of at most
 * SYM_ONNX_FLOAT_KEEP (Resize scales); larger ones keep their shape and
 * type only. */
#define SYM_ONNX_INT_KEEP 65536
#define SYM_ONNX_FLOAT_KEEP 64

/* onnx_slim.c: a copy of the ModelProto without the data of tensors the
 * loader does not keep: floating-point tensors of more than
 * SYM_ONNX_FLOAT_KEEP elements, others of more than SYM_ONNX_INT_KEEP
 * (their name, type and dims stay).  Each returns
 * 1 with *out (sym__free with *cap), 0 when the model must be read whole
 * (malformed, a file that is not a regular file, or for memory nothing to
 * drop), -1 when memory runs out (recorded). */
int sym__onnx_slim_file(sym_ctx *ctx, FILE *f, char **out, size_t *outlen, size_t *cap);
int sym__onnx_slim_mem(sym_ctx *ctx, const void *data, size_t len, char **out, size_t *outlen, size_t *cap);
/* model_onnx.c: the loader over a buffer taken as it is. */
sym_model *sym__model_from_onnx_buffer(sym_ctx *ctx, const void *data, size_t len);

#endif
