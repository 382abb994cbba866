#!/usr/bin/env python3
"""Baseline for `foldkit convert`: the same read / fold / transpose / write done with numpy.

Reads a Darknet .cfg for the convolution layout (filters, size, groups, batch_normalize and the input
channels each convolution sees through [route], [shortcut], [upsample], [maxpool], ...), streams the
.weights file tensor by tensor, folds batch norm in float64 (s = gamma / sqrt(var + 1e-5), W' = W*s,
b' = beta - mean*s, each rounded once to float32), transposes OIHW -> OHWI and writes
conv<i>_W.bin / conv<i>_b.bin (little-endian float32), the files `foldkit convert` writes.
With --sha256 it also hashes the source file and every blob (as foldkit's manifest does).

    python3 numpy_convert.py model.cfg model.weights OUTDIR [--sha256]
"""
import hashlib
import os
import sys

import numpy as np


def sections(cfg_path):
    out = []
    with open(cfg_path) as f:
        for raw in f:
            line = raw.split('#')[0].split(';')[0].strip()
            if not line:
                continue
            if line.startswith('['):
                out.append((line[1:-1].strip().lower(), {}))
            elif '=' in line and out:
                k, v = line.split('=', 1)
                out[-1][1][k.strip()] = v.strip()
    return out


def main():
    cfg, weights, out_dir = sys.argv[1:4]
    with_sha = '--sha256' in sys.argv[4:]
    secs = sections(cfg)
    net = secs[0][1]
    channels = [int(net.get('channels', 3))]  # channels[i+1] = output channels of layer i
    os.makedirs(out_dir, exist_ok=True)
    sums = {}
    with open(weights, 'rb') as f:
        major, minor, _ = np.fromfile(f, dtype='<i4', count=3)
        f.read(8 if major * 10 + minor >= 2 and major < 1000 and minor < 1000 else 4)
        for index, (name, opts) in enumerate(secs[1:]):
            c_in = channels[-1]
            if name in ('convolutional', 'conv'):
                n = int(opts.get('filters', 1))
                k = int(opts.get('size', 1))
                groups = int(opts.get('groups', 1))
                bn = int(opts.get('batch_normalize', 0)) != 0
                bias = np.fromfile(f, dtype='<f4', count=n)
                if bn:
                    gamma, mean, var = (np.fromfile(f, dtype='<f4', count=n) for _ in range(3))
                w = np.fromfile(f, dtype='<f4', count=n * (c_in // groups) * k * k).reshape(n, c_in // groups, k, k)
                if bn:
                    s = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + 1e-5)
                    w = (w.astype(np.float64) * s[:, None, None, None]).astype(np.float32)
                    bias = (bias.astype(np.float64) - mean.astype(np.float64) * s).astype(np.float32)
                ohwi = np.ascontiguousarray(w.transpose(0, 2, 3, 1))
                for suffix, arr in (('W', ohwi), ('b', bias)):
                    path = os.path.join(out_dir, 'conv%d_%s.bin' % (index, suffix))
                    arr.astype('<f4', copy=False).tofile(path)
                    if with_sha:
                        sums[path] = hashlib.sha256(arr.tobytes()).hexdigest()
                channels.append(n)
            elif name == 'route':
                refs = [int(x) for x in opts['layers'].split(',')]
                refs = [r if r >= 0 else index + r for r in refs]
                total = sum(channels[r + 1] for r in refs)
                channels.append(total // int(opts.get('groups', 1)))
            elif name in ('yolo', 'region', 'shortcut', 'upsample', 'maxpool', 'max', 'dropout', 'activation'):
                channels.append(c_in)
            elif name in ('reorg',):
                s = int(opts.get('stride', 1))
                channels.append(c_in * s * s)
            else:
                raise SystemExit('numpy_convert.py: unsupported section [%s]' % name)
        rest = f.read()
        if rest:
            raise SystemExit('numpy_convert.py: %d bytes left over' % len(rest))
    if with_sha:
        h = hashlib.sha256()
        with open(weights, 'rb') as f:
            for chunk in iter(lambda: f.read(4 << 20), b''):
                h.update(chunk)
        sums[weights] = h.hexdigest()
    print('wrote %d convolution layers to %s' % (len(list(n for n in os.listdir(out_dir) if n.endswith('_W.bin'))), out_dir))


if __name__ == '__main__':
    main()
