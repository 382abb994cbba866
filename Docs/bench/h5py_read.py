#!/usr/bin/env python3
"""Baseline for FoldKit's Keras reader: open a Keras .h5 with h5py and read every dataset into memory.

    python3 h5py_read.py model.h5
"""
import sys
import time

import h5py
import numpy as np


def main():
    start = time.perf_counter()
    arrays = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            arrays.append(np.asarray(obj[()]))

    with h5py.File(sys.argv[1], 'r') as f:
        f.visititems(visit)
    total = sum(a.nbytes for a in arrays)
    print('h5py read %d datasets, %.1f MB in %.1f ms (in process)' % (len(arrays), total / 1e6, (time.perf_counter() - start) * 1000))


if __name__ == '__main__':
    main()
