package handoff

import (
	"context"
	"errors"
	"net"
	"time"
)

// dialProxy is tcpproxy's DialProxy: HandleConn calls DialContext and closes what it gets.
type dialProxy struct {
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (p *dialProxy) HandleConn(src net.Conn) {
	dst, err := p.DialContext(context.Background(), "tcp", "")
	if err != nil {
		return
	}
	dst.Close()
	src.Close()
}

var timeZero time.Time

var errEndpoint = errors.New("endpoint")

func createEndpoint() (net.Conn, error) { return nil, errEndpoint }

// forward hands the outbound connection to the proxy through the literal that returns it:
// the literal is a factory of the connection, and whoever calls it takes it. The return
// before the literal is made still leaks it.
func forward(addr string) {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	src, err := createEndpoint()
	if err != nil {
		return // want `return may skip outbound.Close \(Dial at line \d+\)`
	}
	remote := dialProxy{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return outbound, nil
		},
	}
	remote.HandleConn(src)
}

// forwardCalled calls the literal where it is written: what it returns stays the function's.
func forwardCalled(addr string) (int, error) {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	c := func() net.Conn { return outbound }()
	return c.Write(nil) // want `return may skip outbound.Close \(Dial at line \d+\)`
}

// forwardNested returns the connection from a literal inside the literal: only a return of
// the literal's own gives the connection away.
func forwardNested(addr string) error {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	check := func() error {
		get := func() net.Conn { return outbound }
		_ = get
		return nil
	}
	return check() // want `return may skip outbound.Close \(Dial at line \d+\)`
}

// forwardOther returns something else from the literal: the connection is still the
// function's to close.
func forwardOther(addr string, other net.Conn) error {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	remote := dialProxy{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return other, outbound.SetDeadline(timeZero)
		},
	}
	remote.HandleConn(other)
	return nil // want `return may skip outbound.Close \(Dial at line \d+\)`
}

// forwardStored stores the literal in a local and calls it itself: the connection it gets
// back is still the function's.
func forwardStored(addr string) (int, error) {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	get := func() net.Conn { return outbound }
	c := get()
	return c.Write(nil) // want `return may skip outbound.Close \(Dial at line \d+\)`
}

// forwardNamed returns the connection through the literal's named result.
func forwardNamed(addr string, src net.Conn) {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	remote := dialProxy{
		DialContext: func(context.Context, string, string) (c net.Conn, err error) {
			c = outbound
			return
		},
	}
	remote.HandleConn(src)
}

// forwardCopy returns a copy of the connection from the literal.
func forwardCopy(addr string, src net.Conn) {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	remote := dialProxy{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			c := outbound
			return c, nil
		},
	}
	remote.HandleConn(src)
}

// forwardInner returns what a literal it calls returns.
func forwardInner(addr string, src net.Conn) {
	outbound, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	remote := dialProxy{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return func() net.Conn { return outbound }(), nil
		},
	}
	remote.HandleConn(src)
}
