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

var verbose bool

// A goroutine takes the permit only when its literal releases it whenever it runs.

// whenVerbose's goroutine releases only when verbose.
func (d *dispatcher) whenVerbose(ctx context.Context, run func([]string)) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	go func() {
		if verbose {
			d.sem.Release()
		}
		run(d.batch)
	}()
	return nil // want `return may skip d.sem.Release \(Acquire at line 96\)`
}

// onSuccess's goroutine returns early on its error, before its release.
func (d *dispatcher) onSuccess(ctx context.Context, add func() error) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	go func() {
		if err := add(); err != nil {
			return
		}
		d.sem.Release()
	}()
	return nil // want `return may skip d.sem.Release \(Acquire at line 110\)`
}

// onError's goroutine releases only when add fails.
func (d *dispatcher) onError(ctx context.Context, add func() error) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	go func() {
		if err := add(); err != nil {
			d.sem.Release()
		}
	}()
	return nil // want `return may skip d.sem.Release \(Acquire at line 124\)`
}

// declared's goroutine declares a release it never calls.
func (d *dispatcher) declared(ctx context.Context, run func([]string)) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	go func() {
		rel := func() { d.sem.Release() }
		_ = rel
		run(d.batch)
	}()
	return nil // want `return may skip d.sem.Release \(Acquire at line 137\)`
}

// oneCase's goroutine releases in one case of a switch.
func (d *dispatcher) oneCase(ctx context.Context, mode int) error {
	if err := d.sem.Acquire(ctx); err != nil {
		return err
	}
	go func() {
		switch mode {
		case 1:
			d.sem.Release()
		}
	}()
	return nil // want `return may skip d.sem.Release \(Acquire at line 150\)`
}

// withRecover runs f, recovering a panic in it.
func withRecover(f func()) {
	defer func() { _ = recover() }()
	f()
}

type broker struct {
	lock interface {
		Lock()
		Unlock()
	}
	addr string
}

func dial(addr string) error { return nil }

// open dials under the broker's lock in the goroutine it starts, which unlocks it when
// done: go withRecover(func() { defer b.lock.Unlock(); … }), as sarama's Broker.Open.
func (b *broker) open() error {
	b.lock.Lock()
	go withRecover(func() {
		defer b.lock.Unlock()
		_ = dial(b.addr)
	})
	return nil
}

// openVerbose unlocks in the goroutine only when verbose: the lock is not handed on.
func (b *broker) openVerbose(verbose bool) error {
	b.lock.Lock()
	go withRecover(func() {
		if verbose {
			defer b.lock.Unlock()
		}
		_ = dial(b.addr)
	})
	if b.addr == "" {
		b.lock.Unlock()
		return errors.New("no address")
	}
	return nil // want `^return may skip b.lock.Unlock \(Lock at line 191\)$`
}
