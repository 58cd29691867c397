package ilbcontroller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/ilbcontroller"
	"github.com/safereconcile/safereconcile/orphans/internal/fakecloud"
)

// A world is one test's namespace on the shared API server, a cloud served over HTTP on
// loopback from this process, and the controller processes that use them.
type world struct {
	t          *testing.T
	c          client.Client
	ns         string
	cloud      *fakecloud.Cloud
	url        string
	kubeconfig string

	mu           sync.Mutex
	seq          int               // cloud calls answered so far
	lastCall     map[string]int    // caller → seq of its latest call
	children     map[string]*child // by caller id
	failures     []failure
	svcByAddress map[string]string
	// inject decides whether a release of name fails; nil: never.
	inject func(name string) bool
	// hook, if set, runs after each call's own handling, without mu held.
	hook fakecloud.Hook
}

// A failure is a release the cloud failed on purpose.
type failure struct {
	id     int
	name   string // the address
	svc    string // its Service
	caller string
	seq    int
	at     time.Time
}

func (f failure) text() string { return fmt.Sprintf("injected failure [f%d]", f.id) }

type child struct {
	id     string
	cmd    *exec.Cmd
	done   chan struct{}
	killed time.Time // zero unless this test killed it
	stderr bytes.Buffer
}

func newWorld(t *testing.T, ns string) *world {
	cfg := env.Need(t)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	w := &world{t: t, c: c, ns: ns, cloud: &fakecloud.Cloud{}, lastCall: map[string]int{}, children: map[string]*child{}, svcByAddress: map[string]string{}}
	require.NoError(t, c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	w.cloud.Hook = w.onCall
	srv := httptest.NewServer(fakecloud.Handler(w.cloud)) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	w.url = srv.URL
	w.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, env.WriteKubeconfig(w.kubeconfig))
	t.Cleanup(w.stopAll)
	return w
}

func (w *world) onCall(ctx context.Context, op fakecloud.Op, name string, done bool) error {
	caller := fakecloud.Caller(ctx)
	w.mu.Lock()
	if !done {
		w.seq++
		w.lastCall[caller] = w.seq
	}
	hook := w.hook
	w.mu.Unlock()
	// The hook runs first, and without mu: it may kill the caller, and it sees only the
	// failures of earlier calls.
	if hook != nil {
		if err := hook(ctx, op, name, done); err != nil {
			return err
		}
	}
	if done || op != fakecloud.ReleaseAddress {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inject == nil || !w.inject(name) {
		return nil
	}
	f := failure{id: len(w.failures) + 1, name: name, svc: w.serviceOf(name), caller: caller, seq: w.lastCall[caller], at: time.Now()}
	w.failures = append(w.failures, f)
	return fmt.Errorf("%s: backend unavailable", f.text())
}

// start runs a controller process called id.
func (w *world) start(id string, leader bool, extra ...string) *child {
	ch := &child{id: id, done: make(chan struct{})}
	ch.cmd = exec.Command(os.Args[0], "-test.run=^$")
	ch.cmd.Env = append(os.Environ(),
		childEnv+"="+id, childKubeconfig+"="+w.kubeconfig, childCloud+"="+w.url, childNamespace+"="+w.ns)
	if leader {
		ch.cmd.Env = append(ch.cmd.Env, childLeader+"=1")
	}
	ch.cmd.Env = append(ch.cmd.Env, extra...)
	ch.cmd.Stderr = &syncWriter{w: &ch.stderr, mu: &w.mu}
	require.NoError(w.t, ch.cmd.Start())
	w.mu.Lock()
	w.children[id] = ch
	w.mu.Unlock()
	go func() {
		_ = ch.cmd.Wait()
		// A child that killed itself (a kill point inside it) counts as killed when seen.
		if ws, ok := ch.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			w.mu.Lock()
			if ch.killed.IsZero() {
				ch.killed = time.Now()
			}
			w.mu.Unlock()
		}
		close(ch.done)
	}()
	return ch
}

// kill SIGKILLs the controller process called id and waits until it is gone.
func (w *world) kill(id string) {
	w.mu.Lock()
	ch := w.children[id]
	if ch != nil && ch.killed.IsZero() {
		ch.killed = time.Now()
	}
	w.mu.Unlock()
	if ch == nil {
		return
	}
	_ = ch.cmd.Process.Kill()
	<-ch.done
}

// stop ends the controller process called id with SIGTERM, as a rollout would, and SIGKILLs
// it when it has not exited within its graceful shutdown timeout and a margin. It waits until
// the process is gone.
func (w *world) stop(id string) {
	w.mu.Lock()
	ch := w.children[id]
	w.mu.Unlock()
	if ch == nil {
		return
	}
	_ = ch.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ch.done:
	case <-time.After(childGracefulShutdown + 5*time.Second):
		w.kill(id)
	}
}

// reported returns the kill points the controller process called id reported reaching (see
// pointMarker), from its standard error so far: all of them once the process is gone.
func (w *world) reported(id string) []pointReport {
	w.mu.Lock()
	out := w.children[id].stderr.String()
	w.mu.Unlock()
	var reps []pointReport
	for line := range strings.Lines(out) {
		_, after, ok := strings.Cut(line, pointMarker)
		if !ok {
			continue
		}
		var r pointReport
		if err := json.Unmarshal([]byte(after), &r); err != nil {
			w.t.Errorf("controller %s: unreadable report %q: %v", id, line, err)
			continue
		}
		reps = append(reps, r)
	}
	return reps
}

func (w *world) stopAll() {
	w.mu.Lock()
	ids := make([]string, 0, len(w.children))
	for id := range w.children {
		ids = append(ids, id)
	}
	w.mu.Unlock()
	for _, id := range ids {
		w.kill(id)
	}
	if w.t.Failed() {
		for _, id := range ids {
			out := w.children[id].stderr.String()
			if len(out) > 6000 {
				out = out[len(out)-6000:]
			}
			w.t.Logf("controller %s stderr (tail):\n%s", id, out)
		}
	}
}

func (w *world) createServices(n int) []string {
	var names []string
	for i := range n {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: fmt.Sprintf("ilb-%d", i)},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
				Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
		}
		require.NoError(w.t, w.c.Create(context.Background(), svc))
		names = append(names, svc.Name)
	}
	return names
}

// servicesQuiet lists the Services for a goroutine that cannot fail the test: nil on error.
func (w *world) servicesQuiet() []corev1.Service {
	var l corev1.ServiceList
	if err := w.c.List(context.Background(), &l, client.InNamespace(w.ns)); err != nil {
		return nil
	}
	return l.Items
}

func (w *world) services() []corev1.Service {
	var l corev1.ServiceList
	require.NoError(w.t, w.c.List(context.Background(), &l, client.InNamespace(w.ns)))
	return l.Items
}

// converged reports whether every Service has its load balancer and nothing else is left:
// no reservation in the cloud, no record on an object, one rule per Service.
func (w *world) converged() (bool, string) {
	svcs := w.services()
	var rules []string
	for _, s := range svcs {
		if _, ok := s.Annotations[orphans.Key(ilbcontroller.Name)]; ok {
			return false, s.Name + " has a record"
		}
		name := ilbcontroller.ResourceName(&s)
		if in := s.Status.LoadBalancer.Ingress; len(in) != 1 || in[0].IP != fakecloud.IP(name) {
			return false, s.Name + " has no address yet"
		}
		rules = append(rules, name)
	}
	slices.Sort(rules)
	if a := w.cloud.Addresses(); len(a) > 0 {
		return false, fmt.Sprintf("reservations left: %v", a)
	}
	if got := w.cloud.Rules(); !slices.Equal(got, rules) {
		return false, fmt.Sprintf("rules %v, want %v", got, rules)
	}
	return true, ""
}

// gone reports whether every Service is deleted and the cloud is empty.
func (w *world) gone() (bool, string) {
	if s := w.services(); len(s) > 0 {
		return false, fmt.Sprintf("%d services left, %s finalizers %v annotations %v", len(s), s[0].Name, s[0].Finalizers, s[0].Annotations)
	}
	if a, r := w.cloud.Addresses(), w.cloud.Rules(); len(a)+len(r) > 0 {
		return false, fmt.Sprintf("cloud: reservations %v, rules %v", a, r)
	}
	return true, ""
}

func (w *world) await(what string, timeout time.Duration, cond func() (bool, string)) {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: not within %v: %s", what, timeout, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// service returns the Service called name.
func (w *world) service(name string) corev1.Service {
	var s corev1.Service
	require.NoError(w.t, w.c.Get(context.Background(), client.ObjectKey{Namespace: w.ns, Name: name}, &s))
	return s
}

// recordedOn returns the names of the orphans recorded on the Service whose address is called
// address.
func (w *world) recordedOn(address string) []string {
	for _, s := range w.services() {
		if ilbcontroller.ResourceName(&s) != address {
			continue
		}
		v, ok := s.Annotations[orphans.Key(ilbcontroller.Name)]
		if !ok {
			return nil
		}
		var recs []orphans.Record
		require.NoError(w.t, json.Unmarshal([]byte(v), &recs), "record on %s", s.Name)
		var names []string
		for _, r := range recs {
			names = append(names, r.Name)
		}
		return names
	}
	w.t.Errorf("no Service has the address %s", address)
	return nil
}

func (w *world) deleteServices() {
	for _, s := range w.services() {
		require.NoError(w.t, client.IgnoreNotFound(w.c.Delete(context.Background(), &s)))
	}
}

// events returns the Events in the world's namespace with reason, in their core/v1 view.
func (w *world) events(reason string) []corev1.Event {
	var l corev1.EventList
	require.NoError(w.t, w.c.List(context.Background(), &l, client.InNamespace(w.ns)))
	var out []corev1.Event
	for _, e := range l.Items {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// notes returns the notes of the Events in the world's namespace with reason.
func (w *world) notes(reason string) []string {
	var out []string
	for _, e := range w.events(reason) {
		out = append(out, e.Message)
	}
	return out
}

// serviceOf returns the name of the Service whose address is called name. Called with mu held;
// the names are cached because the hook cannot list while the test may be failing.
func (w *world) serviceOf(name string) string {
	if s, ok := w.svcByAddress[name]; ok {
		return s
	}
	for _, s := range w.servicesQuiet() {
		w.svcByAddress[ilbcontroller.ResourceName(&s)] = s.Name
	}
	return w.svcByAddress[name]
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
