package samevalue

import "sync"

type lockedA struct {
	sync.Mutex
	n int
}

type rwA struct {
	sync.RWMutex
}

type ptrLocked struct {
	*sync.Mutex
}

type innerL struct{ sync.Mutex }

type outerL struct {
	innerL
	n int
}

type baseF struct{ mu sync.Mutex }

type derivedF struct{ baseF }

type twoLocks struct {
	sync.Mutex
	other sync.Mutex
}

type res struct{}

func (r *res) HoldAddress(a string) (string, error) { return a, nil }
func (r *res) ReleaseAddress(a string) error        { return nil }

type svc struct{ *res }

// ---- one lock ----

func pPromotedLockExplicitUnlock(l *lockedA, stop bool) int {
	l.Lock()
	if stop {
		l.Mutex.Unlock()
		return 1
	}
	l.Unlock()
	return 0
}

func pExplicitLockPromotedUnlock(l *lockedA, stop bool) int {
	l.Mutex.Lock()
	if stop {
		l.Unlock()
		return 1
	}
	l.Mutex.Unlock()
	return 0
}

func pDeferExplicit(l *lockedA) int {
	l.Lock()
	defer l.Mutex.Unlock()
	if l.n > 0 {
		return 1
	}
	return 0
}

func pTwoLevels(o *outerL, stop bool) int {
	o.Lock()
	if stop {
		o.innerL.Mutex.Unlock()
		return 1
	}
	o.innerL.Unlock()
	return 0
}

func pPointerEmbed(p ptrLocked, stop bool) int {
	p.Lock()
	if stop {
		p.Mutex.Unlock()
		return 1
	}
	p.Unlock()
	return 0
}

func pPromotedField(d *derivedF, stop bool) int {
	d.mu.Lock()
	if stop {
		d.baseF.mu.Unlock()
		return 1
	}
	d.mu.Unlock()
	return 0
}

func pRW(l *rwA, stop bool) int {
	l.RLock()
	if stop {
		l.RWMutex.RUnlock()
		return 1
	}
	l.RUnlock()
	return 0
}

func pMethodPromoted(s svc, a string, stop bool) error {
	if _, err := s.HoldAddress(a); err != nil {
		return err
	}
	if stop {
		s.res.ReleaseAddress(a)
		return nil
	}
	return s.ReleaseAddress(a)
}

// ---- leaks still reported ----

func lPromotedLeak(l *lockedA, stop bool) int {
	l.Lock()
	if stop {
		return 1 // want `return may skip l\.(Mutex\.)?Unlock \(Lock at line \d+\)`
	}
	l.Mutex.Unlock()
	return 0
}

func lExplicitLeak(l *lockedA, stop bool) int {
	l.Mutex.Lock()
	if stop {
		return 1 // want `return may skip l\.(Mutex\.)?Unlock \(Lock at line \d+\)`
	}
	l.Unlock()
	return 0
}

func lTwoLevelsLeak(o *outerL, stop bool) int {
	o.innerL.Mutex.Lock()
	if stop {
		return 1 // want `return may skip o\.(innerL\.)?(Mutex\.)?Unlock \(Lock at line \d+\)`
	}
	o.Unlock()
	return 0
}

// lOtherField: the other field's unlock is another lock.
func lOtherField(t *twoLocks, stop bool) int {
	t.Lock()
	if stop {
		t.other.Unlock()
		return 1 // want `return may skip t\.(Mutex\.)?Unlock \(Lock at line \d+\)`
	}
	t.Unlock()
	return 0
}

// lOtherFieldReverse: t.other locked, promoted Unlock is the embedded Mutex's.
func lOtherFieldReverse(t *twoLocks, stop bool) int {
	t.other.Lock()
	if stop {
		t.Unlock()
		return 1 // want `return may skip t\.other\.Unlock \(Lock at line \d+\)`
	}
	t.other.Unlock()
	return 0
}

// lOtherVariable: a's promoted lock and b's explicit unlock are two locks.
func lOtherVariable(a, b *lockedA, stop bool) int {
	a.Lock()
	if stop {
		b.Mutex.Unlock()
		return 1 // want `return may skip a\.(Mutex\.)?Unlock \(Lock at line \d+\)`
	}
	a.Mutex.Unlock()
	return 0
}

// lModePromoted: the promoted other mode releases nothing.
func lModePromoted(l *rwA, stop bool) int {
	l.RLock()
	if stop {
		l.RWMutex.Unlock()
		return 1 // want `return may skip l\.(RWMutex\.)?RUnlock \(RLock at line \d+\)`
	}
	l.RUnlock()
	return 0
}

func lMethodPromotedOther(s svc, a, b string, stop bool) error {
	if _, err := s.HoldAddress(a); err != nil {
		return err
	}
	if stop {
		s.res.ReleaseAddress(b)
		return nil // want `return may skip s\.(res\.)?ReleaseAddress \(HoldAddress at line \d+\)`
	}
	return s.ReleaseAddress(a)
}

// lFieldOnPromoted: d.baseF.mu locked, d.mu (promoted) leaked on one path.
func lFieldOnPromoted(d *derivedF, stop bool) int {
	d.baseF.mu.Lock()
	if stop {
		return 1 // want `return may skip d\.(baseF\.)?mu\.Unlock \(Lock at line \d+\)`
	}
	d.mu.Unlock()
	return 0
}

// overriding: the outer type's own Unlock shadows the promoted one and does not unlock.
type shadowed struct{ sync.Mutex }

func (s *shadowed) Unlock() {}

func lShadowed(s *shadowed, stop bool) int {
	s.Mutex.Lock()
	if stop {
		s.Unlock()
		return 1 // want `return may skip s\.Mutex\.Unlock \(Lock at line \d+\)`
	}
	s.Mutex.Unlock()
	return 0
}

type genL[T any] struct {
	sync.Mutex
	v T
}

func pGeneric(l *genL[int], stop bool) int {
	l.Lock()
	if stop {
		l.Mutex.Unlock()
		return 1
	}
	l.Unlock()
	return 0
}

func lGeneric[T any](l *genL[T], stop bool) int {
	l.Mutex.Lock()
	if stop {
		return 1 // want `return may skip l\.(Mutex\.)?Unlock \(Lock at line \d+\)`
	}
	l.Unlock()
	return 0
}

type withLocker struct{ sync.Locker }

func pInterfaceEmbed(l withLocker, stop bool) int {
	l.Lock()
	if stop {
		l.Locker.Unlock()
		return 1
	}
	l.Unlock()
	return 0
}

type inner struct{ a string }

type outer struct{ inner }

// promotedField holds o.a, which is o.inner.a: its release by either name is evidence, and
// the return that skips it is reported.
func promotedField(m *addrMgr, o outer) error {
	if _, err := m.HoldAddress(o.a); err != nil {
		return err
	}
	if err := step(); err != nil {
		m.ReleaseAddress(o.inner.a)
		return err
	}
	if err := step(); err != nil {
		return err // want `return may skip m.ReleaseAddress \(HoldAddress at line 275\)`
	}
	return m.ReleaseAddress(o.inner.a)
}
