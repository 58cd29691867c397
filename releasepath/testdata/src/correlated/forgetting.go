package correlated

func (s *store) get(k string) (int, bool) { v, ok := s.m[k]; return v, ok }

func present(k string) bool { return k != "" }

// flag has a pointer method: calling it takes the flag's address implicitly.
type flag bool

func (f *flag) clear() { *f = false }

// pointerMethodTakesAddress clears the flag through a pointer method: held.clear() is (&held).clear(),
// an address taken, so nothing is known of held after it.
func (s *store) pointerMethodTakesAddress(k string) int {
	held := flag(present(k))
	if held {
		s.mu.Lock()
	}
	held.clear()
	v := s.m[k]
	if held {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 17\)`
}

// manyFlagsPastTheStateBound tests five unchanged flags before the leaking return, which
// only the path that took every false edge reaches: 32 states at the join, past the 16 a
// block keeps, so the paths beyond go on without what they know of the flags.
func (s *store) manyFlagsPastTheStateBound(k string, trim, upper, quote, sorted, strict bool) int {
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
						return n // want `return may skip s.mu.Unlock \(Lock at line 31\)`
					}
				}
			}
		}
	}
	s.mu.Unlock()
	return n
}

// redeclaredByMultiAssign reassigns the local in a := that declares v: the second test is of a new value.
func (s *store) redeclaredByMultiAssign(k string) int {
	held := present(k)
	if held {
		s.mu.Lock()
	}
	v, held := s.get(k)
	if held {
		s.mu.Unlock()
	}
	return v // want `return may skip s.mu.Unlock \(Lock at line 67\)`
}

// declaredInGotoLoop declares the flag after a label a backward goto returns to: each pass declares a
// new value, and the pass that locked may be followed by one that does not unlock.
func (s *store) declaredInGotoLoop(keys []string) int {
	i := 0
again:
	held := present(keys[i])
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
	return i // want `return may skip s.mu.Unlock \(Lock at line 83\)`
}
