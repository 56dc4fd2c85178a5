"""Tables of docs/validation.md from run.sh's JSON results: per job, completion time, packet
latency and stalls per flit averaged over seeds, default mode against ugal-high."""
import json, glob, os, sys, re, statistics as st
from collections import defaultdict
pat = sys.argv[1]  # e.g. out7-*.json
rows = defaultdict(list)
for f in sorted(glob.glob(pat)):
    m = re.match(r'out(\d)-(.+)-(\d+)-(ugal(?:-high|-imb)?)\.json', os.path.basename(f))
    if not m: continue
    _, cfg, seed, mode = m.groups()
    d = json.load(open(f))
    for j in d.get('jobs', []):
        if j['id'] == 'noise': continue
        c = j.get('counters') or {}
        rows[(cfg, j['id'], 'high' if mode == 'ugal-high' else 'default')].append(
            (j.get('completion_ns', 0)/1000, c.get('latency', {}).get('mean_ns', 0)/1000, c.get('stalls_per_flit', 0), int(seed)))
keys = sorted(set((k[0], k[1]) for k in rows))
print("| config | job | default: completion µs (mean of seeds) | high bias | high/default | latency µs default / high | stalls per flit default / high | seeds high faster |")
print("|---|---|---:|---:|---:|---|---|---:|")
for cfg, job in keys:
    a = sorted(rows[(cfg, job, 'default')], key=lambda x: x[3]); b = sorted(rows[(cfg, job, 'high')], key=lambda x: x[3])
    if not a or not b: continue
    ca, cb = st.mean(x[0] for x in a), st.mean(x[0] for x in b)
    wins = sum(1 for x, y in zip(a, b) if y[0] < x[0])
    print(f"| {cfg} | {job} | {ca:.3f} | {cb:.3f} | {cb/ca:.3f} | {st.mean(x[1] for x in a):.3f} / {st.mean(x[1] for x in b):.3f} | {st.mean(x[2] for x in a):.4f} / {st.mean(x[2] for x in b):.4f} | {wins}/{len(a)} |")
