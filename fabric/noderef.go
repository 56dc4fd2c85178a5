package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

// RefHelp says what a node reference may be, for help texts and errors.
const RefHelp = "a node name, a 0x node or port GUID, or lid:N"

// Resolver finds the nodes of a network by reference, the one way every
// input names a node (jobs files, failure lists, routing roots, Slurm host
// maps): the node's name (its description in a fabric file); a node GUID
// or a port GUID written 0x…; or "lid:N". A name is tried first, so a node
// whose name looks like a GUID is still found by it.
type Resolver struct {
	net    *Network
	byName map[string]int
	byGUID map[uint64]int // node GUIDs, and the port GUIDs of HCAs
	byLID  []int32
}

// NewResolver indexes net's names, GUIDs and LIDs.
func NewResolver(net *Network) *Resolver {
	r := &Resolver{net: net, byName: net.ByName(), byGUID: make(map[uint64]int, len(net.Nodes)), byLID: net.ByLID()}
	for i := range net.Nodes {
		nd := &net.Nodes[i]
		if nd.PortGUID != 0 {
			if _, taken := r.byGUID[nd.PortGUID]; !taken {
				r.byGUID[nd.PortGUID] = i
			}
		}
	}
	for i := range net.Nodes { // a node GUID wins over a port GUID
		r.byGUID[net.Nodes[i].GUID] = i
	}
	return r
}

// Node returns the index of the node ref names.
func (r *Resolver) Node(ref string) (int, error) {
	ref = strings.TrimSpace(ref)
	if i, ok := r.byName[ref]; ok && ref != "" {
		return i, nil
	}
	switch {
	case ref == "":
		return -1, fmt.Errorf("empty node reference (want %s)", RefHelp)
	case strings.HasPrefix(ref, "lid:"):
		lid, err := strconv.ParseUint(ref[4:], 10, 16)
		if err != nil || lid == 0 {
			return -1, fmt.Errorf("%q: not a LID (want lid:N, N in 1..%d)", ref, 0xBFFF)
		}
		if int(lid) < len(r.byLID) && r.byLID[lid] >= 0 {
			return int(r.byLID[lid]), nil
		}
		return -1, fmt.Errorf("no node has LID %d in %s", lid, r.net.Name)
	case strings.HasPrefix(ref, "0x") || strings.HasPrefix(ref, "0X"):
		g, err := strconv.ParseUint(ref[2:], 16, 64)
		if err != nil {
			return -1, fmt.Errorf("%q: not a GUID (hex digits after 0x), nor a node name of %s", ref, r.net.Name)
		}
		if i, ok := r.byGUID[g]; ok {
			return i, nil
		}
		return -1, fmt.Errorf("no node or port GUID %#016x in %s", g, r.net.Name)
	}
	return -1, fmt.Errorf("no node %q in %s (want %s)", ref, r.net.Name, RefHelp)
}

// Switch returns the index of the switch ref names; an HCA is an error
// that says so.
func (r *Resolver) Switch(ref string) (int, error) {
	i, err := r.Node(ref)
	if err != nil {
		return -1, err
	}
	if !r.net.IsSwitch(i) {
		return -1, fmt.Errorf("%q is an HCA of %s, not a switch", ref, r.net.Name)
	}
	return i, nil
}

// HCA returns the ordinal (0 for the first HCA) of the HCA ref names; a
// switch is an error that says so.
func (r *Resolver) HCA(ref string) (int, error) {
	i, err := r.Node(ref)
	if err != nil {
		return -1, err
	}
	if r.net.IsSwitch(i) {
		return -1, fmt.Errorf("%q is a switch of %s, not an HCA", ref, r.net.Name)
	}
	return i - r.net.NumSwitches, nil
}

// Host returns the ordinal of the HCA a host name stands for: the HCA ref
// names, else the first HCA whose name begins with the word ref (fabric
// files name HCAs "HOST HCA-1" after the host, as ibnetdiscover shows
// them).
func (r *Resolver) Host(ref string) (int, error) {
	h, err := r.HCA(ref)
	if err == nil {
		return h, nil
	}
	if _, isNode := r.byName[strings.TrimSpace(ref)]; isNode {
		return -1, err // a switch
	}
	for i := r.net.NumSwitches; i < len(r.net.Nodes); i++ {
		if strings.HasPrefix(r.net.Nodes[i].Name, ref+" ") {
			return i - r.net.NumSwitches, nil
		}
	}
	if strings.HasPrefix(ref, "0x") || strings.HasPrefix(ref, "lid:") {
		return -1, err
	}
	return -1, fmt.Errorf("no HCA %q in %s (want %s, or a host name that begins an HCA's name)", ref, r.net.Name, RefHelp)
}
