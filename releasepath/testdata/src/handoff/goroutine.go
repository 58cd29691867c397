package handoff

import (
	"context"
	"errors"
)

// sem is a counting semaphore: TryAcquire takes a permit without waiting.
type sem struct{ ch chan struct{} }

func (s *sem) TryAcquire() bool {
	select {
	case s.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

func (s *sem) Acquire(ctx context.Context) error {
	select {
	case s.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *sem) Release() { <-s.ch }

type dispatcher struct {
	sem   *sem
	batch []string
}

var errBusy = errors.New("busy")

// dispatch hands the permit to the goroutine it starts, which releases it when the batch
// is done.
func (d *dispatcher) dispatch(ctx context.Context, run func([]string)) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	if len(d.batch) == 0 {
		d.sem.Release()
		return nil
	}
	go func() {
		defer d.sem.Release()
		run(d.batch)
	}()
	return nil
}

// fill starts a goroutine per permit it can take; each frees its own.
func (d *dispatcher) fill(n int, add func() error) {
	for i := 0; i < n; i++ {
		if !d.sem.TryAcquire() {
			return
		}
		go func() {
			if err := add(); err != nil {
				d.freeTurn()
				return
			}
			d.freeTurn()
		}()
	}
}

func (d *dispatcher) freeTurn() { d.sem.Release() }

// dispatchLate starts a goroutine that releases nothing: the error return before it, and the
// return after it, keep the permit.
func (d *dispatcher) dispatchLate(ctx context.Context, run func([]string)) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	if len(d.batch) == 0 {
		return errBusy // want `return may skip d.sem.Release \(Acquire at line 76\)`
	}
	go run(d.batch)
	if len(d.batch) > 10 {
		d.sem.Release()
		return nil
	}
	return nil // want `return may skip d.sem.Release \(Acquire at line 76\)`
}
