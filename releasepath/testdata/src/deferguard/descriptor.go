package deferguard

import "syscall"

// descriptorOtherValue closes only where fd is not 5, a value a descriptor can have: that
// guard is a condition, not the guard of a descriptor that holds nothing.
func descriptorOtherValue(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if fd != 5 {
			syscall.Close(fd)
		}
	}()
	return step() // want `return may skip syscall.Close \(Open at line 8\)`
}

// descriptorReversed writes the guard the other way round: 0 != fd is fd != 0.
func descriptorReversed(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if 0 != fd {
			syscall.Close(fd)
		}
	}()
	return step()
}

// descriptorAtLeast tests 0 <= fd, fd >= 0 written the other way round.
func descriptorAtLeast(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if 0 <= fd {
			syscall.Close(fd)
		}
	}()
	return step()
}

// descriptorAtLeastOne tests fd >= 1, which is fd > 0 for a number.
func descriptorAtLeastOne(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if fd >= 1 {
			syscall.Close(fd)
		}
	}()
	return step()
}

// descriptorNegated returns early from the deferred closure where fd < 0.
func descriptorNegated(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() {
		if !(fd < 0) {
			syscall.Close(fd)
		}
	}()
	return step()
}
