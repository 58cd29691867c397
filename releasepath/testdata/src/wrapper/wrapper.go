// Package wrapper releases through a helper of its own package.
package wrapper

import (
	"errors"
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
		return 0, err // want `return may skip closeQuietly \(Open at line 32\)`
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

// client makes streams on a server; request forgets the reply it waited for, which is no
// release of the client.
type client struct{ replies sync.Map }

func (c *client) CreateStream(name string) error { return c.request(name) }
func (c *client) DeleteStream(name string) error { return c.request(name) }

func (c *client) request(name string) error {
	reply := name + ".reply"
	c.replies.Store(reply, true)
	c.replies.Delete(reply)
	return nil
}

func (c *client) lookup(name string) error { return c.request(name) }

func newClient() *client { return &client{} }

// ensureStream looks the stream up again when a step fails: the lookup deletes its own reply,
// nothing of the stream, so it is no evidence that an error return must delete the stream.
func ensureStream(name string, step func() error) error {
	c := newClient()
	if err := c.CreateStream(name); err != nil {
		return err
	}
	if err := step(); err != nil {
		c.lookup(name)
		return err
	}
	if err := step(); err != nil {
		return errors.New("second step")
	}
	return nil
}
