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
     f"{REAL}/yolo-fastest-1.0/yolo-fastest.weights", (64, 64)),
    ("yolo-fastest-1.1", "shared", f"{REAL}/yolo-fastest-1.1/yolo-fastest-1.1.cfg",
     f"{REAL}/yolo-fastest-1.1/yolo-fastest-1.1.weights", (64, 64)),
    ("yolo-fastest-1.1-xl", "shared", f"{REAL}/yolo-fastest-1.1-xl/yolo-fastest-1.1-xl.cfg",
     f"{REAL}/yolo-fastest-1.1-xl/yolo-fastest-1.1-xl.weights", (64, 64)),
    ("yolo-fastest-1.1_body", "shared", f"{REAL}/yolo-fastest-1.1_body/yolo-fastest-1.1_body.cfg",
     f"{REAL}/yolo-fastest-1.1_body/yolo-fastest-1.1_body.weights", (64, 64)),
    ("yoloface-50k", "shared", f"{REAL}/yoloface-50k/yoloface-50k.cfg",
     f"{REAL}/yoloface-50k/yoloface-50k.weights", (56, 56)),
    ("yoloface-500k-v2", "shared", f"{REAL}/yoloface-500k-v2/yoloface-500k-v2.cfg",
     f"{REAL}/yoloface-500k-v2/yoloface-500k-v2.weights", (64, 64)),
    ("MobileNetV2-YOLOv3-Nano-voc", "shared",
     f"{REAL}/MobileNetV2-YOLOv3-Nano-voc/MobileNetV2-YOLOv3-Nano-voc.cfg",
     f"{REAL}/MobileNetV2-YOLOv3-Nano-voc/MobileNetV2-YOLOv3-Nano-voc.weights", (64, 64)),
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
    "darknet19": (32, 32), "tiny": (32, 32), "enet-coco": (64, 64),
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
        if "darknet-only" in cfg.stem:  # features OpenCV ignores or refuses: checked by foldkit verify
            continue
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


# Darknet defaults that OpenCV's importer does not share (AlexeyAB parser.c: parse_convolutional,
# parse_connected, parse_maxpool, parse_upsample, parse_reorg). The cfg given to OpenCV spells them out,
# so the reference follows Darknet's meaning of the cfg. (section, key, Darknet default or a function
# of the section's other keys, OpenCV's own default)
EXPLICIT_DEFAULTS = [
    ("convolutional", "activation", "logistic", "linear"),
    ("connected", "activation", "logistic", "linear"),
    ("maxpool", "stride", "1", "2"),
    ("maxpool", "size", lambda keys: keys.get("stride", "1"), "2"),
    ("upsample", "stride", "2", "1"),
    ("reorg", "stride", "1", "2"),
]


def opencv_cfg(cfg, out_path):
    """Writes `cfg` with Darknet's defaults made explicit where OpenCV's differ; returns the changes."""
    lines = Path(cfg).read_text().splitlines()
    out, changes = [], []
    index = -1
    current, keys = None, {}

    def close_section():
        if current is None or current in ("net", "network"):
            return
        for section, key, default, opencv_default in EXPLICIT_DEFAULTS:
            if section == current and key not in keys:
                value = default(keys) if callable(default) else default
                keys[key] = value
                out.append(f"{key}={value}")
                changes.append(f"layer {index} [{current}]: {key}={value} written out "
                               f"(Darknet's default; OpenCV's is {opencv_default})")

    for raw in lines:
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if line.startswith("["):
            close_section()
            current, keys = line.strip("[]").strip(), {}
            if current not in ("net", "network"):
                index += 1
        elif "=" in line:
            key, value = line.split("=", 1)
            keys[key.strip()] = value.strip()
        out.append(raw)
    close_section()
    Path(out_path).write_text("\n".join(out) + "\n")
    return changes


def darknet_weight_plan(sections, channels, height, width):
    """[(layer index, section, keys, input count)] for [convolutional]/[connected], walking Darknet shapes.

    Only the layer kinds needed to reach a [connected] layer are known; anything else raises."""
    shapes = []  # (c, h, w) per layer
    c, h, w = channels, height, width
    plan = []
    for index, (section, keys) in enumerate(sections):
        if section == "convolutional":
            size = int(keys.get("size", 1)); stride = int(keys.get("stride", 1))
            padding = size // 2 if int(keys.get("pad", 0)) else int(keys.get("padding", 0))
            plan.append((index, section, keys, c))
            c, h, w = int(keys.get("filters", 1)), (h + 2 * padding - size) // stride + 1, (w + 2 * padding - size) // stride + 1
        elif section == "connected":
            plan.append((index, section, keys, c * h * w))
            c, h, w = int(keys.get("output", 1)), 1, 1
        elif section == "maxpool":
            stride = int(keys.get("stride", 1)); size = int(keys.get("size", stride))
            padding = int(keys.get("padding", size - 1))
            h, w = (h + padding - size) // stride + 1, (w + padding - size) // stride + 1
        elif section == "avgpool":
            h, w = 1, 1
        elif section in ("dropout", "softmax", "cost"):
            pass
        else:
            raise RuntimeError(f"layer {index} [{section}]: not handled by the weight-order rewrite for OpenCV")
        shapes.append((c, h, w))
    return plan


def opencv_weights(sections, channels, height, width, weights, out_path):
    """OpenCV reads [connected] batch norm in the [convolutional] order (biases, scales, mean, variance,
    weights); Darknet stores biases, weights, scales, mean, variance (parser.c load_connected_weights).
    Writes a copy of `weights` with those blocks moved for OpenCV; returns the changes (none: no copy)."""
    if not any(s == "connected" and int(k.get("batch_normalize", 0)) == 1 for s, k in sections):
        return None, []
    data = Path(weights).read_bytes()
    major, minor = np.frombuffer(data[:8], dtype="<i4")
    offset = 20 if major * 10 + minor >= 2 and major < 1000 and minor < 1000 else 16
    values = np.frombuffer(data[offset:], dtype="<f4").copy()
    position, changes = 0, []
    for index, section, keys, inputs in darknet_weight_plan(sections, channels, height, width):
        bn = int(keys.get("batch_normalize", 0)) == 1
        if section == "convolutional":
            n = int(keys.get("filters", 1)); groups = int(keys.get("groups", 1)); size = int(keys.get("size", 1))
            position += n + (3 * n if bn else 0) + n * (inputs // groups) * size * size
        else:
            n = int(keys.get("output", 1))
            if bn:
                biases = values[position:position + n].copy()
                weights_block = values[position + n:position + n + n * inputs].copy()
                bn_block = values[position + n + n * inputs:position + n + n * inputs + 3 * n].copy()
                values[position:position + n] = biases
                values[position + n:position + 4 * n] = bn_block
                values[position + 4 * n:position + 4 * n + n * inputs] = weights_block
                changes.append(f"layer {index} [connected]: batch-norm scales/mean/variance moved before the weights "
                               "in the file given to OpenCV (it reads them in the convolutional order)")
            position += n + n * inputs + (3 * n if bn else 0)
    if position != values.size:
        raise RuntimeError(f"{weights}: weight plan covers {position} floats, file has {values.size}")
    Path(out_path).write_bytes(data[:offset] + values.astype("<f4").tobytes())
    return out_path, changes


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


def check_grouped_convolutions(net, names, outputs, model):
    """OpenCV 4.14 computes grouped/depthwise convolutions wrongly when the feature map is one pixel high
    or wide (measured: relative errors of 0.6 to 1e20 against numpy for 1xW and Hx1 maps, exact for
    H, W >= 2). Refuse such an input size instead of committing a wrong reference."""
    for position, layer_name in enumerate(names):
        layer = net.getLayer(layer_name)
        if layer.type != "Convolution" or position == 0:
            continue
        source = outputs[names[position - 1]]  # a convolution's input is the layer before it (importer's last_layer)
        weights = layer.blobs[0]
        if weights.shape[1] != source.shape[1]:  # grouped
            out = outputs[layer_name]
            if min(source.shape[2:]) < 2 or min(out.shape[2:]) < 2:
                raise RuntimeError(f"{model}: grouped convolution {layer_name} runs on a {source.shape[2]}x{source.shape[3]} -> "
                                   f"{out.shape[2]}x{out.shape[3]} map; OpenCV is wrong for maps 1 pixel high or wide: "
                                   "choose a larger input size")


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

    # What OpenCV reads: the same network, with Darknet's defaults spelled out and (for [connected]
    # with batch norm) the weights in the order OpenCV expects. Every change is recorded in meta.json.
    opencv_cfg_path = Path(tmp) / f"{name}.opencv.cfg"
    adjustments = opencv_cfg(cfg, opencv_cfg_path)
    reordered, weight_changes = opencv_weights(layers, channels, height, width, weights,
                                               Path(tmp) / f"{name}.opencv.weights")
    adjustments += weight_changes
    net = cv2.dnn.readNetFromDarknet(str(opencv_cfg_path), str(reordered or weights))
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
    all_names = list(net.getLayerNames())
    all_outputs = dict(zip(all_names, net.forward(all_names)))
    check_grouped_convolutions(net, all_names, all_outputs, name)

    folder = out_root / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    np.save(folder / "input.npy", x)
    records = []
    saved = []  # (array, file) already written: identical outputs ([dropout], one-input [route]) share a file
    for index, section, opencv in wanted:
        output = np.ascontiguousarray(all_outputs[opencv], dtype=np.float32)
        if not np.isfinite(output).all():
            raise RuntimeError(f"{name}: layer {index} [{section}] ({opencv}) has non-finite values")
        file = next((f for a, f in saved if a.shape == output.shape and np.array_equal(a, output)), None)
        if file is None:
            file = f"layer_{index}.npy"
            np.save(folder / file, output)
            saved.append((output, file))
        records.append({"index": index, "type": section, "opencvName": opencv,
                        "opencvType": net.getLayer(opencv).type, "file": file,
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
        "opencvAdjustments": adjustments,
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
