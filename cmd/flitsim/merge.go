package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"flitsim/results"
)

func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "merge [-o DIR] SHARD_DIR...",
		"Combines the result directories of the N shards of one campaign ('flitsim run --shard I/N') into DIR,\n"+
			"and writes the tables, plots and report.html there exactly as a local run of the whole campaign would. Refuses\n"+
			"shards of different campaigns or splits, a shard given twice, a missing or unfinished shard, and\n"+
			"records that do not belong to their shard. DIR defaults to the shards' common parent directory.", stderr)
	out := fs.String("o", "", "output directory (default: the shards' parent directory)")
	quiet := fs.Bool("q", false, "print nothing but the table")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return badInput("want the shard directories to merge")
	}
	dir := *out
	if dir == "" {
		dir = filepath.Dir(filepath.Clean(pos[0]))
		for _, p := range pos[1:] {
			if filepath.Dir(filepath.Clean(p)) != dir {
				return badInput("the shards are in different directories (%s, %s): give -o DIR", dir, filepath.Dir(filepath.Clean(p)))
			}
		}
	}
	lock, err := results.AcquireLock(dir, "flitsim merge")
	if err != nil {
		return asInput(err)
	}
	defer lock.Release()
	recs, si, err := results.Merge(pos)
	if err != nil {
		return asInput(err)
	}
	if _, err := results.ReadShardInfo(dir); err == nil {
		return badInput("%s is a shard directory; merge into another -o DIR", dir)
	}
	if old, err := results.ReadDir(dir); err != nil {
		return err
	} else if len(old) > 0 && old[0].Campaign != si.Hash {
		return badInput("%s holds results of another campaign (%s, the shards are %s): choose another -o", dir, old[0].Campaign, si.Hash)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteRecords(filepath.Join(dir, results.ResultsFile), recs); err != nil {
		return err
	}
	if err := results.MergeWall(filepath.Join(dir, "wall.jsonl"), pos); err != nil {
		return err
	}
	if err := copyCampaign(dir, pos[0]); err != nil {
		return err
	}
	table, err := results.WriteDir(dir, reportInfo(dir, nil, "flitsim "+strings.Join(append([]string{"merge"}, args...), " "), stderr))
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "merged %d shards of campaign %s: %d points → %s\n", si.Shards, si.Campaign, len(recs), dir)
	}
	_, err = stdout.Write(table)
	return err
}
