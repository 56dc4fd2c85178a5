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
