package routing

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"flitsim/fabric"
	"flitsim/fabric/param"
)

// Options are the parameters every engine receives. Each one a user sets
// declares itself once, here (package param): its key in a campaign's
// [[routing]] tables, its flag of route and sim, its range, default,
// help, and how it names a routing entry (label). Decoding, flags,
// `flitsim params`, checks and labels all read these declarations
// (OptionDecls); an engine lists the keys it reads (Engine.Params).
type Options struct {
	// VLs is the number of virtual lanes available (0: the hardware's
	// default, fabric.DefaultHardware().VLs).
	VLs int `param:"vls" range:"[1,16]" unset:"hardware.vls" label:"-{}vl" help:"virtual lanes available (layers, for nue: any k ≥ 1)"`
	// Roots names root switches (fabric.Resolver references) for engines that
	// use them; empty lets the engine choose.
	Roots []string `param:"roots" unset:"auto" help:"root switches, each a node name, 0x node or port GUID, or lid:N (auto: the switches nearest to every HCA)"`
	// Storage names the storage HCAs (fabric.Resolver references), which
	// scheduling-aware routing routes in a pass of their own (Alg. 5.1
	// lines 11-13; the terminal role DFSSSP's OpenSM code calls storage).
	Storage []string `param:"storage" unset:"none" help:"sar: the storage HCAs (node names, 0x GUIDs, lid:N), routed after the jobs' HCAs in a pass of their own with fresh channel weights (Alg. 5.1 lines 11-13)"`
	// File is the LFT dump the "file" engine loads.
	File string `param:"file" kind:"path" flag:"lfts" help:"the LFT dump the file engine loads (OpenSM's opensm-lfts.dump, or dump_lfts/ibroute output)"`
	// PathVLs keeps a packet on VL = its SL over its whole path instead of
	// mapping the SL per hop with the switches' SL-to-VL tables (only
	// torus-2qos maps per hop). The Mellanox OMNeT++ model the thesis
	// simulated with has no SL-to-VL tables: a packet's VL is chosen at its
	// source and kept (docs/ib-model-reading.md §6).
	PathVLs bool `param:"path_vls" default:"false" label:"-path-vls" help:"true: a packet keeps VL = its SL (dateline bits) over its whole path, as in the Mellanox OMNeT++ model the thesis used, which has no SL-to-VL tables; false: the switches' SL-to-VL tables set the VL per hop, as OpenSM programs them"`
	// NoRelieve leaves out Nue's last step, relieve (key relieve = false):
	// Nue's paths as the thesis' algorithm chooses them. The zero value
	// relieves.
	NoRelieve bool `param:"relieve" negate:"true" default:"true" label:"-no-relieve" help:"nue: after routing, move single switches off the busiest channel while that lowers it (flitsim's addition; false: the thesis' Nue)"`
	// Break is DFSSSP's cycle-breaking heuristic (seeds/000 §IV).
	Break string `param:"break" unset:"weakest" label:"-{}" help:"dfsssp: which edge of a channel dependency cycle moves its paths to the next layer (seeds/000 §IV): weakest (fewest HCA pairs, the paper's and OpenSM's choice), strongest (most), first (the first edge the search found: the paper's pseudo-random heuristic), online (no cycle breaking: each path into the first layer that stays acyclic, the paper's online variant)"`
	// Asymmetric layers each direction of a switch pair on its own (key
	// symmetric = false); the zero value puts both on one layer, as
	// OpenSM's LASH does, and then evens the layers out as OpenSM does.
	Asymmetric bool `param:"symmetric" negate:"true" default:"true" label:"-asymmetric" help:"lash: both directions of a switch pair on one layer, one SL for the pair, as OpenSM's LASH places them (osm_ucast_lash.c; it also gives both sides of a connection the same SL; OpenSM then evens out its layers, moving random pairs from the fullest to the emptiest, as flitsim does with its seed); false: each direction in the first layer that takes it (usually fewer layers), no evening out"`
	// Spread lets the adaptive engines' packets take any shortest way inside
	// a group, picked by a hash of the packet, instead of the lowest port.
	Spread bool `param:"spread" default:"false" label:"-spread" help:"adaptive engines: a hop inside a group takes any port on a shortest way (parallel cables, both orders of a two-hop way), picked by a hash of the packet as on Aries; false: the lowest port"`
	// MinGain is angara-genetic's second stopping rule (angara.GeneticOptions.MinGain).
	MinGain float64 `param:"min_gain" range:"[0,1]" default:"0" label:"-gain{}" help:"angara-genetic: also stop at the first generation that improves the best fitness by less than this fraction of it (the paper's second rule, read as a relative gain; 0: only after 30 generations without gain)"`
	// Seed seeds the engines that draw random numbers (angara-genetic);
	// 0 is read as 1.
	Seed uint64 `param:"seed" range:"[0,9007199254740992]" default:"1" flag:"routing-seed" label:"-seed{}" help:"seed of an engine that draws random numbers (angara-genetic's population, lash's evening out of its layers)"`
	// Jobs is the job-to-HCA map the scheduling-aware engine (sar) routes
	// for: each job's HCAs by ordinal (0..NumHCAs−1, HCAs in node order,
	// as traffic numbers terminals). Other engines ignore it. It is no
	// key: a campaign's [[job]] tables or route --jobs give it.
	Jobs [][]int
}

// DefaultOptions returns the declared defaults with the default
// hardware's VLs and automatic roots.
func DefaultOptions() Options {
	o := Options{VLs: fabric.DefaultHardware().VLs}
	param.Defaults(&o)
	return o
}

// OptionDecls returns the declarations of Options, in field order.
func OptionDecls() []param.Decl { return param.Of(&Options{}) }

// Engine is one routing algorithm.
type Engine struct {
	Name string
	Help string
	// Params lists the keys of the options the engine reads
	// (OptionDecls).
	Params []string
	// JobAware: the engine routes for the running jobs (Options.Jobs).
	JobAware bool
	// DeadlockFree says whether the engine guarantees acyclic per-VL CDGs
	// when it succeeds (verification checks either way).
	DeadlockFree bool
	// RingCycles says whether the engine's dependency cycles always lie
	// within torus rings, so that bubble flow control (hardware
	// bubble_vls) makes its routes deadlock-free (the Angara engines).
	RingCycles bool
	// OpenSM: the engine runs the opensm binary (package routing/opensm,
	// registered by routing/engines).
	OpenSM bool
	// External routes an engine that lives outside this package (OpenSM's);
	// nil for flitsim's own.
	External func(net *fabric.Network, o Options) (*Tables, error)
	route    func(g *graph, o Options) (*Tables, error)
}

// Takes reports an error when the engine does not read option key.
func (e Engine) Takes(key string) error {
	for _, p := range e.Params {
		if p == key {
			return nil
		}
	}
	has := "none"
	if len(e.Params) > 0 {
		has = strings.Join(e.Params, ", ")
	}
	return fmt.Errorf("routing engine %s reads no %s (its parameters: %s)", e.Name, key, has)
}

// The option keys engines read (Options' declarations).
const (
	paramVLs     = "vls"
	paramRoots   = "roots"
	paramRelieve = "relieve"
	paramPath    = "path_vls"
	paramFile    = "file"
	paramSeed    = "seed"
	paramSpread  = "spread"
	paramStorage = "storage"
	paramBreak   = "break"
	paramSym     = "symmetric"
	paramGain    = "min_gain"
)

// Engines returns every routing engine, sorted by name: the registry, an
// explicit table like OpenSM's routing_modules[]. Each engine lives in its
// own file (minhop.go, sssp.go, dfsssp.go, updn.go, file.go, ftree.go,
// dor.go, torus2qos.go, nue.go, lash.go); engine.go runs them.
func Engines() []Engine { return slices.Clone(engineTable) }

// engineTable is the registry, built once (read only: Engines hands out
// copies, Lookup copies an entry).
var engineTable = buildEngines()

// buildEngines makes the registry, sorted by name.
func buildEngines() []Engine {
	e := []Engine{
		{Name: "minhop", Help: "shortest paths; each switch balances destinations over its equal-hop ports by how many it has routed (OpenSM's default)",
			route: routeMinHop},
		{Name: "sssp", Help: "single-source shortest paths with global balancing (Alg. 3.1): per destination a Dijkstra on channel weights, then every channel's weight grows by the paths it carries",
			route: routeSSSP},
		{Name: "dfsssp", Help: "deadlock-free SSSP: SSSP paths split into virtual layers by breaking the weakest edge of every CDG cycle (seeds/000 §IV), then balanced over the unused layers",
			Params: []string{paramVLs, paramBreak}, DeadlockFree: true, route: routeDFSSSP},
		{Name: "updn", Help: "Up*/Down*: BFS ranks from the roots; a path never turns from a down channel to an up channel; min-hop among legal paths with port balancing",
			Params: []string{paramRoots}, DeadlockFree: true, route: routeUpDn},
		{Name: "dnup", Help: "Down*/Up*: as Up*/Down* with the directions swapped (never an up→down turn)",
			Params: []string{paramRoots}, DeadlockFree: true, route: routeDnUp},
		{Name: "file", Help: "load the LFTs of an OpenSM dump (opensm-lfts.dump or dump_lfts/ibroute output), switches matched by GUID; all paths on SL 0",
			Params: []string{paramFile}, route: routeFile},
		{Name: "ftree", Help: "fat-tree routing (Zahavi, Alg. 3.2-3.4): destinations leaf by leaf, down-going paths chosen on the least loaded ports while ascending, secondary paths through the other parents, everything else routed up; routes trees that lost cables or switches (switches cut off from the main path go up the least loaded parent that routes the destination); fails on networks that are not fat trees. Deadlock-free on one VL; with vls > 1 the paths are dealt over the VLs as DFSSSP balances its layers (vls = 1 keeps OpenSM's single VL)",
			Params: []string{paramRoots, paramVLs}, DeadlockFree: true, route: routeFatTree},
		{Name: "dor", Help: "dimension-order routing as OpenSM does it: shortest paths taking the lowest port (ports in dimension order), balancing parallel cables; deadlock-free on meshes only",
			route: routeDOR},
		{Name: "torus-2qos", Help: "Torus-2QoS-style routing for generated 1-3D meshes and tori: dimension order with datelines (SL bit per dimension, VL = that bit on each hop), rerouting the other way round a ring with one failed link, and around a failed switch locally, the detoured paths layered onto extra VLs; fails on two failures in a ring",
			Params: []string{paramVLs, paramPath}, DeadlockFree: true, route: routeTorus2QoS},
		{Name: "nue", Help: "Nue (ch. 6): routing on the complete channel dependency graph with exactly vls layers; deadlock-free on any connected topology, falling back to spanning-tree escape paths where a destination cannot be routed otherwise; then relieve lowers the busiest channel",
			Params: []string{paramVLs, paramRelieve}, DeadlockFree: true, route: routeNue},
		{Name: "sar", Help: "scheduling-aware routing (Alg. 5.1): DFSSSP routing the HCAs of the running jobs first, the largest job first, with channel weights raised only by intra-job paths; then the storage HCAs (storage) with fresh weights; then the other HCAs as DFSSSP; layered as DFSSSP (no jobs: DFSSSP)",
			Params: []string{paramVLs, paramStorage}, JobAware: true, DeadlockFree: true, route: routeSAR},
		{Name: "lash", Help: "layered shortest paths (Alg. 3.5): one shortest path per switch pair, each pair's two paths put together in the first virtual layer whose CDG stays acyclic, then the layers evened out (OpenSM's LASH; symmetric = false: each direction on its own, as placed)",
			Params: []string{paramVLs, paramSym, paramSeed}, DeadlockFree: true, route: routeLASH},
	}
	for _, m := range []Mode{ModeMin, ModeValiant, ModeUGAL, ModeUGALImb, ModeUGALLow, ModeUGALHigh, ModeAppAware, ModeInOrder, ModeMinHash, ModeNMinHash} {
		e = append(e, Engine{Name: m.String(), Help: adaptiveHelp[m], Params: []string{paramVLs, paramSpread}, DeadlockFree: true, route: routeAdaptive(m)})
	}
	for i, a := range angaraEngines {
		e = append(e, Engine{Name: a.name, Help: a.help, Params: a.params, RingCycles: true, route: routeAngara(i)})
	}
	sort.Slice(e, func(i, j int) bool { return e[i].Name < e[j].Name })
	return e
}

// adaptiveHelp describes the adaptive engines (group topologies only).
var adaptiveHelp = map[Mode]string{
	ModeMin:      "per-packet minimal routing on a dragonfly, cascade or aries: the less occupied of two minimal candidates (random global cables); VL = hops taken",
	ModeValiant:  "per-packet Valiant routing on a group topology: every packet through a random intermediate group; VL = hops taken",
	ModeUGAL:     "per-packet UGAL on a group topology (Aries ADAPTIVE_0): two minimal and two non-minimal candidates, the lowest occupancy × hops, no bias",
	ModeUGALImb:  "UGAL with increasingly minimal bias (Aries ADAPTIVE_1): as ugal at the source switch, then at every further switch of the source group a non-minimal route gives way to a cheaper minimal one, its bias growing per hop (sim key ugal_bias_step)",
	ModeUGALLow:  "UGAL with a low bias on non-minimal candidates (Aries ADAPTIVE_2; sim key ugal_bias_low)",
	ModeUGALHigh: "UGAL with a high bias on non-minimal candidates (Aries ADAPTIVE_3; sim key ugal_bias_high)",
	ModeInOrder:  "deterministic in-order routing on a group topology (Aries IN_ORDER): every packet of a source-destination pair on one minimal path, its global cable hashed from the pair",
	ModeMinHash:  "deterministic minimal routing on a group topology (Aries MIN_HASH): each packet on a minimal path whose global cable is hashed from the pair and the packet's number",
	ModeNMinHash: "deterministic non-minimal routing on a group topology (Aries NMIN_HASH): each packet through an intermediate group, group and cables hashed from the pair and the packet's number",
	ModeAppAware: "application-aware routing (seeds/004 Algorithm 1): each rank sends each message with ugal (ugal-imb for all-to-all) or ugal-high, as its NIC's latency and stall counters predict the message's time (sim keys appaware_*)",
}

// Lookup finds an engine by name.
func Lookup(name string) (Engine, bool) {
	for _, e := range engineTable {
		if e.Name == name {
			return e, true
		}
	}
	return Engine{}, false
}

// Names lists the engine names.
func Names() []string {
	var n []string
	for _, e := range engineTable {
		n = append(n, e.Name)
	}
	return n
}

// breakRules are the values of Options.Break.
var breakRules = []string{"weakest", "strongest", "first", "online"}

// ParamValues lists the values of an enumerated option (param.Valuer).
func (*Options) ParamValues(key string) []string {
	if key == paramBreak {
		return breakRules
	}
	return nil
}
