package rangerelease

import (
	"io"
	"os"
	"path/filepath"
)

// concatReverse closes in reverse order, by index, through the io.Closer each file is kept
// as.
func concatReverse(w io.Writer, srcs []string) error {
	var closers []io.Closer
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i].Close()
		}
	}()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		closers = append(closers, f)
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
	return nil
}

type pair struct{ a, b *os.File }

// openPair keeps both files where it succeeds: the deferred loop closes them unless keep is
// set, which it is only before the success return.
func openPair(dir string) (*pair, error) {
	var opened []*os.File
	keep := false
	defer func() {
		if keep {
			return
		}
		for _, f := range opened {
			f.Close()
		}
	}()
	a, err := os.Open(filepath.Join(dir, "a"))
	if err != nil {
		return nil, err
	}
	opened = append(opened, a)
	b, err := os.Open(filepath.Join(dir, "b"))
	if err != nil {
		return nil, err
	}
	opened = append(opened, b)
	keep = true
	return &pair{a: a, b: b}, nil
}

// openPairOK closes them where ok is false, in reverse.
func openPairOK(dir string) (*pair, error) {
	var opened []*os.File
	ok := false
	defer func() {
		if !ok {
			for i := len(opened) - 1; i >= 0; i-- {
				opened[i].Close()
			}
		}
	}()
	a, err := os.Open(filepath.Join(dir, "a"))
	if err != nil {
		return nil, err
	}
	opened = append(opened, a)
	b, err := os.Open(filepath.Join(dir, "b"))
	if err != nil {
		return nil, err
	}
	opened = append(opened, b)
	ok = true
	return &pair{a: a, b: b}, nil
}

// keepTooEarly sets keep before the last step that can fail: that return closes nothing.
func keepTooEarly(dir string) (*os.File, error) {
	var opened []*os.File
	keep := false
	defer func() {
		if keep {
			return
		}
		for _, f := range opened {
			f.Close()
		}
	}()
	a, err := os.Open(filepath.Join(dir, "a"))
	if err != nil {
		return nil, err
	}
	opened = append(opened, a)
	keep = true
	if _, err := a.Stat(); err != nil {
		return nil, err // want `return may skip a.Close \(Open at line 97\)`
	}
	return a, nil
}

// skipsTheFirst starts its loop at 1: the first file is never closed.
func skipsTheFirst(w io.Writer, srcs []string) error {
	var files []*os.File
	defer func() {
		for i := 1; i < len(files); i++ {
			files[i].Close()
		}
	}()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return copyAll(w, files) // want `return may skip f.Close \(Open at line 118\)`
}

// fromStart starts its loop where a parameter says: not the whole slice.
func fromStart(w io.Writer, srcs []string, start int) error {
	var files []*os.File
	defer func() {
		for i := start; i < len(files); i++ {
			files[i].Close()
		}
	}()
	for _, s := range srcs {
		f, err := os.Open(s)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return copyAll(w, files) // want `return may skip f.Close \(Open at line 136\)`
}
