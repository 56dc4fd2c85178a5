#!/usr/bin/env bash
# BookSim2 against flitsim on the same work (issue 54): a 16x16 torus, dimension-order
# routing with datelines, uniform traffic at 0.1 flits per cycle per node, 30,290 cycles
# (484.64 us at flitsim's 16 ns flit time), packets of 1, 16 and 33 flits. For each packet
# size it runs BookSim2 and then flitsim, one process at a time, and measures each whole
# process's CPU seconds (user + system) with /usr/bin/time. Prints one Markdown table.
#
#   BOOKSIM=/path/to/booksim FLITSIM=/path/to/flitsim docs/booksim/compare.sh
#
# BookSim2: booksim/booksim2 (built with `make` in src/), configured by torus16-dor.cfg
# next to this script. Its flit-hops are derived from the statistics it prints:
#   accepted packet rate (packets/cycle/node) x nodes x cycles x packet_size x hops average
# where "Hops average" counts router traversals per packet (inter-router channels + 1,
# the ejecting router), over the packets whose tail arrived within the 30,290 cycles.
# flitsim: the "flit_hops" of `flitsim sim --json`, one per link a flit is granted,
# injection and ejection links included (inter-switch channels + 2). Per flit flitsim
# therefore counts one hop more than BookSim2 (10 against 9 on average here); the
# "CPU ratio" line below the table compares the CPU seconds of the same work directly.
set -euo pipefail

: "${BOOKSIM:?set BOOKSIM to the booksim binary}"
: "${FLITSIM:?set FLITSIM to the flitsim binary}"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "compare.sh: $TIME missing (install the 'time' package)" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cfg="$here/torus16-dor.cfg"

K=16            # torus radix (16x16)
N=2             # dimensions
CYCLES=30290    # simulated cycles = flit times
FLIT_NS=16      # flitsim: 64-byte flit at 32 Gbit/s
LOAD=0.1        # flits per cycle per node = fraction of the link rate
NODES=$((K ** N))
MAX_TIME=$(awk -v c="$CYCLES" -v f="$FLIT_NS" 'BEGIN { printf "%.2fus", c * f / 1000 }')

# packet size in flits -> flitsim payload bytes (payload + 26 header bytes, 64-byte flits)
declare -A BYTES=([1]=1 [16]=998 [33]=2048)
SIZES=(1 16 33)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cpu_of() { # the U+S line /usr/bin/time wrote (its last line), summed
	tail -n 1 "$1" | awk -F+ '{ printf "%.2f", $1 + $2 }'
}

rows=()
notes=()
for p in "${SIZES[@]}"; do
	b=${BYTES[$p]}

	# BookSim2. It exits with status 255 after a successful run (src/main.cpp returns
	# -1 when Simulate succeeds), so success is read from its output instead.
	$TIME -f %U+%S -o "$tmp/bs.time" "$BOOKSIM" "$cfg" k=$K n=$N sample_period=$CYCLES \
		packet_size="$p" >"$tmp/bs.out" 2>&1 || true
	if ! grep -q '^Total run time' "$tmp/bs.out"; then
		echo "compare.sh: BookSim2 failed for $p-flit packets:" >&2
		tail -n 20 "$tmp/bs.out" >&2
		exit 1
	fi
	bs_cpu=$(cpu_of "$tmp/bs.time")
	# the overall statistics (the lines ending in "(1 samples)") after the run
	bs_rate=$(awk -F'= ' '/^Accepted packet rate average = .*samples\)/ { split($2, a, " "); v = a[1] } END { print v }' "$tmp/bs.out")
	bs_hops=$(awk -F'= ' '/^Hops average = / { split($2, a, " "); v = a[1] } END { print v }' "$tmp/bs.out")
	bs_taken=$(awk '/^Time taken is/ { v = $4 } END { print v }' "$tmp/bs.out")
	bs_fh=$(awk -v r="$bs_rate" -v n="$NODES" -v c="$CYCLES" -v p="$p" -v h="$bs_hops" \
		'BEGIN { printf "%.0f", r * n * c * p * h }')

	# flitsim. --sim min_samples beyond the run's windows keeps the steady-state rule from
	# ending the run before --max-time (it does not fire here anyway: not_converged).
	# BookSim2's packets are whole flits on its channels; flitsim's default sends a packet's
	# bytes (wire_bytes), which would make a 27-byte packet 6.75 ns long and offer 2.4 times
	# as many 1-flit packets at the same load: whole flits keep the work the same.
	$TIME -f %U+%S -o "$tmp/fs.time" "$FLITSIM" sim torus:dims=${K}x${K} --routing torus-2qos \
		--traffic uniform --load $LOAD --msg-bytes "$b" --max-time "$MAX_TIME" --hw wire_bytes=false \
		--sim min_samples=1073741824 --json >"$tmp/fs.out" 2>"$tmp/fs.err" || {
		echo "compare.sh: flitsim failed for $p-flit packets:" >&2
		cat "$tmp/fs.err" >&2
		exit 1
	}
	fs_cpu=$(cpu_of "$tmp/fs.time")
	fs_fh=$(sed -n 's/^ *"flit_hops": *\([0-9]*\).*/\1/p' "$tmp/fs.out")
	fs_ns=$(sed -n 's/^ *"sim_time_ns": *\([0-9]*\).*/\1/p' "$tmp/fs.out")
	fs_verdict=$(sed -n 's/^ *"verdict": *"\([a-z_]*\)".*/\1/p' "$tmp/fs.out")

	row=$(awk -v p="$p" -v b="$b" -v bf="$bs_fh" -v bc="$bs_cpu" -v ff="$fs_fh" -v fc="$fs_cpu" 'BEGIN {
		bm = bf / bc / 1e6; fm = ff / fc / 1e6
		printf "| %d flit%s (`--msg-bytes %d`) | %.2f M | %.2f | %.3f | %.2f M | %.2f | %.2f | %.0f× |",
			p, (p == 1 ? "" : "s"), b, bf / 1e6, bc, bm, ff / 1e6, fc, fm, fm / bm
	}')
	rows+=("$row")
	notes+=("$(awk -v p="$p" -v bc="$bs_cpu" -v fc="$fs_cpu" -v t="$bs_taken" -v ns="$fs_ns" -v v="$fs_verdict" \
		'BEGIN { printf "- %d flit%s: CPU ratio (same work) %.1f×; BookSim2 ran %d cycles (%d after the sample period, draining); flitsim ran %.2f us (%s)",
			p, (p == 1 ? "" : "s"), bc / fc, t, t - '"$CYCLES"', ns / 1000, v }')")
done

echo "16×16 torus, dimension order with datelines, uniform, $LOAD flits/cycle/node, $CYCLES cycles ($MAX_TIME); CPU seconds (user+system) of each whole process."
echo
echo "| packet | BookSim2 flit-hops | BookSim2 CPU s | BookSim2 M flit-hops/s | flitsim flit-hops | flitsim CPU s | flitsim M flit-hops/s | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
printf '%s\n' "${notes[@]}"
