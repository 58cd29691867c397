package acquire_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
)

var (
	errQuota = errors.New("cloud: quota exceeded")
	errFlaky = errors.New("cloud: 503 backend error")
)

// cloud is a deterministic fake of an external system: named resources that exist until
// released. Tests look the resources up after the operation, as the Kubernetes regression test
// for kubernetes#97740 looked the address up again, instead of trusting return values.
type cloud struct {
	mu          sync.Mutex
	held        map[string]bool
	log         []string
	failAcquire map[string]error
	failRelease map[string]error
}

func newCloud() *cloud {
	return &cloud{held: map[string]bool{}, failAcquire: map[string]error{}, failRelease: map[string]error{}}
}

// reserve returns an acquire function that creates the resource name.
func (c *cloud) reserve(name string) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("reserve %s: %w", name, err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.failAcquire[name]; err != nil {
			return "", err
		}
		if c.held[name] {
			return "", fmt.Errorf("reserve %s: already exists", name)
		}
		c.held[name] = true
		c.log = append(c.log, "reserve "+name)
		return name, nil
	}
}

// release deletes the resource; it honours its context like a real client would.
func (c *cloud) release(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release %s: %w", name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.failRelease[name]; err != nil {
		return err
	}
	delete(c.held, name)
	c.log = append(c.log, "release "+name)
	return nil
}

// cleanup returns a Defer function that records that it ran.
func (c *cloud) cleanup(name string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.failRelease[name]; err != nil {
			return err
		}
		c.log = append(c.log, "cleanup "+name)
		return nil
	}
}

func (c *cloud) exists(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[name]
}

// inventory lists the resources that exist, sorted.
func (c *cloud) inventory() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.held))
	for n := range c.held {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c *cloud) calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}
