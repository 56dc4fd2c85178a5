package sim

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/routing"
)

// Timeline is what changes in a run's fabric while traffic runs (the
// package doc's "Timed events"): cables that go down and come back, the
// switches' forwarding tables rewritten block by block to Next, and the
// transport's resending of lost packets. Both simulators read it; nil or
// empty, nothing changes.
type Timeline struct {
	// Links are the cables' state changes. A cable is down from an event
	// with Up false until the next event of that cable with Up true.
	Links []LinkEvent
	// Next are the tables the Writes install; nil without writes.
	Next *routing.Tables
	// Writes install Next's entries switch by switch (an SM's LFT blocks
	// of 64 LIDs, and its SL→VL tables).
	Writes []TableWrite
	// Escape routes the packets injected in [MigrateAtPs, ReturnAtPs)
	// (the five-phase update's high LIDs, seeds/001 §5.2.3: Up*/Down* on
	// a VL of their own): their SLs are Escape's and every switch forwards
	// them by Escape. Nil: no migration.
	Escape                  *routing.Tables
	MigrateAtPs, ReturnAtPs int64
	// RetryPs is the transport's timeout: a lost packet is sent again by
	// the HCA that sent it RetryPs after its injection (or at its loss, if
	// later); 0: lost packets stay lost.
	RetryPs int64
}

// LinkEvent is a cable (fabric.Network.Links index) going down or up at
// an instant.
type LinkEvent struct {
	AtPs int64
	Link int
	Up   bool
}

// TableWrite is the write of one of switch Switch's tables at AtPs: its
// forwarding entries of LIDs 64·Block … 64·Block+63, or with Block = -1 its
// SL→VL table.
type TableWrite struct {
	AtPs   int64
	Switch int
	Block  int
}

// LFTBlock is the number of LIDs in one forwarding-table block, the unit in
// which a subnet manager writes them (InfiniBand's LinearForwardingTable
// attribute).
const LFTBlock = 64

// SL2VLBlock is a TableWrite's Block for a switch's SL→VL table.
const SL2VLBlock = -1

// Empty reports whether the timeline changes nothing.
func (tl *Timeline) Empty() bool {
	return tl == nil || len(tl.Links) == 0 && len(tl.Writes) == 0 && tl.Escape == nil
}

// Check reports a timeline that does not belong to net and t or that no
// simulator can run: an unknown cable or a cable with an HCA (HCAs' cables
// do not fail), events of one cable that do not alternate down and up in
// strictly increasing time, writes without tables to write, writes of
// adaptive or source-routed tables, or tables of another network.
func (tl *Timeline) Check(net *fabric.Network, t *routing.Tables, hw fabric.Hardware) error {
	if tl == nil {
		return nil
	}
	if tl.RetryPs < 0 {
		return fmt.Errorf("timeline: retry timeout %d ps is negative", tl.RetryPs)
	}
	last := map[int]LinkEvent{}
	for i, e := range tl.Links {
		if e.Link < 0 || e.Link >= len(net.Links) {
			return fmt.Errorf("timeline: link event %d: cable %d does not exist (the network has %d)", i, e.Link, len(net.Links))
		}
		if e.AtPs < 0 {
			return fmt.Errorf("timeline: link event %d at %d ps: before the run", i, e.AtPs)
		}
		if !net.IsSwitchLink(e.Link) {
			l := net.Links[e.Link]
			return fmt.Errorf("timeline: link event %d: cable %s–%s ends at an HCA; only cables between switches fail while traffic runs",
				i, net.Nodes[l.A.Node].Name, net.Nodes[l.B.Node].Name)
		}
		prev, seen := last[e.Link]
		switch {
		case !seen && e.Up:
			return fmt.Errorf("timeline: link event %d: cable %d comes up at %d ps without having gone down", i, e.Link, e.AtPs)
		case seen && prev.Up == e.Up:
			return fmt.Errorf("timeline: link event %d: cable %d goes %s twice", i, e.Link, upDown(e.Up))
		case seen && e.AtPs <= prev.AtPs:
			return fmt.Errorf("timeline: link event %d: cable %d's events are not in increasing time (%d after %d ps)", i, e.Link, e.AtPs, prev.AtPs)
		}
		last[e.Link] = e
	}
	if e := tl.Escape; e != nil {
		switch {
		case e.NumSwitches() != net.NumSwitches || e.NumLIDs != t.NumLIDs:
			return fmt.Errorf("timeline: the escape tables do not belong to this network")
		case e.Adaptive != nil || e.Source != nil || t.Adaptive != nil || t.Source != nil:
			return fmt.Errorf("timeline: a migration needs forwarding tables on both sides (not adaptive or source routes)")
		case tl.MigrateAtPs < 0 || tl.ReturnAtPs < tl.MigrateAtPs:
			return fmt.Errorf("timeline: migration from %d ps back at %d ps: want 0 ≤ from ≤ back", tl.MigrateAtPs, tl.ReturnAtPs)
		}
		if m := e.MaxVL(net); m >= hw.VLs {
			return fmt.Errorf("timeline: the escape tables (%s) use VL %d but the hardware has %d VLs", e.Engine, m, hw.VLs)
		}
		if n := tl.Next; n != nil && n.NumSwitches() == net.NumSwitches && n.NumLIDs == t.NumLIDs {
			if m := max(n.MaxVL(net), t.MaxVLOf(net, n.SLsUsed())); m >= hw.VLs {
				return fmt.Errorf("timeline: back from the escape tables, packets with the new tables' SLs use VL %d but the hardware has %d VLs", m, hw.VLs)
			}
		}
	}
	if len(tl.Writes) == 0 {
		return nil
	}
	n := tl.Next
	if n == nil {
		return fmt.Errorf("timeline: %d table writes without tables to write", len(tl.Writes))
	}
	if n.NumSwitches() != net.NumSwitches || n.NumLIDs != t.NumLIDs {
		return fmt.Errorf("timeline: the tables to write do not belong to this network")
	}
	if t.Adaptive != nil || t.Source != nil || n.Adaptive != nil || n.Source != nil {
		return fmt.Errorf("timeline: table writes need forwarding tables on both sides (not adaptive or source routes)")
	}
	if m := n.MaxVLOf(net, t.SLsUsed()); m >= hw.VLs {
		return fmt.Errorf("timeline: the tables to write (%s) put the run's SLs on VL %d but the hardware has %d VLs", n.Engine, m, hw.VLs)
	}
	blocks := (t.NumLIDs + LFTBlock - 1) / LFTBlock
	for i, w := range tl.Writes {
		if w.Switch < 0 || w.Switch >= net.NumSwitches {
			return fmt.Errorf("timeline: table write %d: switch %d does not exist", i, w.Switch)
		}
		if w.Block < SL2VLBlock || w.Block >= blocks {
			return fmt.Errorf("timeline: table write %d: block %d outside -1..%d", i, w.Block, blocks-1)
		}
		if w.AtPs < 0 {
			return fmt.Errorf("timeline: table write %d at %d ps: before the run", i, w.AtPs)
		}
	}
	return nil
}

func upDown(up bool) string {
	if up {
		return "up"
	}
	return "down"
}
