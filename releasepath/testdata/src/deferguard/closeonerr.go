package deferguard

import (
	"io"
	"os"
)

// closeOnErr closes c where the error it is given the address of is non-nil when it runs.
func closeOnErr(errp *error, c io.Closer) {
	if *errp != nil {
		c.Close()
	}
}

func verify(f *os.File) error {
	_, err := f.Stat()
	return err
}

// openVerified hands f on where it succeeds and closes it, deferred, where it fails.
func openVerified(p string) (f *os.File, err error) {
	f, err = os.Open(p)
	if err != nil {
		return nil, err
	}
	defer closeOnErr(&err, f)
	if err = verify(f); err != nil {
		return nil, err
	}
	return f, nil
}

// copyOnce keeps f open on its success return: the deferred helper closes it only where err
// is non-nil.
func copyOnce(p string) (err error) {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer closeOnErr(&err, f)
	if _, err = io.Copy(io.Discard, f); err != nil {
		return err
	}
	return nil // want `return may skip f.Close \(Open at line 36\)`
}
