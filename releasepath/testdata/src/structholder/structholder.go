// Package structholder: a local struct value that holds the value in a field, handed to
// another package's call that can fail.
package structholder

import (
	"os"

	"structholder/store"
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
		return err // want `return may skip temp.Close \(CreateTemp at line 14\)`
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
		return nil, err // want `return may skip f.Close \(Open at line 51\)`
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
	return store.Describe(o), nil // want `return may skip f.Close \(Open at line 69\)`
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
		return err // want `return may skip f.Close \(Open at line 92\)`
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
		return err // want `return may skip f.Close \(Open at line 106\)`
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
		return err // want `return may skip f.Close \(Open at line 122\)`
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
		return err // want `return may skip f.Close \(Open at line 136\)`
	}
	return nil
}
