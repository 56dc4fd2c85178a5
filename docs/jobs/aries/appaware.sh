#!/bin/bash
# seeds/004 Figs. 8 and 9 in kind: the microbenchmarks under the default adaptive mode, high bias
# and application-aware routing (issue 50; docs/validation.md). Each benchmark is one job beside
# uniform noise (other users, routed ugal) on aries:groups=3,h=1,hcas=384, one fixed placement,
# ten traffic seeds per mode (flitsim jobs modes). Writes DIR/<fig>.json and DIR/<fig>.svg (the
# paper's box plots) and prints the table with appaware.py.
# Usage: docs/jobs/aries/appaware.sh [DIR] [fig9|fig8|alpha]
#   fig9  (default) 64-node jobs beside noise on 256 nodes, about 10 minutes on two cores
#   fig8  1,024-node jobs on aries:groups=6,h=1,hcas=1536 (beside noise on 256), about an hour
#   alpha the default and high-bias runs alone, from which the scaling factors are derived
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-out/aries-appaware}
fig=${2:-fig9}
mkdir -p "$out"
flitsim=${FLITSIM:-go run ./cmd/flitsim}
hw="pcie_gbps=128,hiccup=0" # Aries NICs: x16 PCIe Gen3 host interface, no IB-model hiccups
modes="default,ugal-high,app-aware"
net="aries:groups=3,h=1,hcas=384"
size=64
case $fig in
alpha) modes="default,ugal-high" ;;
fig8) net="aries:groups=6,h=1,hcas=1536"; size=1024 ;;
esac
files=""
bench() { # name pattern bytes iterations; the collectives run as MPICH runs them (algorithm = "mpich")
  sed -e "s/@ID@/$1/" -e "s/@PATTERN@/$2/" -e "s/@BYTES@/$3/" -e "s/@ITER@/$4/" -e "s/^size = 64/size = $size/" \
    "$here/bench.toml.in" >"$out/$fig-$1.toml"
  case $2 in allreduce | broadcast | alltoall | barrier)
    sed -i "0,/^iterations = .*/s//&\nalgorithm = \"mpich\"/" "$out/$fig-$1.toml" ;;
  esac
  files="$files${files:+,}$out/$fig-$1.toml"
}
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
$flitsim jobs modes "$net" --jobs "$files" --modes "$modes" --seeds 10 -j 2 --hw "$hw" --plot "$out/$fig.svg" --json >"$out/$fig.json"
python3 "$here/appaware.py" "$out/$fig.json"
