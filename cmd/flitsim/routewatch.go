package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"flitsim/routing"
)

// routeWatch shows on a terminal how far a routing has come: one line,
// rewritten at most every `every`, naming the engine, its stage and the
// share of it done, erased when the routing ends. Whole-subnet engines
// take minutes on the largest fabrics (docs/validation.md, "Scale").
type routeWatch struct {
	w      io.Writer
	every  time.Duration
	engine string
	start  time.Time
	last   time.Time
	shown  bool
}

// newRouteWatch returns a watch writing to w, or nil (no progress line)
// when w is not a terminal.
func newRouteWatch(w io.Writer) *routeWatch {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &routeWatch{w: w, every: 250 * time.Millisecond}
}

// begin starts the line of one engine's routing and returns the
// routing.Watch to give it (nil for a nil watch).
func (r *routeWatch) begin(engine string) routing.Watch {
	if r == nil {
		return nil
	}
	r.engine, r.start, r.last, r.shown = engine, time.Now(), time.Now(), false
	return r.watch
}

// watch is the routing.Watch: it rewrites the line once `every` has passed
// since the last one.
func (r *routeWatch) watch(stage string, done, total int) {
	now := time.Now()
	if now.Sub(r.last) < r.every {
		return
	}
	r.last, r.shown = now, true
	fmt.Fprint(r.w, "\r\033[K"+progressLine(r.engine, stage, done, total, now.Sub(r.start)))
}

// end erases the line, if one was shown.
func (r *routeWatch) end() {
	if r != nil && r.shown {
		fmt.Fprint(r.w, "\r\033[K")
	}
}

// progressLine is the text of a progress line: the engine, its stage, the
// units done (of total, with the share, when total is known; none for a
// stage without units) and the time so far.
func progressLine(engine, stage string, done, total int, took time.Duration) string {
	s := engine + ": " + stage
	switch {
	case total > 0:
		s += fmt.Sprintf(" %d/%d (%.0f %%)", done, total, 100*float64(done)/float64(total))
	case done > 0:
		s += fmt.Sprintf(" %d", done)
	}
	return s + fmt.Sprintf(", %s", took.Round(time.Second))
}
