package paramrelease

import "os"

// paramReassignedBeforeUnlock points the parameter at another store before the unlock: s.mu stays
// locked.
func (s *store) paramReassignedBeforeUnlock(other *store) error {
	s.mu.Lock()
	defer func(x *store) {
		x = other
		x.mu.Unlock()
	}(s)
	if err := step(); err != nil {
		return err // want `return may skip s.mu.Unlock \(Lock at line 8\)`
	}
	s.mu.Unlock()
	return nil
}

// paramReassignedBeforeClose points the parameter at another file before the close: x stays open.
func paramReassignedBeforeClose(path string, y *os.File) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(f *os.File) {
		f = y
		f.Close()
	}(x)
	return step() // want `return may skip x.Close \(Open at line 22\)`
}

// conditionalUnlockNamesTheReceiver unlocks through the parameter only when verbose: under another
// condition the deferred release does not count.
func (s *store) conditionalUnlockNamesTheReceiver(verbose bool) error {
	s.mu.Lock()
	defer func(x *store) {
		if verbose {
			x.mu.Unlock()
		}
	}(s)
	return step() // want `return may skip s.mu.Unlock \(Lock at line 36\)`
}

// deferredBeforeOpenNamesTheFile evaluates the argument when the defer runs, before the open: the
// literal closes the nil x, and the open file stays open.
func deferredBeforeOpenNamesTheFile(path string) error {
	var x *os.File
	defer func(f *os.File) { f.Close() }(x)
	var err error
	x, err = os.Open(path)
	if err != nil {
		return err
	}
	return step() // want `return may skip x.Close \(Open at line 51\)`
}

// secondParamClosesItsOwn closes the second argument: the first stays open.
func secondParamClosesItsOwn(path string, y *os.File) error {
	x, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func(a, b *os.File) { b.Close() }(x, y)
	if err := step(); err != nil {
		return err // want `return may skip x.Close \(Open at line 60\)`
	}
	return x.Close()
}

func (s *store) next() *store { return &store{} }

// callOnReceiverIsAnotherValue passes the literal a call on the receiver: its root is s, but the value is another
// store.
func (s *store) callOnReceiverIsAnotherValue() error {
	s.mu.Lock()
	defer func(x *store) { x.mu.Unlock() }(s.next())
	if err := step(); err != nil {
		return err // want `return may skip s.mu.Unlock \(Lock at line 76\)`
	}
	s.mu.Unlock()
	return nil
}
