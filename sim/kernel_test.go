package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A handler that holds arbitrations (kernel.holding) leaves the events in
// the order the queue alone would pop them: the held ones, run at once by
// holdArb, first, then the queue's. Checked against a kernel that queues
// everything, over random sequences of what one handler may schedule
// (arbitrations and other events at its instant and later, with events
// already queued at its instant or not); the flush (queueHeld when another
// event comes at that instant) is what keeps them alike, and the
// generated simulator scenarios never reach it.
func TestHoldingKeepsTheQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 54))
	kinds := []uint8{evTryOut, evTryOut, evTryOut, evTryHCA, evDone, evLink, evHeadArrive}
	flushed := 0
	for trial := range 5000 {
		const now = 1_000_000
		var queued, holding kernel
		holding.now, queued.now = now, now
		// Events queued before the handler runs, some at its instant.
		for range r.IntN(3) {
			e := event{at: now + int64(r.IntN(2))*16000, phase: phaseArb, kind: evTryOut, ref: int32(r.IntN(100))}
			queued.q.push(e)
			holding.q.push(e)
		}
		holding.holding = true
		var sched []event
		for i := range 1 + r.IntN(6) {
			e := event{at: now, kind: kinds[r.IntN(len(kinds))], ref: int32(1000*trial + i)}
			if r.IntN(4) == 0 {
				e.at += int64(r.IntN(3)) * 16000
			}
			e.phase = phaseArb
			if e.kind == evHeadArrive || e.kind == evDone {
				e.phase = phaseArrive
			}
			sched = append(sched, e)
			heldBefore := len(holding.held)
			queued.schedule(e)
			holding.schedule(e)
			if heldBefore > 0 && len(holding.held) == 0 {
				flushed++
			}
		}
		var want, got []event
		for queued.q.len() > 0 {
			want = append(want, queued.q.pop())
		}
		got = append(got, holding.held...)
		for holding.q.len() > 0 {
			got = append(got, holding.q.pop())
		}
		require.Equal(t, want, got, "trial %d: scheduled %v", trial, sched)
		require.Equal(t, queued.modelEvents, holding.modelEvents+int64(len(holding.held)), "trial %d: model events", trial)
	}
	require.Greater(t, flushed, 100, "the flush is exercised")
}
