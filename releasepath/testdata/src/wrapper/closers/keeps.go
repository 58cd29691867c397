package closers

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"wrapper/closers/inner"
)

var keptOne io.Closer

// KeepSecond keeps its second argument only.
func KeepSecond(a, b io.Closer) { // want KeepSecond:`releases\(\) keeps\(1\)`
	keptOne = b
}

var lastName string

// RememberName keeps a field of f: nothing of f. No fact.
func RememberName(f *os.File) {
	lastName = f.Name()
}

// RememberVia keeps c through Remember.
func RememberVia(c io.Closer) { // want RememberVia:`releases\(\) keeps\(0\)`
	Remember(c)
}

// RememberViaHidden keeps c through an unexported keeper.
func RememberViaHidden(c io.Closer) { // want RememberViaHidden:`releases\(\) keeps\(0\)`
	remember(c)
}

func remember(c io.Closer) { keptOne = c }

var ch = make(chan io.Closer, 1)

// Send sends c.
func Send(c io.Closer) { // want Send:`releases\(\) keeps\(0\)`
	ch <- c
}

// Watch hands c to a goroutine.
func Watch(c io.Closer) { // want Watch:`releases\(\) keeps\(0\)`
	go func() {
		fmt.Println(c)
	}()
}

// WatchName hands only a copy of the name to a goroutine: no fact.
func WatchName(f *os.File) {
	name := f.Name()
	go func() { fmt.Println(name) }()
}

// Registry keeps closers.
type Registry struct{ cs []io.Closer }

// Add keeps c in its receiver.
func (r *Registry) Add(c io.Closer) { // want Add:`releases\(\) stores\(0\)`
	r.cs = append(r.cs, c)
}

// AddCopy has a value receiver: its append is lost, nothing kept. No fact.
func (r Registry) AddCopy(c io.Closer) {
	r.cs = append(r.cs, c)
}

// KeepAll is variadic and keeps every argument.
func KeepAll(cs ...io.Closer) { // want KeepAll:`releases\(\) keeps\(0\)`
	for _, c := range cs {
		keptOne = c
	}
}

// KeepGeneric keeps its argument whatever T is.
func KeepGeneric[T io.Closer](c T) { // want KeepGeneric:`releases\(\) keeps\(0\)`
	keptOne = c
}

// CloseAndKeepOther closes a and keeps b.
func CloseAndKeepOther(a, b io.Closer) { // want CloseAndKeepOther:`releases\(0:Close\) keeps\(1\)`
	a.Close()
	keptOne = b
}

// Stack is gvisor's network stack: a NIC it creates wraps the endpoint it is given, and the
// stack keeps the NIC.
type Stack struct{ nics map[int]*nic }

type nic struct {
	id int
	ep io.Writer
}

func newNIC(id int, ep io.Writer) *nic {
	n := &nic{id: id, ep: ep}
	return n
}

// NewStack returns an empty stack.
func NewStack() *Stack { return &Stack{nics: map[int]*nic{}} }

// CreateNIC keeps ep in the NIC it stores.
func (s *Stack) CreateNIC(id int, ep io.Writer) error { // want CreateNIC:`releases\(\) stores\(0 1\)`
	return s.createNICWithOptions(id, ep, false)
}

func (s *Stack) createNICWithOptions(id int, ep io.Writer, quiet bool) error {
	if _, ok := s.nics[id]; ok {
		return errors.New("duplicate NIC")
	}
	n := newNIC(id, ep)
	s.nics[id] = n
	return nil
}

// CountNIC makes a NIC of ep but keeps only its id: nothing of ep stays. No fact.
func (s *Stack) CountNIC(id int, ep io.Writer) {
	n := newNIC(id, ep)
	s.nics[id] = &nic{id: n.id}
}

// AddDirect stores the NIC it makes of ep at once.
func (s *Stack) AddDirect(id int, ep io.Writer) { // want AddDirect:`releases\(\) stores\(0 1\)`
	s.nics[id] = newNIC(id, ep)
}

func newNICErr(id int, ep io.Writer) (*nic, error) {
	if ep == nil {
		return nil, errors.New("no endpoint")
	}
	return &nic{id: id, ep: ep}, nil
}

// AddChecked stores the NIC a constructor with an error makes of ep.
func (s *Stack) AddChecked(id int, ep io.Writer) error { // want AddChecked:`releases\(\) stores\(0 1\)`
	n, err := newNICErr(id, ep)
	if err != nil {
		return err
	}
	s.nics[id] = n
	return nil
}

type sniffer struct{ w io.Writer }

func (s *sniffer) Write(b []byte) (int, error) { return s.w.Write(b) }

func wrapSniffer(w io.Writer) io.Writer { return &sniffer{w: w} }

// AddSniffed stores a NIC of a sniffer of ep.
func (s *Stack) AddSniffed(id int, ep io.Writer) { // want AddSniffed:`releases\(\) stores\(0 1\)`
	s.nics[id] = newNIC(id, wrapSniffer(ep))
}

// Endpoint is gvisor's sniffer endpoint: it writes what passes through to its writer.
type Endpoint struct {
	lower  *Stack
	writer io.Writer
}

// NewWithWriter returns an endpoint that keeps w, and lower in it too; its fact says so by
// result, for a caller's endpoint, err := NewWithWriter(…).
func NewWithWriter(lower *Stack, w io.Writer, snapLen int) (*Endpoint, error) { // want NewWithWriter:`releases\(\) result0\(0 1\)`
	if snapLen <= 0 {
		return nil, errors.New("bad snap length")
	}
	e := &Endpoint{writer: w}
	e.lower = lower
	return e, nil
}

// Header returns what it read of w: a copy, which keeps nothing of w. No fact.
func Header(w io.Reader) ([]byte, error) {
	b := make([]byte, 24)
	_, err := w.Read(b)
	return b, err
}

// Pair returns p itself and a fresh stack: the first result holds p, the second nothing.
func Pair(p *Stack) (*Stack, *Stack, error) { // want Pair:`releases\(\) result0\(0\)`
	return p, NewStack(), nil
}

// Thing is a resource: a view of it keeps it.
type Thing struct{ w io.Writer }

// View is a view of a Thing.
type View struct{ t *Thing }

// OpenThing opens a thing that writes to w.
func OpenThing(w io.Writer) (*Thing, error) { // want OpenThing:`releases\(\) result0\(0\)`
	return &Thing{w: w}, nil
}

// Close closes the thing.
func (t *Thing) Close() error { return nil }

// View returns a view that keeps its receiver.
func (t *Thing) View() (*View, error) { // want View:`releases\(\) result0\(recv\)`
	return &View{t: t}, nil
}

// ViaInner returns another package's call straight: its fact passes on.
func ViaInner(w io.Writer) (*inner.Packet, error) { // want ViaInner:`releases\(\) result0\(0\)`
	return inner.Pack(w)
}

// Named keeps w in its named result, returned bare.
func Named(w io.Writer) (h *Endpoint, err error) { // want Named:`releases\(\) result0\(0\)`
	h = &Endpoint{writer: w}
	return
}

// Collect returns its variadic parameter: every argument from it on.
func Collect(ws ...io.Writer) ([]io.Writer, error) { // want Collect:`releases\(\) result0\(0\)`
	var out []io.Writer
	out = append(out, ws...)
	return out, nil
}

// Buffered wraps w with another package's constructor, whose result holds what it is
// passed; so does a conversion, and a closure that captures it.
func Buffered(w io.Writer) (*bufio.Writer, any, func() io.Writer, error) { // want Buffered:`releases\(\) result0\(0\) result1\(0\) result2\(0\)`
	return bufio.NewWriter(w), any(w), func() io.Writer { return w }, nil
}

// WrapWriter wraps w by its type, as go-multiaddr's WrapNetConn wraps a connection: the
// variable each case binds is w, so every result it makes holds w.
func WrapWriter(w io.Writer) (io.Writer, error) { // want WrapWriter:`releases\(\) result0\(0\)`
	if w == nil {
		return nil, errors.New("nil writer")
	}
	switch w := w.(type) {
	case *os.File:
		return &struct{ *os.File }{w}, nil
	case *bufio.Writer:
		return &struct{ *bufio.Writer }{w}, nil
	default:
		return &struct{ io.Writer }{w}, nil
	}
}

// WrapFresh binds w in a case and gives that variable another writer: what it returns
// holds the fresh one, not the w passed. No fact.
func WrapFresh(w io.Writer) (io.Writer, error) {
	switch w := w.(type) {
	case *os.File:
		w = os.Stderr
		return &struct{ *os.File }{w}, nil
	}
	return nil, errors.New("not a file")
}

// WrapOther switches on w after it assigned w another writer: the cases bind that one,
// which is not the w passed, and a summary does not follow the assignment. No fact.
func WrapOther(w io.Writer, other io.Writer) (io.Writer, error) {
	w = other
	switch w := w.(type) {
	case *os.File:
		return &struct{ *os.File }{w}, nil
	}
	return nil, errors.New("not a file")
}

// AsFile asserts w to a file. A summary does not read a type assertion: a result asserted
// from another's (return newResult.(*Result), nil in the CNI's NewResultFromResult) is taken
// as a value of its own. No fact.
func AsFile(w io.Writer) (*os.File, error) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, errors.New("not a file")
	}
	return f, nil
}

// WrapErr keeps w in the error it returns: an error is no holder, and the fact says
// nothing of it.
func WrapErr(w io.Writer) (*Stack, error) {
	return nil, &writerError{w: w}
}

type writerError struct{ w io.Writer }

func (e *writerError) Error() string { return "writer" }

// Record keeps an address, a string, in the record it returns.
func Record(ip string) (*AddrRecord, error) { // want Record:`releases\(\) result0\(0\)`
	return &AddrRecord{IP: ip}, nil
}

// AddrRecord records an address.
type AddrRecord struct{ IP string }

// Fresh returns a stack that keeps nothing of w. No fact.
func Fresh(w io.Writer) (*Stack, error) {
	if w == nil {
		return nil, errors.New("no writer")
	}
	return NewStack(), nil
}
