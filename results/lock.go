package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockFile is the lock of a results directory.
const LockFile = "lock"

// Lock is an exclusive hold on a results directory: while one process
// writes there, another that asks is refused, told who holds it. The
// kernel releases the lock when its holder ends, however it ends, so a
// killed run leaves no stale lock behind.
type Lock struct {
	f *os.File
}

// AcquireLock locks dir (creating it) for the calling process; what
// describes the holder in the refusal another process gets.
func AcquireLock(dir, what string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "another process"
		}
		return nil, fmt.Errorf("%s is in use by %s: wait for it, or choose another -o", dir, h)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s since %s (%s)\n", os.Getpid(), host, time.Now().Format(time.RFC3339), what)
		f.Sync()
	}
	return &Lock{f: f}, nil
}

// Release gives the directory up.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if e := l.f.Close(); err == nil {
		err = e
	}
	l.f = nil
	return err
}
