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

// registryOf returns the fresh registry that keeps f: the caller takes f with it.
func registryOf(path string) (*closers.Registry, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	r := &closers.Registry{}
	r.Add(f)
	return r, nil
}

// registryDropped keeps f in a fresh registry that dies with the function.
func registryDropped(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	r := &closers.Registry{}
	r.Add(f)
	return nil // want `return may skip f.Close \(Create at line \d+\)`
}

type stats struct{ n int }

// split returns fresh stats beside a sniffer that holds w.
func split(w io.Writer) (*stats, *sniffer, error) {
	return &stats{}, &sniffer{w: w}, nil
}

type statsHolder struct{ st *stats }

// keepStats keeps the stats, which hold nothing of fd: the sniffer that does is dropped.
func keepStats(path string) (*statsHolder, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	st, _, err := split(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return &statsHolder{st: st}, nil // want `return may skip fd.Close \(Create at line \d+\)`
}

type snifferHolder struct{ s *sniffer }

// keepSniffer keeps the sniffer, which holds fd.
func keepSniffer(path string) (*snifferHolder, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	_, s, err := split(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return &snifferHolder{s: s}, nil
}

// sniffed keeps the capture file in another package's endpoint, whose fact says its first
// result keeps its writer: the endpoint, returned, hands it on, and the failures before
// leak it.
func sniffed(path string, s *closers.Stack) (*closers.Endpoint, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	endpoint, err := closers.NewWithWriter(s, fd, 1<<16)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	if _, err := fd.Write([]byte("pcap")); err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return endpoint, nil
}

// headerOnly reads the file through another package's call whose results keep nothing of
// it: returning the header hands nothing on.
func headerOnly(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	b, err := closers.Header(f)
	if err != nil {
		return nil, err // want `return may skip f.Close \(Open at line \d+\)`
	}
	return b, nil // want `return may skip f.Close \(Open at line \d+\)`
}

// pairedSecond keeps the file's stack in the second result of another package's call,
// which holds nothing of it: only the first does.
func pairedSecond(path string) (*closers.Stack, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	s, err := createStack(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	_, fresh, err := closers.Pair(s)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return fresh, nil // want `return may skip fd.Close \(Create at line \d+\)`
}
