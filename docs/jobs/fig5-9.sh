#!/bin/bash
# seeds/001 §5.3.2.3 and Figs. 5.9-5.11 in kind (issue 53): TSUBAME2's 200-node job of day 16 ran
# on 15 leaf (edge) switches; under fat-tree routing one port carried 1,272 of its paths (its
# effective EFI), under SAR 376, and the job's paths used 1,274 ports against 1,555 with SAR. The
# allocation itself is not published, so each draw here puts a 200-node job on 15 edge switches of
# tsubame2:rail=1 drawn at random (13-14 HCAs on each) beside a fragmented mix of other jobs on the
# rest (90 % busy, as docs/jobs/tsubame2-mix.toml), routes it with ftree and sar and prints the
# 200-node job's effective EFI and the links its paths use. About 10 s a draw.
# Usage: [FLITSIM=flitsim] [DRAWS=20] docs/jobs/fig5-9.sh
set -eu
flitsim=${FLITSIM:-go run ./cmd/flitsim}
draws=${DRAWS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$flitsim topo gen tsubame2:rail=1 -o "$tmp/ts2.net" >/dev/null
echo "| draw | ftree: effective EFI | sar | ftree: links | sar |"
echo "|---:|---:|---:|---:|---:|"
for d in $(seq "$draws"); do
  python3 - "$tmp/ts2.net" "$d" >"$tmp/jobs.toml" <<'PY'
import random, re, sys
net, draw = sys.argv[1], int(sys.argv[2])
cur, hcas = None, {}
for line in open(net):
    m = re.match(r'(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
    if m:
        cur = m.group(2) if m.group(1) == "Switch" and m.group(2).startswith("edge") else None
        continue
    m = re.match(r'\[\d+\]\s+"([^"]+)"', line)
    if m and cur and not m.group(1).startswith(("core", "edge")):
        hcas.setdefault(cur, []).append(m.group(1))
rng = random.Random(draw)
leaves = rng.sample(sorted(hcas, key=lambda e: int(e[4:])), 15)
nodes = [h for i, e in enumerate(leaves) for h in hcas[e][:14 if i < 5 else 13]]
assert len(nodes) == 200
print("seed = %d" % draw)
print('[[job]]\nid = "day16"\nnodes = [%s]' % ", ".join('"%s"' % n for n in nodes))
print("[fragmentation]\nutilization = 0.9\nmin_size = 2\nmax_size = 200")
PY
  $flitsim route "$tmp/ts2.net" --routing ftree,sar --jobs "$tmp/jobs.toml" --json >"$tmp/out.json"
  python3 - "$tmp/out.json" "$d" <<'PY'
import json, sys
rows = {r["routing"]: r["per_job"][0] for r in json.load(open(sys.argv[1]))}
f, s = rows["ftree"], rows["sar"]
assert f["hcas"] == 200 and s["hcas"] == 200
print("| %s | %d | %d | %d | %d |" % (sys.argv[2], f["efi_max"], s["efi_max"], f["links"], s["links"]))
PY
done
