#!/bin/bash
# seeds/001 Fig. 6.12 in kind (issue 53): the routing time of the deadlock-free engines on 3D tori
# of 2x2x2 to 10x10x10 switches, four HCAs per switch, single cables, 1 % of the cables failed
# (fault seed 1), as the thesis' figure. Prints one Markdown row per torus: each engine's route
# time in ms (flitsim route's route_ms, measured on this machine; "fails" where the engine cannot
# route, as the figure's missing dots; the least of REPEAT runs) and Torus-2QoS' and LASH's time
# over Nue's. Run it on an idle machine: the times are wall times.
# Usage: [FLITSIM=flitsim] [REPEAT=3] docs/jobs/fig6-12.sh
set -eu
flitsim=${FLITSIM:-go run ./cmd/flitsim}
engines="dfsssp lash torus-2qos nue"
echo "| torus | HCAs | $(echo $engines | sed 's/ / | /g') | torus-2qos / nue | lash / nue |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
repeat=${REPEAT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in 2 3 4 5 6 7 8 9 10; do
  spec="torus:dims=${k}x${k}x${k},hcas=$((4 * k * k * k))"
  for r in $(seq "$repeat"); do # an engine that cannot route makes route exit 1: its row says so
    $flitsim route "$spec" --routing "$(echo $engines | tr ' ' ,)" --links 1 --fault-seed 1 --json >"$tmp/$r.json" 2>/dev/null || true
  done
  python3 -c '
import json, sys
k, engines, files = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
ms = {}
for f in files:
    for r in json.load(open(f)):
        if r["ok"]:
            ms[r["routing"]] = min(ms.get(r["routing"], float("inf")), r["route_ms"])
ms = {e: ms.get(e) for e in engines}
cell = lambda v: "fails" if v is None else "%.1f" % v
ratio = lambda a, b: "-" if a is None or b is None or b == 0 else "%.2f" % (a / b)
print("| %sx%sx%s | %d | %s | %s | %s |" % (k, k, k, 4 * int(k) ** 3, " | ".join(cell(ms[e]) for e in engines),
      ratio(ms["torus-2qos"], ms["nue"]), ratio(ms["lash"], ms["nue"])))
' "$k" "$engines" "$tmp"/*.json
done
