package methodvalue

import (
	"sync"

	"methodvalue/ext"
)

type counted struct {
	mu sync.Mutex
	n  int
}

func (c *counted) unlockAndCount() {
	c.n++
	c.mu.Unlock()
}

// helperInLiteral calls the helper's method value from a literal called where it is
// written: that releases.
func (c *counted) helperInLiteral(stop bool) int {
	c.mu.Lock()
	release := c.unlockAndCount
	if stop {
		func() { release() }()
		return 1
	}
	c.mu.Unlock()
	return 0
}

// otherPackageHelper takes another package's helper as a method value, which this package
// never calls directly: called, it releases by its fact.
func otherPackageHelper(t *ext.Table, stop bool) int {
	t.Mu.Lock()
	release := t.UnlockAndCount
	if stop {
		release()
		return 1
	}
	t.Mu.Unlock()
	return 0
}
