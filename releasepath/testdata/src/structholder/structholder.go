// Package structholder: a local struct value that holds the value in a field, handed to
// another package's call that can fail.
package structholder

import (
	"net"
	"os"

	"structholder/store"
	"structholder/tcpproxy"
)

// defrag is etcd's backend before v3.5.17: where store.Open fails, it took nothing of the
// temporary file its options' factory returns.
func defrag(dir string, copy func(*store.DB) error) error {
	temp, err := os.CreateTemp(dir, "db.tmp.*")
	if err != nil {
		return err
	}
	options := store.Options{}
	options.OpenFile = func(string) (*os.File, error) {
		return temp, nil
	}
	tmpdb, err := store.Open(temp.Name(), &options)
	if err != nil {
		return err // want `return may skip temp.Close \(CreateTemp at line 16\)`
	}
	if err := copy(tmpdb); err != nil {
		tmpdb.Close()
		return err
	}
	return tmpdb.Close()
}

// defragFixed is its fix: the failure closes the file itself.
func defragFixed(dir string) (*store.DB, error) {
	temp, err := os.CreateTemp(dir, "db.tmp.*")
	if err != nil {
		return nil, err
	}
	options := store.Options{ReadOnly: false}
	options.OpenFile = func(string) (*os.File, error) { return temp, nil }
	tmpdb, err := store.Open(temp.Name(), &options)
	if err != nil {
		temp.Close()
		return nil, err
	}
	return tmpdb, nil
}

// byValue passes the struct itself: the same.
func byValue(path string, open func(store.Options) (*store.DB, error)) (*store.DB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var o store.Options
	o.OpenFile = func(string) (*os.File, error) { return f, nil }
	db, err := openWith(o)
	if err != nil {
		return nil, err // want `return may skip f.Close \(Open at line 53\)`
	}
	return db, nil
}

func openWith(o store.Options) (*store.DB, error) { return store.Open("", &o) }

// describedOnly hands the struct to a call that returns no error and keeps nothing: the
// file is still the function's to close.
func describedOnly(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	var o store.Options
	o.OpenFile = func(string) (*os.File, error) { return f, nil }
	return store.Describe(o), nil // want `return may skip f.Close \(Open at line 71\)`
}

// pointerHolder stores into a struct the function only points at: the store is a hand-off,
// as before.
func pointerHolder(path string, o *store.Options) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	o.OpenFile = func(string) (*os.File, error) { return f, nil }
	return nil
}

// kept hands the struct to a callee that keeps it where it succeeds: only the failure
// leaks, even though the callee keeps what it is passed.
func kept(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var o store.Options
	o.File = f
	if err := store.Use(&o); err != nil {
		return err // want `return may skip f.Close \(Open at line 94\)`
	}
	return nil
}

// keptLater tests the error after the assignment, and the callee is a method.
func keptLater(path string, db *store.DB) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var o store.Options
	o.File = f
	err = db.Attach(&o)
	if err != nil {
		return err // want `return may skip f.Close \(Open at line 108\)`
	}
	return nil
}

// keptByFuncValue passes the struct to a function value: taken only where it succeeds,
// though nothing says what a function value keeps.
func keptByFuncValue(path string, use func(*store.Options) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var o store.Options
	o.File = f
	if err := use(&o); err != nil {
		return err // want `return may skip f.Close \(Open at line 124\)`
	}
	return nil
}

// fieldOfField stores the file in a struct field of the struct: still its own memory.
func fieldOfField(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var o store.Options
	o.Log.File = f
	if err := store.Use(&o); err != nil {
		return err // want `return may skip f.Close \(Open at line 138\)`
	}
	return nil
}

// gateway is etcd's gateway command: the proxy's Run serves the listener, and nothing after
// it tells whether it did, so the listener is the proxy's there.
func gateway(addr string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return
	}
	tp := tcpproxy.Proxy{Listener: l}
	tp.Run()
}

// serveReturned gives the proxy's error to its caller, which cannot tell either.
func serveReturned(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	tp := tcpproxy.Proxy{Listener: l}
	return tp.Run()
}

// serveTested tests the error: where Run failed it took nothing.
func serveTested(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	tp := tcpproxy.Proxy{Listener: l}
	if err := tp.Run(); err != nil {
		return err // want `return may skip l.Close \(Listen at line 173\)`
	}
	return nil
}

// describedByMethod calls a method of the holder with no error: the listener is still the
// function's.
func describedByMethod(addr string) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	tp := tcpproxy.Proxy{Listener: l, Name: addr}
	return tp.Describe(), nil // want `return may skip l.Close \(Listen at line 187\)`
}

// usedUnchecked drops the error of a function given the struct's address: it may have taken
// the file.
func usedUnchecked(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var o store.Options
	o.File = f
	store.Use(&o)
	return nil
}
