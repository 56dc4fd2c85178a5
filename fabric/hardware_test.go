package fabric

import (
	"errors"
	"testing"

	"flitsim/fabric/param"

	"github.com/stretchr/testify/require"
)

// A packet of more flits than the simulators count is refused, naming the
// MTU and the keys that make the packet's size.
func TestHardwarePacketFlitsLimit(t *testing.T) {
	h := DefaultHardware()
	h.FlitBytes, h.HeaderBytes = 1, 0
	h.InputBufferFlits, h.HCABufferFlits, h.OutputBufferFlits = 1<<20, 1<<20, 1<<20
	h.MTU = MaxPacketFlits
	require.NoError(t, h.Validate())
	h.MTU++
	err := h.Validate()
	var pe *param.Error
	require.True(t, errors.As(err, &pe), "%v", err)
	require.Equal(t, "mtu", pe.Key)
	require.Equal(t, []string{"header_bytes", "flit_bytes"}, pe.Also)
	require.Contains(t, err.Error(), "65536 flits, more than the 65535")
}

// A flit may take at most MaxFlitPs on any link, crossbar or host bus (the
// fast simulator's credit progressions keep their spacing in 32 bits).
func TestHardwareFlitTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		key string
		set func(h *Hardware, gbps float64)
	}{
		{"link_gbps", func(h *Hardware, g float64) { h.LinkGbps = g }},
		{"pcie_gbps", func(h *Hardware, g float64) { h.PCIeGbps = g }},
		{"rank2_gbps", func(h *Hardware, g float64) { h.Rank2Gbps = g }},
	} {
		h := DefaultHardware()
		tc.set(&h, 0.0003) // 512 bits in 1.7e9 ps
		require.NoError(t, h.Validate(), tc.key)
		tc.set(&h, 0.0002) // 2.56e9 ps
		err := h.Validate()
		var pe *param.Error
		require.True(t, errors.As(err, &pe), "%s: %v", tc.key, err)
		require.Equal(t, tc.key, pe.Key)
		require.Contains(t, err.Error(), "more than the 2147483647 a flit may take")
	}
}
