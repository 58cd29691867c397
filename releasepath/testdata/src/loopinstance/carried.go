package loopinstance

import (
	"errors"
	"os"
	"sync"
)

func big(f *os.File) bool { return false }

// rotateFiles opens the next file when a batch makes the current one big, and closes the
// current one when the channel is closed: the close in the else branch runs after the open
// of the then branch, in a later iteration, since f is declared outside the loop (gowarc's
// record writer).
func rotateFiles(dir string, batches chan []string) error {
	f, err := os.Create(dir + "/0")
	if err != nil {
		return err
	}
	for {
		batch, more := <-batches
		if more {
			if big(f) {
				f.Close()
				f, err = os.Create(dir + "/1")
				if err != nil {
					panic(err)
				}
			}
			for range batch {
				if err != nil {
					panic(err)
				}
			}
		} else {
			f.Close()
			return nil
		}
	}
}

type Client struct{}

type Addr struct{ Name string }

func (c *Client) ReserveAddress(name string) (*Addr, error) { return &Addr{Name: name}, nil }
func (a *Addr) Release() error                              { return nil }

func step() error { return nil }

// growShrink reserves when asked to grow and releases when asked to shrink, a held from one
// iteration to the next: the release is evidence, and a failed step leaks the reservation.
func growShrink(c *Client, ops []bool) error {
	var a *Addr
	var err error
	for _, grow := range ops {
		if grow {
			a, err = c.ReserveAddress("a")
			if err != nil {
				return err
			}
			if err := step(); err != nil {
				return err // want `return may skip a.Release \(ReserveAddress at line 58\)`
			}
		} else if a != nil {
			a.Release()
		}
	}
	return errors.New("ended grown") // want `return may skip a.Release \(ReserveAddress at line 58\)`
}

// perIteration declares a inside the loop: the release in the else branch is of another
// iteration's a, never of the one reserved, so it is no evidence.
func perIteration(c *Client, ops []bool) error {
	for _, grow := range ops {
		var a *Addr
		var err error
		if grow {
			a, err = c.ReserveAddress("a")
			if err != nil {
				return err
			}
			if err := step(); err != nil {
				return err
			}
		} else if a != nil {
			a.Release()
		}
	}
	return nil
}

type table struct {
	mu   sync.Mutex
	rows int
}

// lockInTurns locks the table when asked to grow and unlocks it when asked to shrink; c is
// declared outside the loop, so the unlock of a later iteration is evidence for the lock,
// and a failed step returns holding it.
func lockInTurns(c *table, ops []bool) error {
	for _, grow := range ops {
		if grow {
			c.mu.Lock()
			if err := step(); err != nil {
				return err // want `return may skip c.mu.Unlock \(Lock at line 104\)`
			}
			c.rows++
		} else {
			c.mu.Unlock()
		}
	}
	return nil // want `return may skip c.mu.Unlock \(Lock at line 104\)`
}
