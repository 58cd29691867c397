package handoff

import (
	"io"
	"os"

	"wrapper/closers"
)

func eShortCircuit(path string, verbose bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step2(); err != nil {
		return err // want `return may skip (f.Close|closers.CloseShortCircuit) \(Open at line \d+\)`
	}
	closers.CloseShortCircuit(f, verbose)
	return nil // want `return may skip (f.Close|closers.CloseShortCircuit) \(Open at line \d+\)`
}

func eShadow(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.CloseAndShadow(f, g)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func step2() error { return nil }

// closeAndShadowLocal is the same-package form.
func closeAndShadowLocal(c io.Closer, d io.Closer) {
	{
		c := d
		c.Close()
	}
}

func eShadowLocal(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step2(); err != nil {
		return err // want `return may skip (f.Close|closeAndShadowLocal) \(Open at line \d+\)`
	}
	closeAndShadowLocal(f, g)
	return nil // want `return may skip (f.Close|closeAndShadowLocal) \(Open at line \d+\)`
}

func closeShortLocal(c io.Closer, verbose bool) bool { return verbose || c.Close() == nil }

func eShortLocal(path string, verbose bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step2(); err != nil {
		return err // want `return may skip (f.Close|closeShortLocal) \(Open at line \d+\)`
	}
	// A helper of this package counts when it releases its argument on some path (the
	// wrapper rule); only another package's is read by the stricter summary.
	closeShortLocal(f, verbose)
	return nil
}

func eEveryCase(path string, k int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer closers.CloseInEveryCase(f, k)
	return step2() // want `return may skip f.Close \(Open at line \d+\)`
}

func eShadowEarly(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := step2(); err != nil {
		return err // want `return may skip (f.Close|closers.CloseAndShadow) \(Open at line \d+\)`
	}
	closers.CloseAndShadow(f, g)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func eShadowDefer(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer closers.CloseAndShadow(f, g)
	return step2() // want `return may skip f.Close \(Open at line \d+\)`
}

// eShadowSecond: f in position 1, which CloseAndShadow really closes (through c := d).
func eShadowSecond(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer closers.CloseAndShadow(g, f)
	return step2() // want `return may skip f.Close \(Open at line \d+\)`
}
