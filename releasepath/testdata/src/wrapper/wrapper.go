// Package wrapper releases through a helper of its own package.
package wrapper

import (
	"io"
	"log"
	"os"
)

func closeQuietly(c io.Closer) {
	if err := c.Close(); err != nil {
		log.Printf("close: %v", err)
	}
}

func size(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closeQuietly(f)
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func sizeLeaky(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err // want `return may skip closeQuietly \(Open at line 30\)`
	}
	closeQuietly(f)
	return fi.Size(), nil
}
