package fabric

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// laneGbps is the data rate of one InfiniBand lane after line coding, in
// Gbit/s: 8b/10b up to QDR (QDR: 10 × 0.8), 64b/66b from FDR10 on.
var laneGbps = []struct {
	speed string
	gbps  float64
}{
	{"SDR", 2}, {"DDR", 4}, {"QDR", 8}, {"FDR10", 10}, {"FDR", 14.0625 * 64 / 66},
	{"EDR", 25}, {"HDR", 50}, {"NDR", 100},
}

// linkWidths are the lane counts a port may run.
var linkWidths = []int{1, 2, 4, 8, 12}

// RateGbps returns the data rate per direction of a cable of width lanes
// at speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR), as ibnetdiscover
// writes them: "4xQDR" is 32 Gbit/s, "1xQDR" 8, "4xDDR" 16.
func RateGbps(width int, speed string) (float64, error) {
	okWidth := false
	for _, w := range linkWidths {
		okWidth = okWidth || w == width
	}
	if !okWidth {
		return 0, fmt.Errorf("link width %dx: want 1x, 2x, 4x, 8x or 12x", width)
	}
	for _, l := range laneGbps {
		if l.speed == speed {
			return float64(width) * l.gbps, nil
		}
	}
	names := make([]string, len(laneGbps))
	for i, l := range laneGbps {
		names[i] = l.speed
	}
	return 0, fmt.Errorf("link speed %q: want one of %s", speed, strings.Join(names, ", "))
}

// RateName returns the width and speed ("4xQDR") whose rate is gbps, or ""
// when none is.
func RateName(gbps float64) string {
	for _, w := range []int{4, 1, 2, 8, 12} {
		for _, l := range laneGbps {
			if float64(w)*l.gbps == gbps {
				return strconv.Itoa(w) + "x" + l.speed
			}
		}
	}
	return ""
}

// reRate finds a width and speed such as 4xQDR outside quotes.
var reRate = regexp.MustCompile(`(?:^|\s)(\d+)x([A-Z][A-Z0-9]*)(?:\s|$)`)

// ibsim's netlist keys: w= the IB LinkWidth code, s= the LinkSpeed code.
var (
	ibsimWidth = map[string]int{"1": 1, "2": 4, "4": 8, "8": 12, "16": 2}
	ibsimSpeed = map[string]string{"1": "SDR", "2": "DDR", "4": "QDR"}
)

// portRate returns the rate a port line states after its peer, or 0 when
// it states none: ibnetdiscover's "4xQDR" after the comment's LIDs, or
// ibsim's w= and s= keys together (they must agree with a width and speed
// token when there is one too).
func portRate(rest string) (float64, error) {
	// Drop quoted descriptions: a node's name may look like a rate.
	var b strings.Builder
	quoted := false
	for _, r := range rest {
		if r == '"' {
			quoted = !quoted
			b.WriteByte(' ')
			continue
		}
		if !quoted {
			b.WriteRune(r)
		}
	}
	text := b.String()
	var rate float64
	if m := reRate.FindAllStringSubmatch(text, -1); m != nil {
		last := m[len(m)-1]
		w, err := strconv.Atoi(last[1])
		if err != nil {
			return 0, fmt.Errorf("link width %q", last[1])
		}
		if rate, err = RateGbps(w, last[2]); err != nil {
			return 0, err
		}
	}
	keys := map[string]string{}
	before, _, _ := strings.Cut(text, "#")
	for _, f := range strings.Fields(before) {
		if k, v, ok := strings.Cut(f, "="); ok {
			keys[k] = v
		}
	}
	ws, hasW := keys["w"]
	ss, hasS := keys["s"]
	if !hasW || !hasS {
		return rate, nil // one key alone leaves the other to ibsim's default: no rate stated
	}
	w, ok := ibsimWidth[ws]
	if !ok {
		return 0, fmt.Errorf("ibsim width code w=%s: want 1 (1x), 2 (4x), 4 (8x), 8 (12x) or 16 (2x)", ws)
	}
	sp, ok := ibsimSpeed[ss]
	if !ok {
		return 0, fmt.Errorf("ibsim speed code s=%s: want 1 (SDR), 2 (DDR) or 4 (QDR)", ss)
	}
	keyed, _ := RateGbps(w, sp)
	if rate != 0 && rate != keyed {
		return 0, fmt.Errorf("%s and w=%s s=%s state different rates (%g and %g Gbit/s)", RateName(rate), ws, ss, rate, keyed)
	}
	return keyed, nil
}
