package releaseflag

import (
	"io"
	"os"
)

// closeIf closes c where really is: a helper of the package whose release is its caller's
// argument's to decide.
func closeIf(c io.Closer, really bool) {
	if really {
		c.Close()
	}
}

// closeIfTrue passes the constant true: closeIf closes f.
func closeIfTrue(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, f)
	closeIf(f, true)
	return err
}

// closeIfFalse passes the constant false: nothing closes f.
func closeIfFalse(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, f)
	closeIf(f, false)
	return err // want `return may skip f.Close \(Open at line 29\)`
}

// closeIfVerbose passes a flag the function does not know: nothing says f is closed.
func closeIfVerbose(p string, verbose bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer closeIf(f, verbose)
	_, err = io.Copy(io.Discard, f)
	return err // want `return may skip f.Close \(Open at line 40\)`
}
