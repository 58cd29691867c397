package handoff

import (
	"fmt"
	"io"
	"os"
)

// ---- must hand on (no report) ----

var keptFiles []*os.File

func storeGlobal(f *os.File) { keptFiles = append(keptFiles, f) }

// keepVia keeps f through a helper that keeps it: two levels.
func keepVia(f *os.File) { storeGlobal(f) }

// keepVia2 keeps f through three levels.
func keepVia2(f *os.File) { keepVia(f) }

func kTwoLevels(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepVia2(f)
	return nil
}

var fileCh = make(chan *os.File, 1)

// sendIt sends f.
func sendIt(f *os.File) { fileCh <- f }

func kSend(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	sendIt(f)
	return nil
}

func worker(f *os.File) { f.Read(nil) }

// goWorker starts a goroutine on f by a go statement calling a function.
func goWorker(f *os.File) { go worker(f) }

func kGoWorker(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	goWorker(f)
	return nil
}

type reg2 struct {
	byName map[string]*os.File
	cl     []io.Closer
}

// put keeps f in a map field of its receiver.
func (r *reg2) put(name string, f *os.File) { r.byName[name] = f }

func (r *reg2) kMapField(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.put(path, f)
	return nil
}

// putCloser keeps f as an io.Closer.
func (r *reg2) putCloser(c io.Closer) { r.cl = append(r.cl, c) }

func (r *reg2) kInterface(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.putCloser(f)
	return nil
}

var keptAny []any

// keepG is generic.
func keepG[T any](v T) { keptAny = append(keptAny, v) }

func kGeneric(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepG(f)
	return nil
}

func kGenericExplicit(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepG[*os.File](f)
	return nil
}

// keepAll is variadic.
func keepAll(fs ...*os.File) { keptFiles = append(keptFiles, fs...) }

func kVariadic(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepAll(f)
	return nil
}

// keepAllLoop is variadic, stores each element.
func keepAllLoop(fs ...*os.File) {
	for _, f := range fs {
		keptFiles = append(keptFiles, f)
	}
}

func kVariadicLoop(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepAllLoop(g, f)
	return nil
}

// keptPtr keeps what its pointer parameter points to.
var keptOne *os.File

func keepSingle(f *os.File) { keptOne = f }

// kMethodRecv passes f to a keeping method of a pointer receiver reached through a local
// pointer.
func kMethodRecv(r *reg2, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	rr := r
	rr.putCloser(f)
	return nil
}

// kGoLiteral: the helper hands f to a goroutine literal capturing the parameter.
func goLit(f *os.File) {
	go func() { f.Close() }()
}

func kGoLiteral(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	goLit(f)
	return nil
}

// ---- must NOT hand on (report) ----

// keepSecond keeps b, not a.
func keepSecond(a, b *os.File) { keptOne = b }

func nKeepsOther(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepSecond(f, g)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// keepSecond in the other position keeps f.
func kKeepsSecond(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepSecond(g, f)
	return nil
}

type reg3 struct {
	names []string
	n     int
}

// addName keeps a field of f in its receiver, not f.
func (r *reg3) addName(f *os.File) { r.names = append(r.names, f.Name()) }

func (r *reg3) nKeepsField(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.addName(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

var nameCh = make(chan string, 1)

// sendName sends the name of f, not f.
func sendName(f *os.File) { nameCh <- f.Name() }

func nSendsField(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	sendName(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// goCopy starts a goroutine that reads only a copy of the name.
func goCopy(f *os.File) {
	name := f.Name()
	go func() { fmt.Println(name) }()
}

func nGoCopy(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	goCopy(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// goArgName starts a goroutine with the name as its argument: evaluated at the go statement.
func goArgName(f *os.File) { go fmt.Println(f.Name()) }

func nGoArgName(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	goArgName(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// storeLocal stores f in a local struct: nothing outlives the call.
func storeLocal(f *os.File) {
	var x struct{ f *os.File }
	x.f = f
	_ = x
}

func nStoreLocal(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	storeLocal(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

type regV struct{ files []*os.File }

// addCopy has a value receiver: the append to its copy's slice header is lost.
func (r regV) addCopy(f *os.File) { r.files = append(r.files, f) }

func nValueReceiver(r regV, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.addCopy(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// goOther hands the other parameter to a goroutine.
func goOther(a, b *os.File) { go worker(b) }

func nGoOther(path string, g *os.File) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	goOther(f, g)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// keepThenDescribe: only a read helper after a keep of another value.
func nReadThroughTwoLevels(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	describeVia(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

func describeVia(f *os.File) { describe(f) }

// keepAfterEarlyReturn keeps f only after a test; an early return keeps nothing (mirrors
// the wrapper rule's "after an early return": undocumented for keeps).
func keepIf(f *os.File, ok bool) {
	if ok {
		keptOne = f
	}
}

func ambKeepIf(path string, ok bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepIf(f, ok)
	return nil
}

// keepLastName stores the name in a package variable and f in a local.
func keepLastName(f *os.File) {
	g := f
	lastName = g.Name()
}

func nAliasField(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepLastName(f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// keepAlias stores f through a local alias in a package variable: kept.
func keepAlias(f *os.File) {
	g := f
	keptOne = g
}

func kAlias(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepAlias(f)
	return nil
}

// A method value has no summary the search reads: an unknown callee, which the default
// tier takes as keeping what it is passed (here it does).
func ambMethodValue(r *reg2, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	put := r.putCloser
	put(f)
	return nil
}

func kVariadicLoopAlone(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepAllLoop(f)
	return nil
}

// keepRange keeps each element of a slice parameter.
func keepRange(fs []*os.File) {
	for _, f := range fs {
		keptOne = f
	}
}

// kSliceLiteral passes f inside a slice literal to a keeper of the elements.
func kSliceLiteral(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepRange([]*os.File{f})
	return nil
}

// keepPtrTarget keeps what its pointer parameter points to.
func keepPtrTarget(pf **os.File) { keptOne = *pf }

func kPointer(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepPtrTarget(&f)
	return nil // want `return may skip f.Close \(Open at line \d+\)`
}

// keepInStruct stores f in a package-level struct's field.
var keeper struct{ f *os.File }

func keepInStruct(f *os.File) { keeper.f = f }

func kPackageStructField(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepInStruct(f)
	return nil
}

// keepViaRecv stores in receiver through a method call chain: r.putCloser inside another method.
func (r *reg2) keepViaRecv(f *os.File) { r.putCloser(f) }

func (r *reg2) kRecvTwoLevels(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.keepViaRecv(f)
	return nil
}

// keepOnOther stores f in a field of what another parameter points at: the caller's h keeps
// it.
type holder struct{ f *os.File }

func keepOnOther(h *holder, f *os.File) { h.f = f }

func ambOtherParamField(h *holder, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	keepOnOther(h, f)
	return nil
}

// sendOnParamChan sends f on a channel parameter: "sends it".
func sendOnParamChan(ch chan<- *os.File, f *os.File) { ch <- f }

func kSendParamChan(ch chan *os.File, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	sendOnParamChan(ch, f)
	return nil
}

// keepThenClose keeps f and closes it: not kept after all? (it releases: wrapper).
func storeThenClear(f *os.File) {
	keptOne = f
	keptOne = nil
}

func ambStoreThenClear(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	storeThenClear(f)
	return nil
}
