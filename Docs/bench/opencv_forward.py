#!/usr/bin/env python3
"""Baseline for FoldKit's forward pass: OpenCV 4.x DNN's forward pass of a Darknet model.

Loads the model with cv2.dnn.readNetFromDarknet, runs one warm-up pass and then --runs timed passes on
a seeded 1x3xSxS input (uniform [0, 1)), and prints the minimum and median in milliseconds. OpenCV
uses all cores (cv2.setNumThreads(os.cpu_count())); fusion stays on, as in an application.

    python3 opencv_forward.py model.cfg model.weights [--size 416] [--runs 5]
"""
import time

import cv2

import opencv_net


def main():
    args = opencv_net.model_arguments(runs=5)
    net, blob, names = opencv_net.load(args.cfg, args.weights, args.size)
    net.setInput(blob)
    net.forward(names)
    times = []
    for _ in range(args.runs):
        net.setInput(blob)
        start = time.perf_counter()
        net.forward(names)
        times.append(time.perf_counter() - start)
    times.sort()
    print('opencv %s forward %dx%d: min %.1f ms median %.1f ms (%d runs, %d threads)' % (
        cv2.__version__, args.size, args.size, times[0] * 1000, times[len(times) // 2] * 1000, len(times), cv2.getNumThreads()))


if __name__ == '__main__':
    main()
