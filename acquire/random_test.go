package acquire_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/lease"
)

// TestRandomizedNothingLeftHeld plays many random operations against the fake cloud: random
// acquisitions of each kind, failing acquires, failing releases, and an end at a random point by
// return, error, panic, runtime.Goexit or a cancelled context. Afterwards exactly these exist:
// the tentative resources of a successful scope, and the orphans that OnOrphan reported.
func TestRandomizedNothingLeftHeld(t *testing.T) {
	for seed := int64(0); seed < 2000; seed++ {
		seed := seed
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			playRandom(t, rand.New(rand.NewSource(seed)))
		})
	}
}

type ending int

const (
	endReturn ending = iota
	endError
	endPanic
	endGoexit
	endCancel
)

func playRandom(t *testing.T, rng *rand.Rand) {
	c := newCloud()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	steps := 1 + rng.Intn(8)
	at := rng.Intn(steps + 1) // the operation ends before step at
	end := ending(rng.Intn(5))
	var (
		mu        sync.Mutex
		orphans   = map[string]bool{}
		tentative = map[string]bool{}
		deferred  []string
	)
	for i := 0; i < steps; i++ {
		name := fmt.Sprintf("r%d", i)
		if rng.Intn(6) == 0 {
			c.failAcquire[name] = errQuota
		}
		if rng.Intn(8) == 0 {
			c.failRelease[name] = errFlaky
		}
	}
	kinds := make([]int, steps)
	for i := range kinds {
		kinds[i] = rng.Intn(3)
	}

	var runErr error
	returned, fnSucceeded := false, false
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		runErr = acquire.Run(ctx, func(ctx context.Context, s *acquire.Scope) error {
			for i := 0; i < steps; i++ {
				if i == at {
					switch end {
					case endError:
						return errFlaky
					case endPanic:
						panic("random panic")
					case endGoexit:
						runtime.Goexit()
					case endCancel:
						cancel()
					}
				}
				name := fmt.Sprintf("r%d", i)
				var err error
				switch kinds[i] {
				case 0:
					_, err = acquire.Temporary(s, name, c.reserve(name), c.release)
				case 1:
					_, err = acquire.Tentative(s, name, c.reserve(name), c.release)
					if err == nil {
						mu.Lock()
						tentative[name] = true
						mu.Unlock()
					}
				default:
					s.Defer(name, c.cleanup(name))
					deferred = append(deferred, name)
				}
				if err != nil {
					return err
				}
			}
			fnSucceeded = true // orphans may still make Run's error non-nil; the scope succeeded
			return nil
		}, acquire.OnOrphan(func(_ context.Context, oe *lease.OrphanError) {
			mu.Lock()
			defer mu.Unlock()
			assert.False(t, orphans[oe.Name], "OnOrphan twice for %s", oe.Name)
			orphans[oe.Name] = true
		}))
		returned = true
	}()
	<-done

	succeeded := fnSucceeded
	var want []string
	for name := range tentative {
		if succeeded || orphans[name] {
			want = append(want, name)
		}
	}
	for name := range orphans {
		if !tentative[name] && c.exists(name) {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	if want == nil {
		want = []string{}
	}
	assert.Equal(t, want, c.inventory(), "end=%d at=%d/%d kinds=%v", end, at, steps, kinds)

	calls := c.calls()
	for _, name := range deferred {
		if !orphans[name] {
			assert.Contains(t, calls, "cleanup "+name, "a deferred cleanup did not run")
		}
	}
	if returned {
		for name := range orphans {
			var oe *lease.OrphanError
			found := false
			for _, err := range unwrapAll(runErr) {
				if errors.As(err, &oe) && oe.Name == name {
					found = true
				}
			}
			assert.True(t, found, "orphan %s is not in Run's error %v", name, runErr)
		}
	}
}

func unwrapAll(err error) []error {
	if err == nil {
		return nil
	}
	if m, ok := err.(interface{ Unwrap() []error }); ok {
		return m.Unwrap()
	}
	return []error{err}
}
