package receiverfield

import (
	"context"
	"sync"
)

type conn2 struct {
	mu    sync.Mutex
	rw    sync.RWMutex
	ctx   context.Context
	n     int
	state int
}

// ---- helpers that release the caller's lock ----

// loopAndUnlock: unlock first, lock/unlock in a loop that may run zero times; last is unlock.
func (c *conn2) loopAndUnlock() {
	c.mu.Unlock()
	for i := 0; i < c.n; i++ {
		c.mu.Lock()
		c.state++
		c.mu.Unlock()
	}
}

// deferLastUnlock: unlock, dial, lock, then a deferred unlock.
func (c *conn2) deferLastUnlock() {
	c.mu.Unlock()
	_ = dial(c.ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}

// prepAndReset: first call on c.mu is the release, inside another entered-holding helper.
func (c *conn2) prepAndReset() {
	c.state = 1
	c.resetAndUnlock2()
}

func (c *conn2) resetAndUnlock2() {
	c.mu.Unlock()
	if err := dial(c.ctx); err != nil {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.n = 0
	c.mu.Unlock()
}

// resetConn is a function taking the conn as an argument.
func resetConn(c *conn2) {
	c.mu.Unlock()
	_ = dial(c.ctx)
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// ---- helpers that do NOT release it ----

// relockInBranch: unlock first, then relock only in a branch: it may end holding.
func (c *conn2) relockInBranch() {
	c.mu.Unlock()
	if dial(c.ctx) != nil {
		c.mu.Lock()
		c.n++
	}
}

// relockOnError: relock and return on one path only.
func (c *conn2) relockOnError() {
	c.mu.Unlock()
	if err := dial(c.ctx); err != nil {
		c.mu.Lock()
		return
	}
	c.mu.Lock()
	c.mu.Unlock()
}

// unlockLockUnlockLock: alternates, ends holding.
func (c *conn2) unlockLockUnlockLock() {
	c.mu.Unlock()
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	c.mu.Lock()
}

// otherModeFirst: first release is RUnlock of rw, not mu.
func (c *conn2) otherModeFirst() {
	c.rw.RUnlock()
	c.rw.Lock()
	c.rw.Unlock()
}

// conditionalFirst: the first release is under a condition.
func (c *conn2) conditionalFirst() {
	if c.state == 1 {
		c.mu.Unlock()
	}
	_ = dial(c.ctx)
	c.mu.Lock()
	c.mu.Unlock()
}

// relockInLoop: unlock, then lock in a loop body that may run; ends holding when it ran.
func (c *conn2) relockInLoop() {
	c.mu.Unlock()
	for i := 0; i < c.n; i++ {
		c.mu.Lock()
	}
}

// goRelock: unlocks and relocks; started in a go statement still does not release.
func (c *conn2) waitRelock() {
	c.mu.Unlock()
	_ = dial(c.ctx)
	c.mu.Lock()
}

// ---- callers ----

func (c *conn2) cLoop() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.loopAndUnlock()
}

func (c *conn2) cDeferLast() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.deferLastUnlock()
}

func (c *conn2) cTwoLevels() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.prepAndReset()
}

func (c *conn2) cGoTwoLevels() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	go c.prepAndReset()
}

func (c *conn2) cArg() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	resetConn(c)
}

func (c *conn2) cGoArg() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	go resetConn(c)
}

func (c *conn2) cDeferred() {
	c.mu.Lock()
	defer c.resetAndUnlock2()
	if c.state == 3 {
		return
	}
	c.n++
}

func (c *conn2) cRelockInBranch() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.relockInBranch()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

func (c *conn2) cRelockOnError() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.relockOnError()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

func (c *conn2) cAlternate() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.unlockLockUnlockLock()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

func (c *conn2) cOtherMode() {
	c.rw.Lock()
	if c.state == 3 {
		c.rw.Unlock()
		return
	}
	c.otherModeFirst()
} // want `return may skip c.rw.Unlock \(Lock at line \d+\)`

func (c *conn2) cConditionalFirst() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.conditionalFirst()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

func (c *conn2) cRelockInLoop() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.relockInLoop()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

func (c *conn2) cGoRelock() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	go c.waitRelock()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

// cOtherValue: the helper releases another conn's lock.
func (c *conn2) cOtherValue(d *conn2) {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	d.resetAndUnlock2()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

// earlyReturnHolding returns before its release on one path.
func (c *conn2) earlyReturnHolding() {
	if c.state == 1 {
		return
	}
	c.mu.Unlock()
	_ = dial(c.ctx)
	c.mu.Lock()
	c.mu.Unlock()
}

func (c *conn2) cEarlyReturnHolding() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.earlyReturnHolding()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

// relockOnErrorNoReturn: the relock-and-hold path falls off the end, no explicit return.
func (c *conn2) relockElse() {
	c.mu.Unlock()
	if err := dial(c.ctx); err != nil {
		c.mu.Lock()
	} else {
		c.mu.Lock()
		c.mu.Unlock()
	}
}

func (c *conn2) cRelockElse() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.relockElse()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

// simpleConditional: no relock at all, the only release is conditional (plain receiverfield).
func (c *conn2) simpleConditional() {
	if c.state == 1 {
		c.mu.Unlock()
	}
}

func (c *conn2) cSimpleConditional() {
	c.mu.Lock()
	if c.state == 3 {
		c.mu.Unlock()
		return
	}
	c.simpleConditional()
} // want `return may skip c.mu.Unlock \(Lock at line \d+\)`

// otherModeOnly: RUnlock then Lock/Unlock without the first RUnlock: Unlock, Lock, Unlock on rw.
func (c *conn2) rwReset() {
	c.rw.Unlock()
	_ = dial(c.ctx)
	c.rw.Lock()
	c.rw.Unlock()
}

func (c *conn2) cRLockWithWriteHelper() {
	c.rw.RLock()
	if c.state == 3 {
		c.rw.RUnlock()
		return
	}
	c.rwReset()
} // want `return may skip c.rw.RUnlock \(RLock at line \d+\)`
