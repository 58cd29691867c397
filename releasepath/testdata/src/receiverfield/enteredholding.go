package receiverfield

import (
	"context"
	"sync"
	"time"
)

// conn's resetAndUnlock is entered holding c.mu and leaves it released on every path,
// whatever it takes and releases in between (grpc's addrConn.resetTransportAndUnlock).
type conn struct {
	mu      sync.Mutex
	ctx     context.Context
	backoff int
	state   int
}

func (c *conn) resetAndUnlock() {
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.state = 1
	c.mu.Unlock()
	if err := dial(c.ctx); err != nil {
		c.mu.Lock()
		c.backoff++
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.backoff = 0
	c.mu.Unlock()
}

// waitAndRelock gives the lock up while it waits and takes it back: its caller still holds
// it afterwards.
func (c *conn) waitAndRelock() {
	c.mu.Unlock()
	_ = dial(c.ctx)
	c.mu.Lock()
	c.state = 2
}

func dial(ctx context.Context) error { return ctx.Err() }

func (c *conn) connect() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.resetAndUnlock()
}

// connectAsync hands the held lock to a goroutine that releases it.
func (c *conn) connectAsync() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.state = 0
	go c.resetAndUnlock()
}

func (c *conn) connectRelocked() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.waitAndRelock()
} // want `return may skip c.mu.Unlock \(Lock at line 68\)`

// resetWithBackoff is grpc's shape in full: the lock taken back in one case of a select and
// given up there, a return in another case, and a return in a branch after its own unlock.
func (c *conn) resetWithBackoff(reset chan struct{}) {
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.state = 1
	c.mu.Unlock()
	if err := dial(c.ctx); err != nil {
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		timer := time.NewTimer(time.Second)
		select {
		case <-timer.C:
			c.mu.Lock()
			c.backoff++
			c.mu.Unlock()
		case <-reset:
			timer.Stop()
		case <-c.ctx.Done():
			timer.Stop()
			return
		}
		c.mu.Lock()
		c.state = 0
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.backoff = 0
	c.mu.Unlock()
}

func (c *conn) connectWithBackoff(reset chan struct{}) {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.resetWithBackoff(reset)
}
