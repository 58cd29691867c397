package quota

// smallMap is the largest size hint that allocates nothing up front: Go's maps allocate room
// for 8 entries at the first insertion, whatever the hint below that.
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
//
// On corev1.ResourceList deltas NonZero makes one allocation more than Kubernetes'
// RemoveZeros when at most 8 entries survive, and as many or fewer when more do.
func NonZero[L ~map[K]V, K comparable, V any, P interface {
	*V
	IsZero() bool
}](list L) L {
	// The one copy IsZero is called on. The call goes through the type parameter, which
	// escape analysis cannot see into, so v is on the heap: declared once, that is the one
	// allocation per call RemoveZeros does not make; declared by the range loop, it would be
	// one per entry once the go directive reaches 1.22.
	var v V

	// When more than smallMap entries may survive, count them first, so that the result is
	// made at its final size instead of growing while it is filled: measured on a 10-entry
	// Pod delta, that saves the allocation that brings NonZero level with RemoveZeros.
	n := len(list)
	if n > smallMap {
		n = 0
		for _, v = range list {
			if !P(&v).IsZero() {
				n++
			}
		}
	}

	// make, not a nil map, even for n == 0: the result is never nil and never list.
	out := make(L, n)
	var k K
	for k, v = range list {
		if !P(&v).IsZero() {
			out[k] = v
		}
	}
	return out
}
