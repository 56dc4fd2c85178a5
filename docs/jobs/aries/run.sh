#!/bin/bash
# seeds/004 Figs. 7 and 9 in kind on aries:groups=3,h=1,hcas=384 (issue 16 item 5; docs/validation.md).
# Writes one JSON result per run into DIR (default out/aries) and prints the tables with summarize.py.
# About 13 minutes on one core. Usage: docs/jobs/aries/run.sh [DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-out/aries}
mkdir -p "$out"
flitsim=${FLITSIM:-go run ./cmd/flitsim}
net="aries:groups=3,h=1,hcas=384"
hw="pcie_gbps=128,hiccup=0" # Aries NICs: x16 PCIe Gen3 host interface, no IB-model hiccups
aries="link_gbps=80,rank1_gbps=42,rank2_gbps=42,rank3_gbps=37.6" # Aries tiles and NIC (validation.md)
run() { # file mode seed name [extra hardware]
  $flitsim sim "$net" --routing "$2" --jobs "$1" --jobs-seed "$3" --traffic-seed "$3" --counters --no-slowdown --hw "$hw${5:+,$5}" --json >"$out/$4-$3-$2.json"
}
# Fig. 7: the two ping-pongs beside noise at load 0.6 and 0.8, five seeds.
for load in 0.6 0.8; do
  sed "s/^load = 0.6.*/load = $load/" "$here/pingpong-groups.toml" >"$out/f7-$load.toml"
  for seed in 1 2 3 4 5; do for mode in ugal ugal-high; do run "$out/f7-$load.toml" $mode $seed "out7-$load"; done; done
done
# Fig. 7 with Aries' link rates beside light noise (load 0.1 and 0.2), ten seeds: the runs
# that reproduce the inter-group half (high bias faster, lower latency, no stalls either way).
for load in 0.1 0.2; do
  sed "s/^load = 0.6.*/load = $load/" "$here/pingpong-groups.toml" >"$out/f7a-$load.toml"
  for seed in 1 2 3 4 5 6 7 8 9 10; do for mode in ugal ugal-high; do run "$out/f7a-$load.toml" $mode $seed "out7-aries-$load" "$aries"; done; done
done
# Fig. 9: one 64-node job beside noise on 256 nodes, ten seeds; the default mode is ugal
# (ADAPTIVE_0), ugal-imb (ADAPTIVE_1) for all-to-all as on Aries.
bench() { # name pattern bytes iterations
  sed -e "s/@ID@/$1/" -e "s/@PATTERN@/$2/" -e "s/@BYTES@/$3/" -e "s/@ITER@/$4/" "$here/bench.toml.in" >"$out/b-$1.toml"
  def=ugal
  case $2 in exchange) def=ugal-imb ;; esac
  for seed in 1 2 3 4 5 6 7 8 9 10; do for mode in $def ugal-high; do run "$out/b-$1.toml" $mode $seed "out9-$1"; done; done
}
bench pingpong-8B pingpong 8 50
bench pingpong-1MiB pingpong 1MiB 2
bench barrier-8B barrier 8 20
bench broadcast-8B broadcast 8 20
bench broadcast-1MiB broadcast 1MiB 1
bench alltoall-1KiB exchange 1KiB 1
bench alltoall-64KiB exchange 64KiB 1
bench halo-64KiB halo 64KiB 5
python3 "$here/summarize.py" "$out/out7-*.json"
python3 "$here/summarize.py" "$out/out9-*.json"
