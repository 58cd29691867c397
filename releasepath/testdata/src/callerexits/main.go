// Command callerexits ends the process on its helpers' errors: what their error returns
// leave open ends with it.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		log.Fatal(err)
	}
	err := copyOut(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	log.Fatal(serve(os.Args[1]))
	if err := logged(os.Args[1]); err != nil {
		log.Print(err)
	}
	if err := twice(os.Args[1]); err != nil {
		log.Fatal(err)
	}
	_ = twice(os.Args[1])
	if err := logDropMid(os.Args[1]); err != nil {
		log.Fatal(err)
	}
	f := asValue
	if err := f(os.Args[1]); err != nil {
		log.Fatal(err)
	}
}

var errEmpty = errors.New("empty")

func run(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.Size() == 0 {
		return errEmpty
	}
	if err := setup(path); err != nil {
		return err
	}
	return f.Close()
}

// setup's callers return its error to main, which exits.
func setup(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// copyOut is tested on the statement after the call.
func copyOut(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	// The success path still leaks: the process goes on after a nil error.
	if len(path) > 3 {
		return nil // want `return may skip f.Close \(Create at line 72\)`
	}
	return f.Close()
}

func serve(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// logged's caller logs the error and goes on.
func logged(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 99\)`
	}
	return f.Close()
}

// twice is called once under an exit and once with its error dropped.
func twice(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 111\)`
	}
	return f.Close()
}

// asValue is taken as a value: who calls it is not known.
func asValue(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 123\)`
	}
	return f.Close()
}

// logDropMid logs its helper's error and says success when verbose: on that path the
// process goes on.
func logDropMid(path string) error {
	if err := logDropLeaf(path); err != nil {
		if verbose {
			log.Print(err)
			return nil
		}
		return err
	}
	return nil
}

func logDropLeaf(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 147\)`
	}
	return f.Close()
}
