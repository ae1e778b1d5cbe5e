#!/usr/bin/python3
"""Writes the ONNX pairs of tests/models/diff/ (the JSON models are written
by hand).  Usage: /usr/bin/python3 tests/models/diff/gen.py [OUTDIR]

Needs python3-onnx; the committed .onnx files are what the tests read.

- export_flatten.onnx: x[batch, 3, h, w] flattened the way exporters write
  it, Shape -> Gather(0) -> Unsqueeze -> Concat([-1]) -> Reshape;
  flatten.onnx is the same model after a pass replaced that by Flatten.
- pool_pad0.onnx, pool_pad1.onnx: a 2x2 MaxPool with stride 2, without and
  with one row and column of padding at the end.
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def save(name, nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="symshape-tests")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def x_input():
    return helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "h", "w"])


def y_output(rank):
    """y with every dim unnamed: its shape is for inference to find."""
    return helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * rank)


save("export_flatten", [
    helper.make_node("Shape", ["x"], ["/Shape_output_0"], name="/Shape"),
    helper.make_node("Gather", ["/Shape_output_0", "zero"], ["/Gather_output_0"], name="/Gather", axis=0),
    helper.make_node("Unsqueeze", ["/Gather_output_0", "axes0"], ["/Unsqueeze_output_0"], name="/Unsqueeze"),
    helper.make_node("Concat", ["/Unsqueeze_output_0", "minus_one"], ["/Concat_output_0"], name="/Concat",
                     axis=0),
    helper.make_node("Reshape", ["x", "/Concat_output_0"], ["y"], name="/Reshape"),
], [x_input()], [y_output(2)], [
    helper.make_tensor("zero", TensorProto.INT64, [], [0]),
    helper.make_tensor("axes0", TensorProto.INT64, [1], [0]),
    helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1]),
])
save("flatten", [helper.make_node("Flatten", ["x"], ["y"], name="/Flatten", axis=1)],
     [x_input()], [y_output(2)])
for pad in (0, 1):
    save("pool_pad%d" % pad, [
        helper.make_node("MaxPool", ["x"], ["y"], name="/pool", kernel_shape=[2, 2], strides=[2, 2],
                         pads=[0, 0, pad, pad]),
    ], [x_input()], [y_output(4)])
