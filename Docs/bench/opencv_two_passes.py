#!/usr/bin/env python3
"""Baseline for `foldkit verify` end to end: what a Python check with OpenCV DNN costs.

Loads the Darknet model with cv2.dnn.readNetFromDarknet, runs two forward passes (a reference and a
candidate pass, as a check does) on a seeded input and compares their outputs, all in one process:
the whole-process time is the figure.

    python3 opencv_two_passes.py model.cfg model.weights [--size 416]
"""

import numpy as np

import opencv_net


def main():
    args = opencv_net.model_arguments()
    net, blob, names = opencv_net.load(args.cfg, args.weights, args.size)
    outputs = []
    for _ in range(2):
        net.setInput(blob)
        outputs.append(net.forward(names))
    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(*outputs))
    print('two OpenCV passes over %d outputs, largest difference %g' % (len(names), worst))


if __name__ == '__main__':
    main()
