package orphans

import (
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultReleaseTimeout bounds each release, in a scope and on retry, when no [ReleaseTimeout]
// is given.
const DefaultReleaseTimeout = 30 * time.Second

// An Option configures a [Tracker]. A nil Option is a programming error and panics.
type Option interface {
	apply(*config)
}

// DefaultWriteTimeout bounds the write of a record when no [WriteTimeout] is given.
const DefaultWriteTimeout = 10 * time.Second

type config struct {
	controller   string
	reader       client.Reader
	timeout      time.Duration
	writeTimeout time.Duration
	conflicts    int
	now          func() time.Time
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Controller sets the controller name: it labels the tracker's metrics ("controller" label)
// and names its annotation and finalizer ([Key]). The default is "orphans"; [NewForManager]
// uses its name argument. Two trackers of one controller must have the same name, and those
// of different controllers different names.
func Controller(name string) Option {
	return optionFunc(func(c *config) { c.controller = name })
}

// APIReader sets the reader a tracker reads an object with after a write conflict. It should
// read from the API server, not a cache that may still hold the version that conflicted
// (manager.Manager.GetAPIReader). The default is the tracker's client.
func APIReader(r client.Reader) Option {
	if r == nil {
		panic("orphans: APIReader(nil)")
	}
	return optionFunc(func(c *config) { c.reader = r })
}

// ReleaseTimeout bounds each release to d: those of the scope [Tracker.Run] opens, and each
// retried release of a recorded orphan. ReleaseTimeout panics when d is not positive.
func ReleaseTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("orphans: ReleaseTimeout(%v): the timeout must be positive", d))
	}
	return optionFunc(func(c *config) { c.timeout = d })
}

// WriteTimeout bounds the write of a run's record to d, from the first attempt to the last
// reread after a conflict. The write runs under [context.WithoutCancel] of the reconcile's
// context, so that a reconcile cancelled by a shutdown still records its orphans, and this is
// its deadline. WriteTimeout panics when d is not positive.
func WriteTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("orphans: WriteTimeout(%v): the timeout must be positive", d))
	}
	return optionFunc(func(c *config) { c.writeTimeout = d })
}

// ConflictRetries sets how many times a write that conflicts with another writer is retried
// on a freshly read object before [Tracker.Run] gives up and returns the conflict (keeping
// the unwritten records in memory for the object's next reconcile). The default is 5;
// ConflictRetries panics when n is negative.
func ConflictRetries(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("orphans: ConflictRetries(%d): must not be negative", n))
	}
	return optionFunc(func(c *config) { c.conflicts = n })
}
