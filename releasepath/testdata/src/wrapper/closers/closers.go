// Package closers holds release helpers that package wrapper calls from outside: what they
// release reaches it as facts.
package closers

import (
	"context"
	"io"
	"log"
	"os"
	"sync"
)

// CloseQuietly closes c and logs a failure.
func CloseQuietly(c io.Closer) { // want CloseQuietly:`releases\(0:Close\)`
	if err := c.Close(); err != nil {
		log.Printf("close: %v", err)
	}
}

// CloseBoth closes both through CloseQuietly: a summary passes on what the helper it calls
// releases.
func CloseBoth(a, b io.Closer) { // want CloseBoth:`releases\(0:Close 1:Close\)`
	CloseQuietly(a)
	CloseQuietly(b)
}

// Unlock releases the lock it is passed.
func Unlock(mu *sync.Mutex) { // want Unlock:`releases\(0:Unlock\)`
	mu.Unlock()
}

// Stat reads f and releases nothing of it: it exports no fact.
func Stat(f *os.File) (os.FileInfo, error) {
	return f.Stat()
}

// Table is a counter under an exported lock.
type Table struct {
	Mu sync.Mutex
	n  int
}

// UnlockAndNotify must be called with t.Mu held; it counts and unlocks it.
func (t *Table) UnlockAndNotify() { // want UnlockAndNotify:`releases\(recv.Mu:Unlock\)`
	t.n++
	t.Mu.Unlock()
}

// Bump takes t.Mu itself before it releases it: it is balanced, releases nothing of the
// caller's.
func (t *Table) Bump() {
	t.Mu.Lock()
	t.n++
	t.Mu.Unlock()
}

// closeHidden is unexported: no other package can call it, so it exports no fact.
func closeHidden(c io.Closer) { c.Close() }

var kept []io.Closer

// Remember keeps c in a package variable: a caller's c is handed on.
func Remember(c io.Closer) { // want Remember:`releases\(\) keeps\(0\)`
	kept = append(kept, c)
}

// Committer is containerd's content.Writer: Commit ends it, even on error.
type Committer interface {
	Write(p []byte) (int, error)
	Commit(ctx context.Context, size int64, expected string) error
	Close() error
}

// CommitOnly commits w: a Commit with a context and plain values ends its receiver.
func CommitOnly(ctx context.Context, w Committer) error { // want CommitOnly:`releases\(1:Commit\)`
	return w.Commit(ctx, 0, "")
}
