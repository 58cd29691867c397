package correlated

import (
	"errors"
	"os"
)

// openLarge is pebble's db_io_bench openFiles: each file is closed at once or kept in res;
// res is empty only where every file was closed.
func openLarge(paths []string, min int64) ([]*os.File, error) {
	var res []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			for _, f := range res {
				_ = f.Close()
			}
			return nil, err
		}
		if fi, err := f.Stat(); err != nil || fi.Size() < min {
			_ = f.Close()
			continue
		}
		res = append(res, f)
	}
	if len(res) == 0 {
		return nil, errors.New("no large file")
	}
	return res, nil
}

// openLargeFlipped tests 0 == len(res) and len(res) < 1: the same.
func openLargeFlipped(paths []string) ([]*os.File, error) {
	var res []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	if 0 == len(res) {
		return nil, errors.New("none")
	}
	if len(res) < 1 {
		return nil, errors.New("none")
	}
	return res, nil
}

// openTooFew drops the files when it has fewer than two: one is not none, and it leaks.
func openTooFew(paths []string) ([]*os.File, error) {
	var res []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	if len(res) < 2 {
		return nil, errors.New("too few") // want `return may skip f.Close \(Open at line \d+\)`
	}
	return res, nil
}

// openReset may empty res again before it tests it: res[:0] drops the files, and no
// longer holds them.
func openReset(paths []string, reset bool) ([]*os.File, error) {
	var res []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	if reset {
		res = res[:0]
	}
	if len(res) == 0 {
		return nil, errors.New("none") // want `return may skip f.Close \(Open at line \d+\)`
	}
	return res, nil // want `return may skip f.Close \(Open at line \d+\)`
}

func drop(p *[]*os.File) { *p = nil }

type files []*os.File

func (s *files) reset() { *s = nil }

// openDropped empties res through its address: the test may be true, and the files leak.
func openDropped(paths []string, reset bool) ([]*os.File, error) {
	var res []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	if reset {
		drop(&res)
	}
	if len(res) == 0 {
		return nil, errors.New("none") // want `return may skip f.Close \(Open at line \d+\)`
	}
	return res, nil
}

// openResetByMethod empties res by a pointer method: the same.
func openResetByMethod(paths []string) (files, error) {
	var res files
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	res.reset()
	if len(res) == 0 {
		return nil, errors.New("none") // want `return may skip f.Close \(Open at line \d+\)`
	}
	return res, nil
}

// openResetInLiteral empties res in a literal it calls: the same.
func openResetInLiteral(paths []string) ([]*os.File, error) {
	var res []*os.File
	reset := func() { res = nil }
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return res, err
		}
		res = append(res, f)
	}
	reset()
	if len(res) == 0 {
		return nil, errors.New("none") // want `return may skip f.Close \(Open at line \d+\)`
	}
	return res, nil
}
