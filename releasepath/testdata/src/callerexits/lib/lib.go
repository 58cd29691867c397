// Package lib is no command: only its unexported functions, whose every call ends the
// process on their error, are spared.
package lib

import (
	"log"
	"os"
)

// Load ends the process on each helper's error.
func Load(path string) {
	if err := load(path); err != nil {
		log.Fatal(err)
	}
	if err := Run(path); err != nil {
		log.Fatal(err)
	}
	s := &store{path: path}
	if err := s.fetch(); err != nil {
		log.Fatal(err)
	}
	if err := hooked(path); err != nil {
		log.Fatal(err)
	}
	v := &srv{path: path}
	if err := v.Start(); err != nil {
		log.Fatal(err)
	}
	if err := s.save(); err != nil {
		log.Fatal(err)
	}
}

// load is unexported and called once, under an exit.
func load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// Run is exported: another package may call it and go on.
func Run(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 48\)`
	}
	return f.Close()
}

type store struct{ path string }

// fetcher has a method of fetch's name: s.fetch may be called through it.
type fetcher interface{ fetch() error }

func (s *store) fetch() error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 64\)`
	}
	return f.Close()
}

// save is an unexported method no interface names.
func (s *store) save() error {
	f, err := os.Create(s.path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	return f.Close()
}

// hook takes hooked as a value.
var hook = hooked

func hooked(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 90\)`
	}
	return f.Close()
}

type srv struct{ path string }

// NewSrv hands a *srv to other packages, which may call Start.
func NewSrv(path string) *srv { return &srv{path: path} }

// Start is an exported method: another package can call it.
func (v *srv) Start() error {
	f, err := os.Open(v.path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 107\)`
	}
	return f.Close()
}
