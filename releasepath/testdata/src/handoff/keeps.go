package handoff

import (
	"bufio"
	"fmt"
	"os"
	"runtime/pprof"
)

// A value passed to a function that keeps it beyond the call is handed on: the function
// hands it to a goroutine, sends it, or stores it in a package variable or a field of its
// receiver. Its summary says so, for this package's functions and, by facts, for others'.

// startProfile hands the file to pprof, whose profile writer goroutine writes it until
// StopCPUProfile.
func startProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	return nil
}

// tail reads f in a goroutine it starts.
func tail(f *os.File) {
	go func() {
		buf := make([]byte, 512)
		f.Read(buf)
	}()
}

func follow(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	tail(f)
	return nil
}

type registry struct{ files []*os.File }

// add keeps f in its receiver.
func (r *registry) add(f *os.File) { r.files = append(r.files, f) }

func (r *registry) open(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.add(f)
	return nil
}

var lastName string

// remember keeps the name of f, not f.
func remember(f *os.File) { lastName = f.Name() }

func openNamed(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	remember(f)
	return nil // want `return may skip f.Close \(Open at line 65\)`
}

// describe only reads f.
func describe(f *os.File) { fmt.Println(f.Name()) }

func openDescribed(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	describe(f)
	return nil // want `return may skip f.Close \(Open at line 77\)`
}

// firstLine wraps f in a bufio.Reader, which stores f in a reader it made itself: the
// reader dies with the function, and f is still the function's to close.
func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	br := bufio.NewReader(f)
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err // want `return may skip f.Close \(Open at line 88\)`
	}
	return line, f.Close()
}

// openInFresh stores f in a registry of its own, which dies with it.
func openInFresh(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r := &registry{}
	r.add(f)
	return nil // want `return may skip f.Close \(Open at line 102\)`
}
