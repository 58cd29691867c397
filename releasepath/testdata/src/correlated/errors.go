package correlated

import (
	"errors"
	"os"
)

// A layout is shared and counted: acquireLayout gives a new reference, releaseLayout drops
// one.
type layout struct{ refs int }

type series struct {
	layouts map[int]*layout
	kept    map[int]*layout
}

func compute(name string) error {
	if name == "" {
		return errors.New("no name")
	}
	return nil
}

func (s *series) acquireLayout(k int) *layout {
	l := s.layouts[k]
	l.refs++
	return l
}

func (s *series) releaseLayout(l *layout) { l.refs-- }

// convert takes a layout only where err is nil, and gives it back under the next if err ==
// nil: the return where err is non-nil holds nothing (prometheus's convertAndEnqueueNHCB).
func (s *series) convert(ref int, name string) bool {
	var err error
	if name == "" {
		err = errors.New("no name")
	} else {
		err = compute(name)
	}
	var l *layout
	if err == nil {
		l = s.acquireLayout(ref)
	}
	if err == nil {
		s.releaseLayout(l)
	}
	if err != nil {
		return false
	}
	return true
}

// convertErrAgain assigns err between the tests: the second test says nothing of the
// first, and the path that took the layout and then failed returns holding it.
func (s *series) convertErrAgain(ref int, name string) bool {
	err := compute(name)
	var l *layout
	if err == nil {
		l = s.acquireLayout(ref)
		err = compute(name + "/2")
	}
	if err == nil {
		s.releaseLayout(l)
	}
	return true // want `return may skip s.releaseLayout \(acquireLayout at line 60\)`
}

// convertInClosure lets a closure assign err: the path cannot follow it, so the second
// test is a decision of its own.
func (s *series) convertInClosure(ref int, name string) bool {
	err := compute(name)
	retry := func() { err = compute(name) }
	var l *layout
	if err == nil {
		l = s.acquireLayout(ref)
	}
	retry()
	if err == nil {
		s.releaseLayout(l)
	}
	return true // want `return may skip s.releaseLayout \(acquireLayout at line 76\)`
}

// openEach never closes what it opens: the next round's failed open returns holding the last
// round's file, whatever the path knew of err before the open met it again (compose's
// getEnvironment).
func openEach(paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err // want `return may skip f.Close \(Open at line 90\)`
		}
		_, err = f.Stat()
		if err != nil {
			return nil // want `return may skip f.Close \(Open at line 90\)`
		}
	}
	return nil // want `return may skip f.Close \(Open at line 90\)`
}

var errNothing = errors.New("nothing to do")

// convertTolerant resets a tolerated error to nil between the tests: where err is nil after
// that, the layout taken where it was nil before is given back.
func (s *series) convertTolerant(ref int, name string) bool {
	err := compute(name)
	var l *layout
	if err == nil {
		l = s.acquireLayout(ref)
	}
	if errors.Is(err, errNothing) {
		err = nil
	}
	if err != nil {
		return false
	}
	s.releaseLayout(l)
	return true
}
