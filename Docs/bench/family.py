#!/usr/bin/env python3
"""Forward passes of the whole Darknet family, FoldKit against OpenCV 4.x DNN, side by side.

For every .cfg in --cfg-dir (default ../shared/darknet-cfg), at the cfg's own [net] width x height:
seeds weights once (`foldkit seed-weights --seed 1`, cached under --tmp), checks that OpenCV reads and
runs the model (a cfg it cannot read is skipped, saying why), then alternates `foldkit bench
--forward-only` (float32 folded and float64 original passes, in process) with `opencv_forward.py` for
--rounds rounds of --runs timed passes each (after one warm-up pass). Each figure is the minimum over all
rounds; ratios are FoldKit's minimum over OpenCV's minimum from the same run. Prints a markdown table.

    python3 Docs/bench/family.py [--foldkit .build/release/foldkit] [--rounds 2] [--runs 3] [--only tiny,yolov4-tiny]

Bounded in time: every command has a timeout (--timeout seconds, default 300), and a cfg that hits it
is reported as such; the whole family takes about 6-8 minutes on the 2-core machine of Docs/Performance.md.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def net_size(cfg):
    """(width, height) of the [net] section."""
    width = height = None
    in_net = False
    with open(cfg) as f:
        for line in f:
            line = line.split('#')[0].strip()
            if line.startswith('['):
                if in_net:
                    break
                in_net = line in ('[net]', '[network]')
            elif in_net and '=' in line:
                key, value = (s.strip() for s in line.split('=', 1))
                if key == 'width':
                    width = int(value)
                elif key == 'height':
                    height = int(value)
    return width, height


def run(cmd, timeout):
    """(returncode, stdout + stderr); returncode None on timeout."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b'').decode() if isinstance(e.stdout, bytes) else (e.stdout or '')


def opencv_ms(text):
    m = re.search(r'min ([0-9.]+) ms median ([0-9.]+) ms', text)
    return (float(m.group(1)), float(m.group(2))) if m else None


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:160] if lines else '(no output)'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--foldkit', default=os.path.join(ROOT, '.build/release/foldkit'))
    parser.add_argument('--cfg-dir', default=os.path.join(ROOT, '..', 'shared', 'darknet-cfg'))
    parser.add_argument('--tmp', default='/tmp/foldkit-family')
    parser.add_argument('--rounds', type=int, default=2)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--timeout', type=int, default=300)
    parser.add_argument('--only', default='', help='comma-separated cfg names (without .cfg)')
    args = parser.parse_args()
    if not os.access(args.foldkit, os.X_OK):
        sys.exit('no FoldKit binary at %s: swift build -c release --product foldkit' % args.foldkit)
    os.makedirs(args.tmp, exist_ok=True)
    only = set(filter(None, args.only.split(',')))
    cfgs = sorted(f for f in os.listdir(args.cfg_dir) if f.endswith('.cfg') and (not only or f[:-4] in only))
    started = time.time()
    rows, skipped = [], []
    for name in cfgs:
        cfg = os.path.join(args.cfg_dir, name)
        stem = name[:-4]
        width, height = net_size(cfg)
        if not width or width != height:
            skipped.append((stem, 'no square [net] width/height (%s x %s)' % (width, height)))
            continue
        weights = os.path.join(args.tmp, stem + '.weights')
        if not os.path.exists(weights):
            code, out = run([args.foldkit, 'seed-weights', cfg, '--seed', '1', '--out', weights], args.timeout)
            if code != 0:
                skipped.append((stem, 'foldkit seed-weights failed: ' + last_line(out)))
                continue
        print('== %s %dx%d' % (stem, width, width), file=sys.stderr, flush=True)
        opencv, f32, f64, problem = [], [], [], None
        for round_index in range(args.rounds):
            code, out = run([sys.executable, os.path.join(HERE, 'opencv_forward.py'), cfg, weights,
                             '--size', str(width), '--runs', str(args.runs)], args.timeout)
            ms = opencv_ms(out) if code == 0 else None
            if ms is None:
                problem = 'OpenCV cannot run it: ' + ('timeout after %d s' % args.timeout if code is None else last_line(out))
                break
            opencv.append(ms)
            figures = os.path.join(args.tmp, stem + '.json')
            code, out = run([args.foldkit, 'bench', '--forward-only', '--cfg', cfg, '--weights', weights,
                             '--input-size', str(width), '--runs', str(args.runs), '--json', figures], args.timeout)
            if code != 0:
                problem = 'FoldKit bench failed: ' + ('timeout after %d s' % args.timeout if code is None else last_line(out))
                break
            with open(figures) as f:
                result = json.load(f)
            f32.append((result['forward float32 (folded)']['minimum'] * 1000, result['forward float32 (folded)']['median'] * 1000))
            f64.append((result['forward float64 (original)']['minimum'] * 1000, result['forward float64 (original)']['median'] * 1000))
        if problem:
            skipped.append((stem, problem))
            continue
        cv = min(m for m, _ in opencv)
        rows.append((stem, width, cv, min(m for m, _ in f32), min(m for m, _ in f64)))
    print('| network | size | OpenCV ms | FoldKit float32 ms | float32 / OpenCV | FoldKit float64 ms | float64 / OpenCV |')
    print('|---|---|---|---|---|---|---|')
    for stem, size, cv, a, b in rows:
        print('| %s | %d | %.1f | %.1f | %.2fx | %.1f | %.2fx |' % (stem, size, cv, a, a / cv, b, b / cv))
    if rows:
        worst32 = max(rows, key=lambda r: r[3] / r[2])
        worst64 = max(rows, key=lambda r: r[4] / r[2])
        print('\nWorst float32 ratio %.2fx (%s), worst float64 ratio %.2fx (%s); %d networks, %.0f s.' % (
            worst32[3] / worst32[2], worst32[0], worst64[4] / worst64[2], worst64[0], len(rows), time.time() - started))
    for stem, why in skipped:
        print('\nSkipped %s: %s' % (stem, why))


if __name__ == '__main__':
    main()
