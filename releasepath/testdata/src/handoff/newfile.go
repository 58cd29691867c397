package handoff

import (
	"errors"
	"os"
	"syscall"
)

// openDescriptor wraps the descriptor it opened in an *os.File, which owns it from there:
// a conversion of the value (uintptr(fd)) is the value.
func openDescriptor(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openRegular closes through the file it made, or returns it.
func openRegular(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		f.Close()
		return nil, errors.New("is a directory")
	}
	return f, nil
}

// sizeOf returns a number made from the descriptor, not the descriptor: the open leaks.
func sizeOf(path string) (int64, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return 0, err
	}
	return st.Size, nil // want `^return may skip syscall.Close \(Open at line 45\)$`
}
