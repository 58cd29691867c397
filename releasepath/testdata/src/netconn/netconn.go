// Package netconn dials connections: net.Dial, net.DialTimeout, tls.Dial, tls.DialWithDialer
// and a Dialer's Dial and DialContext are in the default table, released by the connection's
// Close.
package netconn

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io/ioutil"
	"net"
	"time"
)

var errShort = errors.New("short write")

// sendState is runc's seccomp-agent send (runc#4799): the connection is never closed.
func sendState(path string, state any) error {
	conn, err := net.Dial("unix", path)
	if err != nil {
		return err
	}
	socket, err := conn.(*net.UnixConn).File()
	if err != nil {
		return err // want `return may skip conn.Close \(Dial at line 20\)`
	}
	defer socket.Close()
	b, err := json.Marshal(state)
	if err != nil {
		return err // want `return may skip conn.Close \(Dial at line 20\)`
	}
	if _, err := socket.Write(b); err != nil {
		return err // want `return may skip conn.Close \(Dial at line 20\)`
	}
	return nil // want `return may skip conn.Close \(Dial at line 20\)`
}

// ping closes the connection on every return.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte("ping"))
	return err
}

// dial returns the connection: its caller closes it.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(time.Now().Add(time.Second)); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// pool keeps the connections it dials.
type pool struct{ conns []net.Conn }

func (p *pool) add(addr string) error {
	d := &net.Dialer{Timeout: time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return err
	}
	p.conns = append(p.conns, conn)
	return nil
}

// write closes the connection on success only.
func write(addr string, b []byte) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	n, err := conn.Write(b)
	if err != nil {
		return err // want `return may skip conn.Close \(Dial at line 79\)`
	}
	if n < len(b) {
		return errShort // want `return may skip conn.Close \(Dial at line 79\)`
	}
	return conn.Close()
}

// tempName leaks the file when Chmod fails: ioutil.TempFile is os.CreateTemp.
func tempName(dir string) (string, error) {
	f, err := ioutil.TempFile(dir, "x")
	if err != nil {
		return "", err
	}
	if err := f.Chmod(0o600); err != nil {
		return "", err // want `return may skip f.Close \(TempFile at line 95\)`
	}
	defer f.Close()
	return f.Name(), nil
}

type netNS struct{}

func (netNS) Do(fn func() error) error { return fn() }

// dialIn dials inside a namespace: the literal hands the connection to dialIn's variable.
func dialIn(ctx context.Context, ns netNS, addr string, d *net.Dialer) (net.Conn, error) {
	var conn net.Conn
	err := ns.Do(func() error {
		var err error
		conn, err = d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.SetDeadline(time.Now().Add(time.Second))
	})
	if err != nil {
		return nil, err
	}
	return conn, nil
}

var shared net.Conn

// connectShared keeps the connection in a package variable.
func connectShared(addr string) error {
	var err error
	shared, err = net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	return shared.SetDeadline(time.Now().Add(time.Second))
}

// dialNamed returns the connection in a named result, and leaks it where it returns nil.
func dialNamed(addr string) (conn net.Conn, err error) {
	conn, err = net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if err = conn.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return nil, err // want `return may skip conn.Close \(Dial at line 141\)`
	}
	return conn, nil
}

// dialTLS leaks the connection when the handshake fails, whichever way it dialed.
func dialTLS(addr string, cfg *tls.Config, secure bool) (net.Conn, error) {
	var conn net.Conn
	var err error
	if secure {
		conn, err = tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, cfg)
		if err != nil {
			return nil, err
		}
	} else {
		conn, err = net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return nil, err
		}
	}
	if err := conn.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return nil, err // want `return may skip conn.Close \(DialWithDialer at line 156\)` `return may skip conn.Close \(DialTimeout at line 161\)`
	}
	return conn, nil
}

// fetch closes the *tls.Conn on every return.
func fetch(addr string, cfg *tls.Config) ([]byte, error) {
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Handshake(); err != nil {
		return nil, err
	}
	return ioutil.ReadAll(conn)
}

// dialContext leaks the connection a tls.Dialer made when the deadline cannot be set.
func dialContext(ctx context.Context, addr string) (net.Conn, error) {
	d := &tls.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return nil, err // want `return may skip conn.Close \(DialContext at line 188\)`
	}
	return conn, nil
}

// handshake closes the *tls.Conn it asserts the dialed conn to be: the same connection.
func handshake(ctx context.Context, addr string) error {
	d := &tls.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	tc := conn.(*tls.Conn)
	defer tc.Close()
	return tc.Handshake()
}
