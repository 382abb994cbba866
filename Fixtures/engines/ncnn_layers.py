#!/usr/bin/env python3
"""Compares every FoldKit layer of an ncnn model with FoldKit's own output of that layer, one by one.

    ncnn_layers.py EXPORT_DIR PACK_DIR [--bound B]

EXPORT_DIR is what `foldkit export --format ncnn` wrote (model.param, model.bin, metadata.json,
test_data_set_0/); PACK_DIR a fixture pack of the same model and input with every layer
(`foldkit fixtures MODEL... --layers all --out PACK_DIR`: layer_NNN.npy, FoldKit's float64 outputs stored
as float32). The ncnn writer names the blob holding layer N's result `layer_NNN` (or the output's name), so
ncnn (engine_check.py's run_ncnn: CPU, float32) is asked for every such blob the pack holds; a layer that
passes its input through (a detection head, an identity) has no blob of its own and is skipped.

Prints one line per layer, max |ncnn - FoldKit| / max |FoldKit|, and exits 0 when every layer is within
--bound (default 1e-4), 2 when one is not, 1 on an error. Written against ncnn 1.0.20261020.
"""

import argparse
import os
import re
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_check  # noqa: E402  (the runner and the export reader are shared)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export")
    parser.add_argument("pack")
    parser.add_argument("--bound", type=float, default=1e-4)
    args = parser.parse_args()
    param, weights, _, x, outputs, _ = engine_check.read_ncnn_export(args.export)
    with open(param) as file:
        lines = [line.split() for line in file.read().split("\n")[2:] if line.strip()]
    blobs = {blob for fields in lines for blob in fields[4 + int(fields[2]):4 + int(fields[2]) + int(fields[3])]}
    names = sorted(blob for blob in blobs if re.fullmatch(r"layer_\d{3}", blob))
    names += [name for name, _ in outputs if name not in names]
    references = [(name, numpy.load(os.path.join(args.pack, name + ".npy"))) for name in names
                  if os.path.isfile(os.path.join(args.pack, name + ".npy"))]
    if not references:
        print(f"no layer of {args.export} has an array in {args.pack}", file=sys.stderr)
        return 1
    computed = engine_check.run_ncnn(param, weights, x, references)
    over = 0
    for name, reference in references:
        _, scale, ratio = engine_check.deviation(computed[name], reference)
        verdict = "ok" if ratio <= args.bound else "OVER"
        over += verdict == "OVER"
        print(f"{name} {tuple(reference.shape)}: max|ncnn - foldkit| / max|foldkit| = {ratio:.3e} (max|foldkit| {scale:.4g})  {verdict}")
    print(f"ncnn_layers: {len(references)} layers, {over} over {args.bound:.0e}")
    return 2 if over else 0


if __name__ == "__main__":
    sys.exit(main())
