package receiverfield

import (
	"errors"
	"sync"
)

type upload struct {
	mu     sync.Mutex
	closed bool
	parts  map[int][]byte
	next   int
}

func (up *upload) sink([]byte) error { return nil }

// pump is called with up.mu held and returns with it released, from a loop that never falls
// off its end (rclone's serve s3): it unlocks before each return, and takes the lock back
// only to go round again.
func (up *upload) pump() error {
	for {
		if up.closed {
			up.mu.Unlock()
			return errors.New("upload gone")
		}
		b, ok := up.parts[up.next]
		if !ok {
			up.mu.Unlock()
			return nil
		}
		up.mu.Unlock()
		if err := up.sink(b); err != nil {
			return err
		}
		up.mu.Lock()
		up.next++
	}
}

// put ends with pump: the lock goes with it.
func (up *upload) put(part int, b []byte) error {
	up.mu.Lock()
	if up.closed {
		up.mu.Unlock()
		return errors.New("upload gone")
	}
	up.parts[part] = b
	return up.pump()
}

// pumpSome may leave its loop by a break and fall off its end holding the lock.
func (up *upload) pumpSome(limit int) error {
	for {
		if up.next >= limit {
			break
		}
		up.mu.Unlock()
		if err := up.sink(nil); err != nil {
			return err
		}
		up.mu.Lock()
		up.next++
	}
	return nil
}

// putSome ends with pumpSome, which may return holding the lock.
func (up *upload) putSome(part, limit int, b []byte) error {
	up.mu.Lock()
	if up.closed {
		up.mu.Unlock()
		return errors.New("upload gone")
	}
	up.parts[part] = b
	return up.pumpSome(limit) // want `return may skip up.mu.Unlock \(Lock at line 69\)`
}

// pumpLabeled breaks out of an inner loop by its label, and its own loop is labeled too:
// neither leaves the endless loop.
func (up *upload) pumpLabeled() error {
outer:
	for {
	scan:
		for i := 0; i < 3; i++ {
			if up.parts[i] == nil {
				break scan
			}
			if up.closed {
				continue outer
			}
		}
		up.mu.Unlock()
		if err := up.sink(nil); err != nil {
			return err
		}
		up.mu.Lock()
		if up.closed {
			up.mu.Unlock()
			return nil
		}
	}
}

func (up *upload) putLabeled(part int, b []byte) error {
	up.mu.Lock()
	if up.closed {
		up.mu.Unlock()
		return errors.New("upload gone")
	}
	up.parts[part] = b
	return up.pumpLabeled()
}

// pumpBreakOuter leaves its labeled loop by a break of that label and falls off holding.
func (up *upload) pumpBreakOuter() error {
outer:
	for {
		if up.closed {
			break outer
		}
		up.mu.Unlock()
		return nil
	}
	return nil
}

func (up *upload) putBreakOuter(part int, b []byte) error {
	up.mu.Lock()
	if up.closed {
		up.mu.Unlock()
		return errors.New("upload gone")
	}
	up.parts[part] = b
	return up.pumpBreakOuter() // want `return may skip up.mu.Unlock \(Lock at line 128\)`
}
