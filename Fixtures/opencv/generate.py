#!/usr/bin/env python3
"""Per-layer reference outputs from OpenCV 4.x DNN for Darknet models.

For every model this writes Fixtures/opencv/<model>/:
  input.npy      float32 (1, C, H, W), numpy default_rng(INPUT_SEED).random, uniform [0, 1)
  layer_<i>.npy  float32, OpenCV's output of Darknet layer i (NCHW with batch dimension, or
                 (1, N) for [connected]/[softmax] after a connected layer), AFTER its activation
  meta.json      model, cfg, weights (path + sha256, or seeded + sha256), input size, the
                 batch-norm epsilon OpenCV uses, the Darknet-index -> OpenCV-layer mapping, skipped layers

Layer index i = the Darknet section index counted from 0 after [net] (every section is one layer).

OpenCV facts this relies on (checked against OpenCV 4.14):
  * net.enableFusion(False) is required: with fusion on, intermediate outputs of fused
    conv+bn(+activation/shortcut) layers are not the unfused values.
  * OpenCV's Darknet importer normalises with (x - mean) / sqrt(var + 1e-6) (eps inside the root).
  * Names: the operations of Darknet layer i are '<type>_i' (conv_i, bn_i, pool_i, shortcut_i, ...);
    the activation of layer i is added after the layer counter moved on, so it is '<act>_{i+1}'.
    The output of layer i is therefore the last OpenCV layer, in network order, that is either a
    non-activation layer named *_i or an activation layer named *_{i+1}. The mapping is derived
    from getLayerNames() and each layer's type, and recorded in meta.json.
  * [yolo] and [region] are decoded by OpenCV (not Darknet's raw output): recorded as skipped.
    [cost] has no inference output in Darknet: skipped.

Seeded weights (cfgs shipped without trained weights) come from FoldKit's own deterministic
generator, the CLI `foldkit seed-weights CFG --seed S --out FILE` (build it first:
`swift build -c release`, binary .build/release/foldkit, or pass --foldkit PATH). They are written
to a temporary folder, never committed; their sha256 goes into meta.json so the Swift test can check
it regenerated the same bytes.

Usage (from the repository root; needs `pip install "opencv-python-headless<5" numpy`):
  python3 Fixtures/opencv/generate.py                 # all models
  python3 Fixtures/opencv/generate.py cifar_small ... # only these
  python3 Fixtures/opencv/generate.py --list          # list known models and sizes
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURES = REPO / "Fixtures"
DEFAULT_SHARED = REPO.parent / "shared"

INPUT_SEED = 0
WEIGHTS_SEED = 1
BN_EPSILON = 1e-6

# OpenCV layer types that implement a Darknet activation (appended after the layer, named *_{i+1}).
ACTIVATION_TYPES = {
    "ReLU", "ReLU6", "Sigmoid", "Swish", "Mish", "TanH", "ELU", "HardSwish", "HardSigmoid",
    "GELU", "Selu", "Power", "Exp", "Log", "AbsVal", "BNLL", "Celu", "Softplus",
}

# Darknet sections whose raw output OpenCV does not expose.
SKIP_SECTIONS = {
    "yolo": "detection layer: OpenCV decodes [yolo] (logistic, offsets) instead of passing the raw output",
    "region": "detection layer: OpenCV decodes [region] instead of passing the raw output",
    "detection": "detection layer",
    "cost": "[cost] is training-only; Darknet has no inference output for it",
}

# (name, cfg root, cfg path, weights path or None for seeded, (height, width))
# Sizes are small to keep the committed data small; fully connected models keep their own size.
REAL = "real-models"
MODELS = [
    ("yolo-fastest-1.0", "shared", f"{REAL}/yolo-fastest-1.0/yolo-fastest.cfg",
     f"{REAL}/yolo-fastest-1.0/yolo-fastest.weights", (64, 32)),
    ("yolo-fastest-1.1", "shared", f"{REAL}/yolo-fastest-1.1/yolo-fastest-1.1.cfg",
     f"{REAL}/yolo-fastest-1.1/yolo-fastest-1.1.weights", (32, 64)),
    ("yolo-fastest-1.1-xl", "shared", f"{REAL}/yolo-fastest-1.1-xl/yolo-fastest-1.1-xl.cfg",
     f"{REAL}/yolo-fastest-1.1-xl/yolo-fastest-1.1-xl.weights", (32, 32)),
    ("yolo-fastest-1.1_body", "shared", f"{REAL}/yolo-fastest-1.1_body/yolo-fastest-1.1_body.cfg",
     f"{REAL}/yolo-fastest-1.1_body/yolo-fastest-1.1_body.weights", (32, 32)),
    ("yoloface-50k", "shared", f"{REAL}/yoloface-50k/yoloface-50k.cfg",
     f"{REAL}/yoloface-50k/yoloface-50k.weights", (56, 56)),
    ("yoloface-500k-v2", "shared", f"{REAL}/yoloface-500k-v2/yoloface-500k-v2.cfg",
     f"{REAL}/yoloface-500k-v2/yoloface-500k-v2.weights", (32, 64)),
    ("MobileNetV2-YOLOv3-Nano-voc", "shared",
     f"{REAL}/MobileNetV2-YOLOv3-Nano-voc/MobileNetV2-YOLOv3-Nano-voc.cfg",
     f"{REAL}/MobileNetV2-YOLOv3-Nano-voc/MobileNetV2-YOLOv3-Nano-voc.weights", (64, 32)),
    ("DroNet_car", "shared", f"{REAL}/DroNet_car/DroNet_car.cfg",
     f"{REAL}/DroNet_car/DroNet_car.weights", (64, 64)),
    ("DroNetV3_car", "shared", f"{REAL}/DroNetV3_car/DroNetV3_car.cfg",
     f"{REAL}/DroNetV3_car/DroNetV3_car.weights", (64, 64)),
    ("cifar_small", "shared", f"{REAL}/cifar_small/cifar_small.cfg",
     f"{REAL}/cifar_small/cifar_small.weights", (28, 28)),
    ("mnist_lenet", "shared", f"{REAL}/mnist_lenet/mnist_lenet.cfg",
     f"{REAL}/mnist_lenet/mnist_lenet.weights", (28, 28)),
]

# Cfgs from ../shared/darknet-cfg with seeded weights. Not here: yolov3-tiny_xnor (binary
# convolutions are refused by FoldKit) and efficientnet-lite3 (relu6: OpenCV's importer has none).
SEEDED_CFG_SIZES = {
    "darknet19": (32, 32), "tiny": (32, 32), "enet-coco": (32, 32),
    "tiny-yolo-voc": (40, 56), "yolov2-tiny-voc": (32, 32), "yolov2-tiny": (32, 32),
    "yolo-voc.2.0": (32, 32), "yolov2-voc": (32, 32), "yolov2": (32, 32),
    "yolov3-tiny-prn": (32, 32), "yolov3-tiny": (32, 32), "yolov3-tiny_3l": (32, 32),
    "yolov3": (32, 32), "yolov4-tiny-3l": (32, 32), "yolov4-tiny-custom": (32, 32),
    "yolov4-tiny": (32, 32), "yolov4": (32, 32), "yolov7-tiny": (32, 32),
}
NOT_CHECKED_BY_OPENCV = {
    "yolov3-tiny_xnor": "binary ([xnor]) convolutions cannot be folded; FoldKit refuses the cfg",
    "efficientnet-lite3": "uses relu6, which OpenCV's Darknet importer does not implement",
}
for _stem, _size in SEEDED_CFG_SIZES.items():
    MODELS.append((_stem, "shared", f"darknet-cfg/{_stem}.cfg", None, _size))

# The project's own small cfgs (Fixtures/darknet/cfg/*.cfg) with seeded weights, at their [net] size.
FIXTURE_CFG_DIR = FIXTURES / "darknet" / "cfg"


def fixture_cfg_models():
    if not FIXTURE_CFG_DIR.is_dir():
        return []
    models = []
    for cfg in sorted(FIXTURE_CFG_DIR.glob("*.cfg")):
        text = cfg.read_text()
        if re.search(r"^\s*\[(xnor)\]|^\s*(binary|xnor)\s*=\s*1", text, re.M):
            continue
        if re.search(r"^\s*activation\s*=\s*relu6\s*$", text, re.M):
            continue
        net = parse_cfg(cfg)[0][1]
        size = (int(net.get("height", 0)), int(net.get("width", 0)))
        models.append((f"fixture-{cfg.stem}", "fixtures", f"darknet/cfg/{cfg.name}", None, size))
    return models


def parse_cfg(path):
    """[(section, {key: value})] in file order, [net] first. Comments (#, ;) and blanks dropped."""
    sections = []
    for raw in Path(path).read_text().splitlines():
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            sections.append((line.strip("[]").strip(), {}))
        elif "=" in line and sections:
            key, value = line.split("=", 1)
            sections[-1][1][key.strip()] = value.strip()
    return sections


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def seeded_weights(cfg_path, foldkit, out_dir):
    out = Path(out_dir) / (Path(cfg_path).stem + f".seed{WEIGHTS_SEED}.weights")
    cmd = [str(foldkit), "seed-weights", str(cfg_path), "--seed", str(WEIGHTS_SEED), "--out", str(out)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}): {result.stderr.strip()}")
    return out


def layer_owner(name, layer_type):
    """Darknet layer index an OpenCV layer belongs to, or None (e.g. 'detection_out', '_input')."""
    match = re.search(r"_(\d+)$", name)
    if not match:
        return None
    n = int(match.group(1))
    return n - 1 if layer_type in ACTIVATION_TYPES else n


def darknet_to_opencv(net):
    """{darknet index: OpenCV layer name holding that layer's final output} (last op in order wins)."""
    mapping = {}
    for name in net.getLayerNames():
        owner = layer_owner(name, net.getLayer(name).type)
        if owner is not None:
            mapping[owner] = name
    return mapping


def generate(model, shared, foldkit, out_root, tmp):
    name, root, cfg_rel, weights_rel, (height, width) = model
    base = shared if root == "shared" else FIXTURES
    cfg = base / cfg_rel
    sections = parse_cfg(cfg)
    if not sections or sections[0][0] not in ("net", "network"):
        raise RuntimeError(f"{cfg}: first section is not [net]")
    channels = int(sections[0][1].get("channels", 3))
    layers = sections[1:]

    if weights_rel is None:
        weights = seeded_weights(cfg, foldkit, tmp)
        weights_meta = {"seeded": WEIGHTS_SEED, "sha256": sha256(weights)}
    else:
        weights = shared / weights_rel
        weights_meta = {"root": "shared", "path": weights_rel, "sha256": sha256(weights)}

    net = cv2.dnn.readNetFromDarknet(str(cfg), str(weights))
    net.enableFusion(False)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)

    x = np.random.default_rng(INPUT_SEED).random((1, channels, height, width), dtype=np.float32)
    mapping = darknet_to_opencv(net)

    wanted, skipped = [], []
    for index, (section, _) in enumerate(layers):
        if section in SKIP_SECTIONS:
            skipped.append({"index": index, "type": section, "reason": SKIP_SECTIONS[section]})
        elif index not in mapping:
            raise RuntimeError(f"{name}: no OpenCV layer for Darknet layer {index} [{section}]")
        else:
            wanted.append((index, section, mapping[index]))
    extra = sorted(set(mapping) - set(range(len(layers))))
    if extra:
        raise RuntimeError(f"{name}: OpenCV layers beyond the cfg's {len(layers)} sections: {extra}")

    net.setInput(x)
    outputs = net.forward([opencv for _, _, opencv in wanted])

    folder = out_root / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    np.save(folder / "input.npy", x)
    records = []
    for (index, section, opencv), output in zip(wanted, outputs):
        output = np.ascontiguousarray(output, dtype=np.float32)
        if not np.isfinite(output).all():
            raise RuntimeError(f"{name}: layer {index} [{section}] ({opencv}) has non-finite values")
        np.save(folder / f"layer_{index}.npy", output)
        records.append({"index": index, "type": section, "opencvName": opencv,
                        "opencvType": net.getLayer(opencv).type,
                        "shape": list(output.shape), "maxAbs": float(np.abs(output).max())})

    meta = {
        "model": name,
        "cfgRoot": root,
        "cfg": cfg_rel,
        "cfgSha256": sha256(cfg),
        "weights": weights_meta,
        "input": {"file": "input.npy", "seed": INPUT_SEED, "distribution": "numpy default_rng(seed).random, uniform [0,1)",
                  "shape": [1, channels, height, width]},
        "inputSize": {"height": height, "width": width, "channels": channels},
        "bnEpsilon": BN_EPSILON,
        "bnEpsilonMode": "inside",
        "layerCount": len(layers),
        "layers": records,
        "skipped": skipped,
        "opencvVersion": cv2.__version__,
        "generator": "Fixtures/opencv/generate.py (net.enableFusion(False), DNN_BACKEND_OPENCV, DNN_TARGET_CPU)",
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    total = sum(p.stat().st_size for p in folder.iterdir())
    print(f"{name}: {len(records)} layers, {len(skipped)} skipped, {total / 1e6:.2f} MB")
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", help="model names (default: all)")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared folder (default ../shared)")
    parser.add_argument("--foldkit", type=Path, default=REPO / ".build" / "release" / "foldkit",
                        help="foldkit binary used for `seed-weights` (default .build/release/foldkit)")
    parser.add_argument("--out", type=Path, default=HERE, help="output root (default Fixtures/opencv)")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    args = parser.parse_args()

    models = MODELS + fixture_cfg_models()
    if args.list:
        for m in models:
            print(f"{m[0]:32} {m[1]}:{m[2]} {'seeded' if m[3] is None else 'real'} {m[4][0]}x{m[4][1]}")
        for stem, why in NOT_CHECKED_BY_OPENCV.items():
            print(f"{stem:32} not generated: {why}")
        return 0
    if args.models:
        known = {m[0] for m in models}
        unknown = [n for n in args.models if n not in known]
        if unknown:
            parser.error(f"unknown models: {unknown}")
        models = [m for m in models if m[0] in args.models]
    if any(m[3] is None for m in models) and not args.foldkit.exists():
        parser.error(f"seeded models need the foldkit binary ({args.foldkit}): run `swift build -c release` "
                     "or pass --foldkit, or name only real models")

    total = 0
    with tempfile.TemporaryDirectory(prefix="foldkit-opencv-") as tmp:
        for model in models:
            total += generate(model, args.shared, args.foldkit, args.out, tmp)
    print(f"total {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
