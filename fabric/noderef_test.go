package fabric

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every node of a network is found by its name, its GUID and its LID, an
// HCA by its port GUID too; the kind is checked where the caller asks for
// one, and every error says what a reference may be.
func TestResolverFindsEveryNode(t *testing.T) {
	net, err := Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	r := NewResolver(net)
	for i := range net.Nodes {
		nd := &net.Nodes[i]
		refs := []string{nd.Name, fmt.Sprintf("0x%016x", nd.GUID), fmt.Sprintf("0x%x", nd.GUID), fmt.Sprintf("lid:%d", nd.LID)}
		if !net.IsSwitch(i) {
			refs = append(refs, fmt.Sprintf("0x%016x", nd.PortGUID))
		}
		for _, ref := range refs {
			got, err := r.Node(ref)
			require.NoError(t, err, ref)
			assert.Equal(t, i, got, ref)
			if net.IsSwitch(i) {
				s, err := r.Switch(ref)
				assert.NoError(t, err)
				assert.Equal(t, i, s)
				_, err = r.HCA(ref)
				assert.ErrorContains(t, err, "is a switch")
			} else {
				h, err := r.HCA(ref)
				assert.NoError(t, err)
				assert.Equal(t, i-net.NumSwitches, h)
				_, err = r.Switch(ref)
				assert.ErrorContains(t, err, "is an HCA")
			}
		}
	}
	for ref, want := range map[string]string{
		"nosuch": "no node", "": "empty", "lid:0": "not a LID", "lid:x": "not a LID", "lid:999": "no node has LID 999",
		"0xzz": "not a GUID", "0x1234": "no node or port GUID",
	} {
		_, err := r.Node(ref)
		assert.ErrorContains(t, err, want, ref)
	}
}

// A name is tried before a GUID or a LID, and a host name finds the HCA
// whose name it begins.
func TestResolverNamesFirstAndHosts(t *testing.T) {
	b := NewBuilder("t")
	s := b.AddNode(Node{Kind: Switch, Name: "0x0000000000000001", Radix: 4, GUID: 0x99})
	h1 := b.AddNode(Node{Kind: HCA, Name: "node07 HCA-1", Radix: 1})
	h2 := b.AddNode(Node{Kind: HCA, Name: "lid:1", Radix: 1})
	require.NoError(t, b.Connect(s, 1, h1, 1))
	require.NoError(t, b.Connect(s, 2, h2, 1))
	net, err := b.Finish()
	require.NoError(t, err)
	r := NewResolver(net)
	i, err := r.Node("0x0000000000000001")
	require.NoError(t, err)
	assert.Equal(t, s, i, "the name, not GUID 1")
	i, err = r.Node("lid:1")
	require.NoError(t, err)
	assert.Equal(t, h2, i, "the name, not LID 1")
	h, err := r.Host("node07")
	require.NoError(t, err)
	assert.Equal(t, h1-net.NumSwitches, h)
	_, err = r.Host("node08")
	assert.ErrorContains(t, err, `no HCA "node08"`)
}
