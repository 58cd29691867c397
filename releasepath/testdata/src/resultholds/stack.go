package resultholds

import (
	"encoding/json"
	"errors"
	"io"
	"os"

	"wrapper/closers"
)

// network is gvisor-tap-vsock's virtual network: its stack keeps the capture file through the
// NIC that wraps it.
type network struct{ stack *closers.Stack }

type sniffer struct{ w io.Writer }

func newSniffer(w io.Writer) (*sniffer, error) {
	s, err := makeSniffer(w)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func makeSniffer(w io.Writer) (*sniffer, error) {
	if w == nil {
		return nil, errors.New("no writer")
	}
	return &sniffer{w: w}, nil
}

func (s *sniffer) Write(b []byte) (int, error) { return s.w.Write(b) }

// createStack returns a stack that keeps ep: CreateNIC stores it (a fact).
func createStack(ep io.Writer) (*closers.Stack, error) {
	s := closers.NewStack()
	if err := s.CreateNIC(1, ep); err != nil {
		return nil, err
	}
	return s, nil
}

// newNetwork hands the capture file to the network it returns, and leaks it on the
// failures before.
func newNetwork(path string) (*network, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	endpoint, err := newSniffer(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	stack, err := createStack(endpoint)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return &network{stack: stack}, nil
}

// countStack makes a NIC of ep but keeps only its id.
func countStack(ep io.Writer) *closers.Stack {
	s := closers.NewStack()
	s.CountNIC(1, ep)
	return s
}

// newCounted keeps nothing of the file it returns without closing.
func newCounted(path string) (*network, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &network{stack: countStack(fd)}, nil // want `return may skip fd.Close \(Create at line \d+\)`
}

type doer interface{ Do(func() error) error }

// describe converts with another package's call: which of its results keeps what no summary
// says, so b holds nothing of f, and the literal that reads b hands nothing on (the CNI
// plugins' result, err = current.NewResultFromResult(r) after ipam.ExecAdd).
func describe(path string, ns doer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err // want `return may skip f.Close \(Open at line \d+\)`
	}
	if err := ns.Do(func() error { _ = b; return nil }); err != nil {
		return err // want `return may skip f.Close \(Open at line \d+\)`
	}
	return f.Close()
}
