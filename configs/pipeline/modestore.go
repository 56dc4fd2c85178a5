package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"flitsim/results"
)

// ModeStore keeps a Modes comparison's runs beyond the process: Run gives
// back the runs it holds instead of simulating them again and saves each
// run as soon as it is done, so a killed comparison run again resumes
// where it stopped and one that is complete is only summarized.
type ModeStore interface {
	// Load returns the run of mode and seed kept earlier, if any.
	Load(mode string, seed uint64) (ModeRun, bool, error)
	// Save keeps r (called from one goroutine at a time).
	Save(r ModeRun) error
}

// ModeDir is a directory of Modes runs: one subdirectory per workload,
// named by a key of everything its runs depend on (the caller's), holding
// what the key stands for (workload.json) and a JSON file per run, each
// written whole or not at all. The directory is locked while open, so
// two comparisons never write into one.
type ModeDir struct {
	dir  string
	lock *results.Lock
}

// OpenModeDir locks dir (creating it) for this process; what describes
// the holder to another process refused.
func OpenModeDir(dir, what string) (*ModeDir, error) {
	l, err := results.AcquireLock(dir, what)
	if err != nil {
		return nil, err
	}
	return &ModeDir{dir: dir, lock: l}, nil
}

// ReadModeDir opens dir to read its runs alone, without the lock: each
// run file is written whole or not at all, so a comparison still running
// there can be summarized as it stands. Its stores refuse to save.
func ReadModeDir(dir string) (*ModeDir, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	return &ModeDir{dir: dir}, nil
}

// Close releases the directory.
func (d *ModeDir) Close() error { return d.lock.Release() }

// Workload returns the store of the workload keyed key (a file name's
// worth of letters, digits and dashes); its directory and describe, as
// its workload.json, are written with its first run.
func (d *ModeDir) Workload(key string, describe any) (ModeStore, error) {
	if key == "" || strings.ContainsAny(key, `/\.`) {
		return nil, fmt.Errorf("mode store: bad workload key %q", key)
	}
	b, err := json.MarshalIndent(describe, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("mode store %s: %w", key, err)
	}
	return &modeDirWorkload{dir: filepath.Join(d.dir, key), describe: append(b, '\n'), readOnly: d.lock == nil}, nil
}

// modeDirWorkload is one workload's subdirectory of a ModeDir.
type modeDirWorkload struct {
	dir      string
	describe []byte
	readOnly bool
}

func (w *modeDirWorkload) path(mode string, seed uint64) string {
	return filepath.Join(w.dir, fmt.Sprintf("%s-seed%d.json", mode, seed))
}

func (w *modeDirWorkload) Load(mode string, seed uint64) (ModeRun, bool, error) {
	p := w.path(mode, seed)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return ModeRun{}, false, nil
	}
	if err != nil {
		return ModeRun{}, false, err
	}
	var r ModeRun
	if err := json.Unmarshal(b, &r); err != nil {
		return ModeRun{}, false, fmt.Errorf("%s: %w (remove it to run it again)", p, err)
	}
	if r.Mode != mode || r.Seed != seed {
		return ModeRun{}, false, fmt.Errorf("%s: holds mode %s seed %d (remove it to run it again)", p, r.Mode, r.Seed)
	}
	return r, true, nil
}

func (w *modeDirWorkload) Save(r ModeRun) error {
	if w.readOnly {
		return fmt.Errorf("%s: opened to read", w.dir)
	}
	desc := filepath.Join(w.dir, "workload.json")
	if _, err := os.Stat(desc); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(w.dir, 0o755); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(desc, w.describe); err != nil {
			return err
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(w.path(r.Mode, r.Seed), append(b, '\n'))
}
