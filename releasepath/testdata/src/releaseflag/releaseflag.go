// Package releaseflag releases through helpers that release under a bool parameter of their
// own: a call that passes true releases, one that passes false does not.
package releaseflag

import (
	"errors"
	"sync"
)

var errClosed = errors.New("closed")

type semaphore struct{ ch chan struct{} }

func (s *semaphore) TryAcquire() bool {
	select {
	case s.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

func (s *semaphore) Release() { <-s.ch }

type conn struct{ bad, pooled bool }

type pool struct {
	semaphore semaphore
	mu        sync.Mutex
	idle      []*conn
	closed    bool
}

func (p *pool) freeTurn() { p.semaphore.Release() }

// removeConn frees the turn when freeTurn is, at its one end.
func (p *pool) removeConn(cn *conn, freeTurn bool) {
	p.mu.Lock()
	p.idle = p.idle[:0]
	p.mu.Unlock()
	if freeTurn {
		p.freeTurn()
	}
}

// putConn frees the turn when freeTurn is, on every path: itself, or through removeConn.
func (p *pool) putConn(cn *conn, freeTurn bool) {
	if cn == nil {
		if freeTurn {
			p.freeTurn()
		}
		return
	}
	if !cn.pooled {
		p.removeConn(cn, freeTurn)
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, cn)
	p.mu.Unlock()
	if freeTurn {
		p.freeTurn()
	}
}

// putConnEarly frees the turn only at its last return: with freeTurn true, the early return
// keeps it.
func (p *pool) putConnEarly(cn *conn, freeTurn bool) {
	if cn == nil {
		return
	}
	if freeTurn {
		p.freeTurn()
	}
}

// putConnAssigned changes its flag: what it was passed says nothing.
func (p *pool) putConnAssigned(cn *conn, freeTurn bool) {
	if cn.bad {
		freeTurn = false
	}
	if freeTurn {
		p.freeTurn()
	}
}

// putConnNegated frees the turn when its flag is false: no flag of its says release.
func (p *pool) putConnNegated(cn *conn, keepTurn bool) {
	if !keepTurn {
		p.freeTurn()
	}
}

func (p *pool) use(cn *conn) error { return nil }

// drain gives the turn back through putConn(…, true) on each path the loop comes around.
func (p *pool) drain(conns []*conn, stop func() bool) {
	for _, cn := range conns {
		if stop() {
			return
		}
		if !p.semaphore.TryAcquire() {
			return
		}
		if cn == nil {
			p.freeTurn()
			continue
		}
		if err := p.use(cn); err != nil {
			p.removeConn(cn, true)
		} else {
			p.putConn(cn, true)
		}
	}
}

// drainNoTurn passes false: the turn is kept, and the loop's next stop, or its end, returns
// holding it.
func (p *pool) drainNoTurn(conns []*conn, stop func() bool) {
	for _, cn := range conns {
		if stop() {
			return // want `return may skip p.freeTurn \(TryAcquire at line 124\)`
		}
		if !p.semaphore.TryAcquire() {
			return
		}
		if cn == nil {
			p.freeTurn()
			continue
		}
		p.putConn(cn, false)
	}
} // want `return may skip p.freeTurn \(TryAcquire at line 124\)`

func (p *pool) get(cn *conn) error {
	if !p.semaphore.TryAcquire() {
		return errClosed
	}
	if p.closed {
		p.putConn(cn, true)
		return errClosed
	}
	if cn.bad {
		p.putConnEarly(cn, true)
		return errClosed // want `return may skip p.putConn \(TryAcquire at line 136\)`
	}
	if cn.pooled {
		p.putConnAssigned(cn, true)
		return errClosed // want `return may skip p.putConn \(TryAcquire at line 136\)`
	}
	if err := p.use(cn); err != nil {
		p.putConnNegated(cn, true)
		return err // want `return may skip p.putConn \(TryAcquire at line 136\)`
	}
	p.freeTurn()
	return nil
}

type table struct {
	mu sync.Mutex
	n  int
}

// finish unlocks t.mu when unlock is.
func (t *table) finish(unlock bool) {
	t.n++
	if unlock {
		t.mu.Unlock()
	}
}

func (t *table) add(k int) error {
	t.mu.Lock()
	if k < 0 {
		t.finish(true)
		return errClosed
	}
	if k == 0 {
		t.finish(false)
		return errClosed // want `return may skip t.finish \(Lock at line 173\)`
	}
	t.n += k
	t.mu.Unlock()
	return nil
}

// drainInLiteral gives the turn back inside a literal called where it is written, in each
// branch, as go-redis's maintenance drain does.
func (p *pool) drainInLiteral(conns []*conn, stop func() bool) {
	for _, cn := range conns {
		if stop() {
			return
		}
		if !p.semaphore.TryAcquire() {
			return
		}
		if cn == nil {
			p.freeTurn()
			continue
		}
		func() {
			if err := p.use(cn); err != nil {
				p.removeConn(cn, true)
			} else {
				p.putConn(cn, true)
			}
		}()
	}
}

// putCleared hands its flag's address to clear, which may change it: the flag says nothing.
func (p *pool) putCleared(cn *conn, freeTurn bool, clear func(*bool)) {
	clear(&freeTurn)
	if freeTurn {
		p.freeTurn()
	}
}

// putRanged sets its flag in a range: the flag says nothing.
func (p *pool) putRanged(cn *conn, freeTurn bool, xs []bool) {
	for _, freeTurn = range xs {
	}
	if freeTurn {
		p.freeTurn()
	}
}

func (p *pool) putChanged(cn *conn, clear func(*bool), xs []bool) error {
	if !p.semaphore.TryAcquire() {
		return errClosed
	}
	if cn.bad {
		p.putCleared(cn, true, clear)
		return errClosed // want `return may skip p.freeTurn \(TryAcquire at line 229\)`
	}
	if cn.pooled {
		p.putRanged(cn, true, xs)
		return errClosed // want `return may skip p.freeTurn \(TryAcquire at line 229\)`
	}
	p.freeTurn()
	return nil
}
