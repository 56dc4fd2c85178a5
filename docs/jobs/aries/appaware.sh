#!/bin/bash
# seeds/004 Figs. 8 and 9 in kind: the microbenchmarks under the default adaptive mode, high bias
# and application-aware routing (issue 50; docs/validation.md). Each benchmark is one job beside
# uniform noise (other users, routed ugal) on aries:groups=3,h=1,hcas=384, one fixed placement,
# ten traffic seeds per mode (flitsim jobs modes). Writes DIR/<fig>.json and DIR/<fig>.svg (the
# paper's box plots) and prints the table with appaware.py. Every run is kept in DIR/<fig>-runs as
# it finishes (jobs modes -o): run the same command again to resume a killed one.
# Usage: [RENDEZVOUS=8KiB] [SPREAD=1] [COMPACT=1] [ONLY="a b"] [J=2] docs/jobs/aries/appaware.sh [DIR] [fig9|fig8|fig10|alpha]
#   RENDEZVOUS the measured jobs send messages from this size as MPI's rendezvous over GET
#   SPREAD     minimal ways inside a group spread over every shortest way (routing option spread)
#   COMPACT    the paper's allocations: four HCAs per router (Aries' four NICs) and the measured
#              job dealt over the paper's number of random routers (fig8: 1,024 nodes on 257,
#              fig9: 64 on 33; placement switches:N); without it the job is placed at random on
#              a network of 2.67 (fig8) or 1.33 (fig9) HCAs per router
#   ONLY       run only these benchmarks (names as below, space-separated)
#   SEEDS      traffic seeds per mode (10)
#   FIRST_SEED the first traffic seed (1): seeds FIRST_SEED..FIRST_SEED+SEEDS-1
#   J          simulations at once (2; the results do not depend on it)
#   fig9  (default) 64-node jobs beside noise on 256 nodes, about 10 minutes on two cores
#   fig8  1,024-node jobs on aries:groups=6,h=1,hcas=1536 (beside noise on 256), about an hour
#   fig10 the application skeletons with compute, 256 nodes (and the FFT on 64) on the fig8
#         network: first their communication alone (the default mode, three seeds), then each
#         with compute = its ratio (below) times that iteration time, under the three modes
#   alpha the default and high-bias runs alone, from which the scaling factors are derived
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-out/aries-appaware}
fig=${2:-fig9}
mkdir -p "$out"
flitsim=${FLITSIM:-go run ./cmd/flitsim}
j=${J:-2}
extra=""
if [ -n "${SPREAD:-}" ]; then extra="--spread"; fi
hw="pcie_gbps=128,hiccup=0" # Aries NICs: x16 PCIe Gen3 host interface, no IB-model hiccups
modes="default,ugal-high,app-aware"
net="aries:groups=3,h=1,hcas=384"
size=64
routers=33
case $fig in
alpha) modes="default,ugal-high" ;;
fig8) net="aries:groups=6,h=1,hcas=1536"; size=1024; routers=257 ;;
fig10) net="aries:groups=6,h=1,hcas=1536"; size=256 ;;
esac
placement=random
if [ -n "${COMPACT:-}" ]; then
  net=${net%,hcas=*} # p = 4 HCAs per router, the generator's default for aries
  if [ "$fig" = fig8 ] || [ "$fig" = fig9 ]; then placement="switches:$routers"; fi
fi
files=""
bench() { # name pattern bytes iterations [size]; the collectives run as MPICH runs them (algorithm = "mpich")
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $1 "* ]]; then return; fi
  sed -e "s/@ID@/$1/" -e "s/@PATTERN@/$2/" -e "s/@BYTES@/$3/" -e "s/@ITER@/$4/" -e "s/^size = 64/size = ${5:-$size}/" \
    -e "0,/^placement = .*/s//placement = \"$placement\"/" "$here/bench.toml.in" >"$out/$fig-$1.toml"
  case $2 in allreduce | broadcast | alltoall | barrier)
    sed -i "0,/^iterations = .*/s//&\nalgorithm = \"mpich\"/" "$out/$fig-$1.toml" ;;
  esac
  if [ -n "${RENDEZVOUS:-}" ]; then # MPI's rendezvous over GET from this size (Cray MPICH: 8KiB)
    sed -i "0,/^iterations = .*/s//&\nrendezvous = \"$RENDEZVOUS\"/" "$out/$fig-$1.toml"
  fi
  files="$files${files:+,}$out/$fig-$1.toml"
}
if [ "$fig" = fig10 ]; then
  # The compute-to-communication ratio of each application (docs/validation.md, "Fig. 10 in
  # kind"): compute time per iteration over the iteration's communication time alone.
  ratios="cg=1 milc=2 fft=0.5 fft-64=0.5 bfs=0.33"
  bench cg cg 16KiB 5
  bench milc milc 16KiB 5
  bench fft fft 16KiB 5
  bench fft-64 fft 16KiB 5 64
  bench bfs bfs 16KiB 5
  $flitsim jobs modes "$net" --jobs "$files" --modes default --seeds 3 -j "$j" $extra --hw "$hw" --json >"$out/fig10-comm.json"
  # compute = ratio x the median iteration time alone; OS noise of 1 % of it (exponential mean)
  python3 - "$out" "$ratios" <<'PY'
import json, sys
out, ratios = sys.argv[1], dict(kv.split("=") for kv in sys.argv[2].split())
for s in (s for w in json.load(open(f"{out}/fig10-comm.json"))["workloads"] for s in w["summary"]):
    if s["job"] == "noise":
        continue
    it = s["completion_ns"]["median"] / 5
    c = round(float(ratios[s["job"]]) * it)
    f = f"{out}/fig10-{s['job']}.toml"
    t = open(f).read().replace("iterations = 5\n", f"iterations = 5\ncompute = \"{c}ns\"\ncompute_noise = \"{round(c / 100)}ns\"\n", 1)
    open(f, "w").write(t)
    print(f"{s['job']}: communication alone {it / 1000:.2f} us per iteration, ratio {ratios[s['job']]}, compute {c / 1000:.2f} us")
PY
else
bench pingpong-8B pingpong 8 50
bench pingpong-16KiB pingpong 16KiB 10
bench pingpong-1MiB pingpong 1MiB 2
bench barrier barrier 8 20
bench allreduce-8B allreduce 8 20
bench allreduce-64KiB allreduce 64KiB 2
bench broadcast-8B broadcast 8 20
bench broadcast-1MiB broadcast 1MiB 1
bench alltoall-1KiB alltoall 1KiB 1
bench alltoall-64KiB alltoall 64KiB 1
bench halo3d-64KiB halo3d 64KiB 5
bench sweep3d-16KiB sweep3d 16KiB 2
fi
$flitsim jobs modes "$net" --jobs "$files" --modes "$modes" --seeds "${SEEDS:-10}" --first-seed "${FIRST_SEED:-1}" -j "$j" $extra --hw "$hw" -o "$out/$fig-runs" --plot "$out/$fig.svg" --json >"$out/$fig.json"
python3 "$here/appaware.py" "$out/$fig.json"
