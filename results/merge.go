package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ShardFile describes a shard's results directory.
const ShardFile = "shard.json"

// ShardInfo says which campaign and which shard a directory holds.
type ShardInfo struct {
	Campaign string `json:"campaign"` // the campaign's name
	Hash     string `json:"hash"`     // the campaign's hash (every record carries it)
	Shard    int    `json:"shard"`    // I of I/N
	Shards   int    `json:"shards"`   // N
	Points   int    `json:"points"`   // points in the whole campaign
	Size     int    `json:"size"`     // points in this shard (index ≡ I mod N)
}

func (si ShardInfo) String() string { return fmt.Sprintf("%d/%d", si.Shard, si.Shards) }

// WriteShardInfo records what dir holds, or checks that it matches what an
// earlier run of the same shard wrote.
func WriteShardInfo(dir string, si ShardInfo) error {
	path := filepath.Join(dir, ShardFile)
	if old, err := ReadShardInfo(dir); err == nil {
		if old != si {
			return fmt.Errorf("%s is shard %s of campaign %s (%s), not shard %s of %s (%s): choose another -o",
				dir, old, old.Campaign, old.Hash, si, si.Campaign, si.Hash)
		}
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	b, err := json.MarshalIndent(si, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// ReadShardInfo reads dir's shard.json.
func ReadShardInfo(dir string) (ShardInfo, error) {
	var si ShardInfo
	b, err := os.ReadFile(filepath.Join(dir, ShardFile))
	if err != nil {
		return si, err
	}
	if err := json.Unmarshal(b, &si); err != nil {
		return si, fmt.Errorf("%s: %w", filepath.Join(dir, ShardFile), err)
	}
	return si, nil
}

// Merge reads the shard directories of one campaign and returns all their
// records sorted by point. It rejects a directory that is not a shard, a
// shard of another campaign or of another split, a shard given twice, a
// missing or unfinished shard, and a record that is foreign to its shard.
func Merge(dirs []string) ([]Record, ShardInfo, error) {
	if len(dirs) == 0 {
		return nil, ShardInfo{}, fmt.Errorf("no shard directories given")
	}
	var first ShardInfo
	var firstDir string
	seen := map[int]string{}
	var all []Record
	var unfinished []string
	for k, dir := range dirs {
		si, err := ReadShardInfo(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil, first, fmt.Errorf("%s is not a shard directory (no %s; shards are written by flitsim run --shard I/N)", dir, ShardFile)
		}
		if err != nil {
			return nil, first, err
		}
		if k == 0 {
			first, firstDir = si, dir
		}
		switch {
		case si.Hash != first.Hash:
			return nil, first, fmt.Errorf("%s holds campaign %s (%s) but %s holds campaign %s (%s): shards of different campaigns cannot be merged",
				dir, si.Campaign, si.Hash, firstDir, first.Campaign, first.Hash)
		case si.Shards != first.Shards:
			return nil, first, fmt.Errorf("%s is shard %s but %s is shard %s: all shards must come from one split", dir, si, firstDir, first)
		case si.Shard < 0 || si.Shard >= si.Shards:
			return nil, first, fmt.Errorf("%s: bad shard %s", filepath.Join(dir, ShardFile), si)
		}
		if other, dup := seen[si.Shard]; dup {
			return nil, first, fmt.Errorf("shard %s given twice: %s and %s", si, other, dir)
		}
		seen[si.Shard] = dir
		recs, err := ReadDir(dir)
		if err != nil {
			return nil, first, err
		}
		for _, r := range recs {
			if r.Campaign != si.Hash {
				return nil, first, fmt.Errorf("%s: point %d belongs to campaign %s, not %s", filepath.Join(dir, ResultsFile), r.Point, r.Campaign, si.Hash)
			}
			if r.Point < 0 || r.Point >= si.Points || r.Point%si.Shards != si.Shard {
				return nil, first, fmt.Errorf("%s: point %d (%s) does not belong to shard %s", filepath.Join(dir, ResultsFile), r.Point, r.Key, si)
			}
		}
		if len(recs) != si.Size {
			unfinished = append(unfinished, fmt.Sprintf("shard %s in %s has %d of %d points", si, dir, len(recs), si.Size))
		}
		all = append(all, recs...)
	}
	var missing []string
	for i := 0; i < first.Shards; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, first, fmt.Errorf("campaign %s: shard(s) %s of %d missing", first.Campaign, strings.Join(missing, ", "), first.Shards)
	}
	if len(unfinished) > 0 {
		return nil, first, fmt.Errorf("unfinished (run them again; they resume): %s", strings.Join(unfinished, "; "))
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Point < all[j].Point })
	for i := 1; i < len(all); i++ { // cannot happen given the checks above; kept as a guard
		if all[i].Point == all[i-1].Point {
			return nil, first, fmt.Errorf("point %d (%s) recorded twice", all[i].Point, all[i].Key)
		}
	}
	return all, first, nil
}

// MergeWall concatenates the wall.jsonl files of dirs into dst, sorted by
// point.
func MergeWall(dst string, dirs []string) error {
	var walls []Wall
	for _, dir := range dirs {
		w, err := ReadWalls(dir)
		if err != nil {
			return err
		}
		walls = append(walls, w...)
	}
	sort.SliceStable(walls, func(i, j int) bool { return walls[i].Point < walls[j].Point })
	var buf bytes.Buffer
	for _, w := range walls {
		line, err := json.Marshal(w)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return WriteFileAtomic(dst, buf.Bytes())
}
