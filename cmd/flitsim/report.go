package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/BurntSushi/toml"

	"flitsim/configs"
	"flitsim/results"
)

// campaignCopy is the copy of its campaign file a results directory keeps,
// so that the report of a merge or of 'flitsim table' can show it.
const campaignCopy = "campaign.toml"

// release is flitsim's version; builds between releases carry the next
// one's with "-dev".
const release = "0.2.0-dev"

// version names this flitsim: its release and, when the build recorded
// them, the commit (with "+dirty" for uncommitted changes) and Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return release
	}
	v := release
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	return v + " (" + bi.GoVersion + ")"
}

// reportInfo describes the campaign of results directory dir for its
// report: from c when the caller has it, else from the directory's copy of
// the campaign file, of which it reads only the name and description (the
// files it names are relative to where it came from, not to dir). What it
// cannot read it says on stderr; the report goes on without.
func reportInfo(dir string, c *configs.Campaign, command string, stderr io.Writer) results.ReportInfo {
	info := results.ReportInfo{Version: version(), Command: command, Campaign: filepath.Base(dir)}
	if c != nil {
		info.Campaign, info.Description, info.File, info.Text = c.Name, c.Description, c.Source, c.Text
		return info
	}
	path := filepath.Join(dir, campaignCopy)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return info // results of an older flitsim
	}
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return info
	}
	info.File, info.Text = path, data
	var head struct{ Name, Description string }
	if _, err := toml.Decode(string(data), &head); err != nil {
		fmt.Fprintf(stderr, "report: %s: %v\n", path, err)
		return info
	}
	if head.Name != "" {
		info.Campaign = head.Name
	}
	info.Description = head.Description
	return info
}

// copyCampaign copies a shard directory's campaign file into dir (none:
// nothing to copy).
func copyCampaign(dir, shard string) error {
	data, err := os.ReadFile(filepath.Join(shard, campaignCopy))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, campaignCopy), data)
}
