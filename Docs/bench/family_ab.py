#!/usr/bin/env python3
"""Docs/bench/family.py, with two FoldKit binaries: per round OpenCV, base bench, new bench (order of base/new
swapped every round), for comparing a change against its baseline in one run (Docs/Performance.md, "Eighth round").

  python3 Docs/bench/family_ab.py --base OLD/foldkit --new .build/release/foldkit [--rounds 2 --runs 3 --only yolov4]
"""
import argparse, json, os, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import family as F
p = argparse.ArgumentParser()
p.add_argument('--base'); p.add_argument('--new'); p.add_argument('--cfg-dir', default=os.path.join(HERE, '..', '..', '..', 'shared', 'darknet-cfg'))
p.add_argument('--tmp', default='/tmp/foldkit-family'); p.add_argument('--rounds', type=int, default=2)
p.add_argument('--runs', type=int, default=3); p.add_argument('--timeout', type=int, default=300); p.add_argument('--only', default='')
p.add_argument('--json-out', default='/tmp/family_ab.json')
a = p.parse_args()
os.makedirs(a.tmp, exist_ok=True)
only = set(filter(None, a.only.split(',')))
cfgs = sorted(f for f in os.listdir(a.cfg_dir) if f.endswith('.cfg') and (not only or f[:-4] in only))
started = time.time(); rows = []; skipped = []
def bench(binary, cfg, weights, width, stem, tag):
    figures = os.path.join(a.tmp, '%s-%s.json' % (stem, tag))
    code, out = F.run([binary, 'bench', '--forward-only', '--cfg', cfg, '--weights', weights, '--input-size', str(width),
                       '--runs', str(a.runs), '--json', figures], a.timeout)
    if code != 0: return None
    r = json.load(open(figures))
    return r['forward float32 (folded)']['minimum'] * 1000, r['forward float64 (original)']['minimum'] * 1000
for name in cfgs:
    cfg = os.path.join(a.cfg_dir, name); stem = name[:-4]
    width, height = F.net_size(cfg)
    weights = os.path.join(a.tmp, stem + '.weights')
    if not os.path.exists(weights):
        code, out = F.run([a.new, 'seed-weights', cfg, '--seed', '1', '--out', weights], a.timeout)
        if code != 0: skipped.append((stem, 'seed-weights: ' + F.last_line(out))); continue
    print('== %s %d' % (stem, width), file=sys.stderr, flush=True)
    cv, res = [], {'base': [], 'new': []}; problem = None
    for r in range(a.rounds):
        code, out = F.run([sys.executable, os.path.join(HERE, 'opencv_forward.py'), cfg, weights, '--size', str(width), '--runs', str(a.runs)], a.timeout)
        ms = F.opencv_ms(out) if code == 0 else None
        if ms is None: problem = 'OpenCV: ' + F.last_line(out); break
        cv.append(ms[0])
        order = [('base', a.base), ('new', a.new)] if r % 2 == 0 else [('new', a.new), ('base', a.base)]
        for tag, binary in order:
            b = bench(binary, cfg, weights, width, stem, tag)
            if b is None: problem = tag + ' bench failed'; break
            res[tag].append(b)
        if problem: break
    if problem: skipped.append((stem, problem)); continue
    row = dict(net=stem, size=width, cv=min(cv), cv_all=cv,
               b32=min(x for x, _ in res['base']), b64=min(y for _, y in res['base']),
               n32=min(x for x, _ in res['new']), n64=min(y for _, y in res['new']), raw=res)
    rows.append(row)
    print(json.dumps(row), file=sys.stderr, flush=True)
json.dump(rows, open(a.json_out, 'w'), indent=1)
print('| network | size | OpenCV ms | base f32 ms | new f32 ms | new/base f32 | new f32 / OpenCV | base f64 ms | new f64 ms | new/base f64 | new f64 / OpenCV |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
for r in rows:
    print('| %s | %d | %.1f | %.1f | %.1f | %.3f | %.2fx | %.1f | %.1f | %.3f | %.2fx |' % (r['net'], r['size'], r['cv'], r['b32'], r['n32'], r['n32']/r['b32'], r['n32']/r['cv'], r['b64'], r['n64'], r['n64']/r['b64'], r['n64']/r['cv']))
print('\n%d networks, %.0f s.' % (len(rows), time.time() - started))
for s, w in skipped: print('\nSkipped %s: %s' % (s, w))
