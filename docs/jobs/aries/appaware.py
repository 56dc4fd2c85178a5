"""docs/validation.md's tables from appaware.sh's JSON results (flitsim jobs modes --json): per
benchmark and mode the median time normalized to the default's, its 95 % confidence interval, the
NIC counters and app-aware's share of default traffic; then the scaling factors the runs give
(medians over the benchmarks of high bias's latency and stalls over the default's)."""
import glob, json, statistics as st, sys

rows, lat, stall = [], [], []
workloads = []
for f in sorted(glob.glob(sys.argv[1])):
    try:
        workloads += json.load(open(f))["workloads"]
    except ValueError:
        continue  # a run still going
for d in workloads:
    by = {}
    for s in d["summary"]:
        if s["job"] == "noise":
            continue
        by[s["mode"]] = s
        share, sw = s.get("default_share"), s.get("switch_rate")
        rows.append((s["job"], s["mode"], s["completion_ns"]["median"] / 1000, s["normalized"]["median"],
                     s["median_ci_lo"], s["median_ci_hi"], s["latency_ns"] / 1000, s["stalls_per_flit"],
                     "" if share is None else f"{100 * share:.0f} %", "" if sw is None else f"{100 * sw:.0f} %"))
    modes = d["modes"]
    if len(modes) > 1 and modes[1] == "ugal-high" and modes[0] in by and "ugal-high" in by:
        a, h = by[modes[0]], by["ugal-high"]
        if a["latency_ns"] > 0:
            lat.append(h["latency_ns"] / a["latency_ns"])
        if a["stalls_per_flit"] > 0:
            stall.append(h["stalls_per_flit"] / a["stalls_per_flit"])
print("| benchmark | mode | median µs | / default | 95 % CI | latency µs | stalls per flit | app-aware: default share | switches per decision |")
print("|---|---|---:|---:|---|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]:,.2f} | {r[3]:.3f} | {r[4]:.3f}-{r[5]:.3f} | {r[6]:.3f} | {r[7]:.4f} | {r[8]} | {r[9]} |")
if lat:
    print(f"\nlatency high/default: median {st.median(lat):.3f} over {len(lat)} benchmarks ({', '.join(f'{x:.3f}' for x in sorted(lat))})")
if stall:
    print(f"stalls high/default: median {st.median(stall):.3f} over {len(stall)} benchmarks with default stalls > 0 ({', '.join(f'{x:.3g}' for x in sorted(stall))})")
