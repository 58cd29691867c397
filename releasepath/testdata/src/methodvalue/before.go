package methodvalue

import "sync"

// A method value of the release taken before the acquisition releases when it is called
// after it, as one taken after.
type store struct {
	mu    sync.Mutex
	other sync.Mutex
	rw    sync.RWMutex
	m     map[string]string
}

func (s *store) deferredBefore(k string) string {
	unlock := s.mu.Unlock
	s.mu.Lock()
	defer unlock()
	return s.m[k]
}

func (s *store) calledBefore(k string) string {
	unlock := s.mu.Unlock
	s.mu.Lock()
	v := s.m[k]
	unlock()
	return v
}

func (s *store) readDeferredBefore(k string) string {
	runlock := s.rw.RUnlock
	s.rw.RLock()
	defer runlock()
	return s.m[k]
}

// The release of another mutex, taken before, releases nothing of this one.
func (s *store) otherMutexBefore(k string) string {
	unlock := s.other.Unlock
	s.mu.Lock()
	defer unlock()
	if v, ok := s.m[k]; ok {
		return v // want `return may skip s.mu.Unlock`
	}
	s.mu.Unlock()
	return ""
}

// A value replaced before the acquisition is the replacement.
func (s *store) replacedBefore(k string) string {
	unlock := s.mu.Unlock
	unlock = func() {}
	s.mu.Lock()
	defer unlock()
	if v, ok := s.m[k]; ok {
		return v // want `return may skip s.mu.Unlock`
	}
	s.mu.Unlock()
	return ""
}
