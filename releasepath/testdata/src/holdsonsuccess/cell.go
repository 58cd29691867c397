package holdsonsuccess

import "sync"

type cell struct {
	mu   sync.Mutex
	dead bool
}

type cellTable struct {
	mu sync.Mutex
	m  map[string]*cell
}

// live returns the cell for k locked, or nil: the local it locks is the result its caller
// unlocks.
func (t *cellTable) live(k string) *cell {
	e := t.m[k]
	if e == nil {
		return nil
	}
	e.mu.Lock()
	if e.dead {
		e.mu.Unlock()
		return nil
	}
	return e
}

// liveRetry locks an cell in each round of an endless loop and goes round again when it
// is dead.
func (t *cellTable) liveRetry(k string) *cell {
	for {
		e := t.m[k]
		if e == nil {
			return nil
		}
		e.mu.Lock()
		if !e.dead {
			return e
		}
		e.mu.Unlock()
	}
}

// liveOther returns another cell than the one it leaves locked.
func (t *cellTable) liveOther(k string) *cell {
	e := t.m[k]
	if e == nil {
		return nil
	}
	e.mu.Lock()
	if e.dead {
		e.mu.Unlock()
		return nil
	}
	return t.m[k+"/next"] // want `return may skip e.mu.Unlock \(Lock at line 52\)`
}

// liveNil keeps the lock where it says failure.
func (t *cellTable) liveNil(k string) *cell {
	for {
		e := t.m[k]
		if e == nil {
			return nil
		}
		e.mu.Lock()
		if e.dead {
			return nil // want `return may skip e.mu.Unlock \(Lock at line 67\)`
		}
		if len(t.m) > 1 {
			return e
		}
		e.mu.Unlock()
	}
}

func cond() bool { return false }

// liveMoved gives its local another cell before returning it: the locked one is lost.
func (t *cellTable) liveMoved(k string) *cell {
	e := t.m[k]
	e.mu.Lock()
	if e.dead {
		e.mu.Unlock()
		return nil
	}
	e = t.m[k+"/next"]
	return e // want `return may skip e.mu.Unlock \(Lock at line 83\)`
}

// liveMovedIf does so on one path.
func (t *cellTable) liveMovedIf(k string) *cell {
	e := t.m[k]
	e.mu.Lock()
	if e.dead {
		e.mu.Unlock()
		return nil
	}
	if cond() {
		e = t.m[k+"/next"]
	}
	return e // want `return may skip e.mu.Unlock \(Lock at line 95\)`
}

// liveCopy returns a copy of its local: only the local itself is read as the result.
func (t *cellTable) liveCopy(k string) *cell {
	e := t.m[k]
	e.mu.Lock()
	if e.dead {
		e.mu.Unlock()
		return nil
	}
	r := e
	return r // want `return may skip e.mu.Unlock \(Lock at line 109\)`
}

type cellHandle struct{ c *cell }

// liveWrapped returns a value that holds its local.
func (t *cellTable) liveWrapped(k string) *cellHandle {
	e := t.m[k]
	e.mu.Lock()
	if e.dead {
		e.mu.Unlock()
		return nil
	}
	return &cellHandle{c: e} // want `return may skip e.mu.Unlock \(Lock at line 123\)`
}

func (e *cell) unlock() { e.mu.Unlock() }

// liveHelper releases through a method of the cell, which changes nothing of the local.
func (t *cellTable) liveHelper(k string) *cell {
	e := t.m[k]
	e.mu.Lock()
	if e.dead {
		e.unlock()
		return nil
	}
	return e
}
