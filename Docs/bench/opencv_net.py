"""The OpenCV 4.x DNN set-up the bench scripts share: their command line (cfg, weights, --size, --runs), a
Darknet model on the plain OpenCV CPU backend with every core, a seeded uniform [0, 1) input of
1 x 3 x size x size, and the output layer names."""
import argparse
import os

import cv2
import numpy as np


def model_arguments(runs=None):
    """Parses `cfg weights [--size N]` from the command line, and `--runs N` when `runs` gives its default."""
    parser = argparse.ArgumentParser()
    parser.add_argument('cfg')
    parser.add_argument('weights')
    parser.add_argument('--size', type=int, default=416)
    if runs is not None:
        parser.add_argument('--runs', type=int, default=runs)
    return parser.parse_args()


def load(cfg, weights, size):
    """(net, blob, output names) for the Darknet model at `size`, input seeded with 1."""
    cv2.setNumThreads(os.cpu_count())
    net = cv2.dnn.readNetFromDarknet(cfg, weights)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    blob = np.random.default_rng(1).random((1, 3, size, size), dtype=np.float32)
    return net, blob, net.getUnconnectedOutLayersNames()
