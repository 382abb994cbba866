#!/usr/bin/env python3
"""SIGTERM at random moments of `foldkit convert`: every run must exit 0 or 143 and leave nothing but
`--out` in its folder (Docs/Security.md, "Signals").

  python3 Docs/bench/sigterm-random.py FOLDKIT CFG WEIGHTS [--runs 40] [--seed 1] [--min 0.015] [--max 0.15]

Each run starts `FOLDKIT convert CFG WEIGHTS --out DIR/out --quiet`, sleeps a uniform random delay in
[min, max] seconds and sends SIGTERM. Prints each bad run (return code, delay, what was left, the end of
stderr) and the count of each return code; exits 1 if any run was bad. A negative return code is a death
by the signal (Python's convention).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("foldkit")
parser.add_argument("cfg")
parser.add_argument("weights")
parser.add_argument("--runs", type=int, default=40)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--min", type=float, default=0.015)
parser.add_argument("--max", type=float, default=0.15)
args = parser.parse_args()
random.seed(args.seed)
codes, bad = {}, 0
for i in range(args.runs):
    folder = tempfile.mkdtemp(prefix="foldkit-sigterm-")
    process = subprocess.Popen([args.foldkit, "convert", args.cfg, args.weights, "--out", os.path.join(folder, "out"), "--quiet"],
                               stderr=subprocess.PIPE)
    delay = random.uniform(args.min, args.max)
    time.sleep(delay)
    process.terminate()
    code = process.wait()
    tail = process.stderr.read().decode(errors="replace")[-200:].strip()
    left = [name for name in os.listdir(folder) if name != "out"]
    codes[code] = codes.get(code, 0) + 1
    if code not in (0, 143) or left:
        bad += 1
        print(f"run {i}: return code {code}, delay {delay:.3f} s, left {left}, stderr: {tail}")
    shutil.rmtree(folder, ignore_errors=True)
print("return codes:", dict(sorted(codes.items())), "bad runs:", bad)
sys.exit(1 if bad else 0)
