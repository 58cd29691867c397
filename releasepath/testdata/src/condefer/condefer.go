// Package condefer releases in deferred closures that run only on some paths.
package condefer

import (
	"errors"
	"fmt"
)

type pool struct{}

func (p *pool) AcquireConn() (*conn, error) { return &conn{}, nil }
func (p *pool) ReleaseConn(c *conn)         {}

type conn struct{}

func (c *conn) ping() error { return nil }

// use releases on every return through a deferred closure guarded by nothing.
func use(p *pool) error {
	c, err := p.AcquireConn()
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	defer func() { p.ReleaseConn(c) }()
	return c.ping()
}

// useNamed releases on error returns through a named err, and hands c on otherwise.
func useNamed(p *pool) (c *conn, err error) {
	c, err = p.AcquireConn()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			p.ReleaseConn(c)
		}
	}()
	if err := c.ping(); err != nil {
		return nil, err
	}
	return c, nil
}

// useNamedSuccessLeak releases only on errors, but its success path does not hand c on.
func useNamedSuccessLeak(p *pool) (err error) {
	c, err := p.AcquireConn()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			p.ReleaseConn(c)
		}
	}()
	if err := c.ping(); err != nil {
		return err
	}
	return nil // want `return may skip p.ReleaseConn \(AcquireConn at line 47\)`
}

// useLocal defers on a local err: the returns of a new error skip the release.
func useLocal(p *pool, ok bool) (*conn, error) {
	c, err := p.AcquireConn()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			p.ReleaseConn(c)
		}
	}()
	if !ok {
		return nil, errors.New("not ok") // want `return may skip p.ReleaseConn`
	}
	if err = c.ping(); err != nil {
		return nil, err
	}
	return c, nil
}

// inLiteral: a function literal is a function of its own.
func inLiteral(p *pool) func() error {
	return func() error {
		c, err := p.AcquireConn()
		if err != nil {
			return err
		}
		if err := c.ping(); err != nil {
			return err // want `return may skip p.ReleaseConn`
		}
		p.ReleaseConn(c)
		return nil
	}
}
