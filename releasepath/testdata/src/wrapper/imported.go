package wrapper

import (
	"os"

	"wrapper/closers"
)

// sizeImported closes f through another package's helper, which its package's fact says
// closes its argument.
func sizeImported(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseQuietly(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func sizeImportedLeaky(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip closers.CloseQuietly \(Open at line 25\)`
	}
	closers.CloseQuietly(f)
	return fi.Size(), nil
}

// sizeBoth closes f as one of two through a helper that calls another.
func sizeBoth(path string, g *os.File) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.CloseBoth(g, f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sizeStat hands f to a helper that only reads it: it is still open on every return.
func sizeStat(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closers.Stat(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip f.Close \(Open at line 53\)`
	}
	return fi.Size(), nil // want `return may skip f.Close \(Open at line 53\)`
}

type box struct {
	mu closersMutex
}

type closersMutex = closers.Table

// countImported unlocks through another package's unlocking helper on one path and by
// hand on the other.
func countImported(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		t.UnlockAndNotify()
		return 1
	}
	t.Mu.Unlock()
	return 0
}

// countOther unlocks another table's lock: t.Mu stays held.
func countOther(t, u *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		u.UnlockAndNotify()
		return 1 // want `return may skip t.Mu.Unlock \(Lock at line 85\)`
	}
	t.Mu.Unlock()
	return 0
}

// countBump calls a helper that takes and releases the lock itself: t.Mu stays held.
func countBump(t *closers.Table, stop bool) int {
	t.Mu.Lock()
	if stop {
		t.Bump()
		return 1 // want `return may skip t.Mu.Unlock \(Lock at line 96\)`
	}
	t.Mu.Unlock()
	return 0
}

// countField passes the lock of a field to a helper that unlocks what it is passed.
func countField(b *box, stop bool) int {
	b.mu.Mu.Lock()
	if stop {
		closers.Unlock(&b.mu.Mu)
		return 1
	}
	b.mu.Mu.Unlock()
	return 0
}
