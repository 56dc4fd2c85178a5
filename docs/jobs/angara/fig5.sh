#!/bin/bash
# seeds/003 Fig. 5 in kind (issue 53): the edge-forwarding index (the most routes on one channel)
# of Angara's SSSP and genetic routings against its BFS on every 2D and 3D torus with each
# dimension in [2, 8] (49 and 343 systems) and every 4D one of at most 128 nodes (260); the genetic
# algorithm on systems of at most 64 (2D, 3D) and 32 (4D) nodes. About 45 minutes on one core.
# Usage: [MAXN=N] docs/jobs/angara/fig5.sh [OUT.tsv]    (then the summary table is printed)
#   MAXN  only systems of at most N nodes (a quick look: MAXN=12 takes seconds)
set -eu
maxn=${MAXN:-4096}
flitsim=${FLITSIM:-go run ./cmd/flitsim}
out=${1:-out/angara-fig5.tsv}
mkdir -p "$(dirname "$out")"
: >"$out"
python3 - <<'PY' >"$out.systems"
import itertools
for d in (2, 3, 4):
    for t in itertools.product(range(2, 9), repeat=d):
        n = 1
        for x in t:
            n *= x
        if d < 4 or n <= 128:
            print(d, "x".join(map(str, t)), n)
PY
while read -r d g n; do
  [ "$n" -le "$maxn" ] || continue
  engines=angara-bfs,angara-sssp
  if { [ "$d" -lt 4 ] && [ "$n" -le 64 ]; } || [ "$n" -le 32 ]; then engines=$engines,angara-genetic; fi
  $flitsim route "torus:dims=$g" --routing $engines --json | python3 -c "
import json, sys
for r in json.load(sys.stdin):
    print('$d\t$g\t$n\t%s\t%s\t%s\t%.1f' % (r['routing'], r.get('ok'), r.get('efi_max'), r.get('route_ms', 0)))" >>"$out"
done <"$out.systems"
python3 - "$out" <<'PY'
import collections, sys
sys_ = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    d, g, n, eng, ok, efi, ms = l.rstrip("\n").split("\t")
    if efi != "None":
        sys_[(int(d), g)][eng[7:]] = int(efi)
print("| routing / reference | tori | systems | fewer / equal / more (ratio of sums in each) | ratio of all sums |")
print("|---|---|---:|---|---:|")
for alg, ref in (("sssp", "bfs"), ("genetic", "bfs"), ("sssp", "genetic")):
    for d in (2, 3, 4):
        g = {"less": [], "equal": [], "greater": []}
        for (dd, _), e in sys_.items():
            if dd == d and alg in e and ref in e:
                a, b = e[alg], e[ref]
                g["less" if a < b else "equal" if a == b else "greater"].append((a, b))
        n = sum(len(v) for v in g.values())
        if n:
            part = " / ".join("%d (%.3f)" % (len(g[k]), sum(a for a, _ in g[k]) / sum(b for _, b in g[k])) if g[k] else "0" for k in ("less", "equal", "greater"))
            tot = sum(a for v in g.values() for a, _ in v) / sum(b for v in g.values() for _, b in v)
            print(f"| {alg} / {ref} | {d}D | {n} | {part} | {tot:.3f} |")
PY
