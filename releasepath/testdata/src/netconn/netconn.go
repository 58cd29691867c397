// Package netconn dials connections: net.Dial, net.DialTimeout and a Dialer's Dial and
// DialContext are in the default table, released by the connection's Close.
package netconn

import (
	"context"
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
		return err // want `return may skip conn.Close \(Dial at line 18\)`
	}
	defer socket.Close()
	b, err := json.Marshal(state)
	if err != nil {
		return err // want `return may skip conn.Close \(Dial at line 18\)`
	}
	if _, err := socket.Write(b); err != nil {
		return err // want `return may skip conn.Close \(Dial at line 18\)`
	}
	return nil // want `return may skip conn.Close \(Dial at line 18\)`
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
		return err // want `return may skip conn.Close \(Dial at line 77\)`
	}
	if n < len(b) {
		return errShort // want `return may skip conn.Close \(Dial at line 77\)`
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
		return "", err // want `return may skip f.Close \(TempFile at line 93\)`
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
		return nil, err // want `return may skip conn.Close \(Dial at line 139\)`
	}
	return conn, nil
}
