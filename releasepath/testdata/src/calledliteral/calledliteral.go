// Package calledliteral releases inside function literals called where they are written:
// the literal releases when every path through it does.
package calledliteral

import (
	"errors"
	"os"
)

var errEmpty = errors.New("empty")

func use(f *os.File) error { return nil }

// bothBranches closes in each branch of the literal: every path through it closes.
func bothBranches(p string, verbose bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		if err := use(f); err != nil {
			f.Close()
		} else {
			f.Close()
		}
	}()
	return nil
}

// earlyReturn closes before the literal's early return and at its end.
func earlyReturn(p string, n int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		if n == 0 {
			f.Close()
			return
		}
		_ = use(f)
		f.Close()
	}()
	if n < 0 {
		return errEmpty
	}
	return nil
}

// oneBranch closes in one branch only: the other path through the literal keeps f.
func oneBranch(p string, verbose bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		if verbose {
			f.Close()
		}
	}()
	if err := use(f); err != nil {
		return err // want `return may skip f.Close \(Open at line 52\)`
	}
	return nil // want `return may skip f.Close \(Open at line 52\)`
}

// earlyReturnKeeps returns from the literal before it closes.
func earlyReturnKeeps(p string, n int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		if n == 0 {
			return
		}
		f.Close()
	}()
	return nil // want `return may skip f.Close \(Open at line 69\)`
}

// notCalled closes in a literal it only stores: nothing runs it.
func notCalled(p string) (func(), error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	cleanup := func() {
		if err := use(f); err != nil {
			f.Close()
		} else {
			f.Close()
		}
	}
	_ = cleanup
	return nil, nil // want `return may skip f.Close \(Open at line 84\)`
}

// inLoop closes only in a loop, which may run no time.
func inLoop(p string, xs []int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		for range xs {
			f.Close()
		}
	}()
	return nil // want `return may skip f.Close \(Open at line 101\)`
}

// jumpsPast jumps past the close where n is 0.
func jumpsPast(p string, n int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		if n == 0 {
			goto out
		}
		f.Close()
	out:
	}()
	return nil // want `return may skip f.Close \(Open at line 115\)`
}

// breaksPast breaks out of both loops past the close.
func breaksPast(p string, xs []int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
	outer:
		for {
			for _, x := range xs {
				if x < 0 {
					break outer
				}
			}
			f.Close()
			return
		}
	}()
	return nil // want `return may skip f.Close \(Open at line 131\)`
}

// returnsBeforeNested returns before the nested literal that closes.
func returnsBeforeNested(p string, n int) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	func() {
		if n == 0 {
			return
		}
		func() { f.Close() }()
	}()
	return nil // want `return may skip f.Close \(Open at line 152\)`
}
