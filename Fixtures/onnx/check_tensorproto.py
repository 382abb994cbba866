#!/usr/bin/env python3
"""Reads the onnx TensorProto files of FoldKit fixture packs with onnx's own reader and records what it read.

How the committed record (tensorproto-check.json beside this script) was made, from the repository root:

    python3 -m venv /work/tmpw/onnx/venv && /work/tmpw/onnx/venv/bin/pip install onnx numpy
    swift build --product foldkit
    /work/tmpw/onnx/venv/bin/python Fixtures/onnx/check_tensorproto.py .build/debug/foldkit

(onnx 1.23.2, numpy 2.4.6, Python 3.11; the record names the versions it was made with.)

For every pack in PACKS it runs the given foldkit binary (`seed-weights` when the model needs seeded weights,
then `fixtures ... --onnx`) into a temporary folder, then for every test_data_set_0/*.pb the manifest lists:

- `onnx.numpy_helper.to_array(onnx.load_tensor(path))`: the array as onnx decodes the TensorProto;
- `numpy.load` of the .npy the manifest says it matches;
- equal = same dtype, same shape and the same bytes (`tobytes()`, C order);
- also checks the .pb's SHA-256 against the manifest and that test_data_set_0/ holds exactly the listed files.

The record holds, per pack, the commands (paths relative to the repository root, `{weights}` and `{out}` for
the temporary files) and per .pb its dims, dtype, onnx data_type, name, the SHA-256 of the array bytes as onnx
decoded them, and equal. Tests/FoldKitCLITests/FixturesONNXRecordTests.swift runs the same commands and
compares every .pb FoldKit writes against this record. Exit status 1 when any .pb is not equal.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RECORD = os.path.join(HERE, "tensorproto-check.json")

# name, seed-weights arguments (None: the model file holds its weights), fixtures arguments.
PACKS = [
    (
        "darknet-yolo-head-nchw-all",
        ["seed-weights", "Fixtures/darknet/cfg/yolo-head.cfg", "--out", "{weights}"],
        ["fixtures", "Fixtures/darknet/cfg/yolo-head.cfg", "{weights}", "--onnx", "--out", "{out}"],
    ),
    (
        "darknet-yolo-head-nhwc-outputs",
        ["seed-weights", "Fixtures/darknet/cfg/yolo-head.cfg", "--out", "{weights}"],
        ["fixtures", "Fixtures/darknet/cfg/yolo-head.cfg", "{weights}", "--layout", "nhwc", "--layers", "outputs", "--onnx",
         "--out", "{out}"],
    ),
    (
        "darknet-region-head-sliced-list",
        ["seed-weights", "Fixtures/darknet/cfg/region-head.cfg", "--out", "{weights}"],
        ["fixtures", "Fixtures/darknet/cfg/region-head.cfg", "{weights}", "--layout", "sliced", "--layers", "0,2",
         "--seed", "3", "--onnx", "--out", "{out}"],
    ),
    (
        "keras-dag-nhwc-all",
        None,
        ["fixtures", "Fixtures/keras/dag.tfkeras.h5", "--input", "Fixtures/keras/dag.input.npy", "--layout", "nhwc", "--onnx",
         "--out", "{out}"],
    ),
]


def run(foldkit, arguments, weights, out):
    command = [foldkit] + [a.replace("{weights}", weights).replace("{out}", out) for a in arguments]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def check_pack(foldkit, name, seed, fixtures, work):
    weights = os.path.join(work, name + ".weights")
    out = os.path.join(work, name)
    if seed is not None:
        run(foldkit, seed, weights, out)
    run(foldkit, fixtures, weights, out)
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    listed = [entry["file"] for entry in manifest["onnx"]]
    present = sorted("test_data_set_0/" + f for f in os.listdir(os.path.join(out, "test_data_set_0")))
    problems = []
    if sorted(listed) != present:
        problems.append("test_data_set_0 holds %s, the manifest lists %s" % (present, sorted(listed)))
    tensors = []
    for entry in manifest["onnx"]:
        path = os.path.join(out, entry["file"])
        with open(path, "rb") as f:
            data = f.read()
        if sha256(data) != entry["sha256"]:
            problems.append("%s: sha256 differs from the manifest's" % entry["file"])
        proto = onnx.load_tensor(path)
        decoded = numpy_helper.to_array(proto)
        npy = numpy.load(os.path.join(out, entry["npy"]))
        equal = decoded.dtype == npy.dtype and decoded.shape == npy.shape and decoded.tobytes() == npy.tobytes()
        if not equal:
            problems.append("%s: differs from %s" % (entry["file"], entry["npy"]))
        tensors.append({
            "file": entry["file"],
            "npy": entry["npy"],
            "dims": list(proto.dims),
            "dataType": proto.data_type,
            "dtype": str(decoded.dtype),
            "name": proto.name,
            "sha256": sha256(decoded.tobytes()),
            "equal": bool(equal),
        })
    return {"name": name, "seedWeights": seed, "fixtures": fixtures, "tensors": tensors}, problems


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_tensorproto.py PATH/TO/foldkit")
    foldkit = os.path.abspath(sys.argv[1])
    packs, problems = [], []
    with tempfile.TemporaryDirectory() as work:
        for name, seed, fixtures in PACKS:
            pack, found = check_pack(foldkit, name, seed, fixtures, work)
            packs.append(pack)
            problems += ["%s: %s" % (name, p) for p in found]
    record = {
        "what": "onnx.numpy_helper.to_array(onnx.load_tensor(pb)) against numpy.load(npy) for FoldKit fixture packs",
        "script": "Fixtures/onnx/check_tensorproto.py",
        "onnx": onnx.__version__,
        "numpy": numpy.__version__,
        "packs": packs,
    }
    with open(RECORD, "w") as f:
        json.dump(record, f, indent=2, sort_keys=True)
        f.write("\n")
    count = sum(len(p["tensors"]) for p in packs)
    for problem in problems:
        print("FAIL " + problem)
    print("%d .pb files in %d packs read by onnx %s: %s; wrote %s" % (
        count, len(packs), onnx.__version__, "all equal to their .npy" if not problems else "%d problems" % len(problems),
        os.path.relpath(RECORD, ROOT)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
