package sim

// counting is the fast simulator's own count for Params.Counters: per
// channel the flits and packets sent and the stalled time, per HCA its
// delivered packets' latencies and the flits of its responses.
type counting struct {
	ch   []chanCount
	hist []LatencyHist // per terminal, by source
	// respFlits and respPkts count the responses each terminal sent
	// (acknowledgements and a rendezvous' data responses): its channel
	// carries them, its request counts do not.
	respFlits, respPkts []int64
	// ser counts over time (Params.CounterWindow; nil: off).
	ser *SeriesTally
}

// chanCount is one channel's count. A stall runs from `from` (-1: none)
// until the channel's next grant.
type chanCount struct {
	flits, packets, stalled, from int64
	busy                          int64 // the granted packets' time on the cable
}

func newCounting(chans, hcas int) *counting {
	c := &counting{ch: make([]chanCount, chans), hist: make([]LatencyHist, hcas), respFlits: make([]int64, hcas), respPkts: make([]int64, hcas)}
	for i := range c.ch {
		c.ch[i].from = -1
	}
	return c
}

// stallFrom notes that channel ch is stalled from instant t on, unless it
// already is.
func (c *counting) stallFrom(ch int32, t int64) {
	if cc := &c.ch[ch]; cc.from < 0 {
		cc.from = t
	}
}

// sent counts a packet of n flits granted channel ch at t, taking busy on
// its cable, which ends its stall (a stall noted from after t was none: the
// grant came first).
func (c *counting) sent(ch int32, n int32, busy, t int64) {
	cc := &c.ch[ch]
	cc.flits += int64(n)
	cc.packets++
	cc.busy += busy
	cc.stop(t)
}

func (cc *chanCount) stop(t int64) {
	if cc.from >= 0 {
		cc.stalled += max(0, t-cc.from)
		cc.from = -1
	}
}

// tally closes the stalls still open at the run's last instant end.
func (s *simulator) tally(end int64) CounterTally {
	c := s.ctr
	t := CounterTally{HCAs: make([]HCATally, len(s.hcas)), Links: make([]LinkTally, len(s.chans)), End: end, Series: c.ser}
	if c.ser != nil {
		for i := range s.hcas {
			if j := s.seriesJob(int32(i)); j >= 0 {
				cc := &c.ch[s.hcas[i].ch]
				before := cc.stalled
				cc.stop(end)
				c.ser.Stalled(j, max(0, end-1), cc.stalled-before) // in the last window, not one after it
			}
		}
	}
	for i := range c.ch {
		cc := &c.ch[i]
		cc.stop(end)
		ch := &s.chans[i]
		t.Links[i] = LinkTally{Node: int(ch.from), Port: int(ch.fromPort), Flits: cc.flits, Packets: cc.packets, BusyPs: cc.busy, StalledPs: cc.stalled}
	}
	for i := range s.hcas {
		cc := &c.ch[s.hcas[i].ch]
		t.HCAs[i] = HCATally{Flits: cc.flits - c.respFlits[i], Packets: cc.packets - c.respPkts[i],
			StalledPs: cc.stalled, Hist: c.hist[i].Clone()}
	}
	return t
}

// seriesJob is the series HCA h counts in: its job's, 0 without jobs, -1
// when it has no job.
func (s *simulator) seriesJob(h int32) int {
	if s.jobs == nil {
		return 0
	}
	return int(s.jobOf[h])
}
