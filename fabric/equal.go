package fabric

import "fmt"

// Diff returns a description of the first structural difference between
// two networks, or "" when they describe the same fabric. Nodes are matched
// by name, so the order in which a file lists them does not matter; kind,
// GUIDs, LID, radix and the far end (name and port) of every port are
// compared. Generator metadata (Level, Coord) and the networks' names are
// not.
func Diff(a, b *Network) string {
	if a.NumSwitches != b.NumSwitches || len(a.Nodes) != len(b.Nodes) {
		return fmt.Sprintf("sizes differ: %d switches/%d nodes vs %d/%d", a.NumSwitches, len(a.Nodes), b.NumSwitches, len(b.Nodes))
	}
	if len(a.Links) != len(b.Links) {
		return fmt.Sprintf("cable counts differ: %d vs %d", len(a.Links), len(b.Links))
	}
	byName := b.ByName()
	for i := range a.Nodes {
		x := &a.Nodes[i]
		j, ok := byName[x.Name]
		if !ok {
			return fmt.Sprintf("node %q missing from the second network", x.Name)
		}
		y := &b.Nodes[j]
		if x.Kind != y.Kind || x.GUID != y.GUID || x.PortGUID != y.PortGUID || x.LID != y.LID || x.Radix != y.Radix {
			return fmt.Sprintf("node %q differs: %s guid %#x port guid %#x lid %d radix %d vs %s guid %#x port guid %#x lid %d radix %d",
				x.Name, x.Kind, x.GUID, x.PortGUID, x.LID, x.Radix, y.Kind, y.GUID, y.PortGUID, y.LID, y.Radix)
		}
		for p := 1; p <= x.Radix; p++ {
			ea, oka := a.Peer(i, p)
			eb, okb := b.Peer(j, p)
			if oka != okb || (oka && (a.Nodes[ea.Node].Name != b.Nodes[eb.Node].Name || ea.Port != eb.Port)) {
				return fmt.Sprintf("%q port %d: cabled differently (%v vs %v)", x.Name, p, oka, okb)
			}
		}
	}
	return ""
}
