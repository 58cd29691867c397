package main

import (
	"fmt"
	"log"
	"os"
)

var verbose = len(os.Args) > 2

// init ends the process on each helper's error below but the ones marked otherwise.
func init() {
	p := os.Args[0]
	if err := fromInit(p); err != nil {
		log.Fatal(err)
	}
	if err := sometimesExit(p); err != nil {
		if verbose {
			os.Exit(1)
		}
		log.Print(err)
	}
	err := testedLater(p)
	fmt.Println("checked")
	if err != nil {
		os.Exit(1)
	}
	err = overwritten(p)
	err = other()
	if err != nil {
		os.Exit(1)
	}
	if err := wrapped(p); err != nil {
		log.Fatal(err)
	}
	if err := wrappedAssigned(p); err != nil {
		log.Fatal(err)
	}
	a := &app{path: p}
	if err := a.load(); err != nil {
		log.Fatal(err)
	}
	if err := a.Save(); err != nil {
		log.Fatal(err)
	}
	if err := a.flush(); err != nil {
		log.Fatal(err)
	}
	if err := a.handler(); err != nil {
		log.Fatal(err)
	}
	h := a.handler
	_ = h
	if err := rec(p, 3); err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := inGoroutine(p); err != nil {
			log.Fatal(err)
		}
	}()
	if err := mayBeNil(p); err != nil {
		log.Fatal(err)
	}
	if err := reversed(p); err == nil {
		fmt.Println("ok")
	} else {
		log.Fatal(err)
	}
	if err := fatalf(p); err != nil {
		log.Fatalf("fatalf: %v", err)
	}
	if err := fetch(p); err != nil {
		log.Fatal(err)
	}
	if err := genericLoad[int](p); err != nil {
		log.Fatal(err)
	}
	if err := midLogged(p); err != nil {
		log.Print(err)
	}
	if err := exitZero(p); err != nil {
		os.Exit(0)
	}
	if err := exitBare(p); err != nil {
		os.Exit(1)
	}
	if err := exitZeroPrinted(p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(0)
	}
	_ = midDropped(p)
	if err := exitUnlessIgnored(p); err != nil && !verbose {
		log.Fatal(err)
	}
	if err := midTwice(p); err != nil {
		log.Fatal(err)
	}
	if err := midTwice(p); err != nil {
		log.Print(err)
	}
}

func other() error { return nil }

// fromInit is called from init, which ends the process on its error.
func fromInit(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// sometimesExit's caller exits only when verbose, and otherwise logs and goes on.
func sometimesExit(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 120\)`
	}
	return f.Close()
}

// testedLater's error is tested one statement after the call, still before anything can
// change it: the process ends on it.
func testedLater(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// overwritten's error is replaced before the test: it is dropped.
func overwritten(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 145\)`
	}
	return f.Close()
}

// wrapped returns wrappedLeaf's error wrapped with %w, and its caller exits on it.
func wrapped(path string) error {
	if err := wrappedLeaf(path); err != nil {
		return fmt.Errorf("leaf %s: %w", path, err)
	}
	return nil
}

func wrappedLeaf(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	return f.Close()
}

// wrappedAssigned wraps by assigning back, then returns.
func wrappedAssigned(path string) error {
	err := wrappedAssignedLeaf(path)
	if err != nil {
		err = fmt.Errorf("leaf %s: %w", path, err)
		return err
	}
	return nil
}

func wrappedAssignedLeaf(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

type app struct{ path string }

// load is a method, called once under an exit.
func (a *app) load() error {
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// Save is exported, but in package main no other package can call it.
func (a *app) Save() error {
	f, err := os.Create(a.path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err
	}
	return f.Close()
}

// flusher has a method of flush's name: flush may be called through it.
type flusher interface{ flush() error }

func (a *app) flush() error {
	f, err := os.Create(a.path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("x"); err != nil {
		return err // want `return may skip f.Close \(Create at line 225\)`
	}
	return f.Close()
}

// handler is called under an exit and also taken as a method value.
func (a *app) handler() error {
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 237\)`
	}
	return f.Close()
}

// rec returns its own call's error, and init exits on it: a cycle proves nothing, and its
// recursive call is a caller that does not exit.
func rec(path string, n int) error {
	if n > 0 {
		return rec(path, n-1)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 253\)`
	}
	return f.Close()
}

// inGoroutine is called in a goroutine that exits on its error: log.Fatal ends the process
// from any goroutine.
func inGoroutine(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// mayBeNil returns another call's error, which may be nil: the process goes on after it.
func mayBeNil(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return other() // want `return may skip f.Close \(Open at line 278\)`
}

// reversed's caller tests err == nil and exits in the else.
func reversed(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// fatalf's caller ends the process with log.Fatalf.
func fatalf(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// fetcher has a method of fetch's name; fetch is a plain function, which no interface
// can call, so its one exiting call decides.
type fetcher interface{ fetch(string) error }

func fetch(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// genericLoad is generic, instantiated at its one call.
func genericLoad[T any](path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// midLogged returns its leaf's error to a caller that logs it and goes on.
func midLogged(path string) error {
	if err := leafOfLogged(path); err != nil {
		return err
	}
	return nil
}

func leafOfLogged(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 348\)`
	}
	return f.Close()
}

// exitZero's caller ends the process with status 0: it still ends.
func exitZero(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// neverCalled is called nowhere.
func neverCalled(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 372\)`
	}
	return f.Close()
}

// exitBare's caller exits with status 1 without printing the error.
func exitBare(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// exitZeroPrinted's caller prints the error and exits with status 0.
func exitZeroPrinted(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err
	}
	return f.Close()
}

// midDropped returns its leaf's error to a caller that drops it.
func midDropped(path string) error {
	if err := leafOfDropped(path); err != nil {
		return err
	}
	return nil
}

func leafOfDropped(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 415\)`
	}
	return f.Close()
}

// midTwice returns its leaf's error; it is called once under an exit and once logged.
func midTwice(path string) error {
	return leafOfTwice(path)
}

func leafOfTwice(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 431\)`
	}
	return f.Close()
}

// exitUnlessIgnored's caller exits on its error only when not verbose: with verbose the
// error is dropped.
func exitUnlessIgnored(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return err // want `return may skip f.Close \(Open at line 444\)`
	}
	return f.Close()
}
