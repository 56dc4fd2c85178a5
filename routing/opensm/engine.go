package opensm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"flitsim/fabric"
	"flitsim/routing"
)

// Prefix marks a routing engine name as OpenSM's: "opensm:dfsssp".
const Prefix = "opensm:"

// engines maps flitsim's engine names to OpenSM's -R names.
var engines = []struct{ flitsim, osm string }{
	{"dfsssp", "dfsssp"}, {"dnup", "dnup"}, {"dor", "dor"}, {"file", "file"}, {"ftree", "ftree"}, {"lash", "lash"},
	{"minhop", "minhop"}, {"nue", "nue"}, {"sssp", "sssp"}, {"torus-2qos", "torus-2QoS"}, {"updn", "updn"},
}

// Engines lists the OpenSM engines flitsim can run ("opensm:…" names
// without the prefix), sorted.
func Engines() []string {
	var n []string
	for _, e := range engines {
		if e.flitsim != "file" {
			n = append(n, e.flitsim)
		}
	}
	return n
}

func osmName(engine string) (string, bool) {
	for _, e := range engines {
		if strings.EqualFold(e.flitsim, engine) || strings.EqualFold(e.osm, engine) {
			return e.osm, true
		}
	}
	return "", false
}

// Params lists the flitsim options OpenSM's engine (a name of Engines)
// reads: roots for Up*/Down* (a root GUID file), vls for the engines that
// layer paths onto VLs.
func Params(engine string) []string {
	name, _ := osmName(engine)
	var ps []string
	if rootEngines[name] {
		ps = append(ps, "roots")
	}
	if qosEngines[name] {
		ps = append(ps, "vls")
	}
	return ps
}

var (
	reVLsNeeded  = regexp.MustCompile(`(?:Virtual Lanes|Lanes) needed: (\d+)`)
	reNotEnough  = regexp.MustCompile(`needed=(\d+)`)
	rootEngines  = map[string]bool{"updn": true}
	qosEngines   = map[string]bool{"dfsssp": true, "lash": true, "nue": true, "torus-2QoS": true}
	layerEngines = map[string]bool{"dfsssp": true, "lash": true, "nue": true, "torus-2QoS": true}
)

// Route runs OpenSM's engine on net and returns its forwarding tables.
//
// OpenSM writes no per-path SL dump, so for the engines that layer paths
// (dfsssp, lash, nue, torus-2QoS) flitsim computes a deadlock-free VL
// layering of OpenSM's LFTs with its own cycle breaking (noted in the
// tables); VLsNeeded reports OpenSM's own count where its log gives one.
// Up*/Down* gets flitsim's automatic roots (or the given ones) as a root
// GUID file, so both engines start from the same roots; torus-2QoS gets a
// torus configuration built from the generated dimensions.
func Route(ctx context.Context, net *fabric.Network, engine string, o routing.Options) (*routing.Tables, error) {
	t, _, err := route(ctx, net, engine, o, false)
	return t, err
}

// RouteTimed is Route that also returns OpenSM's own engine time in ms
// (Result.EngineMS; -1 unknown). DFSSSP and Nue report their VLs only at
// debug level, whose output slows their engines down, so for those a
// second sweep without it is timed.
func RouteTimed(ctx context.Context, net *fabric.Network, engine string, o routing.Options) (*routing.Tables, float64, error) {
	return route(ctx, net, engine, o, true)
}

func route(ctx context.Context, net *fabric.Network, engine string, o routing.Options, timed bool) (*routing.Tables, float64, error) {
	name, ok := osmName(engine)
	if !ok || name == "file" {
		return nil, -1, fmt.Errorf("unknown OpenSM engine %q (known: %s)", engine, strings.Join(Engines(), ", "))
	}
	if o.VLs == 0 {
		o.VLs = routing.DefaultOptions().VLs
	}
	dir, err := os.MkdirTemp("", "flitsim-osmcfg-")
	if err != nil {
		return nil, -1, err
	}
	defer os.RemoveAll(dir)
	var args []string
	if qosEngines[name] {
		args = append(args, "-Q")
	}
	if name == "nue" {
		args = append(args, "--nue_max_num_vls", strconv.Itoa(o.VLs))
	}
	if rootEngines[name] {
		roots, err := rootIndices(net, o.Roots)
		if err != nil {
			return nil, -1, err
		}
		var b bytes.Buffer
		for _, r := range roots {
			fmt.Fprintf(&b, "0x%016x\n", net.Nodes[r].GUID)
		}
		path := filepath.Join(dir, "roots")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return nil, -1, err
		}
		args = append(args, "-a", path)
	}
	if name == "torus-2QoS" {
		conf, err := torusConfig(net)
		if err != nil {
			return nil, -1, &routing.Failure{Engine: Prefix + engine, Reason: err.Error()}
		}
		path := filepath.Join(dir, "torus-2QoS.conf")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			return nil, -1, err
		}
		args = append(args, "--torus_config", path)
	}
	// DFSSSP and Nue report their VL choice only at debug level.
	debug := name == "dfsssp" || name == "nue"
	res, err := Run(ctx, net, Config{Engine: name, Args: args, Debug: debug})
	var needed int
	engineMS := float64(-1)
	if res != nil {
		engineMS = res.EngineMS
		if m := reVLsNeeded.FindAllStringSubmatch(res.Log, -1); m != nil {
			needed, _ = strconv.Atoi(m[len(m)-1][1])
		}
		if m := reNotEnough.FindStringSubmatch(res.Log); m != nil {
			needed, _ = strconv.Atoi(m[1])
		}
	}
	if err != nil {
		var f *routing.Failure
		if errors.As(err, &f) {
			f.VLsNeeded = needed
		}
		return nil, engineMS, err
	}
	if timed && debug {
		if r2, err := Run(ctx, net, Config{Engine: name, Args: args}); err == nil {
			engineMS = r2.EngineMS
		}
	}
	t := res.Tables
	t.Engine = Prefix + strings.ToLower(engine)
	if layerEngines[name] {
		switch {
		case len(res.PathVLs) > 0:
			moved, total := applyPathVLs(net, t, res.PathVLs)
			t.SLSource = routing.SLsFromLog
			t.Notes = append(t.Notes, fmt.Sprintf("VLs: OpenSM's own, from DFSSSP's debug log; HCAs on one switch share the VL most of them got (%d of %d HCA paths moved)", moved, total))
		case len(res.DestVLs) > 0:
			applyDestVLs(net, t, res.DestVLs)
			t.SLSource = routing.SLsFromLog
			t.Notes = append(t.Notes, "VLs: OpenSM's own, from Nue's destination distribution in its log")
		default:
			if err := routing.AssignLayers(net, t, o.VLs); err != nil {
				return nil, -1, err
			}
			t.SLSource = routing.SLsByFlitsim
			t.Notes = append(t.Notes, fmt.Sprintf("VLs: flitsim's cycle breaking of OpenSM's LFTs (needs %d); OpenSM does not report its %s's SLs", t.VLsNeeded, name))
		}
	}
	if needed > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("OpenSM's log: %d VLs needed", needed))
		t.VLsNeeded = needed
	}
	return t, engineMS, nil
}

// applyPathVLs sets the SL of every (source switch, destination HCA) path
// from OpenSM's per-LID-pair VLs. flitsim's tables keep one SL per source
// switch, so HCAs on one switch take the VL most of them got (ties: the
// lowest). That stays deadlock-free: the shared route's dependencies are
// already in that VL's acyclic graph (put there by the HCAs OpenSM placed
// on it), and an HCA's injection channel cannot close a cycle. It returns
// how many HCA paths changed VL, of how many.
func applyPathVLs(net *fabric.Network, t *routing.Tables, vls map[[2]uint16]uint8) (moved, total int) {
	used := map[uint8]bool{0: true}
	var votes [256]int
	for s := 0; s < net.NumSwitches; s++ {
		hcas := net.HCAsOf(s)
		if len(hcas) == 0 {
			continue
		}
		for d := net.NumSwitches; d < len(net.Nodes); d++ {
			dst := net.Nodes[d].LID
			clear(votes[:])
			n := 0
			for _, h := range hcas {
				if h == d {
					continue
				}
				if vl, ok := vls[[2]uint16{net.Nodes[h].LID, dst}]; ok {
					votes[vl]++
					n++
				}
			}
			if n == 0 {
				continue
			}
			best := 0
			for v := range votes {
				if votes[v] > votes[best] {
					best = v
				}
			}
			t.SetSL(s, dst, uint8(best))
			used[uint8(best)] = true
			moved += n - votes[best]
			total += n
		}
	}
	t.VLsUsed = maxVL(used) + 1
	return moved, total
}

// applyDestVLs sets the SL of every path to a destination to the VL Nue
// routed that destination on.
func applyDestVLs(net *fabric.Network, t *routing.Tables, vls map[uint16]uint8) {
	used := map[uint8]bool{0: true}
	for d := net.NumSwitches; d < len(net.Nodes); d++ {
		vl, ok := vls[net.Nodes[d].LID]
		if !ok {
			continue
		}
		used[vl] = true
		for s := 0; s < net.NumSwitches; s++ {
			t.SetSL(s, net.Nodes[d].LID, vl)
		}
	}
	t.VLsUsed = maxVL(used) + 1
	t.VLsNeeded = t.VLsUsed
}

func maxVL(used map[uint8]bool) int {
	m := 0
	for v := range used {
		m = max(m, int(v))
	}
	return m
}

func rootIndices(net *fabric.Network, names []string) ([]int, error) {
	if len(names) == 0 {
		return routing.AutoRoots(net, false), nil
	}
	return routing.ResolveRoots(net, names)
}

// torusConfig writes a torus-2QoS.conf for a generated 2D/3D mesh or torus:
// radix and mesh/torus per dimension, and seed links from the switch at
// the origin (both directions, as radix-4 rings require).
func torusConfig(net *fabric.Network) (string, error) {
	if net.Dims == nil || len(net.Dims) < 1 || len(net.Dims) > 3 {
		return "", fmt.Errorf("torus-2QoS needs a generated 1-3 dimensional mesh or torus")
	}
	var b strings.Builder
	b.WriteString("torus")
	dims := append([]int(nil), net.Dims...)
	for len(dims) < 3 {
		dims = append(dims, 1)
	}
	for k, d := range dims {
		suffix := "m"
		if k < len(net.Wrap) && net.Wrap[k] {
			suffix = "t"
		}
		if d == 1 {
			suffix = ""
		}
		fmt.Fprintf(&b, " %d%s", d, suffix)
	}
	b.WriteString("\n")
	at := map[string]int{}
	for s := 0; s < net.NumSwitches; s++ {
		at[fmt.Sprint(net.Nodes[s].Coord)] = s
	}
	origin := make([]int, len(net.Dims))
	o, ok := at[fmt.Sprint(origin)]
	if !ok {
		return "", fmt.Errorf("the switch at the origin failed; torus-2QoS needs it to seed the topology")
	}
	for k, d := range net.Dims {
		if d < 2 {
			continue
		}
		for _, dir := range []struct {
			name string
			step int
		}{{"p", 1}, {"m", -1}} {
			if dir.step < 0 && !(k < len(net.Wrap) && net.Wrap[k]) {
				continue
			}
			c := append([]int(nil), origin...)
			c[k] = (c[k] + dir.step + d) % d
			n, ok := at[fmt.Sprint(c)]
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "%c%s_link 0x%016x 0x%016x\n", "xyz"[k], dir.name, net.Nodes[o].GUID, net.Nodes[n].GUID)
		}
	}
	return b.String(), nil
}
