package handoff

import (
	"os"

	"wrapper/closers"
)

// Cross-package keeps, read from closers' facts.

func xKeepSecondOther(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.KeepSecond(f, g)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func xKeepSecond(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.KeepSecond(g, f)
	return nil
}

func xRememberName(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.RememberName(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func xRememberVia(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.RememberVia(f)
	return nil
}

func xRememberViaHidden(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.RememberViaHidden(f)
	return nil
}

func xSend(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.Send(f)
	return nil
}

func xWatch(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.Watch(f)
	return nil
}

func xWatchName(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.WatchName(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func xAdd(r *closers.Registry, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.Add(f)
	return nil
}

func xAddCopy(r closers.Registry, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.AddCopy(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func xKeepAll(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.KeepAll(g, f)
	return nil
}

func xKeepGeneric(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.KeepGeneric(f)
	return nil
}

// xCloseAndKeepOther: f is closed by the helper in position 0.
func xCloseAndKeepOther(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.CloseAndKeepOther(f, g)
	return nil
}

// xCloseAndKeepOther2: f is kept in position 1.
func xCloseAndKeepOther2(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	closers.CloseAndKeepOther(g, f)
	return nil
}
