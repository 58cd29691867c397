package handoff

import (
	"io"
	"os"
)

// A function value or an interface method has no summary: the default tier takes the value
// passed to it as kept (the broader tier does not; see package broad).

type fileHandler func(*os.File)

func serveWith(path string, h fileHandler) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h(f)
	return nil
}

type closerSink interface{ Take(io.Closer) }

func giveTo(path string, s closerSink) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	s.Take(f)
	return nil
}

// writeName passes the interface only what it read from f: f stays the function's.
func writeName(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte(f.Name())); err != nil {
		return err // want `return may skip f.Close \(Open at line 35\)`
	}
	return f.Close()
}
