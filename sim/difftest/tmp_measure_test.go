package difftest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/routing/opensm"
	"flitsim/sim"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// TestTmpMeasure: MEASURE="spec|engine|linkpct|faultseed|hw" with hw as k=v;k=v
func TestTmpMeasure(t *testing.T) {
	m := os.Getenv("MEASURE")
	if m == "" {
		t.Skip()
	}
	f := strings.Split(m, "|")
	net, err := fabric.Build(f[0])
	if err != nil {
		t.Fatal(err)
	}
	pct, _ := strconv.ParseFloat(f[2], 64)
	fs, _ := strconv.ParseUint(f[3], 10, 64)
	if pct > 0 {
		net, _, err = faults.Inject(net, faults.Spec{LinkPercent: pct, Seed: fs})
		if err != nil {
			t.Fatal(err)
		}
	}
	vls := 8
	if v := os.Getenv("VLS"); v != "" {
		vls, _ = strconv.Atoi(v)
	}
	tb, err := opensm.Compute(f[1], net, routing.Options{VLs: vls})
	if err != nil {
		t.Fatal(err)
	}
	p := sim.DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Exchange, MessageBytes: 10 * 2048}
	for _, kv := range strings.Split(f[4], ";") {
		k, v, _ := strings.Cut(kv, "=")
		n, _ := strconv.ParseFloat(v, 64)
		switch k {
		case "voq":
			p.HW.VOQ = v == "1"
		case "hdr":
			p.HW.HeaderBytes = int(n)
		case "xbar":
			p.HW.CrossbarGbps = n
		case "lat":
			p.HW.SwitchLatencyPs = int64(n)
		case "pcie":
			p.HW.PCIeGbps = n
		case "ibuf":
			p.HW.InputBufferFlits = int(n)
		case "hic":
			p.HW.HiccupPs = int64(n)
		case "seed":
			p.Seed = uint64(n)
		case "msg":
			p.Traffic.MessageBytes = int(n)
		}
	}
	run := reference.Run
	if os.Getenv("FAST") == "1" {
		run = sim.Run
	}
	st := time.Now()
	r, err := run(net, tb, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RESULT %s : %s %.2f GB/s (%.0f s)", m, r.Verdict, r.ThroughputGBs, time.Since(st).Seconds())
}
