// Package rangerelease keeps the files it opens in a local slice and closes them by ranging
// over it.
package rangerelease

import (
	"io"
	"os"
)

// concat closes every file the slice holds in a closure deferred before the first open: it
// reads files when it runs.
func concat(w io.Writer, srcs []string) error {
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for _, f := range files {
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
	return nil
}

// concatIndexed closes through the index, under a nil guard, and takes each error.
func concatIndexed(w io.Writer, srcs []string) error {
	files := make([]*os.File, 0, len(srcs))
	defer func() {
		for i := range files {
			if files[i] != nil {
				_ = files[i].Close()
			}
		}
	}()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return copyAll(w, files)
}

func copyAll(w io.Writer, files []*os.File) error {
	for _, f := range files {
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
	return nil
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// concatHelper closes through a helper of the package that ranges over its parameter, called
// in a deferred closure.
func concatHelper(w io.Writer, srcs []string) error {
	var files []*os.File
	defer func() { closeFiles(files) }()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return copyAll(w, files)
}

// concatThenClose closes them in a loop of its own before it returns.
func concatThenClose(w io.Writer, srcs []string) error {
	var files []*os.File
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			closeFiles(files)
			return err
		}
		files = append(files, f)
	}
	err := copyAll(w, files)
	for _, f := range files {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// closedAfterCopy's deferred loop may leave a round before it closes that round's file: no
// release of every file.
func closedAfterCopy(w io.Writer, srcs []string) error {
	var files []*os.File
	defer func() {
		for _, f := range files {
			if _, err := io.Copy(w, f); err != nil {
				return
			}
			f.Close()
		}
	}()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return nil // want `return may skip f.Close \(Open at line 117\)`
}

// deferredTooEarly defers the helper with the slice as it is then, empty: a deferred call's
// arguments are read when it is deferred.
func deferredTooEarly(w io.Writer, srcs []string) error {
	var files []*os.File
	defer closeFiles(files)
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return copyAll(w, files) // want `return may skip f.Close \(Open at line 132\)`
}

func closeSome(fs []*os.File, verbose bool) {
	for _, f := range fs {
		if verbose {
			f.Close()
		}
	}
}

// closedUnderAFlag closes each file only where a flag says so.
func closedUnderAFlag(w io.Writer, srcs []string, verbose bool) error {
	var files []*os.File
	defer func() { closeSome(files, verbose) }()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return copyAll(w, files) // want `return may skip f.Close \(Open at line 154\)`
}
