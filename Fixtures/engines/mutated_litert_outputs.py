#!/usr/bin/env python3
"""Runs a deliberately broken copy of a LiteRT model `foldkit export --format tflite` wrote, so a test can check
that `foldkit verify --engine-outputs` catches it (exit 2, naming the output).

    mutated_litert_outputs.py EXPORT_DIR MUTATION OUT_DIR

EXPORT_DIR is what `foldkit export --format tflite` wrote (model.tflite, test_data_set_0/), float32. MUTATION
is one of:

- `weight`: the largest-magnitude value of the first CONV_2D's weights times 1.01 (a 1% change of one
  weight, in the constant's bytes after the FlatBuffer: its Buffer's offset, read with LiteRT's own reader);
- `upsample`: every RESIZE_NEAREST_NEIGHBOR operator code made RESIZE_BILINEAR, as a converter choosing the
  other resize would (the two code fields rewritten in place in the FlatBuffer);
- `transpose`: the permutation of the first TRANSPOSE (NHWC to NCHW, [0, 3, 1, 2]) made [0, 3, 2, 1], rows and
  columns swapped, as a converter losing darknet's channel-major order would;
- `channel`: no change to the model; one channel of the first output moved by 1% of that output's range
  after LiteRT ran it;
- `unchanged`: the model as exported (the control: its outputs must pass).

LiteRT (engine_check.py's run_litert: CPU, its default kernels) runs the changed model on
test_data_set_0/input_0.pb and each output is written as OUT_DIR/<output name>.npy. Exit 0 when the outputs
were written, 1 when the mutation does not apply to this model or anything fails. Written against
ai-edge-litert 2.3.0 (pinned in .ci/install).
"""

import os
import shutil
import sys
import tempfile

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_check  # noqa: E402  (the runner and the export reader are shared)

CONV_2D, TRANSPOSE, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR = 3, 39, 23, 97


def operators(model):
    """(builtin code, operator) of every operator of the first subgraph."""
    graph = model.Subgraphs(0)
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        yield max(code.BuiltinCode(), code.DeprecatedBuiltinCode()), op


def constant_span(model, tensor):
    """(offset, size) in the file of a constant tensor's bytes."""
    buffer = model.Buffers(model.Subgraphs(0).Tensors(tensor).Buffer())
    if buffer.Offset() <= 1:
        raise SystemExit("the constant is not stored after the FlatBuffer")
    return buffer.Offset(), buffer.Size()


def mutate(path, mutation):
    from ai_edge_litert import schema_py_generated as schema

    with open(path, "rb") as file:
        data = bytearray(file.read())
    model = schema.Model.GetRootAsModel(data, 0)
    if mutation == "weight":
        conv = next((op for code, op in operators(model) if code == CONV_2D), None)
        if conv is None:
            raise SystemExit("no CONV_2D to change")
        offset, size = constant_span(model, conv.Inputs(1))
        values = numpy.frombuffer(bytes(data[offset:offset + size]), dtype="<f4").copy()
        k = int(numpy.argmax(numpy.abs(values)))
        values[k] *= numpy.float32(1.01)
        data[offset + 4 * k:offset + 4 * k + 4] = values[k:k + 1].tobytes()
    elif mutation == "transpose":
        transpose = next((op for code, op in operators(model) if code == TRANSPOSE), None)
        if transpose is None:
            raise SystemExit("no TRANSPOSE to change")
        offset, size = constant_span(model, transpose.Inputs(1))
        if list(numpy.frombuffer(bytes(data[offset:offset + size]), dtype="<i4")) != [0, 3, 1, 2]:
            raise SystemExit("the first TRANSPOSE is not NHWC to NCHW")
        data[offset:offset + size] = numpy.array([0, 3, 2, 1], dtype="<i4").tobytes()
    elif mutation == "upsample":
        changed = 0
        for i in range(model.OperatorCodesLength()):
            code = model.OperatorCodes(i)
            if max(code.BuiltinCode(), code.DeprecatedBuiltinCode()) != RESIZE_NEAREST_NEIGHBOR:
                continue
            table = code._tab
            # OperatorCode's vtable slots: 0 deprecated_builtin_code (byte) at 4, 3 builtin_code (int32) at 10.
            data[table.Pos + table.Offset(4)] = RESIZE_BILINEAR
            data[table.Pos + table.Offset(10):table.Pos + table.Offset(10) + 4] = RESIZE_BILINEAR.to_bytes(4, "little")
            changed += 1
        if not changed:
            raise SystemExit("no RESIZE_NEAREST_NEIGHBOR to change")
    elif mutation not in ("channel", "unchanged"):
        raise SystemExit(f"unknown mutation {mutation}")
    with open(path, "wb") as file:
        file.write(data)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    folder, mutation, out = sys.argv[1:]
    with tempfile.TemporaryDirectory() as work:
        copy = os.path.join(work, "export")
        shutil.copytree(folder, copy)
        mutate(os.path.join(copy, "model.tflite"), mutation)
        path, _, x, references, _ = engine_check.read_tflite_export(copy)
        outputs = engine_check.run_litert(path, x, references)
    names = [name for name, _ in references]
    if mutation == "channel":
        first = outputs[names[0]]
        span = float(first.max() - first.min())
        first[0, min(1, first.shape[1] - 1)] += numpy.float32(0.01 * span)
    engine_check.write_outputs(outputs, out)
    print(f"{mutation}: wrote {', '.join(names)} to {out}")


if __name__ == "__main__":
    main()
