// Package store returns holding the lock of what it is passed where a result says success:
// the summaries reach package holdcallers as facts.
package store

import (
	"errors"
	"sync"
)

// ErrClosed says the store is closed.
var ErrClosed = errors.New("closed")

// Entry is a stored value.
type Entry struct{ Stale bool }

// Store is a map under an unexported lock, which its callers release through Done.
type Store struct {
	mu     sync.Mutex
	m      map[string]*Entry
	closed bool
}

// Lookup returns the entry with s.mu held, or nil with it released.
func (s *Store) Lookup(k string) *Entry { // want Lookup:`releases\(\) holds\(recv.mu:Lock\)`
	s.mu.Lock()
	e := s.m[k]
	if e == nil {
		s.mu.Unlock()
		return nil
	}
	return e
}

// Done releases s.mu for the caller of Lookup or Begin.
func (s *Store) Done() { // want Done:`releases\(recv.mu:Unlock\)`
	s.mu.Unlock()
}

// Begin returns nil holding s.mu, ErrClosed without it.
func (s *Store) Begin() error { // want Begin:`releases\(\) holds\(recv.mu:Lock\)`
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// TryNamed keeps s.mu where its named result, returned bare, is true.
func (s *Store) TryNamed() (ok bool) { // want TryNamed:`releases\(\) holds\(recv.mu:Lock\)`
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	ok = true
	return
}

// Shared is a counter under an exported read-write lock.
type Shared struct {
	Mu sync.RWMutex
	N  int
}

// RLockShared keeps sh.Mu read-locked where it returns true.
func RLockShared(sh *Shared) bool { // want RLockShared:`releases\(\) holds\(0.Mu:Lock\)`
	sh.Mu.RLock()
	if sh.N < 0 {
		sh.Mu.RUnlock()
		return false
	}
	return true
}

// Leaky keeps s.mu on one failure too: it breaks its own contract, and has no summary.
func (s *Store) Leaky(k string) (*Entry, error) {
	s.mu.Lock()
	if s.closed {
		return nil, ErrClosed
	}
	e := s.m[k]
	if e == nil {
		s.mu.Unlock()
		return nil, errors.New("not found")
	}
	return e, nil
}

// lookup is unexported: its summary stays in the package.
func (s *Store) lookup(k string) *Entry {
	s.mu.Lock()
	e := s.m[k]
	if e == nil {
		s.mu.Unlock()
		return nil
	}
	return e
}

// Peek returns a copy of the entry, through lookup.
func (s *Store) Peek(k string) (Entry, bool) {
	e := s.lookup(k)
	if e == nil {
		return Entry{}, false
	}
	v := *e
	s.mu.Unlock()
	return v, true
}
