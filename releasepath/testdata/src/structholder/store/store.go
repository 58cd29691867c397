// Package store stands for bbolt: Open takes its file from the factory in its options.
package store

import (
	"errors"
	"os"
)

type Options struct {
	OpenFile func(string) (*os.File, error)
	File     *os.File
	Log      Log
	ReadOnly bool
}

// Log is a struct the options hold by value: its field is the options' own memory.
type Log struct{ File *os.File }

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

var kept *Options

// Use keeps the options where it succeeds, and nothing where it fails.
func Use(o *Options) error {
	if o.File == nil && o.Log.File == nil {
		return errors.New("empty")
	}
	kept = o
	return nil
}

// Attach is a method that keeps them the same way.
func (db *DB) Attach(o *Options) error { return Use(o) }
