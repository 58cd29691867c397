package handoff

import (
	"errors"
	"sync"
)

type pol2 struct{ refs int }

func (p *pol2) acquireRef()               { p.refs++ }
func (p *pol2) releaseRef()               { p.refs-- }
func (p *pol2) acquireRefE() error        { p.refs++; return nil }
func (p *pol2) acquireN(n int)            { p.refs += n }
func (p *pol2) releaseN(n int)            { p.refs -= n }
func (p *pol2) acquireTok() int           { p.refs++; return p.refs }
func (p *pol2) releaseTok(t int)          { p.refs-- }
func (p *pol2) acquireBoth() (int, error) { return 0, nil }
func (p *pol2) releaseBoth(t int)         {}

type pick2 struct {
	def  *pol2
	refs int
}

type bal2 struct {
	def   *pol2
	cur   *pol2
	m     map[string]*pol2
	ch    chan *pol2
	mu    *sync.Mutex
	saved *sync.Mutex
}

var errNo = errors.New("no")

// ---- must hand on (no report) ----

// rStoreField stores the receiver in a field.
func (b *bal2) rStoreField(ok bool) {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return
	}
	b.cur = b.def
}

// rStoreMap stores the receiver in a map.
func (b *bal2) rStoreMap(ok bool) {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return
	}
	b.m["x"] = b.def
}

// rSend sends the receiver.
func (b *bal2) rSend(ok bool) {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return
	}
	b.ch <- b.def
}

// rErrorResult: an acquisition that returns only an error qualifies.
func (b *bal2) rErrorResult(ok bool) (*pick2, error) {
	if err := b.def.acquireRefE(); err != nil {
		return nil, err
	}
	if !ok {
		b.def.releaseRef()
		return &pick2{}, errNo
	}
	return &pick2{def: b.def}, nil
}

// rLocal: the receiver is a local.
func (b *bal2) rLocal(ok bool) *pol2 {
	p := b.def
	p.acquireRef()
	if !ok {
		p.releaseRef()
		return b.cur
	}
	return p
}

// ---- must NOT hand on (report) ----

// nWithArgs: the acquisition takes an argument.
func (b *bal2) nWithArgs(ok bool) *pick2 {
	b.def.acquireN(2)
	if !ok {
		b.def.releaseN(2)
		return &pick2{}
	}
	return &pick2{def: b.def} // want `return may skip b.def.releaseN \(acquireN at line \d+\)`
}

// nWithResult: the acquisition returns a token; storing the receiver hands nothing.
func (b *bal2) nWithResult(ok bool) *pick2 {
	t := b.def.acquireTok()
	if !ok {
		b.def.releaseTok(t)
		return &pick2{}
	}
	return &pick2{def: b.def} // want `return may skip b.def.releaseTok \(acquireTok at line \d+\)`
}

// nWithResultErr: two results.
func (b *bal2) nWithResultErr(ok bool) (*pick2, error) {
	t, err := b.def.acquireBoth()
	if err != nil {
		return nil, err
	}
	if !ok {
		b.def.releaseBoth(t)
		return nil, errNo
	}
	return &pick2{def: b.def}, nil // want `return may skip b.def.releaseBoth \(acquireBoth at line \d+\)`
}

// nLockOwnerStored: a lock is never handed on by storing its owner.
func (b *bal2) nLockOwnerStored(ok bool) {
	b.mu.Lock()
	if !ok {
		b.mu.Unlock()
		return
	}
	b.saved = b.mu
} // want `return may skip b.mu.Unlock \(Lock at line \d+\)`

// nLockOwnerReturned.
func (b *bal2) nLockOwnerReturned(ok bool) *sync.Mutex {
	b.mu.Lock()
	if !ok {
		b.mu.Unlock()
		return b.saved
	}
	return b.mu // want `return may skip b.mu.Unlock \(Lock at line \d+\)`
}

// nStoresCount: a field of the receiver stored, not the receiver.
func (b *bal2) nStoresCount(ok bool) *pick2 {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return &pick2{}
	}
	return &pick2{refs: b.def.refs} // want `return may skip b.def.releaseRef \(acquireRef at line \d+\)`
}

// nStoresOne: stores on one path only; the other return leaks.
func (b *bal2) nStoresOne(ok, keep bool) {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return
	}
	if keep {
		b.cur = b.def
		return
	}
	return // want `return may skip b.def.releaseRef \(acquireRef at line \d+\)`
}

// nStoresOther: another object is stored.
func (b *bal2) nStoresOther(ok bool) {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return
	}
	b.cur = b.cur
} // want `return may skip b.def.releaseRef \(acquireRef at line \d+\)`

// nStoresLocalOnly: stored in a local struct that is dropped.
func (b *bal2) nStoresLocalOnly(ok bool) {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return
	}
	p := &pick2{def: b.def}
	_ = p
} // want `return may skip b.def.releaseRef \(acquireRef at line \d+\)`

// nTryLockStyle: a rollback-free scoped acquisition whose receiver is stored before a
// release that follows: released after storing, still fine; but a return between acquiring
// and storing leaks.
func (b *bal2) nEarly(ok bool) *pick2 {
	b.def.acquireRef()
	if !ok {
		return nil // want `return may skip b.def.releaseRef \(acquireRef at line \d+\)`
	}
	if b.cur == nil {
		b.def.releaseRef()
		return nil
	}
	return &pick2{def: b.def}
}

// rReturnPlain: returning the receiver itself, release path returns another non-nil.
func (b *bal2) rReturnPlain(ok bool) *pol2 {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return b.cur
	}
	return b.def
}

// nWithVarArg: the acquisition takes a variable argument.
func (b *bal2) nWithVarArg(n int, ok bool) {
	b.def.acquireN(n)
	if !ok {
		b.def.releaseN(n)
		return
	}
	b.cur = b.def
} // want `return may skip b.def.releaseN \(acquireN at line \d+\)`

// nWithConstArgStore: constant argument, stored receiver.
func (b *bal2) nWithConstArgStore(ok bool) {
	b.def.acquireN(2)
	if !ok {
		b.def.releaseN(2)
		return
	}
	b.cur = b.def
} // want `return may skip b.def.releaseN \(acquireN at line \d+\)`

// nReturnsParent: the owner of the receiver (b) is returned, the receiver is b.def: not promised.
