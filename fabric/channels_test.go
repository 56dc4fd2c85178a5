package fabric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every channel is found again at the port it leaves, enters the port
// cabled there, and pairs with the other direction of its cable; every
// port without a cable, and every port a node does not have, has none.
func TestChannels(t *testing.T) {
	for _, spec := range []string{"torus:dims=3x3,redundancy=2", "kary-ntree:k=4,n=2,hcas=12", "dragonfly:a=4,p=2,h=2,g=5", "random:switches=12,hcas=30,links=20,seed=3"} {
		n, err := Build(spec)
		require.NoError(t, err, spec)
		c := NewChannels(n)
		require.Equal(t, 2*len(n.Links), c.Len(), spec)
		for ch := int32(0); ch < int32(c.Len()); ch++ {
			f, to := c.From(ch), c.To(ch)
			assert.Equal(t, ch, c.At(int(f.Node), int(f.Port)), "%s: channel %d", spec, ch)
			peer, ok := n.Peer(int(f.Node), int(f.Port))
			require.True(t, ok)
			assert.Equal(t, peer, to, "%s: channel %d", spec, ch)
			assert.Equal(t, c.Link(ch), n.LinkAt(int(f.Node), int(f.Port)))
			r := c.Reverse(ch)
			assert.Equal(t, to, c.From(r))
			assert.Equal(t, f, c.To(r))
			assert.Equal(t, c.Link(ch), c.Link(r))
		}
		lk := n.Links[0]
		assert.Equal(t, int32(0), c.At(int(lk.A.Node), int(lk.A.Port)), "%s: channel 0 leaves end A of link 0", spec)
		assert.Equal(t, int32(1), c.At(int(lk.B.Node), int(lk.B.Port)), "%s: channel 1 leaves end B", spec)
		for i := range n.Nodes {
			for p := 0; p <= n.Nodes[i].Radix+1; p++ {
				if n.LinkAt(i, p) < 0 {
					assert.Equal(t, int32(-1), c.At(i, p), "%s: node %d port %d", spec, i, p)
				}
			}
		}
	}
}
