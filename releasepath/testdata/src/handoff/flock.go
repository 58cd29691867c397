package handoff

import (
	"os"
	"syscall"
)

// lockFile and unlockFile take and drop an flock on the file: the lock is the file's own.
func lockFile(f *os.File) error   { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func writeStamp(f *os.File) error {
	_, err := f.WriteString("stamp")
	return err
}

type dirLock struct{ f *os.File }

// acquireDirLock returns the locked file inside the value it returns: the lock goes to the
// caller with the file.
func acquireDirLock(path string) (*dirLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := writeStamp(f); err != nil {
		unlockFile(f)
		f.Close()
		return nil, err
	}
	return &dirLock{f: f}, nil
}

// openLocked returns the locked file itself.
func openLocked(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := writeStamp(f); err != nil {
		unlockFile(f)
		f.Close()
		return nil, err
	}
	return f, nil
}

// stampLocked keeps the lock on the failed write's return.
func stampLocked(f *os.File) error {
	if err := lockFile(f); err != nil {
		return err
	}
	if err := writeStamp(f); err != nil {
		return err // want `return may skip unlockFile \(lockFile at line 58\)`
	}
	return unlockFile(f)
}
