// Package store stands for bbolt: Open takes its file from the factory in its options.
package store

import (
	"errors"
	"os"
)

type Options struct {
	OpenFile func(string) (*os.File, error)
	ReadOnly bool
}

type DB struct{ f *os.File }

func Open(path string, o *Options) (*DB, error) {
	if o == nil {
		o = &Options{}
	}
	f, err := o.OpenFile(path)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, errors.New("no path")
	}
	return &DB{f: f}, nil
}

func (db *DB) Close() error { return db.f.Close() }

// Describe takes options and keeps nothing of them.
func Describe(o Options) string { return "options" }
