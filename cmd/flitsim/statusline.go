package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"flitsim/routing"
	"flitsim/sim"
)

// statusLine is one line on a terminal that long work rewrites with how
// far it has come, at most every `every`, and erases when it ends:
// whole-subnet engines take minutes on the largest fabrics, and a single
// run of a large fabric longer (docs/validation.md, "Scale").
type statusLine struct {
	w           io.Writer
	every       time.Duration
	start, last time.Time
	shown       bool
}

// newStatusLine returns a status line writing to w, or nil (no line) when
// w is not a terminal.
func newStatusLine(w io.Writer) *statusLine {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &statusLine{w: w, every: 250 * time.Millisecond}
}

// begin starts a piece of work: the time shown counts from now.
func (l *statusLine) begin() {
	l.start, l.last, l.shown = time.Now(), time.Now(), false
}

// show rewrites the line with text and the time since begin, once
// `every` has passed since the last time (text is made only then).
func (l *statusLine) show(text func() string) {
	now := time.Now()
	if now.Sub(l.last) < l.every {
		return
	}
	l.last, l.shown = now, true
	fmt.Fprintf(l.w, "\r\033[K%s, %s", text(), now.Sub(l.start).Round(time.Second))
}

// end erases the line, if one was shown.
func (l *statusLine) end() {
	if l != nil && l.shown {
		fmt.Fprint(l.w, "\r\033[K")
	}
}

// routing returns the routing.Watch of one engine's routing, which shows
// its stage and share done (nil for a nil line).
func (l *statusLine) routing(engine string) routing.Watch {
	if l == nil {
		return nil
	}
	l.begin()
	return func(stage string, done, total int) {
		l.show(func() string { return routeProgress(engine, stage, done, total) })
	}
}

// routeProgress is the text of a routing's progress: the engine, its
// stage, the units done (of total, with the share, when total is known;
// none for a stage without units).
func routeProgress(engine, stage string, done, total int) string {
	s := engine + ": " + stage
	switch {
	case total > 0:
		s += fmt.Sprintf(" %d/%d (%.0f %%)", done, total, 100*float64(done)/float64(total))
	case done > 0:
		s += fmt.Sprintf(" %d", done)
	}
	return s
}

// simulation returns the sim.Watch of one run, which shows the time
// simulated against the time limit (nil for a nil line).
func (l *statusLine) simulation() sim.Watch {
	if l == nil {
		return nil
	}
	l.begin()
	return func(g sim.Progress) { l.show(func() string { return simProgress(g) }) }
}

// simProgress is the text of a run's progress: the time simulated, of at
// most its limit, and the events handled.
func simProgress(g sim.Progress) string {
	us := func(ps int64) time.Duration { return time.Duration(ps/1e6) * time.Microsecond }
	return fmt.Sprintf("simulated %s of at most %s (%.0f %%), %.1f M events", us(g.Now), us(g.MaxTime),
		100*float64(g.Now)/float64(max(g.MaxTime, 1)), float64(g.Events)/1e6)
}
