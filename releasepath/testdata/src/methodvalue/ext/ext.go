// Package ext has a helper that unlocks its table, for methodvalue's test of another
// package's helper taken as a method value.
package ext

import "sync"

// Table counts under Mu.
type Table struct {
	Mu sync.Mutex
	N  int
}

// UnlockAndCount unlocks t.Mu; the caller holds it.
func (t *Table) UnlockAndCount() {
	t.N++
	t.Mu.Unlock()
}
