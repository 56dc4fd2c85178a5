package fabric

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const umad2sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"

// TestIBSimLoadsOurNetlist writes generated fabrics as netlists, loads them
// into the real ibsim, discovers them with the real ibnetdiscover (under the
// umad2sim preload) and reads the discovery back: it must be the same
// network. It needs Debian's ibsim-utils and infiniband-diags, which .ci/run
// installs.
func TestIBSimLoadsOurNetlist(t *testing.T) {
	for _, tool := range []string{"ibsim", "ibnetdiscover"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s missing in CI: .ci/run should install ibsim-utils and infiniband-diags", tool)
			}
			t.Skipf("%s not installed (Debian: ibsim-utils, infiniband-diags)", tool)
		}
	}
	if _, err := os.Stat(umad2sim); err != nil {
		t.Skipf("%s not found", umad2sim)
	}
	for i, spec := range []string{"kary-ntree:k=4,n=2", "torus:dims=3x3,redundancy=2", "dragonfly:a=3,p=2,h=1,g=4"} {
		t.Run(spec, func(t *testing.T) {
			net, err := Build(spec)
			require.NoError(t, err)
			dir := t.TempDir()
			var buf bytes.Buffer
			require.NoError(t, WriteIBNetDiscover(&buf, net))
			netfile := filepath.Join(dir, "fabric.net")
			require.NoError(t, os.WriteFile(netfile, buf.Bytes(), 0o644))
			sock := fmt.Sprintf("flitsim-test-%d-%d", os.Getpid(), i)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sim := exec.CommandContext(ctx, "ibsim", "-s", "-n", netfile)
			sim.Dir = dir
			sim.Env = append(os.Environ(), "IBSIM_SOCKNAME="+sock)
			simOut := &syncBuffer{}
			sim.Stdout, sim.Stderr = simOut, simOut
			simIn, err := sim.StdinPipe() // ibsim reads console commands; keep stdin open
			require.NoError(t, err)
			require.NoError(t, sim.Start())
			defer func() {
				simIn.Close()
				_ = sim.Process.Kill()
				_ = sim.Wait()
			}()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(simOut.String(), "Network simulator ready") {
				if time.Now().After(deadline) {
					t.Fatalf("ibsim did not start:\n%s", simOut.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			host := net.Nodes[net.NumSwitches].Name
			disc := exec.CommandContext(ctx, "ibnetdiscover")
			disc.Dir = dir
			disc.Env = append(os.Environ(), "IBSIM_SOCKNAME="+sock, "SIM_HOST="+host, "LD_PRELOAD="+umad2sim)
			out, err := disc.Output()
			require.NoError(t, err, "ibnetdiscover: %s", out)
			got, err := ReadIBNetDiscover(bytes.NewReader(out), "ibnetdiscover")
			require.NoError(t, err)
			require.Empty(t, Diff(net, got), "ibnetdiscover output:\n%s", out)
		})
	}
}

// syncBuffer collects a child's output while the test polls it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
