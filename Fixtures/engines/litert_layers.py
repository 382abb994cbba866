#!/usr/bin/env python3
"""Compares every FoldKit layer of a LiteRT model with FoldKit's own output of that layer, one by one.

    litert_layers.py EXPORT_DIR PACK_DIR [--bound B]

EXPORT_DIR is what `foldkit export --format tflite` wrote (model.tflite, test_data_set_0/); PACK_DIR a fixture
pack of the same model and input with every layer (`foldkit fixtures MODEL... --layers all --out PACK_DIR`:
layer_NNN.npy, FoldKit's float64 outputs stored as float32). The LiteRT writer names the tensor holding layer
N's result `layer_NNN` (or the output's name), so LiteRT's interpreter - its builtin kernels, with
experimental_preserve_all_tensors so every intermediate tensor keeps its values - is read for every such
tensor the pack holds (NHWC, transposed to FoldKit's [1, C, H, W]); a layer that passes its input through (a
detection head, an identity) has no tensor of its own and is skipped.

Prints one line per layer, max |litert - FoldKit| / max |FoldKit|, and exits 0 when every layer is within
--bound (default 1e-4), 2 when one is not, 1 on an error. Written against ai-edge-litert 2.3.0.
"""

import argparse
import os
import re
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_check  # noqa: E402  (the export reader and the deviation are shared)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export")
    parser.add_argument("pack")
    parser.add_argument("--bound", type=float, default=1e-4)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    path, _, x, outputs, _ = engine_check.read_tflite_export(args.export)
    interpreter = Interpreter(model_path=path, num_threads=2, experimental_preserve_all_tensors=True,
                              experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    (given,) = interpreter.get_input_details()
    interpreter.set_tensor(given["index"], numpy.ascontiguousarray(x.transpose(0, 2, 3, 1), dtype=numpy.float32))
    interpreter.invoke()
    tensors = {detail["name"]: detail["index"] for detail in interpreter.get_tensor_details()}
    names = sorted(name for name in tensors if re.fullmatch(r"layer_\d{3}", name))
    names += [name for name, _ in outputs if name not in names]
    references = [(name, numpy.load(os.path.join(args.pack, name + ".npy"))) for name in names
                  if os.path.isfile(os.path.join(args.pack, name + ".npy"))]
    if not references:
        print(f"no layer of {args.export} has an array in {args.pack}", file=sys.stderr)
        return 1
    over = 0
    for name, reference in references:
        array = interpreter.get_tensor(tensors[name])
        if array.ndim == 4:
            array = array.transpose(0, 3, 1, 2)
        if array.size != reference.size:
            print(f"{name}: LiteRT has {array.shape}, FoldKit {reference.shape}", file=sys.stderr)
            return 1
        _, scale, ratio = engine_check.deviation(numpy.ascontiguousarray(array).reshape(reference.shape), reference)
        verdict = "ok" if ratio <= args.bound else "OVER"
        over += verdict == "OVER"
        print(f"{name} {tuple(reference.shape)}: max|litert - foldkit| / max|foldkit| = {ratio:.3e} (max|foldkit| {scale:.4g})  {verdict}")
    print(f"litert_layers: {len(references)} layers, {over} over {args.bound:.0e}")
    return 2 if over else 0


if __name__ == "__main__":
    sys.exit(main())
