#!/usr/bin/python3
"""Writes generated transformer-like models (BENCH.md, "Model workloads").

Usage: gen_model.py OUTDIR [NODES...]   (default sizes 1000 10000 100000)

Each model repeats the block of examples/transformer.json (layer norm, QKV
projection, Shape -> Gather -> Unsqueeze -> Concat -> Reshape into heads,
attention with a broadcast mask, Shape/Concat/Reshape back, MLP, residuals)
until it has the requested number of nodes; block i reads block i-1's
output.  The weights are initializers shared by every block, so the file
grows with the nodes only.  Prints one line per model: "PATH NODES".
"""

import json
import os
import sys


def block(i, x):
    p = "b%d_" % i

    def n(name, op, ins, outs, **attrs):
        return {"name": p + name, "op": op, "inputs": ins, "outputs": outs, "attrs": attrs}
    t = lambda s: p + s
    return [
        n("ln1", "LayerNormalization", [x, "ln1_scale", "ln1_bias"], [t("ln1_out")], axis=-1, epsilon=1e-5),
        n("qkv_proj", "MatMul", [t("ln1_out"), "w_qkv"], [t("qkv_mm")]),
        n("qkv_bias", "Add", [t("qkv_mm"), "b_qkv"], [t("qkv")]),
        n("shape_x", "Shape", [x], [t("x_shape")]),
        n("get_batch", "Gather", [t("x_shape"), "idx0"], [t("batch_v")], axis=0),
        n("get_seq", "Gather", [t("x_shape"), "idx1"], [t("seq_v")], axis=0),
        n("batch_1d", "Unsqueeze", [t("batch_v"), "axes0"], [t("batch_1d")]),
        n("seq_1d", "Unsqueeze", [t("seq_v"), "axes0"], [t("seq_1d")]),
        n("qkv_shape", "Concat", [t("batch_1d"), t("seq_1d"), "heads"], [t("qkv_shape")], axis=0),
        n("qkv_split_heads", "Reshape", [t("qkv"), t("qkv_shape")], [t("qkv_5d")]),
        n("qkv_perm", "Transpose", [t("qkv_5d")], [t("qkv_t")], perm=[2, 0, 3, 1, 4]),
        n("qkv_split", "Split", [t("qkv_t")], [t("q5"), t("k5"), t("v5")], axis=0, num_outputs=3),
        n("q_sq", "Squeeze", [t("q5"), "axes0"], [t("q")]),
        n("k_sq", "Squeeze", [t("k5"), "axes0"], [t("k")]),
        n("v_sq", "Squeeze", [t("v5"), "axes0"], [t("v")]),
        n("k_t", "Transpose", [t("k")], [t("kt")], perm=[0, 1, 3, 2]),
        n("scores", "MatMul", [t("q"), t("kt")], [t("scores")]),
        n("scale_scores", "Mul", [t("scores"), "scale"], [t("scores_scaled")]),
        n("add_mask", "Add", [t("scores_scaled"), "mask"], [t("scores_masked")]),
        n("softmax", "Softmax", [t("scores_masked")], [t("probs")], axis=-1),
        n("context", "MatMul", [t("probs"), t("v")], [t("ctx")]),
        n("ctx_perm", "Transpose", [t("ctx")], [t("ctx_t")], perm=[0, 2, 1, 3]),
        n("ctx_shape", "Concat", [t("batch_1d"), t("seq_1d"), "hidden"], [t("ctx_shape")], axis=0),
        n("merge_heads", "Reshape", [t("ctx_t"), t("ctx_shape")], [t("ctx_r")]),
        n("out_proj", "MatMul", [t("ctx_r"), "w_o"], [t("attn")]),
        n("residual1", "Add", [x, t("attn")], [t("res1")]),
        n("ln2", "LayerNormalization", [t("res1"), "ln2_scale", "ln2_bias"], [t("ln2_out")], axis=-1,
          epsilon=1e-5),
        n("fc1", "MatMul", [t("ln2_out"), "w_fc1"], [t("h1")]),
        n("gelu", "Gelu", [t("h1")], [t("h1_act")]),
        n("fc2", "MatMul", [t("h1_act"), "w_fc2"], [t("h2")]),
        n("residual2", "Add", [t("res1"), t("h2")], [t("y")]),
    ]


def initializers():
    f = lambda name, shape: {"name": name, "dtype": "float32", "shape": shape}
    i = lambda name, shape, data: {"name": name, "dtype": "int64", "shape": shape, "data": data}
    return [f("ln1_scale", [768]), f("ln1_bias", [768]), f("w_qkv", [768, 2304]), f("b_qkv", [2304]),
            f("w_o", [768, 768]), f("ln2_scale", [768]), f("ln2_bias", [768]), f("w_fc1", [768, 3072]),
            f("w_fc2", [3072, 768]), i("idx0", [], [0]), i("idx1", [], [1]), i("axes0", [1], [0]),
            i("heads", [3], [3, 12, 64]), i("hidden", [1], [768]), f("scale", [])]


def model(nodes_wanted):
    nodes, x, i = [], "x", 0
    while len(nodes) < nodes_wanted:
        b = block(i, x)
        nodes += b
        x = b[-1]["outputs"][0]
        i += 1
    del nodes[nodes_wanted:]
    # the output is the last tensor produced (a truncated block ends anywhere)
    return {"opset": 18,
            "inputs": [{"name": "x", "dtype": "float32", "shape": ["batch", "seq", 768]},
                       {"name": "mask", "dtype": "float32", "shape": ["mbatch", 1, 1, "mseq"]}],
            "initializers": initializers(), "nodes": nodes, "outputs": [nodes[-1]["outputs"][0]]}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    sizes = [int(a) for a in argv[2:]] or [1000, 10000, 100000]
    os.makedirs(out, exist_ok=True)
    for n in sizes:
        path = os.path.join(out, "transformer_%d.json" % n)
        with open(path, "w") as f:
            json.dump(model(n), f, separators=(",", ":"))
        print(path, n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
