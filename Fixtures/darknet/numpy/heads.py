#!/usr/bin/env python3
"""Detection-head outputs as darknet's own layers compute them at inference, transcribed in numpy from
darknet's C code (AlexeyAB darknet, src/yolo_layer.c forward_yolo_layer, src/region_layer.c
forward_region_layer, src/blas.c flatten and softmax), applied to the head's input as OpenCV computed it
(Fixtures/opencv/<model>/layer_<i-1>.npy, OpenCV 4.x DNN: independent of FoldKit).

[yolo]: per anchor slot n, channels n*(5+classes)+k: x, y (k = 0, 1) logistic then
        x * scale_x_y - 0.5 * (scale_x_y - 1) (scal_add_cpu); objectness and classes (k >= 4) logistic;
        w, h raw. new_coords=1: nothing activated, x and y still scaled.
[region]: flatten(output, w*h, size*n, 1, 1) - location-first - then per box i (size = coords +
        classes + 1): output[size*i + 4] logistic, softmax=1: softmax(output + size*i + 5, classes);
        with tree= (softmax_tree, tested first): a softmax over each group of tree.c read_tree.

Writes Fixtures/darknet/numpy/opencv-heads/<model>/layer_<i>.npy: float32, (1, C, H, W) for [yolo] and
(1, H, W, C) - darknet's location-first buffer - for [region].

Usage: python3 Fixtures/darknet/numpy/heads.py   (numpy only; ../shared beside the repository for the cfgs)
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent.parent
SHARED = FIXTURES.parent.parent / "shared"
MODELS = ["yolov3-tiny", "yolov4-tiny", "yolov7-tiny", "yolov2-voc"]


def sections(cfg):
    out = []
    for line in cfg.read_text().splitlines():
        line = "".join(line.split())
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            out.append((line[1:-1], {}))
        else:
            key, value = line.split("=", 1)
            out[-1][1][key] = value
    return out[1:]


def logistic(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def yolo(x, options):
    classes = int(options.get("classes", 20))
    total = int(options.get("num", 1))
    mask = [int(v) for v in options["mask"].split(",")] if "mask" in options else list(range(total))
    scale = np.float32(float(options.get("scale_x_y", 1)))
    shift = np.float32(-0.5 * (float(options.get("scale_x_y", 1)) - 1))
    new_coords = int(options.get("new_coords", 0))
    out = x.copy()
    entries = 5 + classes
    for n in range(len(mask)):
        base = n * entries
        if not new_coords:
            out[base:base + 2] = logistic(out[base:base + 2])
            out[base + 4:base + entries] = logistic(out[base + 4:base + entries])
        out[base:base + 2] = out[base:base + 2] * scale + shift
    return out[None]


def gaussian_yolo(x, options):
    """forward_gaussian_yolo_layer: per anchor, entries 0-3 (x, its sigma, y, its sigma) logistic, x and y
    scaled by scale_x_y; 5 and 7 (w and h sigmas) logistic; 8 (objectness) and the classes logistic."""
    classes = int(options.get("classes", 20))
    total = int(options.get("num", 1))
    mask = [int(v) for v in options["mask"].split(",")] if "mask" in options else list(range(total))
    scale = np.float32(float(options.get("scale_x_y", 1)))
    shift = np.float32(-0.5 * (float(options.get("scale_x_y", 1)) - 1))
    out = x.copy()
    entries = 9 + classes
    for n in range(len(mask)):
        base = n * entries
        for k in [0, 1, 2, 3, 5, 7] + list(range(8, entries)):
            out[base + k] = logistic(out[base + k])
        for k in (0, 2):
            out[base + k] = out[base + k] * scale + shift
    return out[None]


def gaussian_yolo_boxes(activated, raw, options, net_w, net_h, thresh):
    """get_gaussian_yolo_detections + get_gaussian_yolo_box (yolo_point center): a box per anchor and
    cell with objectness > thresh, for each class whose objectness * class * (1 - mean sigma) > thresh."""
    classes = int(options.get("classes", 20))
    total = int(options.get("num", 1))
    mask = [int(v) for v in options["mask"].split(",")] if "mask" in options else list(range(total))
    anchors = [float(v) for v in options["anchors"].split(",")]
    entries = 9 + classes
    _, h, w = activated.shape
    boxes = []
    for i in range(h * w):
        row, col = divmod(i, w)
        for n, a in enumerate(mask):
            base = n * entries
            objectness = float(activated[base + 8].reshape(-1)[i])
            if objectness <= thresh:
                continue
            v = lambda k: float(activated[base + k].reshape(-1)[i])  # noqa: E731
            bx = (col + v(0)) / w
            by = (row + v(2)) / h
            bw = float(np.exp(np.float64(raw[base + 4].reshape(-1)[i]))) * anchors[2 * a] / net_w
            bh = float(np.exp(np.float64(raw[base + 6].reshape(-1)[i]))) * anchors[2 * a + 1] / net_h
            uncertainty = (v(1) + v(3) + v(5) + v(7)) / 4.0
            for k in range(classes):
                prob = objectness * v(9 + k) * (1.0 - uncertainty)
                if prob > thresh:
                    boxes.append({"class": k, "score": prob, "x": bx, "y": by, "w": bw, "h": bh, "cell": i, "anchor": a})
    return boxes


def read_tree(path):
    """tree.c read_tree: one class a line, "name parent"; a new softmax group starts wherever the parent
    differs from the line before's. Returns (parents, groups as (offset, size))."""
    parents = [int(line.split()[1]) for line in path.read_text().splitlines() if line.strip()]
    groups, start = [], 0
    for k in range(1, len(parents) + 1):
        if k == len(parents) or parents[k] != parents[k - 1]:
            groups.append((start, k - start))
            start = k
    return parents, groups


def region(x, options, tree=None):
    classes = int(options.get("classes", 20))
    coords = int(options.get("coords", 4))
    num = int(options.get("num", 1))
    c, h, w = x.shape
    out = x.reshape(c, h * w).T.reshape(-1).copy()  # flatten: out[i*layers + c] = in[c*size + i]
    size = coords + classes + 1
    for i in range(h * w * num):
        index = size * i
        out[index + 4] = logistic(out[index + 4:index + 5])[0]
        if tree is not None:  # softmax_tree: one softmax per group, before (and instead of) softmax=1
            for offset, size_ in tree[1]:
                run = out[index + 5 + offset:index + 5 + offset + size_].astype(np.float64)
                e = np.exp(run - run.max())
                out[index + 5 + offset:index + 5 + offset + size_] = (e / e.sum()).astype(np.float32)
        elif int(options.get("softmax", 0)):
            run = out[index + 5:index + 5 + classes].astype(np.float64)
            e = np.exp(run - run.max())
            out[index + 5:index + 5 + classes] = (e / e.sum()).astype(np.float32)
    return out.reshape(1, h, w, c)


def region_tree_boxes(buffer, options, tree, thresh):
    """get_region_boxes (no map) with a softmax tree, on the location-first buffer of region(): per cell i
    and anchor n (index = i * num + n, entries of classes + 5): box = get_region_box (x = (col +
    logistic(tx)) / w, w = exp(tw) * anchor_w / w); hierarchy_predictions multiplies each class by its
    parent's probability, in class order; then from the last class back the first above .5 is kept, the
    others zeroed; probs = scale > thresh ? prob : 0, reported when above thresh (draw_detections).
    Returns [cell, anchor, class, x, y, w, h, prob] rows."""
    classes, num = int(options["classes"]), int(options.get("num", 1))
    anchors = [float(v) for v in options["anchors"].split(",")]
    _, h, w, _ = buffer.shape
    flat = buffer.reshape(-1).astype(np.float64)
    parents = tree[0]
    rows = []
    for i in range(w * h):
        row, col = divmod(i, w)
        for n in range(num):
            index = i * num + n
            base = index * (classes + 5)
            scale = flat[base + 4]
            x = (col + 1 / (1 + np.exp(-flat[base]))) / w
            y = (row + 1 / (1 + np.exp(-flat[base + 1]))) / h
            bw = np.exp(flat[base + 2]) * anchors[2 * n] / w
            bh = np.exp(flat[base + 3]) * anchors[2 * n + 1] / h
            p = flat[base + 5:base + 5 + classes].copy()
            for j in range(classes):
                if parents[j] >= 0:
                    p[j] *= p[parents[j]]
            found = False
            for j in range(classes - 1, -1, -1):
                if not found and p[j] > .5:
                    found = True
                else:
                    p[j] = 0
                prob = p[j] if scale > thresh else 0
                if prob > thresh:
                    rows.append([i, n, j, float(x), float(y), float(bw), float(bh), float(prob)])
    return rows


def main():
    for model in MODELS:
        meta = json.loads((FIXTURES / "opencv" / model / "meta.json").read_text())
        layers = sections(SHARED / meta["cfg"])
        files = {record["index"]: record["file"] for record in meta["layers"]}
        folder = HERE / "opencv-heads" / model
        folder.mkdir(parents=True, exist_ok=True)
        for skipped in meta["skipped"]:
            index = skipped["index"]
            kind, options = layers[index]
            x = np.load(FIXTURES / "opencv" / model / files[index - 1])[0]
            out = yolo(x, options) if kind == "yolo" else region(x, options)
            np.save(folder / f"layer_{index}.npy", out.astype(np.float32))
            print(model, index, kind, out.shape)


if __name__ == "__main__":
    main()
