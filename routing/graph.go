package routing

import (
	"flitsim/fabric"
)

// arc is an inter-switch channel leaving a switch.
type arc struct {
	port int32 // output port at the switch
	ch   int32 // channel (numbered by fabric.Channels)
	to   int32 // switch at the far end
	in   int32 // input port at the far end
}

// graph is the switch-level view of a network that engines and checks share.
type graph struct {
	net *fabric.Network
	S   int
	// chans numbers the channels (the directions of the cables).
	chans *fabric.Channels
	// out lists each switch's inter-switch channels in port order.
	out [][]arc
	// hcaSwitch and hcaPort give, per HCA (node index − S), its switch and
	// the switch port it hangs on; -1 when not cabled.
	hcaSwitch []int32
	hcaPort   []int32
	// hcas lists the HCA node indices on each switch, in port order.
	hcas [][]int32
	// dests are the HCA LIDs in ascending order, with their node indices
	// and the switches they hang on.
	dests      []uint16
	destNode   []int32
	destSwitch []int32
	lidNode    []int32 // LID → node, -1 unused
	// portCh[s*stride+p] is the channel leaving switch s at port p, -1
	// where none (a flat copy of chans.At for the switches' ports).
	portCh []int32
	// portSw[s*stride+p] is the switch that channel enters, -1 where it
	// enters no switch or there is none: a path's next switch without
	// reading the channel table.
	portSw []int32
	stride int
	// maxPathHops is the most channel hops a path list may hold
	// (collectPaths); tests lower it.
	maxPathHops int64
	// watch, if not nil, is told how far the engine has come (progress).
	watch Watch
	// hops caches hopDistances (read-only once made).
	hops [][]int16
}

// chanAt returns the channel leaving switch s at port p, or -1.
func (g *graph) chanAt(s, p int) int32 {
	if p >= g.stride {
		return -1
	}
	return g.portCh[s*g.stride+p]
}

func newGraph(net *fabric.Network) *graph {
	S := net.NumSwitches
	g := &graph{net: net, S: S, chans: fabric.NewChannels(net), out: make([][]arc, S), hcas: make([][]int32, S),
		hcaSwitch: make([]int32, net.NumHCAs()), hcaPort: make([]int32, net.NumHCAs()), lidNode: net.ByLID(),
		maxPathHops: maxPathHops}
	for s := 0; s < S; s++ {
		for p := 1; p <= net.Nodes[s].Radix; p++ {
			ch := g.chans.At(s, p)
			if ch < 0 {
				continue
			}
			far := g.chans.To(ch)
			if int(far.Node) < S {
				if int(far.Node) != s {
					g.out[s] = append(g.out[s], arc{port: int32(p), ch: ch, to: far.Node, in: int32(far.Port)})
				}
			} else {
				g.hcas[s] = append(g.hcas[s], far.Node)
			}
		}
	}
	for s := 0; s < S; s++ {
		g.stride = max(g.stride, net.Nodes[s].Radix+1)
	}
	g.portCh, g.portSw = make([]int32, S*g.stride), make([]int32, S*g.stride)
	for s := 0; s < S; s++ {
		for p := 0; p < g.stride; p++ {
			k := s*g.stride + p
			g.portCh[k], g.portSw[k] = g.chans.At(s, p), -1
			if ch := g.portCh[k]; ch >= 0 && int(g.chTo(ch)) < S {
				g.portSw[k] = g.chTo(ch)
			}
		}
	}
	for h := S; h < len(net.Nodes); h++ {
		sw, port := net.HCASwitch(h)
		g.hcaSwitch[h-S], g.hcaPort[h-S] = int32(sw), int32(port)
	}
	for lid, n := range g.lidNode {
		if n >= int32(S) && g.hcaSwitch[int(n)-S] >= 0 {
			g.dests = append(g.dests, uint16(lid))
			g.destNode = append(g.destNode, n)
			g.destSwitch = append(g.destSwitch, g.hcaSwitch[int(n)-S])
		}
	}
	return g
}

// numHCAs returns how many HCAs hang on switch s.
func (g *graph) numHCAs(s int) int { return len(g.hcas[s]) }

// sources returns how many HCAs on switch s send to one HCA on switch dst:
// all of them, but for the destination itself when s is dst.
func (g *graph) sources(s, dst int) int {
	if s == dst {
		return len(g.hcas[s]) - 1
	}
	return len(g.hcas[s])
}

// ejection returns the channel from the switch of destination i (an index
// into dests) to its HCA.
func (g *graph) ejection(i int) int32 {
	h := int(g.destNode[i]) - g.S
	return g.chans.At(int(g.hcaSwitch[h]), int(g.hcaPort[h]))
}

// chTo returns the node a channel enters.
func (g *graph) chTo(ch int32) int32 { return g.chans.To(ch).Node }

// isSwitchChannel reports whether a channel joins two switches.
func (g *graph) isSwitchChannel(ch int32) bool {
	return int(g.chans.From(ch).Node) < g.S && int(g.chTo(ch)) < g.S
}

// portCounters returns a zero counter per switch port: [switch][port].
func (g *graph) portCounters() [][]int32 {
	c := make([][]int32, g.S)
	for s := range c {
		c[s] = make([]int32, g.net.Nodes[s].Radix+1)
	}
	return c
}

// bfs extends the hop counts hops (-1: not reached) breadth first over
// the switch graph from the switches in queue, whose counts are set, and
// returns queue with every switch it reached appended, in BFS order.
func bfs[T int16 | int32](g *graph, hops []T, queue []int32) []int32 {
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, a := range g.out[u] {
			if hops[a.to] < 0 {
				hops[a.to] = hops[u] + 1
				queue = append(queue, a.to)
			}
		}
	}
	return queue
}

// hopsFrom returns every switch's hop distance from the nearest of the
// given switches (-1 = unreachable).
func (g *graph) hopsFrom(sources []int32) []int32 {
	hops := make([]int32, g.S)
	for i := range hops {
		hops[i] = -1
	}
	queue := make([]int32, 0, g.S)
	for _, s := range sources {
		if hops[s] < 0 {
			hops[s] = 0
			queue = append(queue, s)
		}
	}
	bfs(g, hops, queue)
	return hops
}

// hopDistances returns the switch-to-switch hop distance matrix (-1 =
// unreachable), row t holding distances from every switch to t. It is
// computed once per graph; callers must not change it.
func (g *graph) hopDistances() [][]int16 {
	if g.hops != nil {
		return g.hops
	}
	d := make([][]int16, g.S)
	queue := make([]int32, 0, g.S)
	for t := 0; t < g.S; t++ {
		row := make([]int16, g.S)
		for i := range row {
			row[i] = -1
		}
		row[t] = 0
		queue = bfs(g, row, append(queue[:0], int32(t)))
		d[t] = row
	}
	g.hops = d
	return d
}

// setHCAPorts points every switch's LFT entry for its own HCAs at their ports.
func (g *graph) setHCAPorts(t *Tables) {
	for i, lid := range g.dests {
		h := int(g.destNode[i]) - g.S
		t.SetPort(int(g.hcaSwitch[h]), lid, int(g.hcaPort[h]))
	}
}

// routeSwitchLIDs fills the LFT entries for switch LIDs (management
// traffic, not part of any workload) with min-hop, lowest-port routes.
func (g *graph) routeSwitchLIDs(t *Tables, dist [][]int16) {
	for dst := 0; dst < g.S; dst++ {
		lid := g.net.Nodes[dst].LID
		row := dist[dst]
		for u := 0; u < g.S; u++ {
			if u == dst || row[u] < 0 {
				continue
			}
			for _, a := range g.out[u] {
				if row[a.to] == row[u]-1 {
					t.SetPort(u, lid, int(a.port))
					break
				}
			}
		}
	}
}
