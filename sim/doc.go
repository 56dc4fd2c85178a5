// Package sim is flitsim's deterministic discrete-event simulator of a
// lossless InfiniBand-like network at flit level (seeds/001 §4.3).
//
// This comment is the specification of the model. Two simulators implement
// it independently: this package (the fast one, which moves whole packets
// by arithmetic over trains of flits) and sim/reference (one event per flit
// per hop, deliberately simple). They share the inputs (network, tables,
// Params) and Result, nothing else, and differential tests hold them to the
// same delivery time for every packet. Where the specification is silent
// the semantics of the Mellanox OMNeT++ InfiniBand model the thesis used
// apply (repository hcyang99/ib_model); where flitsim departs from that
// model it says so below.
//
// # Units and instants
//
// Time is an integer number of picoseconds. From Params.HW:
//
//	ft    = HW.FlitPs()          one flit on an HCA's cable (16,000 at QDR)
//	ft(c) = HW.LinkFlitPs(n, l)  one flit on channel c, whose cable l has class k:
//	                             the cable's own rate when its fabric file states
//	                             one (Link.Gbps, HW.FileRates), else ft, or its
//	                             rank's own rate (Rank1Gbps…) if set
//	fx    = HW.CrossbarFlitPs()  one flit through a switch crossbar (2,222); fx ≤ every ft(c)
//	pf    = HW.PCIeFlitPs()      one flit consumed by a sink's host bus (16,000)
//	cab   = HW.CablePs()         propagation over one cable, ≥ 1 (42,700)
//	lat   = HW.SwitchLatencyPs   a switch's routing decision on a head flit (0)
//
// Everything happens at instants. At one instant things happen in this
// order: (1) flits finish arriving, credits arrive, sinks finish consuming
// flits; (1a) adaptively routed packets choose their way (see Adaptive
// routing); (2) crossbars move flits into output buffers; (3) output
// buffers start flits onto cables; (4) decisions: every switch output
// arbitrates and every HCA decides whether to inject; a decision acts at
// once, so a grant at t moves its first flit at t and may start it onto
// the cable at t; (5) the steady-state controller samples. A decision at t
// never depends on another decision at t: the resources it reads (an
// output's credits, crossbar and output buffer; an input buffer's head; an
// HCA's link) have one owner each, and everything a decision causes
// elsewhere happens later (credits travel cab ≥ 1 ps, flits ft + cab).
// TestInstantOrderIndependence checks it: popping the events of one
// instant and step in reverse order changes no result.
//
// # Network, packets, virtual lanes
//
// Every cable is two channels, one per direction. The receiving end of a
// channel has one buffer per VL, of HW.InputBufferFlits flits at a switch
// and HW.HCABufferFlits at an HCA; the sending end holds credits for it, one
// per free flit, starting full. The terminals of a traffic pattern are the
// HCAs in node order (terminal i is net.Nodes[net.NumSwitches+i]); each HCA
// uses its lowest cabled port.
//
// A message of B payload bytes is cut into packets of min(left, HW.MTU)
// bytes in order; a packet of P payload bytes is HW.PacketFlits(P) =
// ⌈(P + HW.HeaderBytes)/HW.FlitBytes⌉ flits. A packet keeps the service
// level SL = tables.SL(s, dstLID), where s is the switch its source HCA is
// cabled to; it leaves its HCA on VL tables.InjectVL(SL) and leaves switch
// s' through output port o, having entered through input port i, on VL
// tables.VL(s', i, o, SL). A switch forwards by tables.Port(s', dstLID); a
// packet whose switch has no port for it (NoPath or 0) never moves on.
//
// Source routing. When the tables carry source routes (tables.Source,
// the Angara engines of seeds/003), a packet follows the route its source
// wrote into its header: from an HCA on switch a to an HCA on switch b, it
// leaves the k-th switch it is routed at (a is the first) by port
// Source.Route(a, b)[k] while the route lasts, and then by tables.Port,
// the destination HCA's port at b; a pair without a route never moves
// on. SL and VL are as with forwarding tables.
//
// Adaptive routing. When the tables are an adaptive engine's
// (tables.Adaptive, routing.Dragonfly; engines min, valiant, ugal,
// ugal-imb, ugal-low, ugal-high), packets are routed per hop instead, and
// SL and SL→VL tables play no part. A packet leaves its HCA on VL 0. When
// it is formed, its candidates are drawn (Dragonfly.Candidates from the
// switch s of its source HCA to the switch d of its destination; none when
// s = d) from its source's own stream fabric.Stream(seed,
// "route/hca/<i>"), so that no decision order can change them. At every
// switch its head arrives at, after every arrival and credit of that
// instant and before the crossbars (a routing step between steps 1 and 2),
// Dragonfly.Step gives the port and VL it leaves by: at s, before its
// first hop, it chooses its route by the mode (its job's Routing, else the
// engine's) from the occupancy of each candidate's first output: the
// credits in use over all VLs, capacity minus the credits held (those
// arrived at or before the instant, less those taken by grants before
// it). A candidate costs occupancy × its hops, plus a bias if it is
// non-minimal (Params.UGALBiasLow for ugal-low, UGALBiasHigh for
// ugal-high); the cheapest wins, the earlier candidate on a tie (minimal
// ones first). In ugal-imb every further switch of the source group,
// while the packet is on a detour before its first global hop, weighs
// the detour (its cost from there plus hops taken × UGALBiasStep) against
// the two minimal candidates (cost from there) and takes a strictly
// cheaper minimal one. The VL of a switch-to-switch hop is the number of
// such hops taken before it. At d it leaves by its HCA's port
// (tables.Port) on the VL it arrived on (VL 0 if it never left s).
// Packets of a message may take different paths and overtake each other:
// a message is delivered when the last of its packets to arrive is.
//
// A packet occupies a channel c as one uninterrupted train: its flit k
// starts onto the cable at d₀ + k·ft(c) and has fully arrived at the far
// end at a_k = d₀ + (k+1)·ft(c) + cab. The packet's head has arrived at
// a₀. With HW.ForwardAtStart the receiver takes flit k at the start of
// its reception instead, a_k = d₀ + k·ft(c) + cab, and everything below
// that speaks of a flit's arrival means that instant, with three
// exceptions: a packet bound for a faster cable than it came in on is
// eligible (Arbitration) only once its last flit has fully arrived,
// a₀ + flits·ft(in), as a switch stores such a packet; a sink whose bus is
// faster than the cable finishes a flit no sooner than it has fully
// arrived; and a deadlocked run's last instant counts a flit's full
// arrival. (Below, ft without a channel is an HCA's cable's; every HCA's cable
// has it.)
//
// Wire bytes. With HW.WireBytes a packet takes its bytes on the wire, not
// whole flits: its last flit, of b = HW.LastFlitBytes bytes (its payload
// and headers modulo flit_bytes; responses, RTSs and GET requests carry
// headers alone), takes τ(c) = HW.LastFlitPs(ft(c), b) = ⌈ft(c)·b/flit_bytes⌉
// on channel c, and ⌈pf·b/flit_bytes⌉ of a sink's bus. Every other flit
// and every start time are as above (flit k of n still starts at
// d₀ + k·ft(c)); the last flit has fully arrived at d₀ + (n−1)·ft(c) + τ(c)
// + cab (a one-flit packet's head is its last flit), the cable is free at
// d₀ + (n−1)·ft(c) + τ(c), and wherever the text below counts flits·ft of
// a packet (an HCA's next start, a packet stored before a faster cable, a
// message's wire time w_m, a cable's idle instant) it means that sum.
// Credits, the crossbar (fx a flit), buffers and FlitHops still count
// whole flits. Both rules, HW.ForwardAtStart and HW.WireBytes, are on by
// default (what InfiniBand hardware does); off, a flit is taken once it
// has fully arrived and a packet is whole flits.
//
// # HCAs: the sources
//
// Terminal i (the i-th HCA in node order) takes its messages from
// traffic.Open(Params.Traffic, Params.Jobs, net.HCASwitches(), streams of
// the seed, wire time): the jobs of Params.Jobs, or the pattern of
// Params.Traffic as one job of every HCA, built once from the stream
// fabric.Stream(seed, "traffic/pattern") with its ranks laid on the HCAs
// by spec.Order (rank i is HCA i by default); terminal i draws from its
// own stream fabric.Stream(seed, "traffic/hca/<i>"). An open-loop pattern
// creates message m at T_m, with T₀ = the job's start (0 for a pattern)
// and T_{m+1} = T_m + w_m + gap_m, where w_m = ft·Σ flits of
// message m's packets is its wire time and gap_m = traffic.Gap(load, w_m,
// rng) (0 at load 1, otherwise exponential with mean w_m·(1−load)/load), so
// that the HCA offers `load` of its link's flit rate whatever the message
// size. Creating message m draws, in this order, its destination
// (uniform, hot spot and palindromes of the bit reversal) and then gap_m.
// A dependent pattern creates a message no earlier than the last
// delivery it waits for (traffic.Source.Delivered). An infinite job with
// an end (traffic.JobTraffic.End) creates no message at or after it. A
// terminal whose pattern says it is done creates nothing more. Messages
// wait at the source until sent; their creation never depends on the
// network.
//
// When a terminal has no message, a delivery to it that the source says
// may change that (Delivered true) makes it ask again at that instant's
// decisions, once every delivery of the instant is booked. A source may
// answer traffic.Later with an instant t > now: nothing now, ask again
// at t (or at a delivery before); the terminal then asks at every
// decision at t, or after a waking delivery, until it answers otherwise
// (a trace rank computing while its nonblocking collective progresses:
// its answer depends on the instant asked only through which messages
// are due by then, so both simulators, asking at those instants, get the
// same messages).
//
// An HCA sends its packets strictly in order (message by message, packet by
// packet). It starts its next packet at the earliest instant t at which
// (a) the packet's message has been created (T_m ≤ t), (b) the link has sent
// the previous packet (t ≥ start of the previous packet + its flits·ft) and
// (c) it holds credits for the whole packet on the packet's VL; it then
// takes those credits and sends the packet as a train (d₀ = t). The packet's
// injection time is t.
//
// NIC window (HW.NICWindow = W > 0; seeds/004 §2.4). Every packet of a
// message, when delivered at HCA d at instant t, makes d create a response
// at t: a packet of HW.ResponseFlits() flits (its headers, at least one
// flit; no payload) to the packet's source HCA, routed like any packet
// (SL = tables.SL(d's switch, source's LID); with adaptive routing its
// candidates are drawn at t from d's stream fabric.Stream(seed,
// "route/resp/<d>") and its mode is that of d's job). An HCA's next
// packet is then its oldest response if it has one, else its next packet
// of a message, which must also find fewer than W of the HCA's injected
// packets awaiting their responses; (a) reads "the response has been
// created" for a response. A response delivered frees its place in the
// window at once. Responses count in FlitsInjected, FlitsConsumed and
// FlitHops, in the channel counters and in an HCA's stalled time, and in
// nothing else: not in Packets, Messages, payload, throughput, Deliveries,
// latencies or an HCA's request flits and packets. With W = 0 there are
// none.
//
// Rendezvous (a job's traffic.JobTraffic.Rendezvous; seeds/004 §2.1, MPI's
// rendezvous over RDMA GET). A message from a to b that the source marks
// Get (traffic.Msg.Get), of P packets with payloads b_0..b_{P−1} (cut as a
// PUT's), takes the sequence numbers q..q+P−1 at a, and a sends in their
// place one request to send (RTS): a packet of HW.ResponseFlits() flits
// to b with number q, the message's only packet in a's order, routed,
// windowed and answered (with W > 0) as a packet of a message is; with
// application-aware routing the rank chooses the message's mode when the
// RTS goes, from the message's P packets and data flits as for a PUT. When
// b's sink delivers the RTS at t, b queues at t, after the RTS's
// acknowledgement (W > 0), the P GET requests k = 0..P−1: packets of
// HW.ResponseFlits() flits to a, among its responses (sent before its
// messages, outside its window), routed as a response. When a delivers
// GET request k at t', a queues at t' among its responses the data
// response k: a packet of HW.PacketFlits(b_k) flits to b with number q+k,
// routed as a packet of a message would be with that number (in a hashing
// mode hashed from q+k; candidates drawn at t' from a's response stream;
// the message's mode). The data responses are the message's packets: they
// count as a PUT's do (Packets, payload, throughput, latencies from their
// injection at a, Deliveries, the message's delivery when its last one
// arrives), and nothing answers them. The RTS and the GET requests count
// as responses do (FlitsInjected, FlitsConsumed, FlitHops, the channel
// counters, stalled time), and, as in Aries' counters, in an HCA's request
// flits and packets; acknowledgements and data responses are responses
// there.
//
// # HCAs: the sinks
//
// A sink consumes the flits arriving on its port in arrival order (packets
// arrive as whole trains, so this is packet order) through its host bus:
// flit k of the sink's flit stream starts when it has fully arrived and the
// previous flit is done, and takes pf of bus time (a short last flit less:
// Wire bytes); the bus does no work
// during PCIe hiccups, which last HW.HiccupPs at the start of every
// HW.HiccupPeriodPs, shifted by the sink's phase φ (bus time t is in a
// hiccup when (t−φ) mod period < HiccupPs; with HiccupPs = 0 there are
// none). φ is drawn as fabric.Stream(seed, "sim/hiccup/<i>").Int64N(span)
// with span = HiccupPeriodPs, or ⌊(1 − HiccupSync)·HiccupPeriodPs⌋ when
// HiccupSync > 0; φ = 0 when that span is 0 (every sink in phase). A
// flit's work may straddle a hiccup: it pauses and resumes. A flit that is done
// frees its buffer place: the credit reaches the sender cab later. A packet
// is delivered when its last flit is done.
//
// # Switches
//
// A switch has, per input port and VL, an input buffer of packets in
// arrival order; per output port a crossbar path (one packet at a time), an
// output buffer of HW.OutputBufferFlits flits and the cable. Which packets
// of an input buffer compete depends on HW.VOQ. Without it the buffer is
// one FIFO: its head packet (the oldest not yet granted) competes, and
// only once the packet before it has crossed. With it, as in the IB model,
// the buffer is one queue per output port sharing the VL's credits: for
// every output, the buffer's oldest packet for that output competes, at
// once, so packets of one buffer cross to different outputs side by side.
//
// Arbitration. A competing packet p in input buffer (port i, VL v) of
// switch s that routes to output o on VL w = tables.VL(s, i, o, SL) is
// eligible at instant t when
//
//	t ≥ a₀(p) + lat             its head has arrived and been routed,
//	t ≥ free(i, v)              without VOQ: the buffer's previous packet has crossed,
//	t ≥ xbar(o)                 the crossbar path of o is free,
//	credits(o, w) ≥ need(p)     the next hop has room for the whole packet,
//	held(o) + flits(p) ≤ obuf   the output buffer has room for the whole packet,
//
// where credits are those arrived at or before t and held(o) counts flits
// that have crossed into o's output buffer and not yet started onto the
// cable. need(p) is flits(p), plus HW.PacketFlits(HW.MTU) (a bubble: one
// full packet) when w has bubble flow control (HW.Bubble(w)) and p enters
// a ring at o: o's channel runs along a torus ring
// (fabric.Network.Ring ≥ 0: a direction along a line, over one of its
// parallel cables) and p did not arrive on a channel of that ring on VL w
// (it came along another ring, a line, an HCA's cable, or on another VL).
// A packet going on along its ring on its VL needs only its flits. An HCA
// injects without a bubble (its cable is no ring). At every instant at
// which output o has an eligible packet, o grants one: the eligible packet
// whose VL w comes first after the VL o last granted (cyclically over
// HW.VLs lanes, VL 0 first; VLs no packet uses never compete, so the order
// among the others is the same without them), and among those on that VL
// the one whose input port comes first after the input port o last granted
// on w (with HW.SharedInputPointer: on the VL of o's last grant, that is
// after the input o last granted at all) (cyclically over ports 0..radix;
// port 1 first), and between two VL
// buffers of that port (an SL→VL table can map two input VLs onto one
// output VL) the lower input VL. A grant takes
// the packet's credits(o, w) at once and records w and i as o's last grants.
//
// Crossbar. Flit k of a packet granted at g crosses into the output buffer
// at c₀ = g and c_k = max(c_{k−1} + fx, a_k): no earlier than it has fully
// arrived (cut-through; a_k grows by the flit time of the channel it came
// in on) and one crossbar flit time after its predecessor.
// Crossing frees its input buffer place; the credit reaches the upstream
// sender at c_k + cab. The crossbar path of o and the input buffer's read
// port are busy until c_last + fx: xbar(o) = free(i, v) = c_last + fx.
//
// Output buffer and cable. The cable of output o sends the output buffer's
// flits in the order they crossed, each starting at max(its crossing, the
// previous flit's start + ft(o)); a flit leaves the output buffer when it
// starts. When ft(o) is at least the flit time ft(i) of the channel the
// packet came in on, fx ≤ ft(i) and a_k grows by ft(i), so the packet
// leaves as one train. Onto a faster cable (ft(o) < ft(i)) the switch
// stores the packet, as InfiniBand switches do between links of different
// speeds: its head starts no earlier than its last flit has crossed
// (c_last), so that it too leaves as one train.
//
// (Departures from the IB model, docs/model.md: the model limits how many
// packets one input sends at once (maxBeingSent); here they cross
// independently. The model's credits travel as flow-control packets; here
// each freed flit sends its credit alone, after one cable delay.)
//
// # Timed events
//
// Params.Timeline changes the fabric while traffic runs (seeds/001 §4.1,
// §5.2.3). A cable between two switches is down from each of its
// LinkEvents with Up false until its next one with Up true (events of a
// cable alternate, down first, in increasing time; an HCA's cable does
// not fail). Its two channels fail and return together, at the instant's
// start: every decision at or after the event's instant sees it.
//
// Loss. A switch output o whose channel is down at instant t grants at t
// as above, except that credits(o, w) and the output buffer's room play
// no part: a competing packet is eligible when t ≥ a₀(p) + lat, (without
// VOQ) t ≥ free(i, v) and t ≥ xbar(o), and the arbiter's order and
// pointers are as for any grant. The granted packet crosses as any packet
// does (c_k as under Crossbar, its buffer places freed and their credits
// sent upstream as it crosses, xbar(o) = free(i, v) = c_last + fx), takes
// no credits, enters no output buffer and is lost at its grant: it counts
// in Result.PacketsLost (and its source's job's PacketsLost), not in
// FlitHops or the channel counters, and leaves the packets in the
// network. The cut falls between grants: packets granted o before its
// cable went down leave through it as if it had failed after them (at
// most an output buffer's flits, and the flits on the cable, cross a
// failing cable), which keeps every packet whole. A packet routed to a
// port whose cable is up again is granted as any other.
//
// Resending. With Timeline.RetryPs = R > 0 (the transport's timeout, as
// InfiniBand's local ACK timeout) the HCA that sent a lost packet sends it
// again: at max(its injection + R, its loss + 1 ps) the packet, the same
// one (its kind, numbers, message, adaptive candidates and mode; routed
// afresh, as if never sent, its SL that of any packet injected then), is
// queued among its source's
// responses (sent before its messages, outside its window: its place in
// the window is the one it held; of what an HCA queues at one instant,
// the packets sent again go first, in the order of their last
// injections, then the responses formed) and counts in PacketsResent; its
// latency counts from its new injection. Packets of a
// message may then arrive out of order: a message is delivered when the
// last of its packets to arrive is. Without resending, a finite run whose
// messages are missing, their packets lost, ends with verdict Lost when
// nothing is left in the network, at the last instant something moved (as
// a deadlock); if that instant lies past MaxTime (a lost packet crossing
// beyond it), it ends at MaxTime, NotConverged.
//
// Table writes. With Timeline.Next, switch s holds Next's forwarding
// entries of LIDs 64b..64b+63 (LFT block b) from the first TableWrite of
// (s, b) on, and Next's SL→VL table from its first write of block −1;
// before, the run's tables' ones. A packet's port and VL at a switch are
// the entries that switch holds at the instant its head is routed (a₀):
// the port from the forwarding entry, the VL from the SL→VL table. Its SL
// stays the run's tables' (tables.SL at its source's switch) and so does
// the VL it is injected on: HCAs keep the path records they started with.
// Writes need forwarding tables on both sides (no source routes, no
// adaptive engine); the cables' events work with any routing.
//
// Migration (the five-phase update of §5.2.3, Fig. 5.7). With
// Timeline.Escape, every packet injected at an instant t with MigrateAtPs
// ≤ t < ReturnAtPs is migrated: its SL is Escape.SL at its source's
// switch, it is injected on Escape.InjectVL(SL), and every switch forwards
// it by Escape (port and SL→VL) whatever it holds: the high LIDs of
// LMC = 1, whose entries the subnet manager wrote before the migration (no
// packet uses them earlier, so those writes are not simulated). Every HCA
// decides at both instants, and drains first, as InfiniBand's send-queue
// drain before a path migration does: an HCA whose next injection would
// be in another state (before, migrated, back) than its last one injects
// it only once every packet it has injected is delivered or lost (it
// decides again at the instant the last one is). From ReturnAtPs on, with Next, a packet's SL
// and injection VL are Next's (the migration back loads the new path
// records; the switches forward it by whatever entries they hold). A
// packet's SL and injection VL are set at each injection.
//
// A packet that reaches a switch whose entry for it was written to no
// port (a switch the failures cut off, say, reached by a packet granted
// before the cut) never moves on, as any packet without a port; a run
// that deadlocks on such packets alone names no cycle.
//
// A timeline keeps a run in one domain.
//
// # Controllers
//
// Completion (finite traffic): the run ends at the instant the last flit of
// the last message is consumed, after everything else of that instant
// (other deliveries, responses, decisions). Runtime is from the first injection to that
// instant; throughput = messages × message bytes / runtime (eq. 4.2), and
// each HCA's bandwidth is the payload it sends over the runtime. A finite
// run that does not complete (deadlock, time limit) has no runtime: its
// throughput and bandwidths are 0.
//
// Steady state (infinite traffic): time is cut into windows [wW, (w+1)W) of
// W = SampleWindow; a delivered packet's payload counts in the window of its
// delivery instant. At (w+1)W, in phase 5, every sink closes window w;
// windows that end at or before Warmup are not sampled. Each sink keeps the
// running mean and variance (Welford) of its samples x = bytes/W in GB/s; it
// is steady after at least MinSamples samples when the 99 % confidence
// half-width 2.5758293035489·sd/√n is at most CIRel·mean (or mean and sd
// are 0). The run ends as Steady at the first sample instant where at least
// SteadyFraction of the sinks, and at least one, are steady; under
// SteadyRule "network" instead, where at least MinSamples windows are
// sampled and ThroughputCIGBs (below) over them is at most CIRel times
// their totals' mean (or both are 0), unless SteadyFraction is above 1
// (which keeps either rule from ending a run). Throughput is
// the sum of the sinks' means; ThroughputCIGBs, its 99 % confidence
// half-width, is by batch means over the n per-window totals (each the sum
// over sinks of that window's samples), since a network's throughput in
// one window is correlated with the next (a loaded fabric's for
// milliseconds): the last k·b totals, k = min(20, n) batches of b = ⌊n/k⌋
// consecutive windows, give t·sd/√k with sd the sample standard deviation
// of the k batch means and t Student's 0.995 quantile with k−1 degrees of
// freedom; 0 when n < 2. A run of
// infinite traffic that ends otherwise (time limit, deadlock) reports the
// same over the windows it sampled; if it sampled none, its throughput is
// the payload delivered divided by its last instant, without an interval,
// and each sink's bandwidth likewise. SampledWindows is n.
//
// Deadlock: the run ends as Deadlock when packets are in the network
// (injected, not delivered) and nothing is left that could ever happen in
// it: no flit, credit or consumption under way, no decision that can
// become possible, and no terminal whose source answered traffic.Later
// (it asks again at a scheduled instant and may create a message then,
// which a frozen network does not hold back). Its last instant is the last one at which a flit moved
// (crossed, started onto a cable, arrived), a credit arrived or a sink
// finished a flit; samples up to that instant are taken. If that instant is
// after MaxTime, the run ends NotConverged at MaxTime instead. The result
// names one cycle of buffers whose head packets wait on each other.
//
// Time limit: nothing after MaxTime happens; a run still going then ends as
// NotConverged.
//
// Counters cover exactly what happened at or before the run's last instant:
// packets and messages delivered, the flits of delivered packets
// (FlitsConsumed), and Deliveries. A packet
// counts its flits in FlitsInjected when its injection starts, and in
// FlitHops once per link when it is granted that link (at its HCA when its
// injection starts, at a switch output when it is granted).
//
// # NIC and link counters
//
// With Params.Counters the result carries the counters of seeds/004 §2.3
// per HCA and per channel (Result.Counters, each job's summed over its
// ranks). A channel's flits and packets count when they are granted it (at
// an HCA when its injection starts), as FlitHops does. A channel is stalled
// at instant t when its cable is idle (it has sent every flit granted to
// it: t ≥ the last one's start + ft(c)) and a packet ready for it lacks the
// credits to go: at a switch output, a competing packet that is eligible
// but for credits(o, w) ≥ need(p); at an HCA, its next packet (as the NIC
// window chooses it) once created. Its stalled time is the measure of those
// instants: a stall begins at the first such instant and ends at the
// channel's next grant (nothing else ends it: the packet stays ready and
// the cable idle until some packet is granted). Stalls open when the run
// ends count up to its last instant (on a deadlock the simulators may end
// at different instants, and stalled times are not compared then). Counters
// cover the whole run, warmup included; utilization is the granted
// packets' time on the cable (flits × ft(c), with wire bytes each last
// flit's τ(c)) over the run, so the flits granted but still in an output
// buffer at the end may take it a little above 1 on a short run. An HCA's request
// flits and packets are those of the channel it sends on less its responses
// (NIC window), its stalled time the channel's; its stalls per flit (the
// paper's s) are its stalled time (its responses' waits included) in flit
// times ft per request flit. A packet's latency (the paper's L, without the
// wait at its source, one way: not to its response) is from its injection
// to its delivery, counted for its source HCA when it is delivered; the
// 99th percentile is the upper end of its bucket in a histogram with 16
// buckets per octave (sim.LatencyHist).
//
// # Domains
//
// The fast simulator may cut the fabric into domains (Params.Domains) that
// advance in windows of one cable delay, each on a goroutine of its own
// (domains.go): nothing a node does reaches another node sooner than a
// cable delay later, so what a domain's events do to another domain's nodes
// (a head arriving there, credits freed for a sender there) waits for the
// window's end. This is the model above, executed differently: a cut run
// agrees with an uncut one on everything but the events it queues (its
// event count and trace hash), and its results do not depend on the number
// of goroutines (Params.Workers). Deliveries at one instant are listed in
// domain order.
package sim
