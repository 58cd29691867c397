package neverreturns

import "sync"

// TB copies testing.TB's methods for code outside _test.go files, as tailscale's
// testenv.TB does.
type TB interface {
	Fatal(args ...any)
	FailNow()
	Helper()
	Logf(format string, args ...any)
}

// Reporter has a Fatal too, but no FailNow nor Helper: nothing says it ends the goroutine.
type Reporter interface {
	Fatal(args ...any)
}

type store struct {
	mu    sync.Mutex
	count int
	tb    TB
	rep   Reporter
}

// resume ends the test's goroutine on a broken count, with the mutex held.
func (s *store) resume() {
	s.mu.Lock()
	switch s.count--; {
	case s.count == 0:
		s.mu.Unlock()
	case s.count < 0:
		s.tb.Fatal("negative count")
	default:
		s.mu.Unlock()
	}
}

// report goes on after its Fatal, which may return.
func (s *store) report() {
	s.mu.Lock()
	switch s.count--; {
	case s.count == 0:
		s.mu.Unlock()
	case s.count < 0:
		s.rep.Fatal("negative count")
	default:
		s.mu.Unlock()
	}
} // want `^return may skip s.mu.Unlock \(Lock at line 41\)$`
