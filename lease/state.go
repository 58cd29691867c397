package lease

import (
	"errors"
	"fmt"
	"strings"
)

// State is where a [Lease] is in its lifetime. The zero value is not a valid state; every
// lease starts [Held].
type State uint8

// The states of a [Lease]. [Released] and [Kept] are final.
const (
	// Held: the resource exists and the lease will release it.
	Held State = iota + 1
	// Released: the release function succeeded.
	Released
	// Kept: the lease handed the resource to its caller and will never release it.
	Kept
	// Orphaned: the latest release failed; the resource may still exist.
	Orphaned
)

// String returns "held", "released", "kept" or "orphaned"; an invalid state gives "state(N)".
func (s State) String() string {
	switch s {
	case Held:
		return "held"
	case Released:
		return "released"
	case Kept:
		return "kept"
	case Orphaned:
		return "orphaned"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// An OrphanError reports a release that failed: the resource it names may still exist and
// belongs to nobody until something releases it.
type OrphanError struct {
	Name string // the lease's name
	Err  error  // why the release failed
}

// Error returns "lease: <name> orphaned: <reason>".
func (e *OrphanError) Error() string {
	return fmt.Sprintf("lease: %s orphaned: %v", e.Name, e.Err)
}

// Unwrap returns the release function's error, so that [errors.Is] and [errors.As] reach it.
func (e *OrphanError) Unwrap() error { return e.Err }

// Kind returns the kind of resource the orphan is, from the lease-naming convention
// "<kind>/<id>" (see [New]): the part of [OrphanError.Name] before its first "/", such as
// "address" for "address/k8s-ilb-a1b2". It returns "" for a name without a "/" or with an
// empty kind. A kind is low-cardinality, so it suits a metric label; the name is not.
func (e *OrphanError) Kind() string {
	kind, _, ok := strings.Cut(e.Name, "/")
	if !ok {
		return ""
	}
	return kind
}

// errReleaseAborted is the reason recorded for a release function that panicked or called
// runtime.Goexit instead of returning.
var errReleaseAborted = errors.New("lease: release function did not return: it panicked or called runtime.Goexit")
