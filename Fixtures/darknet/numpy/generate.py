#!/usr/bin/env python3
"""Reference outputs for Darknet layers that OpenCV's importer does not read, computed by a numpy
transcription of darknet's own C code (AlexeyAB darknet, src/*.c, inference path), independent of
FoldKit.

For each network below this writes, into a folder of its name:
  model.cfg      the network description
  model.weights  weights in darknet's format (header major 0, minor 2, revision 0, seen as uint64;
                 per [convolutional]: biases, [scales, rolling mean, rolling variance], weights;
                 per [connected]: biases, weights, [scales, mean, variance]), drawn from
                 numpy default_rng(SEED): uniform in [-0.5, 0.5), variances in [0.5, 1.5)
  input.npy      float32 (1, C, H, W), default_rng(SEED + 1).random: uniform [0, 1)
  layer_<i>.npy  float64 output of section i (counted from 0 after [net]) as darknet computes it,
                 channel-major (1, C, H, W), or (1, N) after [connected] and [softmax]

Transcribed (file: function):
  crop_layer.c: forward_crop_layer with train = 0 - dh = (h - out_h) / 2, dw = (w - out_w) / 2,
                out = in * 2 - 1 (noadjust=1: in)
  blas.c: softmax - exp(x / T - max / T) / sum, over `groups` runs of the flattened input
  activations.h: ramp_activate - x * (x > 0) + .1f * x; leaky .1f * x (0.1 as a float32)
  convolutional_layer.c: forward_convolutional_layer - convolution, then batch norm
                (x - mean) / sqrt(var + 0.00001) * scale + bias, or + bias, then the activation
  connected_layer.c: forward_connected_layer - W x + b (no batch norm here)
  tree.c, region_layer.c: read_tree, softmax_tree, get_region_boxes with a tree (heads.py region_tree_boxes);
                boxes above TREE_THRESHOLD to detections_<i>.json as [cell, anchor, class, x, y, w, h, prob]
  yolo_layer.c, region_layer.c: the heads' buffers, as heads.py (layer_<i>.npy holds darknet's buffer:
                channel-major for [yolo], location-first (1, H, W, C) for [region]; the layers after
                a head read convolutions through [route], never the head itself)
  route_layer.c: one input, passed on
  gaussian_yolo_layer.c: forward_gaussian_yolo_layer's buffer, and get_gaussian_yolo_detections' boxes
                (threshold BOX_THRESHOLD) as layer_<i>_boxes.json: class, score, x, y, w, h (fractions of
                the input), cell, anchor
  local_layer.c: forward_local_layer - out_h = (pad ? h - 1 : h - size) / stride + 1 (local_out_height),
                im2col with `pad` zero cells before the input, then per location j the location's
                filters[j] (n x c*size*size) times im2col column j, added to biases[n * out_h * out_w]
                (one per output element); then the activation. Weights file: biases, then weights
                [out_h*out_w][n][c][size][size]
  dropout_layer.c: identity at inference
  detection_layer.c: forward_detection_layer (CPU) - the input copied, with softmax=1 the `classes`
                values of each of the side*side cells through softmax (blas.c softmax); layer_<i>.npy is
                that buffer. get_detection_detections - boxes x = (b0 + col) / side, y = (b1 + row) / side,
                w = b2^(sqrt ? 2 : 1), h likewise, prob = confidence * class value, kept above
                DETECTION_THRESHOLD: written to detections_<i>.json as [cell, box, class, x, y, w, h, prob]

Usage: python3 Fixtures/darknet/numpy/generate.py   (numpy only; rewrites every folder)
"""
import json
from pathlib import Path

import numpy as np

import heads

HERE = Path(__file__).resolve().parent
SEED = 7
# Detection threshold of the boxes written for [Gaussian_yolo] heads (layer_<i>_boxes.json).
BOX_THRESHOLD = 0.2
# Detection threshold of the boxes written for [detection] heads (detections_<i>.json).
DETECTION_THRESHOLD = 0.1

# Detection threshold of the boxes written for [region] heads with a class tree (detections_<i>.json).
TREE_THRESHOLD = 0.3

# Class trees, written beside the cfg that names them. Groups (tree.c: runs of one parent): {a, b}, {c, d},
# {e, f}, {g} (a parent's second run is a group of its own), {h}.
TREES = {
    "model.tree": "a -1\nb -1\nc 0\nd 0\ne 1\nf 1\ng 0\nh 2\n",
}

NETWORKS = {
    # crop with the -1..1 adjustment, a batch-normalised ramp convolution, crop without adjustment,
    # a connected layer and a softmax with temperature over two groups.
    "crop-ramp-softmax": """[net]
height=12
width=11
channels=3

[crop]
crop_height=8
crop_width=7
flip=1
angle=0
saturation=1.5
exposure=1.5

[convolutional]
batch_normalize=1
filters=4
size=3
stride=1
pad=1
activation=ramp

[crop]
crop_height=5
crop_width=4
noadjust=1

[connected]
output=6
activation=linear

[softmax]
groups=2
temperature=3
""",
    # YOLO9000's hierarchical [region] (tree=, softmax_tree) on a 4 x 4 grid, two anchors, eight classes.
    "region-tree": """[net]
height=8
width=8
channels=3

[convolutional]
filters=26
size=3
stride=2
pad=1
activation=linear

[region]
classes=8
coords=4
num=2
softmax=1
anchors=1,2,3,1.5
tree=model.tree
map=unused.map
""",
    # Detection heads on a 3 x 5 grid: darknet's buffers (layer_<i>.npy) differ from FoldKit's layer
    # outputs (the raw input): [region] location-first with logistic objectness and class softmax,
    # [yolo] with scale_x_y, [yolo] with new_coords=1.
    "heads": """[net]
height=6
width=10
channels=3

[convolutional]
filters=16
size=3
stride=2
pad=1
activation=linear

[region]
classes=3
coords=4
num=2
softmax=1
anchors=1,2,3,4

[route]
layers=-2

[convolutional]
filters=14
size=1
activation=linear

[yolo]
mask=0,2
anchors=10,14,23,27,37,58
classes=2
num=3
scale_x_y=1.1

[route]
layers=-5

[convolutional]
filters=14
size=1
activation=logistic

[yolo]
mask=1,2
anchors=10,14,23,27,37,58
classes=2
num=3
scale_x_y=2.0
new_coords=1

[route]
layers=-8

[convolutional]
filters=22
size=1
activation=linear

[Gaussian_yolo]
mask=0,1
anchors=10,14,23,27,37,58
classes=2
num=3
scale_x_y=1.05
""",
    # YOLOv1's layers: [local] with pad=1 (size 3) and with pad=0, stride 2 and a width that truncates
    # (the default logistic activation), [dropout], [connected] and a [detection] head with softmax and
    # sqrt on a 2 x 2 grid.
    "local-detection": """[net]
height=7
width=6
channels=3

[convolutional]
filters=4
size=3
stride=2
pad=1
activation=leaky

[local]
size=3
stride=1
pad=1
filters=5
activation=leaky

[local]
size=2
stride=2
pad=0
filters=3

[dropout]
probability=.5

[connected]
output=52
activation=linear

[detection]
classes=3
coords=4
rescore=1
side=2
num=2
softmax=1
sqrt=1
jitter=.2
""",
}


def parse_cfg(text):
    sections = []
    for line in text.splitlines():
        line = "".join(line.split())
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            sections.append((line[1:-1], {}))
        else:
            key, value = line.split("=", 1)
            sections[-1][1][key] = value
    return sections


def activate(x, name):
    if name == "linear":
        return x
    if name == "ramp":
        return x * (x > 0) + np.float32(0.1) * x  # darknet: .1f
    if name == "leaky":
        return np.where(x > 0, x, np.float32(0.1) * x)  # darknet: .1f
    if name == "logistic":
        return 1 / (1 + np.exp(-x))
    raise ValueError(name)


def convolve(x, w, stride, pad):
    c, h, wd = x.shape
    n, _, k, _ = w.shape
    out_h = (h + 2 * pad - k) // stride + 1
    out_w = (wd + 2 * pad - k) // stride + 1
    padded = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, out_h, out_w))
    for dy in range(k):
        for dx in range(k):
            patch = padded[:, dy:dy + stride * out_h:stride, dx:dx + stride * out_w:stride]
            out += np.einsum("oc,chw->ohw", w[:, :, dy, dx], patch)
    return out


def build(name, cfg):
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    (folder / "model.cfg").write_text(cfg)
    sections = parse_cfg(cfg)
    net = sections[0][1]
    shape = (int(net["channels"]), int(net["height"]), int(net["width"]))
    rng = np.random.default_rng(SEED)
    x = np.random.default_rng(SEED + 1).random((1,) + shape).astype(np.float32)
    np.save(folder / "input.npy", x)
    x = x[0].astype(np.float64)
    weights = [np.array([0, 2, 0], np.int32).tobytes(), np.array([0], np.uint64).tobytes()]

    def draw(count, low=-0.5, high=0.5):
        values = rng.uniform(low, high, count).astype(np.float32)
        weights.append(values.tobytes())
        return values.astype(np.float64)

    outputs = []
    for index, (kind, options) in enumerate(sections[1:]):
        if kind == "crop":
            c, h, w = x.shape
            out_h, out_w = int(options.get("crop_height", 1)), int(options.get("crop_width", 1))
            dh, dw = (h - out_h) // 2, (w - out_w) // 2
            scale, trans = (1, 0) if int(options.get("noadjust", 0)) else (2, -1)
            x = x[:, dh:dh + out_h, dw:dw + out_w] * scale + trans
        elif kind == "convolutional":
            n, k = int(options["filters"]), int(options["size"])
            stride, pad = int(options.get("stride", 1)), (k // 2 if int(options.get("pad", 0)) else 0)
            bias = draw(n)
            normalized = int(options.get("batch_normalize", 0))
            if normalized:
                scales, mean, variance = draw(n), draw(n), draw(n, 0.5, 1.5)
            w = draw(n * x.shape[0] * k * k).reshape(n, x.shape[0], k, k)
            y = convolve(x, w, stride, pad)
            if normalized:
                y = (y - mean[:, None, None]) / np.sqrt(variance[:, None, None] + 0.00001) * scales[:, None, None]
            x = activate(y + bias[:, None, None], options.get("activation", "logistic"))
        elif kind == "connected":
            n = int(options["output"])
            bias = draw(n)
            w = draw(n * x.size).reshape(n, x.size)
            x = activate(w @ x.reshape(-1) + bias, options.get("activation", "logistic"))
        elif kind == "local":
            c, h, w = x.shape
            n, k = int(options.get("filters", 1)), int(options.get("size", 1))
            stride, pad = int(options.get("stride", 1)), int(options.get("pad", 0))
            trunc = lambda a, b: int(a / b)  # C division
            out_h = trunc(h - 1 if pad else h - k, stride) + 1
            out_w = trunc(w - 1 if pad else w - k, stride) + 1
            locations = out_h * out_w
            bias = draw(n * locations)
            filters = draw(locations * n * c * k * k).reshape(locations, n, c * k * k)
            # im2col_cpu: row (ch * k + ky) * k + kx, column y * out_w + x; zero outside the input.
            columns = np.zeros((c * k * k, locations))
            for row in range(c * k * k):
                kx, ky, ch = row % k, (row // k) % k, row // k // k
                for y in range(out_h):
                    for xx in range(out_w):
                        iy, ix = y * stride + ky - pad, xx * stride + kx - pad
                        if 0 <= iy < h and 0 <= ix < w:
                            columns[row, y * out_w + xx] = x[ch, iy, ix]
            out = bias.reshape(n, locations).copy()
            for j in range(locations):
                out[:, j] += filters[j] @ columns[:, j]
            x = activate(out.reshape(n, out_h, out_w), options.get("activation", "logistic"))
        elif kind == "dropout":
            pass
        elif kind == "detection":
            classes, num, side = int(options["classes"]), int(options["num"]), int(options["side"])
            buffer = x.reshape(-1).astype(np.float32).astype(np.float64)
            assert buffer.size == side * side * (5 * num + classes)
            if int(options.get("softmax", 0)):
                for cell in range(side * side):
                    run = buffer[cell * classes:(cell + 1) * classes]
                    e = np.exp(run - run.max())
                    buffer[cell * classes:(cell + 1) * classes] = e / e.sum()
            boxes = []
            for cell in range(side * side):
                row, col = cell // side, cell % side
                for box in range(num):
                    scale = buffer[side * side * classes + cell * num + box]
                    b = side * side * (classes + num) + (cell * num + box) * 4
                    power = 2 if int(options.get("sqrt", 0)) else 1
                    geometry = [(buffer[b] + col) / side, (buffer[b + 1] + row) / side, buffer[b + 2] ** power, buffer[b + 3] ** power]
                    for j in range(classes):
                        prob = scale * buffer[cell * classes + j]
                        if prob > DETECTION_THRESHOLD:
                            boxes.append([cell, box, j] + [float(v) for v in geometry] + [float(prob)])
            (folder / f"detections_{index}.json").write_text(
                json.dumps({"threshold": DETECTION_THRESHOLD, "boxes": boxes}, indent=1) + "\n")
            outputs.append(x)
            np.save(folder / f"layer_{index}.npy", buffer.reshape(-1, 1, 1)[None])
            continue
        elif kind == "route":
            x = outputs[int(options["layers"]) + index if int(options["layers"]) < 0 else int(options["layers"])]
        elif kind == "yolo":
            outputs.append(x)  # (no layer here reads a head)
            np.save(folder / f"layer_{index}.npy", heads.yolo(x.astype(np.float32), options).astype(np.float64))
            continue
        elif kind == "Gaussian_yolo":
            outputs.append(x)
            activated = heads.gaussian_yolo(x.astype(np.float32), options)
            np.save(folder / f"layer_{index}.npy", activated.astype(np.float64))
            boxes = heads.gaussian_yolo_boxes(activated[0], x.astype(np.float32), options, shape[2], shape[1], BOX_THRESHOLD)
            (folder / f"layer_{index}_boxes.json").write_text(json.dumps(boxes, indent=1) + "\n")
            continue
        elif kind == "region":
            outputs.append(x)
            tree = None
            if "tree" in options:
                (folder / options["tree"]).write_text(TREES[options["tree"]])
                tree = heads.read_tree(folder / options["tree"])
            buffer = heads.region(x.astype(np.float32), options, tree)
            np.save(folder / f"layer_{index}.npy", buffer.astype(np.float64))
            if tree is not None:
                rows = heads.region_tree_boxes(buffer, options, tree, TREE_THRESHOLD)
                (folder / f"detections_{index}.json").write_text(
                    json.dumps({"threshold": TREE_THRESHOLD, "boxes": rows}, indent=1) + "\n")
            continue
        elif kind == "softmax":
            groups, temperature = int(options.get("groups", 1)), float(options.get("temperature", 1))
            flat = x.reshape(groups, -1)
            largest = flat.max(axis=1, keepdims=True)
            e = np.exp(flat / temperature - largest / temperature)
            x = (e / e.sum(axis=1, keepdims=True)).reshape(-1)
        else:
            raise ValueError(kind)
        outputs.append(x)
        np.save(folder / f"layer_{index}.npy", x[None])
    (folder / "model.weights").write_bytes(b"".join(weights))
    print(name, "sections:", len(sections) - 1, "output", x.shape)


if __name__ == "__main__":
    for name, cfg in NETWORKS.items():
        build(name, cfg)
    (HERE / "networks.json").write_text(json.dumps(sorted(NETWORKS), indent=1) + "\n")
