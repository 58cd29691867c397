package quota

// smallMap is the largest size hint for which make allocates no storage up front: the first
// insertion allocates one group (Swiss tables, Go 1.24 and later) or one bucket (earlier
// releases) of 8 slots, and a hint of at most 8 leads to exactly that. A larger hint sizes the
// table at once.
const smallMap = 8

// NonZero returns a new map of the same type that holds the entries of list whose value is not
// zero, as reported by the value's IsZero method. The type parameters are inferred from list,
// so that for a corev1.ResourceList delta it is written quota.NonZero(delta).
//
// The result is never nil: a nil, empty or all-zero list gives an empty map. It never aliases
// list, so adding or deleting entries in either map leaves the other as it was. Values are
// copied by assignment, as a range loop copies them; a value that holds pointers shares them
// with list.
//
// IsZero is called through a pointer to a copy of each value, never on list's own storage, so
// an IsZero with a pointer receiver that writes to its receiver (the way resource.Quantity's
// String caches its result) cannot change list. It may be called more than once per entry and
// must not depend on how often it runs. NonZero does not modify list, so it may run
// concurrently with other readers of list, but not with writers.
func NonZero[L ~map[K]V, K comparable, V any, P interface {
	*V
	IsZero() bool
}](list L) L {
	// One copy of the value per call, declared outside the loops and reused for every entry.
	// P(&v).IsZero() is an indirect call through the instantiation's dictionary, so escape
	// analysis cannot see that IsZero keeps no reference to its receiver and moves v to the
	// heap (go test -gcflags=-m: "moved to heap: v"). Declared here, that is one allocation
	// of size V per call. Taking the address of the range variable instead would allocate once
	// per entry as soon as the module's go directive reaches 1.22, where every iteration gets
	// a fresh variable (measured: 6 allocations instead of 2 for a 5-entry all-zero list).
	// A hand-written loop over a concrete type (Kubernetes' RemoveZeros) pays neither,
	// because a direct call to a pointer method that keeps nothing does not escape.
	var v V

	// Size the result for the entries that survive, so that it never grows while it is
	// filled: growing a map past one group allocates a table and throws the group away, which
	// costs more than the allocation of v. Not len(list): a mostly zero list would get a table
	// it never fills. Counting is only worth a second call to IsZero when the answer can
	// change the size; a hint of at most smallMap allocates nothing up front, whatever it is,
	// so a short list is not counted, and counting stops once the survivors so far plus the
	// entries not yet seen are at most smallMap.
	n := len(list)
	if n > smallMap {
		left := n
		n = 0
		for _, v = range list {
			left--
			if !P(&v).IsZero() {
				n++
			} else if n+left <= smallMap {
				break
			}
		}
	}

	// make, not a nil map, even for n == 0: a caller may add to the result (the API promises
	// a non-nil map), and a fresh map is what keeps it from aliasing list.
	out := make(L, n)
	var k K
	for k, v = range list {
		if !P(&v).IsZero() {
			out[k] = v
		}
	}
	return out
}
