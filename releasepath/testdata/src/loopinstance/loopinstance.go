// Package loopinstance acquires in a loop: each iteration's acquisition is its own, and a
// path around the loop to the acquisition again ends the search for the previous one.
package loopinstance

import (
	"sync"
)

type cache struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *cache) loopContinueBreak(keys []string) int {
	total := 0
	for _, k := range keys {
		c.mu.Lock()
		v, ok := c.n[k]
		if !ok {
			c.mu.Unlock()
			continue
		}
		if v < 0 {
			c.mu.Unlock()
			break
		}
		total += v
		c.mu.Unlock()
	}
	return total
}

func (c *cache) loopReturnUnlocked(keys []string) int {
	for _, k := range keys {
		c.mu.Lock()
		v := c.n[k]
		c.mu.Unlock()
		if v > 0 {
			return v
		}
	}
	return 0
}

func (c *cache) perIterationClosure(keys []string) int {
	total := 0
	for _, k := range keys {
		func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			total += c.n[k]
		}()
	}
	return total
}

func (c *cache) labeledBreak(rows [][]string) int {
	total := 0
outer:
	for _, ks := range rows {
		c.mu.Lock()
		for _, k := range ks {
			if c.n[k] < 0 {
				c.mu.Unlock()
				break outer
			}
			total += c.n[k]
		}
		c.mu.Unlock()
	}
	return total
}
