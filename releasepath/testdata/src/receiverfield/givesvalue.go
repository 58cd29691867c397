package receiverfield

import "sync"

// A queue counts the references to its shared buckets; acquireBucket gives one back.
type queue struct {
	mu      sync.Mutex
	buckets map[int]*bucket
}

type bucket struct{ refs int }

func (q *queue) acquireBucket(k int) *bucket {
	b := q.buckets[k]
	b.refs++
	return b
}

func (q *queue) releaseBucket(b *bucket) { b.refs-- }

// enqueueAndUnlock must be called with q.mu held; it unlocks it. The bucket it takes on q
// is a value of its own, given back before the unlock: q.mu stays the caller's to end here.
func (q *queue) enqueueAndUnlock(k int) {
	b := q.acquireBucket(k)
	q.releaseBucket(b)
	q.mu.Unlock()
}

// lockAndEnqueue must be called with q.mu not held: it takes q.mu through a helper of q
// before it unlocks it, so it releases nothing of its caller's.
func (q *queue) lockAndEnqueue() {
	q.lockQueue()
	q.mu.Unlock()
}

func (q *queue) lockQueue() { q.mu.Lock() }

func (q *queue) append(ks []int) error {
	for _, k := range ks {
		q.mu.Lock()
		if k < 0 {
			q.enqueueAndUnlock(k)
			return nil
		}
		q.mu.Unlock()
	}
	return nil
}

func (q *queue) appendLocking(ks []int) error {
	for _, k := range ks {
		q.mu.Lock()
		if k < 0 {
			q.lockAndEnqueue()
			return nil // want `return may skip q.mu.Unlock \(Lock at line 52\)`
		}
		q.mu.Unlock()
	}
	return nil
}

// relock takes q.mu back, whatever its name says: a helper that calls it after its unlock
// may leave q.mu taken, and releases nothing of its caller's.
func (q *queue) relock() { q.mu.Lock() }

func (q *queue) tryRelock() bool { return q.mu.TryLock() }

func (q *queue) yieldRelock() {
	q.mu.Unlock()
	notify()
	q.relock()
}

func (q *queue) yieldTry() {
	q.mu.Unlock()
	for !q.tryRelock() {
		notify()
	}
}

func (q *queue) appendYielding(k int) error {
	q.mu.Lock()
	if k < 0 {
		q.yieldRelock()
		return nil // want `return may skip q.mu.Unlock \(Lock at line 82\)`
	}
	if k == 0 {
		q.yieldTry()
		return nil // want `return may skip q.mu.Unlock \(Lock at line 82\)`
	}
	q.mu.Unlock()
	return nil
}
