// Package fixreceiverreassigned releases through a variable that was assigned another value
// after the acquisition: a defer right after the acquisition evaluates the receiver then, so
// it would release another value than the release it replaces. No fix.
package fixreceiverreassigned

import (
	"errors"
	"sync"
)

var errMissing = errors.New("missing")

type cache struct {
	mu   sync.Mutex
	m    map[string]string
	next *cache
}

// lockReceiverReassigned unlocks c.next's mutex through c; deferred right after the Lock,
// the Unlock would unlock the first cache's instead.
func (c *cache) lockReceiverReassigned(k string) (string, error) {
	c.mu.Lock()
	v, ok := c.m[k]
	if !ok {
		return "", errMissing // want `return may skip c.mu.Unlock`
	}
	c = c.next
	c.mu.Unlock()
	return v, nil
}
