package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/traffic"
)

// A watched run is told its progress every watchEvery events (every
// window of a run cut into domains), its instant never going back, and
// ends with the result of the run unwatched, trace hash included.
func TestWatchedRunIsTheRun(t *testing.T) {
	net, tb := setup(t, "kary-ntree:k=4,n=3", "dfsssp")
	for _, domains := range []int{1, 2} {
		p := params(traffic.Uniform)
		p.MaxTime = 100 * fabric.Microsecond
		p.Domains, p.Workers = domains, 1
		plain, err := Run(net, tb, p)
		require.NoError(t, err)
		if domains > 1 {
			require.Equal(t, domains, plain.Domains, "the run is cut")
		}
		var seen []Progress
		watched, err := run(net, tb, p, func(s *simulator) {
			s.watch, s.watchAt, s.watchEvery = func(g Progress) { seen = append(seen, g) }, 1000, 1000
		})
		require.NoError(t, err)
		require.Greater(t, len(seen), int(plain.Events/2000), "%d domains: calls for %d events", domains, plain.Events)
		for i, g := range seen {
			require.Equal(t, p.MaxTime, g.MaxTime)
			require.LessOrEqual(t, g.Now, p.MaxTime)
			if i > 0 {
				require.LessOrEqual(t, seen[i-1].Now, g.Now, "%d domains: the instant never goes back", domains)
				require.Less(t, seen[i-1].Events, g.Events, "%d domains: events grow", domains)
			}
		}
		for _, r := range []*Result{plain, watched} {
			r.WallSeconds, r.FlitHopsPerS = 0, 0
		}
		require.Equal(t, plain, watched, "%d domains", domains)
	}
}
