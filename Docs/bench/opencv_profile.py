#!/usr/bin/env python3
"""OpenCV 4.x DNN's per-layer times for a Darknet model (net.getPerfProfile()), grouped by Darknet
section index, to set beside `foldkit bench --profile`.

Runs one warm-up pass and --runs passes; per layer the minimum over the passes, in milliseconds.
OpenCV fuses batch norm and activations into the convolution, so their time shows on the conv_N line.

    python3 opencv_profile.py model.cfg model.weights [--size 416] [--runs 5]
"""
import re

import cv2
import numpy as np

import opencv_net


def main():
    args = opencv_net.model_arguments(runs=5)
    net, blob, names = opencv_net.load(args.cfg, args.weights, args.size)
    layer_names = net.getLayerNames()
    best = None
    total = float('inf')
    for run in range(args.runs + 1):
        net.setInput(blob)
        net.forward(names)
        t, per_layer = net.getPerfProfile()
        per_layer = [float(x) * 1000.0 / cv2.getTickFrequency() for x in np.asarray(per_layer).ravel()]
        if run == 0:
            continue
        total = min(total, t * 1000.0 / cv2.getTickFrequency())
        best = per_layer if best is None else [min(a, b) for a, b in zip(best, per_layer)]
    by_section = {}
    for name, ms in zip(layer_names, best):
        m = re.search(r'_(\d+)$', name)
        key = int(m.group(1)) if m else -1
        by_section.setdefault(key, []).append((name, ms))
    for key in sorted(by_section):
        parts = by_section[key]
        print('opencv %4d %9.3f  %s' % (key, sum(ms for _, ms in parts), ' '.join('%s=%.3f' % p for p in parts)))
    print('opencv sum of layer minima %.3f ms; whole pass minimum %.3f ms' % (sum(best), total))


if __name__ == '__main__':
    main()
