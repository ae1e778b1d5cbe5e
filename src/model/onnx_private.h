/* Short names for the protobuf-c messages generated from
 * src/model/onnx/onnx-subset.proto. */
#ifndef SYM_ONNX_PRIVATE_H
#define SYM_ONNX_PRIVATE_H

#include "onnx-subset.pb-c.h"
#include "seam.h"

#include <stddef.h>

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

#endif
