// Package aliasrelease releases a file through a local that the path made hold it: the
// release called on the alias releases the value.
package aliasrelease

import (
	"errors"
	"io"
	"net"
	"os"
)

var errNotTCP = errors.New("not TCP")

// write sends to stdout, or to a file it creates and closes through output.
func write(path string, b []byte) (int, error) {
	output := os.Stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return 1, err
		}
		output = f
	}
	if _, err := output.Write(b); err != nil {
		return 1, err // want `return may skip f.Close \(Create at line 18\)`
	}
	output.Close()
	return 0, nil
}

// reassigned closes output after it was pointed elsewhere: nothing of f is closed.
func reassigned(path string, b []byte) error {
	output := os.Stdout
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	output = f
	if len(b) == 0 {
		output = os.Stderr
	}
	output.Close()
	return nil // want `return may skip f.Close \(Create at line 34\)`
}

// viaInterface closes through an io.Closer that holds f: the interface's Close is f's.
func viaInterface(path string) error {
	var c io.Closer = os.Stdin
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	c = f
	c.Close()
	return nil
}

// otherMethod calls a method of another name on the alias: nothing is closed.
func otherMethod(path string) error {
	output := os.Stdout
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	output = f
	output.Sync()
	return nil // want `return may skip f.Close \(Create at line 61\)`
}

// deferClosure defers a closure before the open that closes output when it runs: output
// holds f then.
func deferClosure(path string) error {
	output := os.Stdout
	defer func() { output.Close() }()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	output = f
	_, err = output.WriteString("x")
	return err
}

// deferAfter defers Close on the alias once it holds f.
func deferAfter(path string) error {
	output := os.Stdout
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	output = f
	defer output.Close()
	_, err = output.WriteString("x")
	return err
}

// repointInLiteral points out elsewhere in a literal: what it closes is not f.
func repointInLiteral(path string) error {
	out := os.Stdout
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	out = f
	func() { out = os.Stderr }()
	out.Close()
	return nil // want `return may skip f.Close \(Create at line 100\)`
}

// viaDeclared closes through an io.Closer declared with f as its value.
func viaDeclared(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var c io.Closer = f
	defer c.Close()
	_, err = f.Stat()
	return err
}

// viaDeclaredOther declares an io.Closer of something else: closing it leaves f open.
func viaDeclaredOther(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var c io.Closer = os.Stdin
	defer c.Close()
	_, err = f.Stat()
	return err // want `return may skip f.Close \(Create at line \d+\)`
}

// viaCommaOk closes the *net.TCPConn it asserts the dialed conn to be: the same conn.
func viaCommaOk(addr string) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		conn.Close()
		return errNotTCP
	}
	defer tcp.Close()
	return tcp.SetKeepAlive(true)
}

// viaTypeSwitch closes the conn in the one case of the switch: the other path leaks it.
func viaTypeSwitch(addr string) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	switch c := conn.(type) {
	case *net.TCPConn:
		defer c.Close()
		return c.SetKeepAlive(true)
	}
	return errNotTCP // want `return may skip conn.Close \(Dial at line \d+\)`
}
