package configs

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodHistory = `JobID|Start|End|NodeList
101|2015-02-16T10:00:00|2015-02-16T12:30:00|t2a[001-003,010]
101.batch|2015-02-16T10:00:00|2015-02-16T12:30:00|t2a001
102|2015-02-16T10:05:00|Unknown|t2b7,t2c[08-09]
103|Unknown|Unknown|None assigned
# a comment
104|2015-02-16T11:00:00|2015-02-16T11:00:00|n[1-2]x
`

func TestParseHistory(t *testing.T) {
	jobs, err := ParseHistory([]byte(goodHistory), "h.txt")
	require.NoError(t, err)
	require.Len(t, jobs, 3, "the step, the pending job and the header are skipped")
	assert.Equal(t, "101", jobs[0].ID)
	assert.Equal(t, []string{"t2a001", "t2a002", "t2a003", "t2a010"}, jobs[0].Hosts)
	assert.Equal(t, 150*time.Minute, jobs[0].End.Sub(jobs[0].Start))
	assert.True(t, jobs[1].End.IsZero(), "still running")
	assert.Equal(t, []string{"t2b7", "t2c08", "t2c09"}, jobs[1].Hosts)
	assert.Equal(t, []string{"n1x", "n2x"}, jobs[2].Hosts)
	assert.Equal(t, 7, jobs[2].Line)

	for _, tc := range []struct{ text, want string }{
		{"1|2015-02-16T10:00:00|x", "h.txt:1: "},
		{"1|2015-02-16 10:00|Unknown|a", "h.txt:1: job 1: start"},
		{"1|2015-02-16T10:00:00|2015-02-16T09:00:00|a", "ends"},
		{"\n1|2015-02-16T10:00:00|Unknown|a[3-1]", "h.txt:2: job 1: node list"},
		{"1|2015-02-16T10:00:00|Unknown|a[1-2]b[3]", "one bracket"},
		{"1|2015-02-16T10:00:00|Unknown|a,,b", "empty host"},
		{"x y|2015-02-16T10:00:00|Unknown|a", "plain word"},
	} {
		_, err := ParseHistory([]byte(tc.text), "h.txt")
		require.Error(t, err, tc.text)
		assert.Contains(t, err.Error(), tc.want, tc.text)
	}
}

func TestExpandHostlist(t *testing.T) {
	for in, want := range map[string][]string{
		"a":                 {"a"},
		"r1n[01-03,07],log": {"r1n01", "r1n02", "r1n03", "r1n07", "log"},
		"x[8-10]":           {"x8", "x9", "x10"},
		"x[008-010]y":       {"x008y", "x009y", "x010y"},
	} {
		got, err := ExpandHostlist(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ExpandHostlist("a[0-2000000]")
	assert.ErrorContains(t, err, "more than")
}

func FuzzParseHistory(f *testing.F) {
	f.Add([]byte(goodHistory))
	f.Add([]byte("1|2015-02-16T10:00:00|Unknown|a[1-3,5]b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, err := ParseHistory(data, "fuzz.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.txt") {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		for _, j := range jobs {
			if len(j.Hosts) == 0 || !j.End.IsZero() && j.End.Before(j.Start) {
				t.Fatalf("job %s read as %+v", j.ID, j)
			}
		}
	})
}
