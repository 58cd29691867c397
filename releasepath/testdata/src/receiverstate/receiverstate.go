// Package receiverstate: a method's acquisition through a method of its own receiver that
// can fail is the receiver's state, dropped only at a return whose error is known non-nil.
package receiverstate

import (
	"context"
	"errors"
	"io"
)

type base struct{ n int }

func (b *base) Acquire(ctx context.Context, n int) error { b.n += n; return nil }
func (b *base) Release(n int)                            { b.n -= n }

// lock returns nothing: the receiver's own lock helper, not checked at all.
func (b *base) lock()   {}
func (b *base) unlock() {}

type fetcher struct{ *base }

func decode(enc string, r io.Reader) (io.Reader, error) { return r, nil }

// open is containerd's fetcher before its fix: an unsupported encoding returns an error
// holding the permit the other error return gives back.
func (r fetcher) open(ctx context.Context, get func() (io.Reader, error), enc string) (io.Reader, error) {
	if err := r.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	body, err := get()
	if err != nil {
		r.Release(1)
		return nil, err
	}
	switch enc {
	case "gzip":
		body, err = decode(enc, body)
		if err != nil {
			return nil, err // want `return may skip r.Release \(Acquire at line 27\)`
		}
	case "":
	default:
		return nil, errors.New("unsupported encoding") // want `return may skip r.Release \(Acquire at line 27\)`
	}
	return body, nil
}

// renew keeps the permit for its receiver where it says success: no finding.
func (r fetcher) renew(ctx context.Context, keep bool) error {
	if err := r.Acquire(ctx, 1); err != nil {
		return err
	}
	if keep {
		return nil
	}
	r.Release(1)
	return nil
}

// maybe returns an error no test settled, which may be nil: no finding.
func (r fetcher) maybe(ctx context.Context, step func() error) error {
	if err := r.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := step(); err != nil {
		r.Release(1)
		return err
	}
	return step()
}

// locked takes the receiver's lock helper, which returns nothing: the receiver's state,
// whatever the return says.
func (r fetcher) locked(step func() error) error {
	r.lock()
	if err := step(); err != nil {
		return err
	}
	r.unlock()
	return nil
}

// other acquires through another value of the type: checked at every return.
func (r fetcher) other(ctx context.Context, o fetcher, step func() error) error {
	if err := o.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := step(); err != nil {
		return nil // want `return may skip o.Release \(Acquire at line 85\)`
	}
	o.Release(1)
	return nil
}

type parser struct {
	tokens []string
	cursor int
}

func (p *parser) token() string { return p.tokens[p.cursor] }

// openBrace reads the next token and changes nothing of the parser: a check named like an
// acquisition, caddy's openCurlyBrace.
func (p *parser) openBrace() error {
	if p.token() != "{" {
		return errors.New("want {")
	}
	return nil
}

func (p *parser) closeBrace() error {
	if p.token() != "}" {
		return errors.New("want }")
	}
	return nil
}

func (p *parser) directives() error { return nil }

// block returns a later error between the two checks: nothing is held.
func (p *parser) block() error {
	errOpen := p.openBrace()
	if errOpen != nil {
		p.cursor--
	}
	if err := p.directives(); err != nil {
		return err
	}
	if errOpen == nil {
		return p.closeBrace()
	}
	return nil
}

type conn struct{ status int }

// lock marks the connection busy: it changes the receiver.
func (c *conn) lock() error {
	if c.status != 0 {
		return errors.New("conn busy")
	}
	c.status = 1
	return nil
}

func (c *conn) unlock()     { c.status = 0 }
func (c *conn) asyncClose() { c.status = 2 }

// query closes the connection on a broken read, and its busy state with it: pgx's CopyTo.
func (c *conn) query(read func() error) error {
	if err := c.lock(); err != nil {
		return err
	}
	if err := read(); err != nil {
		c.asyncClose()
		return err
	}
	if err := read(); err != nil {
		return err // want `return may skip c.unlock \(lock at line 151\)`
	}
	c.unlock()
	return nil
}

func (c *conn) Close() error { c.status = 2; return nil }

// queryDeferred defers the connection's Close: every return ends the busy state.
func (c *conn) queryDeferred(read func() error) error {
	if err := c.lock(); err != nil {
		return err
	}
	defer c.Close()
	if err := read(); err != nil {
		return errors.New("broken")
	}
	c.unlock()
	return nil
}

// queryDeferredLiteral closes it in a deferred literal.
func (c *conn) queryDeferredLiteral(read func() error) error {
	if err := c.lock(); err != nil {
		return err
	}
	defer func() { c.Close() }()
	if err := read(); err != nil {
		return errors.New("broken")
	}
	c.unlock()
	return nil
}

func (c *conn) isClosed() bool { return c.status == 2 }

// queryClosedTest only asks whether it is closed: isClosed has no word Close.
func (c *conn) queryClosedTest(read func() error) error {
	if err := c.lock(); err != nil {
		return err
	}
	if err := read(); err != nil {
		if c.isClosed() {
			return errors.New("closed") // want `return may skip c.unlock \(lock at line 197\)`
		}
		return errors.New("broken") // want `return may skip c.unlock \(lock at line 197\)`
	}
	c.unlock()
	return nil
}
