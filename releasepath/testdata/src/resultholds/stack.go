package resultholds

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"wrapper/closers"
	"wrapper/closers/inner"
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

// fcgiClient is caddy's FastCGI client: it talks over the connection it holds, and a
// response's body keeps that connection to close it.
type fcgiClient struct {
	rwc   io.ReadWriteCloser
	reqID int
}

type fcgiResponse struct{ Body io.ReadCloser }

type bodyCloser struct{ rwc io.ReadWriteCloser }

func (b bodyCloser) Read(p []byte) (int, error) { return b.rwc.Read(p) }
func (b bodyCloser) Close() error               { return b.rwc.Close() }

// request builds the response in its named result, as caddy's client.Request does.
func (c *fcgiClient) request(method string) (resp *fcgiResponse, err error) {
	if method == "" {
		return resp, errors.New("no method")
	}
	resp = new(fcgiResponse)
	closer := bodyCloser{rwc: c.rwc}
	resp.Body = closer
	return resp, err
}

// Get returns a response whose body keeps a field of c, c.rwc.
func (c *fcgiClient) Get() (*fcgiResponse, error) { return c.request("GET") }

// ID returns a response that keeps nothing of c.
func (c *fcgiClient) ID() (*fcgiResponse, error) {
	return &fcgiResponse{Body: io.NopCloser(nil)}, nil
}

// roundTrip hands the connection to the response, through the client that holds it in a
// field: the body Get returns keeps client.rwc, which is the connection.
func roundTrip(path string) (*fcgiResponse, error) {
	conn, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	client := fcgiClient{rwc: conn, reqID: 1}
	resp, err := client.Get()
	if err != nil {
		return nil, err // want `return may skip conn.Close \(Open at line \d+\)`
	}
	return resp, nil
}

// Seq returns a response that keeps the client's request number, a part that can hold no
// value.
func (c *fcgiClient) Seq() (*fcgiSeq, error) { return &fcgiSeq{id: c.reqID}, nil }

type fcgiSeq struct{ id int }

// roundTripSeq keeps only a number of the client's: the connection leaks.
func roundTripSeq(path string) (*fcgiSeq, error) {
	conn, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	client := &fcgiClient{rwc: conn, reqID: 1}
	seq, err := client.Seq()
	if err != nil {
		return nil, err // want `return may skip conn.Close \(Open at line \d+\)`
	}
	return seq, nil // want `return may skip conn.Close \(Open at line \d+\)`
}

// roundTripID returns a response that keeps nothing of the client: the connection leaks.
func roundTripID(path string) (*fcgiResponse, error) {
	conn, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	client := fcgiClient{rwc: conn, reqID: 1}
	resp, err := client.ID()
	if err != nil {
		return nil, err // want `return may skip conn.Close \(Open at line \d+\)`
	}
	return resp, nil // want `return may skip conn.Close \(Open at line \d+\)`
}

// ownFile is a resource of the package's own: a part of it, its data, is not it.
type ownFile struct {
	f    *os.File
	data *fileData
}

type fileData struct{ name string }

// OpenOwn opens an ownFile.
func OpenOwn(path string) (*ownFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &ownFile{f: f, data: &fileData{name: path}}, nil
}

func (o *ownFile) Close() error { return o.f.Close() }

func (o *ownFile) dataOnly() (*fileData, error) { return o.data, nil }

// partOfValue keeps only a part of the value itself: the data is not the file, and the
// result that holds it holds nothing of o.
func partOfValue(path string) (*fileData, error) {
	o, err := OpenOwn(path)
	if err != nil {
		return nil, err
	}
	d, err := o.dataOnly()
	if err != nil {
		o.Close()
		return nil, err
	}
	return d, nil // want `return may skip o.Close \(OpenOwn at line \d+\)`
}

// viewed keeps the thing in the view another package's method returns of it, by that
// method's fact on its receiver.
func viewed(w io.Writer) (*closers.View, error) {
	t, err := closers.OpenThing(w)
	if err != nil {
		return nil, err
	}
	v, err := t.View()
	if err != nil {
		t.Close()
		return nil, err
	}
	return v, nil
}

// collected keeps the file in another package's variadic collection.
func collected(path string) ([]io.Writer, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	ws, err := closers.Collect(os.Stdout, fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return ws, nil
}

// wrappedByType keeps the file in what another package's type switch wraps it in.
func wrappedByType(path string) (io.Writer, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := closers.WrapWriter(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return w, nil
}

// wrappedFresh drops the file: the type switch's case gives its variable another writer.
func wrappedFresh(path string) (io.Writer, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := closers.WrapFresh(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return w, nil // want `return may skip fd.Close \(Create at line \d+\)`
}

// packedThrough keeps the file in a packet made two packages away.
func packedThrough(path string) (*inner.Packet, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	p, err := closers.ViaInner(fd)
	if err != nil {
		return nil, err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return p, nil
}

// freshReturned returns another package's call whose results keep nothing of the file: its
// fact's silence says so, and the file leaks.
func freshReturned(path string) (*closers.Stack, error) {
	fd, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return closers.Fresh(fd) // want `return may skip fd.Close \(Create at line \d+\)`
}

type addrPool struct{}

func (m *addrPool) HoldAddress(name string) (string, error) { return name, nil }
func (m *addrPool) ReleaseAddress(ip string) error          { return nil }

// recorded hands a held address on in the record another package's function returns.
func recorded(m *addrPool) (*closers.AddrRecord, error) {
	ip, err := m.HoldAddress("lb")
	if err != nil {
		return nil, err
	}
	rec, err := closers.Record(ip)
	if err != nil {
		m.ReleaseAddress(ip)
		return nil, err
	}
	return rec, nil
}

type tap struct {
	out *sniffer
	cnt int
}

// attach stores the sniffer newSniffer makes of the file in the tap: where newSniffer fails
// its result is nil, the tap keeps nothing, and the file leaks; where it succeeds the tap
// keeps it.
func (t *tap) attach(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	t.out, err = newSniffer(fd)
	if err != nil {
		return err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return nil
}

// attachChecked tests the error in the statement that stores: the same.
func (t *tap) attachChecked(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	if t.out, err = newSniffer(fd); err != nil {
		return err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	t.cnt++
	return nil
}

// attachReturned returns the error unread: the caller decides, and the tap may keep the file.
func (t *tap) attachReturned(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	t.out, err = newSniffer(fd)
	return err
}

// attachClosed closes the file where the sniffer fails.
func (t *tap) attachClosed(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	if t.out, err = newSniffer(fd); err != nil {
		fd.Close()
		return err
	}
	return nil
}

// attachLater fails after the tap keeps the file: the tap has it.
func (t *tap) attachLater(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	t.out, err = newSniffer(fd)
	if err != nil {
		fd.Close()
		return err
	}
	if err := t.out.check(); err != nil {
		return err
	}
	return nil
}

func (s *sniffer) check() error { return nil }

// attachReassigned tests an error assigned after the store's: what the tap keeps is unknown.
func (t *tap) attachReassigned(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	t.out, err = newSniffer(fd)
	err = t.out.check()
	if err != nil {
		return err
	}
	return nil
}

// attachEach stores a sniffer of each file: a failure leaks that file, and the acquisition
// met again around the loop assigns the stored err anew, which hands the last store on.
func attachEach(paths []string, outs []*sniffer) error {
	for i, p := range paths {
		fd, err := os.Create(p)
		if err != nil {
			return err
		}
		outs[i], err = newSniffer(fd)
		if err != nil {
			return err // want `return may skip fd.Close \(Create at line \d+\)`
		}
	}
	return nil
}

// attachEachOuterErr is attachEach with fd and err declared before the loop.
func attachEachOuterErr(paths []string, outs []*sniffer) error {
	var fd *os.File
	var err error
	for i, p := range paths {
		fd, err = os.Create(p)
		if err != nil {
			return err
		}
		outs[i], err = newSniffer(fd)
		if err != nil {
			return err // want `return may skip fd.Close \(Create at line \d+\)`
		}
	}
	return nil
}

// attachWrapped wraps the failed call's error back into err: still non-nil, the store still
// failed.
func (t *tap) attachWrapped(path string) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	t.out, err = newSniffer(fd)
	if err != nil {
		err = fmt.Errorf("sniff: %w", err)
		return err // want `return may skip fd.Close \(Create at line \d+\)`
	}
	return nil
}
