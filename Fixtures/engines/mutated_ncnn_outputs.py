#!/usr/bin/env python3
"""Runs a deliberately broken copy of an ncnn model `foldkit export --format ncnn` wrote, so a test can check
that `foldkit verify --engine-outputs` catches it (exit 2, naming the output).

    mutated_ncnn_outputs.py EXPORT_DIR MUTATION OUT_DIR

EXPORT_DIR is what `foldkit export --format ncnn` wrote (model.param, model.bin, metadata.json,
test_data_set_0/), float32. MUTATION is one of:

- `weight`: in model.bin, the largest-magnitude value of the first Convolution's weights times 1.01 (a 1%
  change of one weight; its offset found by walking the param file's layers and the buffers each reads);
- `upsample`: every Interp of resize_type 1 (nearest) made 2 (bilinear), as a converter choosing ncnn's
  other resize would;
- `reorg`: every Reorg's mode 1 (space to depth, out channel (dy*s + dx)*C + c) made 0 (ncnn's default,
  out channel c*s*s + dy*s + dx), as a converter taking darknet's [reorg] for ncnn's default would;
- `channel`: no change to the model; one channel of the first output moved by 1% of that output's range
  after ncnn ran it;
- `unchanged`: the model as exported (the control: its outputs must pass).

ncnn (engine_check.py's run_ncnn: CPU, float32) runs the changed model on test_data_set_0/input_0.pb and each
output is written as OUT_DIR/<output name>.npy. Exit 0 when the outputs were written, 1 when the mutation
does not apply to this model or anything fails. Written against ncnn 1.0.20261020 (pinned in .ci/install).
"""

import os
import shutil
import struct
import sys
import tempfile

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_check  # noqa: E402  (the runner and the export reader are shared)


def params(fields, count_in, count_out):
    """The k=v params of a param line as a dict of strings."""
    return dict(item.split("=", 1) for item in fields[4 + count_in + count_out:])


def buffer_sizes(layer_type, p):
    """Bytes of each buffer a float32 layer reads from model.bin, in order (the flag included)."""
    if layer_type in ("Convolution", "ConvolutionDepthWise", "Deconvolution", "DeconvolutionDepthWise"):
        sizes = [4 + 4 * int(p.get("6", 0))]
        return sizes + ([4 * int(p["0"])] if p.get("5", "0") == "1" else [])
    if layer_type == "InnerProduct":
        return [4 + 4 * int(p.get("2", 0))] + ([4 * int(p["0"])] if p.get("1", "0") == "1" else [])
    if layer_type == "Scale":
        return [4 * int(p["0"])] * (2 if p.get("1", "0") == "1" else 1)
    if layer_type == "PReLU":
        return [4 * int(p["0"])]
    if layer_type == "MemoryData":
        count = int(p.get("0", 0)) * max(int(p.get("1", 1)), 1) * max(int(p.get("2", 1)), 1)
        return [(4 if p.get("21", "1") == "0" else 0) + 4 * count]
    return []


def mutate(folder, mutation):
    with open(os.path.join(folder, "model.param")) as file:
        lines = file.read().split("\n")
    if mutation == "weight":
        offset = 0
        for line in lines[2:]:
            fields = line.split()
            if not fields:
                continue
            p = params(fields, int(fields[2]), int(fields[3]))
            if fields[0] == "Convolution":
                path = os.path.join(folder, "model.bin")
                with open(path, "r+b") as file:
                    file.seek(offset)
                    if struct.unpack("<I", file.read(4))[0] != 0:
                        raise SystemExit("the first Convolution's weights are not float32 (flag 0)")
                    count = int(p["6"])
                    values = numpy.frombuffer(file.read(4 * count), dtype="<f4").copy()
                    k = int(numpy.argmax(numpy.abs(values)))
                    values[k] = values[k] * numpy.float32(1.01)
                    file.seek(offset + 4 + 4 * k)
                    file.write(values[k:k + 1].tobytes())
                return
            offset += sum(buffer_sizes(fields[0], p))
        raise SystemExit("no Convolution to change")
    if mutation in ("upsample", "reorg"):
        kind, key, old, new = ("Interp", "0", "1", "2") if mutation == "upsample" else ("Reorg", "1", "1", "0")
        changed = 0
        for i, line in enumerate(lines):
            fields = line.split()
            if fields and fields[0] == kind and f"{key}={old}" in fields:
                fields[fields.index(f"{key}={old}")] = f"{key}={new}"
                lines[i] = " ".join(fields)
                changed += 1
        if not changed:
            raise SystemExit(f"no {kind} with {key}={old} to change")
        with open(os.path.join(folder, "model.param"), "w") as file:
            file.write("\n".join(lines))
        return
    if mutation not in ("channel", "unchanged"):
        raise SystemExit(f"unknown mutation {mutation}")


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    folder, mutation, out = sys.argv[1:]
    with tempfile.TemporaryDirectory() as work:
        copy = os.path.join(work, "export")
        shutil.copytree(folder, copy)
        mutate(copy, mutation)
        param, weights, _, x, references, _ = engine_check.read_ncnn_export(copy)
        outputs = engine_check.run_ncnn(param, weights, x, references)
    names = [name for name, _ in references]
    if mutation == "channel":
        first = outputs[names[0]]
        span = float(first.max() - first.min())
        first[0, min(1, first.shape[1] - 1)] += numpy.float32(0.01 * span)
    engine_check.write_outputs(outputs, out)
    print(f"{mutation}: wrote {', '.join(names)} to {out}")


if __name__ == "__main__":
    main()
