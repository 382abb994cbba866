#!/usr/bin/env python3
"""Runs a deliberately broken copy of an exported model on ONNX Runtime, so a test can check that
`foldkit verify --engine-outputs` catches it (exit 2, naming the output).

    mutated_engine_outputs.py EXPORT_DIR MUTATION OUT_DIR

EXPORT_DIR is what `foldkit export --format onnx` wrote (model.onnx, test_data_set_0/). MUTATION is one of:

- `weight`: the largest-magnitude value of the first convolution's weights times 1.01 (a 1% change of one
  weight);
- `resize`: every Resize node's `coordinate_transformation_mode` set to `align_corners` (nearest
  upsampling as PyTorch's align_corners=True samples it: darknet's upsample differs at every stride);
- `transpose`: the first Transpose node's `perm` with its last two axes swapped.
- `channel`: no change to the model; one channel of the first output moved by 1% of that output's range
  after ONNX Runtime ran it;
- `unchanged`: the model as exported (the control: its outputs must pass).

ONNX Runtime (CPUExecutionProvider) runs the changed model on test_data_set_0/input_0.pb and each output
is written as OUT_DIR/<output name>.npy. Exit 0 when the outputs were written, 1 when the mutation does not
apply to this model (no convolution, Resize or Transpose) or anything fails. Written against onnx 1.19.1 and
onnxruntime 1.32.0 (pinned in .ci/install).
"""

import os
import sys

import numpy
import onnx
import onnxruntime
from onnx import helper, numpy_helper


def mutate(model, mutation):
    graph = model.graph
    if mutation == "weight":
        conv = next((n for n in graph.node if n.op_type == "Conv"), None)
        if conv is None:
            raise SystemExit("no Conv node to change")
        init = next(i for i in graph.initializer if i.name == conv.input[1])
        values = numpy_helper.to_array(init).copy()
        flat = values.reshape(-1)
        k = int(numpy.argmax(numpy.abs(flat)))
        flat[k] = flat[k] * values.dtype.type(1.01)
        init.CopyFrom(numpy_helper.from_array(values, init.name))
    elif mutation == "resize":
        nodes = [n for n in graph.node if n.op_type == "Resize"]
        if not nodes:
            raise SystemExit("no Resize node to change")
        for node in nodes:
            kept = [a for a in node.attribute if a.name not in ("coordinate_transformation_mode", "nearest_mode")]
            del node.attribute[:]
            node.attribute.extend(kept + [helper.make_attribute("coordinate_transformation_mode", "align_corners"),
                                          helper.make_attribute("nearest_mode", "round_prefer_floor")])
    elif mutation == "transpose":
        node = next((n for n in graph.node if n.op_type == "Transpose"), None)
        if node is None:
            raise SystemExit("no Transpose node to change")
        perm = next(a for a in node.attribute if a.name == "perm")
        axes = list(perm.ints)
        axes[-1], axes[-2] = axes[-2], axes[-1]
        del perm.ints[:]
        perm.ints.extend(axes)
    elif mutation not in ("channel", "unchanged"):
        raise SystemExit(f"unknown mutation {mutation}")
    return model


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    folder, mutation, out = sys.argv[1:]
    model = mutate(onnx.load(os.path.join(folder, "model.onnx")), mutation)
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, "test_data_set_0", "input_0.pb")))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    outputs = session.run(names, {"input": x})
    if mutation == "channel":
        first = outputs[0]
        span = float(first.max() - first.min())
        first[0, min(1, first.shape[1] - 1)] += numpy.float32(0.01 * span)
    os.makedirs(out, exist_ok=True)
    for name, value in zip(names, outputs):
        numpy.save(os.path.join(out, name + ".npy"), value)
    print(f"{mutation}: wrote {', '.join(names)} to {out}")


if __name__ == "__main__":
    main()
