package ibmodel

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"flitsim/fabric"
)

// Setting is one line of the model's ini file: a key, its value, and
// which flitsim parameter it stands for (or why it has the value it has).
type Setting struct {
	Key, Value, Why string
}

// Params are the model's settings for flitsim's hardware: every parameter
// the model's modules read, derived from hw. What the model cannot
// represent: flitsim's per-flit credit return (the model sends credits in
// flow-control packets every credMinTime), flitsim's reception of a whole
// flit before it moves on (the model delivers a flit at the start of its
// reception), and the hiccup semantics (the model postpones a drain that
// falls into a hiccup, flitsim pauses the bus); docs/model.md measures
// each.
func Params(hw fabric.Hardware, maxBeingSent int) []Setting {
	var s []Setting
	add := func(k, v, why string) { s = append(s, Setting{k, v, why}) }
	pktFlits := hw.PacketFlits(hw.MTU)
	add("**.flitSize", strconv.Itoa(hw.FlitBytes)+"B", "flit_bytes")
	add("**.width", "4", "4X links (the cables' rates are their channels')")
	add("**.maxVL", strconv.Itoa(hw.VLs-1), "vls (VL = SL end to end)")
	// Application and generator: packets of MTU + headers, made and
	// handed to the HCA's arbiter at link rate.
	perByte := 8 / hw.LinkGbps // ns per byte at link rate
	add("**.msgLenMode", `"param"`, "one message size")
	add("**.msgLenSet", `"2048"`, "unused (msgLenMode param)")
	add("**.msgLenProb", `"1"`, "unused")
	add("**.msgSQ", "0", "SL of the released model's messages (the patched one reads dst.sl)")
	add("**.maxContPkts", "10", "release examples")
	add("**.maxQueuedPerVL", "4", "release examples")
	add("**.flit2FlitGap", "0.001ns", "release examples (not read)")
	add("**.pkt2PktGap", "0.001ns", "release examples (not read)")
	add("**.gen.genDlyPerByte", fmtFloat(perByte)+"ns", "link_gbps: flitsim injects at link rate")
	add("**.gen.popDlyPerByte", fmtFloat(perByte)+"ns", "link_gbps")
	// Sink: host bus rate and hiccups.
	add("**.sink.popDlyPerByte", fmtFloat(8/hw.PCIeGbps)+"ns", "pcie_gbps")
	if hw.HiccupPs > 0 {
		add("**.sink.hiccupDuration", fmtUs(hw.HiccupPs), "hiccup")
		add("**.sink.hiccupDelay", fmtUs(hw.HiccupPeriodPs-hw.HiccupPs), "hiccup_period − hiccup")
	} else {
		add("**.sink.hiccupDuration", "0.001us", "hiccup = 0: the release's 'none', 1 ns every 10 ms")
		add("**.sink.hiccupDelay", "10000us", "hiccup = 0")
	}
	add("**.sink.repFirstPackets", "0", "no partial-message latency")
	// Buffers.
	add("**.obuf.credMinTime", "0.256us", "the release's flow-control packet period (flitsim: per-flit credits)")
	add("**SW**.obuf.size", strconv.Itoa(hw.OutputBufferFlits), "output_buffer_flits")
	add("**H_**.obuf.size", strconv.Itoa(max(36, pktFlits+3)), "the release's 36 (an HCA's output buffer must hold a packet)")
	add("**SW**.ibuf.maxStatic*", strconv.Itoa(hw.InputBufferFlits), "input_buffer_flits")
	add("**H_**.ibuf.maxStatic*", strconv.Itoa(hw.HCABufferFlits), "hca_buffer_flits")
	add("**.ibuf.totalBufferSize", strconv.Itoa(8*max(hw.InputBufferFlits, hw.HCABufferFlits)), "at least the VLs' buffers")
	add("**.ibuf.lossyMode", "false", "lossless")
	mbs, why := 1000, "unbounded, as flitsim"
	if maxBeingSent > 0 {
		mbs, why = maxBeingSent, "the release examples' bound"
	}
	add("**.ibuf.maxBeingSent", strconv.Itoa(mbs), why)
	// Switch: the whole switch latency before the arbiter (a VSWDelay
	// with a fast crossbar overfills the output buffer, the release's BUGS).
	add("**.ISWDelay", fmtNs(hw.SwitchLatencyPs), "switch_latency")
	add("**.VSWDelay", "0ns", "switch_latency is all in ISWDelay")
	add("**.pktFwdType", `"Pktfwd"`, "destination tables")
	add("**.pktfwd.AdaptMode", `"none"`, "no adaptive routing")
	// Arbiters: the switch crossbar at crossbar_gbps, the HCA's at link
	// rate; every VL an equal share of one packet a turn.
	width, freq := 24, hw.CrossbarGbps*1e9/(24*8)
	for freq > 2e9 { // coreFreq is an int parameter
		width *= 2
		freq /= 2
	}
	add("**SW**.vlarb.busWidth", strconv.Itoa(width)+"B", "crossbar_gbps = busWidth × coreFreq")
	add("**SW**.vlarb.coreFreq", strconv.FormatInt(int64(freq+0.5), 10)+"Hz", "crossbar_gbps")
	add("**H_**.vlarb.busWidth", "16B", "the release's HCA bus")
	add("**H_**.vlarb.coreFreq", strconv.FormatInt(int64(hw.LinkGbps*1e9/128+0.5), 10)+"Hz", "link_gbps: the HCA arbiter at link rate")
	add("**.vlarb.width", "4", "4X")
	var tbl []string
	w := min(255, pktFlits-1) // ⌊w/p⌋+1 = one packet per turn
	for vl := 0; vl < min(hw.VLs, 8); vl++ {
		tbl = append(tbl, fmt.Sprintf("%d:%d", vl, w))
	}
	add("**.vlarb.highVLArbEntries", strconv.Quote(strings.Join(tbl, " ")), "fair share, one packet per VL a turn (flitsim)")
	add("**.vlarb.lowVLArbEntries", strconv.Quote(strings.Join(tbl, " ")), "fair share")
	add("**.vlarb.vlHighLimit", "16", "the release's (both tables are equal)")
	add("**.vlarb.useFCFSRQArb", "false", "round robin over inputs")
	return s
}

// writeINI writes run.ini: the run's traffic and files, then Params;
// flits are the flits a finite traffic sends in all.
func writeINI(w io.Writer, in Inputs, seqs []sequence, dir string, flits int64) error {
	hw := in.HW
	p := func(format string, v ...any) { fmt.Fprintf(w, format+"\n", v...) }
	p("[General]")
	for _, s := range in.Set {
		p("%s", s)
	}
	p("network = %s", Network)
	p("sim-time-limit = %s", fmtNs(in.SimTimePs))
	p("seed-set = %d", in.ModelSeed)
	p("cmdenv-express-mode = true")
	p("cmdenv-status-frequency = 10s")
	p("print-undisposed = false")
	p("**.vector-recording = false")
	p("**.scalar-recording = true")
	p("**.startStatCol = %s", fmtNs(in.StatStartPs))
	if in.EndWhenDone && flits > 0 {
		p("**.sink.endAfterFlits = %d", flits)
	}
	// Messages: whole packets of MTU payload plus headers, the model's
	// packets having no headers of their own.
	pkt := hw.MTU + hw.HeaderBytes
	msg := in.Traffic.MessageBytes
	if msg < hw.MTU {
		pkt = msg + hw.HeaderBytes
	}
	p("**.msgMtuLen = %dB", pkt)
	p("**.msgLength = %dB", packetsPerMessage(msg, hw.MTU)*pkt)
	p("**.msg2msgGap = %s", gap(in))
	for i, s := range seqs {
		p("**.H_%d.app.dstMode = %q", i, s.mode)
		p("**.H_%d.app.dstSeqVecIdx = %d", i, i)
		if s.mode == "param" {
			p("**.H_%d.app.dstLid = 0", i) // silent
		}
		if in.Patched {
			p("**.H_%d.app.dstSLVecIdx = %d", i, i)
			if in.Phases != nil {
				p("**.H_%d.sink.hiccupFirst = %s", i, fmtUs(in.Phases[i]))
			}
		}
	}
	p("**.app.dstLid = 0")
	p("**.app.dstSeqVecFile = %q", filepath.Join(dir, "dst.seq"))
	if in.Patched {
		p("**.app.dstSLVecFile = %q", filepath.Join(dir, "dst.sl"))
	}
	p("**.pktfwd.fdbsVecFile = %q", filepath.Join(dir, Network+".fdbs"))
	for s := 0; s < in.Net.NumSwitches; s++ {
		p("**.SW_%d.pktfwd.fdbIndex = %d", s, s)
	}
	for _, s := range Params(hw, in.MaxBeingSent) {
		p("%s = %s", s.Key, s.Value)
	}
	return nil
}

// gap is the model's msg2msgGap: none at load 1; below, one flit time
// (the gap starts when the generator has made the last flit, one flit
// before it has left) plus an exponential, so that the model's mean
// message period is flitsim's: the message's wire time in flitsim over
// the load. The model's own wire time is whole flits (ModelBytes), so
// with wire bytes the exponential's mean is flitsim's period less the
// model's busy time (none when that is negative: the model saturates).
func gap(in Inputs) string {
	l := in.Traffic.Load
	if l == 0 || l >= 1 {
		return "0ns"
	}
	hw := in.HW
	m := in.Traffic.MessageBytes
	pk := int64(packetsPerMessage(m, hw.MTU))
	period := float64(pk*hw.PacketPs(min(m, hw.MTU), hw.FlitPs())) / l
	busy := float64(int64(ModelBytes(hw, m)/hw.FlitBytes) * hw.FlitPs())
	mean := max(0, period-busy)
	return fmt.Sprintf("%sns + exponential(%sns)", fmtFloat(float64(hw.FlitPs())/1000), strconv.FormatFloat(mean/1000, 'f', 6, 64))
}

// ModelBytes is how many bytes the model's sinks count for one message of
// msgBytes payload: every packet (MTU payload plus headers) rounded up to
// whole flits, each flit counted at its full size (gen.cc makes every flit
// flitSize bytes long; sink.cc adds each flit's length to the bytes
// behind Sink-BW-MBps). The model has no shorter last flit, whatever
// flitsim's wire_bytes.
func ModelBytes(hw fabric.Hardware, msgBytes int) int {
	return packetsPerMessage(msgBytes, hw.MTU) * hw.PacketFlits(min(msgBytes, hw.MTU)) * hw.FlitBytes
}

// PayloadShare is the share of the model's counted bytes (ModelBytes)
// that is payload: Sink-BW-MBps times it is the model's payload rate, the
// quantity flitsim reports.
func PayloadShare(hw fabric.Hardware, msgBytes int) float64 {
	return float64(packetsPerMessage(msgBytes, hw.MTU)*min(msgBytes, hw.MTU)) / float64(ModelBytes(hw, msgBytes))
}
