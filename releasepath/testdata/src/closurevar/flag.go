package closurevar

import (
	"context"
	"errors"
)

type slots struct{ held map[uint64]int }

func (q *slots) hold(n int) uint64 { q.held[1] = n; return 1 }
func (q *slots) unhold(id uint64)  { delete(q.held, id) }
func (q *slots) push(n int) bool   { return n < 4 }

var errClosed = errors.New("closed")

// submit gives the slots back through reject, which unholds them when held: held is set
// true right after the hold, so every reject after it releases.
func submit(ctx context.Context, q *slots, n int, closed func() bool) error {
	held, id := false, uint64(0)
	reject := func(err error) error {
		if held {
			q.unhold(id)
		}
		return err
	}
	for {
		if closed() {
			return reject(errClosed)
		}
		if q.push(n) {
			if held {
				q.unhold(id)
			}
			return nil
		}
		if !held {
			id = q.hold(n)
			held = true
			continue
		}
		select {
		case <-ctx.Done():
			return reject(ctx.Err())
		default:
		}
	}
}

// submitLate sets held only after a return that rejects: that reject releases nothing.
func submitLate(ctx context.Context, q *slots, n int) error {
	held, id := false, uint64(0)
	reject := func(err error) error {
		if held {
			q.unhold(id)
		}
		return err
	}
	id = q.hold(n)
	if err := ctx.Err(); err != nil {
		return reject(err) // want `return may skip q.unhold \(hold at line 58\)`
	}
	held = true
	if !q.push(n) {
		return reject(errClosed)
	}
	q.unhold(id)
	return nil
}

// nested's closure releases in a literal of its own that it never calls.
func nested(q *slots, n int, step func() error) error {
	held, id := false, uint64(0)
	reject := func(err error) error {
		f := func() {
			if held {
				q.unhold(id)
			}
		}
		_ = f
		return err
	}
	id = q.hold(n)
	held = true
	if err := step(); err != nil {
		return reject(err) // want `return may skip q.unhold \(hold at line 82\)`
	}
	q.unhold(id)
	return nil
}

// deferredReject defers the closure after held = true: it releases at every return.
func deferredReject(q *slots, n int, step func() error) error {
	held, id := false, uint64(0)
	reject := func() {
		if held {
			q.unhold(id)
		}
	}
	id = q.hold(n)
	held = true
	defer reject()
	return step()
}
