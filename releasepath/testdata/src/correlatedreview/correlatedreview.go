// Package correlatedreview tries to break the correlated rule: a function changes the bool
// between its tests in a way the doc says forgets it, or meets more paths than the search
// keeps. The last two functions pin edges the correlated package lacks.
package correlatedreview

import (
	"sync"
)

type store struct {
	mu sync.Mutex
	m  map[string]int
}

func (s *store) get(k string) (int, bool) { v, ok := s.m[k]; return v, ok }

func cond(k string) bool { return k != "" }

// flag has a pointer method: calling it takes the flag's address implicitly.
type flag bool

func (f *flag) clear() { *f = false }

// implicitAddress clears the flag through a pointer method: held.clear() is (&held).clear(),
// an address taken, so nothing is known of held after it. FAILS: not reported.
func (s *store) implicitAddress(k string) int {
	held := flag(cond(k))
	if held {
		s.mu.Lock()
	}
	held.clear()
	v := s.m[k]
	if held {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 29\)`
}

// fiveOptions tests five unchanged flags before the leaking return, which only the path
// that took every false edge reaches: 32 states at the join, and the search keeps 16 per
// block, the true-edge ones first. FAILS: not reported (four flags, 16 states, are).
func (s *store) fiveOptions(k string, trim, upper, quote, sorted, strict bool) int {
	s.mu.Lock()
	n := s.m[k]
	if trim {
		n++
	}
	if upper {
		n++
	}
	if quote {
		n++
	}
	if sorted {
		n++
	}
	if strict {
		n++
	}
	if !trim {
		if !upper {
			if !quote {
				if !sorted {
					if !strict {
						return n // want `return may skip s.mu.Unlock \(Lock at line 43\)`
					}
				}
			}
		}
	}
	s.mu.Unlock()
	return n
}

// redeclared reassigns the local in a := that declares v: the second test is of a new value.
// Passes (edge: a redeclaring := is an assignment, not a declaration).
func (s *store) redeclared(k string) int {
	held := cond(k)
	if held {
		s.mu.Lock()
	}
	v, held := s.get(k)
	if held {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 80\)`
}

// gotoLoop declares the flag after a label a backward goto returns to: each pass declares a
// new value, and the pass that locked may be followed by one that does not unlock. Passes
// (edge: a loop made by goto, not for).
func (s *store) gotoLoop(keys []string) int {
	i := 0
again:
	held := cond(keys[i])
	if held {
		s.mu.Lock()
	}
	i++
	if i < len(keys) {
		goto again
	}
	if held {
		s.mu.Unlock()
	}
	return i // want `return may skip s.mu.Unlock \(Lock at line 97\)`
}
