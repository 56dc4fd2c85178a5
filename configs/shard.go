package configs

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects the points of one of N shards of a campaign: point i
// belongs to shard i mod N. Points are expanded topology-major, so the
// round-robin split gives every shard the same mix of topologies, failure
// levels, seeds and routings, and shards differ in cost by at most a few
// points' worth without any cost model. The zero Shard (N = 0) is the
// whole campaign.
type Shard struct {
	I, N int
}

// ParseShard parses "I/N" with 0 ≤ I < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: I and N must be integers", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: need N ≥ 1 and 0 ≤ I < N", s)
	}
	return Shard{I: i, N: n}, nil
}

// Whole reports whether s is the zero Shard: the whole campaign, not split
// at all (shard 0/1 is a split into one shard, with a shard directory).
func (s Shard) Whole() bool { return s.N == 0 }

// Has reports whether point index i belongs to the shard.
func (s Shard) Has(i int) bool { return s.Whole() || i%s.N == s.I }

// Size returns how many of total points belong to the shard.
func (s Shard) Size(total int) int {
	if s.Whole() {
		return total
	}
	if s.I >= total {
		return 0
	}
	return (total-s.I-1)/s.N + 1
}

func (s Shard) String() string {
	if s.Whole() {
		return "whole"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}
