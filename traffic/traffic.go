// Package traffic generates the messages HCAs send (seeds/001 §4.3.3):
// uniform random injection, the all-to-all exchange with varying shift
// distances, and the usual synthetic patterns (shift, random permutation,
// bit reversal, hot spot). It knows nothing of the simulator: a pattern
// answers "whom does terminal i send its next message to?", and every
// random draw comes from the stream the caller passes in.
package traffic

import (
	"flitsim/fabric/param"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"
)

// Kind names a pattern.
type Kind string

// The patterns.
const (
	Uniform     Kind = "uniform"     // infinite; destination drawn per message
	Exchange    Kind = "exchange"    // finite all-to-all with shift distances ±1, ±2, …
	Shift       Kind = "shift"       // infinite; i → i+distance
	Permutation Kind = "permutation" // infinite; i → π(i), a seeded random derangement
	BitReversal Kind = "bitrev"      // infinite; i → bit-reverse(i), N a power of two
	HotSpot     Kind = "hotspot"     // infinite; a fraction of messages to the hot terminal, the rest uniform
)

// Kinds lists the patterns in a stable order with their help texts.
func Kinds() []struct{ Kind, Help string } {
	k := []struct{ Kind, Help string }{
		{string(Uniform), "uniform random injection: every message to a uniformly drawn other terminal (infinite)"},
		{string(Exchange), "all-to-all exchange with varying shift distances: i sends to i+1, i−1, i+2, i−2, … until it has sent one message to every other terminal (finite)"},
		{string(Shift), "shift: i sends to i+distance (infinite)"},
		{string(Permutation), "random permutation: i sends to π(i), a seeded derangement (infinite)"},
		{string(BitReversal), "bit reversal: i sends to the bit-reversed i; needs a power-of-two terminal count (infinite)"},
		{string(HotSpot), "hot spot: a fraction of the messages go to terminal 0, the rest uniform (infinite)"},
	}
	sort.Slice(k, func(i, j int) bool { return k[i].Kind < k[j].Kind })
	return k
}

// Spec configures a pattern. Its numeric knobs declare themselves (key,
// range, default, help) in param tags, which the campaign's [[traffic]]
// tables and flitsim params read; a zero value means the declared default.
type Spec struct {
	Kind Kind `json:"kind" param:"kind" flag:"traffic" help:"the pattern"`
	// MessageBytes is the payload of one message (0: one MTU).
	MessageBytes int `json:"msg_bytes" param:"msg_bytes" kind:"size" range:"[1,1073741824]" unset:"1MTU" help:"payload of a message: bytes, or with a unit (2KiB, 10MTU)"`
	// Load is the offered load per HCA as a fraction of the link rate;
	// 1.0 sends back to back, lower loads space messages by seeded
	// exponential gaps.
	Load float64 `json:"load" param:"load" range:"(0,1]" default:"1" help:"offered load per HCA, a fraction of the link rate (below 1: seeded exponential gaps between messages)"`
	// Distance is the shift of Kind Shift.
	Distance int `json:"distance,omitempty" param:"distance" range:"[-1073741824,1073741824]" default:"1" help:"shift traffic: i sends to i+distance (not 0)"`
	// HotFraction is the share of messages to the hot spot.
	HotFraction float64 `json:"hot_fraction,omitempty" param:"hot_fraction" range:"(0,1]" default:"0.1" help:"hotspot traffic: the share of messages to terminal 0"`
	// Order lays the pattern's ranks on the HCAs ("" is ByHCA).
	Order Order `json:"order,omitempty" param:"order" unset:"hca" help:"which HCA is rank i"`
}

// ParamValues lists the values of Spec's text keys (param.Valuer): the
// patterns and the rank orders.
func (*Spec) ParamValues(key string) []string {
	var v []string
	switch key {
	case "kind":
		for _, k := range Kinds() {
			v = append(v, k.Kind)
		}
	case "order":
		for _, o := range Orders() {
			v = append(v, o.Order)
		}
	}
	return v
}

// Finite reports whether every terminal stops after a known number of messages.
func (s Spec) Finite() bool { return s.Kind == Exchange }

// Pattern produces destinations for n terminals.
type Pattern interface {
	// Next returns the destination of terminal src's next message, or
	// ok=false when src has nothing more to send.
	Next(src int, rng *rand.Rand) (dst int, ok bool)
	// Messages returns how many messages terminal src sends in all, or -1
	// for an infinite pattern.
	Messages(src int) int
}

// New builds the pattern for the HCAs whose switches switchOf lists (HCA h
// is cabled to switch switchOf[h]), with its ranks laid on them by s.Order.
// rng seeds what is drawn once up front: the permutation pattern, then the
// random order.
func New(s Spec, switchOf []int, rng *rand.Rand) (Pattern, error) {
	p, err := newPattern(s, len(switchOf), rng)
	if err != nil || s.Order == ByHCA || s.Order == "" {
		return p, err
	}
	hca, err := Layout(s.Order, switchOf, rng)
	if err != nil {
		return nil, err
	}
	return place(p, hca), nil
}

// newPattern builds the pattern over n ranks.
func newPattern(s Spec, n int, rng *rand.Rand) (Pattern, error) {
	if n < 2 {
		return nil, fmt.Errorf("traffic needs at least two terminals, have %d", n)
	}
	switch s.Kind {
	case Uniform:
		return uniform{n: n}, nil
	case Exchange:
		return newExchange(n), nil
	case Shift:
		d := s.Distance
		if d == 0 {
			d = 1
		}
		if ((d%n)+n)%n == 0 {
			return nil, fmt.Errorf("shift distance %d maps every terminal onto itself (n=%d)", d, n)
		}
		return shift{n: n, d: ((d % n) + n) % n}, nil
	case Permutation:
		return newPermutation(n, rng), nil
	case BitReversal:
		if n&(n-1) != 0 {
			return nil, fmt.Errorf("bit reversal needs a power-of-two number of terminals, have %d", n)
		}
		return bitrev{n: n, w: bits.Len(uint(n)) - 1}, nil
	case HotSpot:
		f := s.HotFraction
		if f == 0 {
			f = 0.1
		}
		if f < 0 || f > 1 {
			return nil, fmt.Errorf("hot_fraction %g outside 0..1", f)
		}
		return hotspot{n: n, f: f}, nil
	}
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Kind)
	}
	return nil, fmt.Errorf("unknown traffic kind %q (known: %s)", s.Kind, strings.Join(names, ", "))
}

type uniform struct{ n int }

func (u uniform) Next(src int, rng *rand.Rand) (int, bool) {
	d := rng.IntN(u.n - 1)
	if d >= src {
		d++
	}
	return d, true
}
func (uniform) Messages(int) int { return -1 }

// exchange keeps, per terminal, how many messages it has sent.
type exchange struct {
	n    int
	sent []int32
}

func newExchange(n int) *exchange { return &exchange{n: n, sent: make([]int32, n)} }

// ExchangeOffset returns the shift of the k-th message (k from 0): +1, −1, +2, −2, …,
// with +n/2 only once when n is even.
func ExchangeOffset(k, n int) int {
	s := k/2 + 1
	if k%2 == 1 {
		s = -s
	}
	return s
}

func (e *exchange) Next(src int, _ *rand.Rand) (int, bool) {
	k := int(e.sent[src])
	if k >= e.n-1 {
		return 0, false
	}
	e.sent[src]++
	return ((src+ExchangeOffset(k, e.n))%e.n + e.n) % e.n, true
}
func (e *exchange) Messages(int) int { return e.n - 1 }

type shift struct{ n, d int }

func (s shift) Next(src int, _ *rand.Rand) (int, bool) { return (src + s.d) % s.n, true }
func (shift) Messages(int) int                         { return -1 }

type permutation struct{ to []int32 }

// newPermutation draws a random derangement (no terminal sends to itself)
// by shuffling and then fixing fixed points with their neighbour.
func newPermutation(n int, rng *rand.Rand) permutation {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	for i := range p {
		if int(p[i]) == i {
			j := (i + 1) % n
			p[i], p[j] = p[j], p[i]
		}
	}
	return permutation{to: p}
}

func (p permutation) Next(src int, _ *rand.Rand) (int, bool) { return int(p.to[src]), true }
func (permutation) Messages(int) int                         { return -1 }

type bitrev struct{ n, w int }

func (b bitrev) Next(src int, rng *rand.Rand) (int, bool) {
	d := int(bits.Reverse(uint(src)) >> (bits.UintSize - b.w))
	if d == src { // palindromes send uniformly instead of to themselves
		return uniform{b.n}.Next(src, rng)
	}
	return d, true
}
func (bitrev) Messages(int) int { return -1 }

type hotspot struct {
	n int
	f float64
}

func (h hotspot) Next(src int, rng *rand.Rand) (int, bool) {
	if src != 0 && rng.Float64() < h.f {
		return 0, true
	}
	return uniform{h.n}.Next(src, rng)
}
func (hotspot) Messages(int) int { return -1 }

// Gap returns the idle time before the next message of a terminal that
// offers load (0 < load ≤ 1) of a link: a seeded exponential gap whose mean
// makes busy/(busy+gap) = load, where busy is the message's wire time.
func Gap(load float64, busyPs int64, rng *rand.Rand) int64 {
	if load >= 1 || busyPs <= 0 {
		return 0
	}
	mean := float64(busyPs) * (1 - load) / load
	return int64(rng.ExpFloat64() * mean)
}

// ParseKind checks a kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if k.Kind == s {
			return Kind(s), nil
		}
	}
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Kind)
	}
	return "", fmt.Errorf("unknown traffic kind %q (known: %s)", s, strings.Join(names, ", "))
}

// ParseBytes reads a size such as 2048, 2KiB, 10MTU (with mtu bytes per MTU).
func ParseBytes(s string, mtu int) (int, error) { return param.ParseSize(s, mtu) }
