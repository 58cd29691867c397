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

// Kind returns the kind of resource the orphan is: the kind [SplitName] reads from
// [OrphanError.Name], such as "address" for "address/k8s-ilb-a1b2", or "" when the name does
// not follow the convention. A kind is low-cardinality, so it suits a metric label; the name
// is not.
func (e *OrphanError) Kind() string {
	kind, _, ok := SplitName(e.Name)
	if !ok {
		return ""
	}
	return kind
}

// SplitName splits a lease name that follows the convention "<kind>/<id>" (see [New]) at its
// first "/": "address/k8s-ilb-a1b2" gives "address" and "k8s-ilb-a1b2", and
// "disk/zones/us-central1-a/pd-1" gives "disk" and "zones/us-central1-a/pd-1". ok is false,
// and kind and id are empty, when the name has no "/" or its kind or id is empty
// ("address", "/k8s-ilb-a1b2", "address/"). It is the one reading of a name that this module
// uses.
func SplitName(name string) (kind, id string, ok bool) {
	kind, id, ok = strings.Cut(name, "/")
	if !ok || kind == "" || id == "" {
		return "", "", false
	}
	return kind, id, true
}

// errReleaseAborted is the reason recorded for a release function that panicked or called
// runtime.Goexit instead of returning.
var errReleaseAborted = errors.New("lease: release function did not return: it panicked or called runtime.Goexit")
