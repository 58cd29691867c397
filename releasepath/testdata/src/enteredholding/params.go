package enteredholding

import "sync"

type queue struct {
	mu    sync.Mutex
	items []int
}

func lockQ(q *queue)   { q.mu.Lock() }
func unlockQ(q *queue) { q.mu.Unlock() }

func wait() error { return nil }

// relockQ is called with q.mu held: it drops it through the package's helpers and takes it
// back, so it returns holding it, as its caller expects.
func relockQ(q *queue) error {
	unlockQ(q)
	err := wait()
	lockQ(q)
	return err
}

// drain takes q.mu and gives it back on success; relockQ releases nothing of it, so the
// error return keeps the lock.
func drain(q *queue) error {
	q.mu.Lock()
	if err := relockQ(q); err != nil {
		return err // want `return may skip q.mu.Unlock \(Lock at line 27\)`
	}
	q.items = nil
	q.mu.Unlock()
	return nil
}

// lockBoth takes r's lock after dropping q's: it was not entered holding r's, and gives it
// back on its other path, so the error return keeps it.
func lockBoth(q, r *queue) error {
	unlockQ(q)
	lockQ(r)
	if err := wait(); err != nil {
		return err // want `return may skip unlockQ \(lockQ at line 40\)`
	}
	unlockQ(r)
	return nil
}
