// Package wrapper releases through a helper of its own package.
package wrapper

import (
	"io"
	"log"
	"os"
	"sync"
)

func closeQuietly(c io.Closer) {
	if err := c.Close(); err != nil {
		log.Printf("close: %v", err)
	}
}

func size(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closeQuietly(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func sizeLeaky(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip closeQuietly \(Open at line 31\)`
	}
	closeQuietly(f)
	return fi.Size(), nil
}

type cache struct {
	mu sync.RWMutex
	m  map[string]string
}

func readUnlock(mu *sync.RWMutex) { mu.RUnlock() }

// read ends the read lock through readUnlock on one path: RUnlock, the release of RLock,
// leads with the release verb of Lock after its mode.
func read(c *cache, k string) string {
	mu := &c.mu
	mu.RLock()
	v, ok := c.m[k]
	if !ok {
		readUnlock(mu)
		return ""
	}
	mu.RUnlock()
	return v
}
