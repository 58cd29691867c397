package wrapper

import (
	"io"
	"os"
)

// closeWhenBig closes c only past a size its caller passes: no release of the caller's.
func closeWhenBig(c io.Closer, n int64) {
	if n > 1<<20 {
		c.Close()
	}
}

func closeWhenBigLeak(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, f)
	closeWhenBig(f, n)
	return err // want `return may skip f.Close \(Open at line 16\)`
}

// closeUnlessShared tests the value itself, as a nil guard does: a release of the caller's.
func closeUnlessShared(f *os.File) {
	if f != os.Stdin {
		f.Close()
	}
}

func closeUnlessSharedUsed(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer closeUnlessShared(f)
	_, err = io.Copy(io.Discard, f)
	return err
}
