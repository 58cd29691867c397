package orphans_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/safereconcile/safereconcile/acquire"
	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/internal/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	var err error
	if env, err = kubetest.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// cloud is a set of named resources whose releases fail while fail is set.
type cloud struct {
	mu       sync.Mutex
	held     map[string]bool
	fail     error
	releases []string // ids, in order
}

func newCloud() *cloud { return &cloud{held: map[string]bool{}} }

func (c *cloud) reserve(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held[id] = true
}

func (c *cloud) release(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.releases = append(c.releases, id)
	if c.fail != nil {
		return c.fail
	}
	delete(c.held, id)
	return nil
}

func (c *cloud) setFail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail = err
}

func (c *cloud) state() (held []string, releases []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.held {
		held = append(held, id)
	}
	return held, append([]string(nil), c.releases...)
}

// fixture is one test's namespace, tracker and cloud; resources are "address/<obj uid>-<n>".
type fixture struct {
	t       *testing.T
	cfg     *rest.Config
	c       client.WithWatch
	cs      *kubernetes.Clientset
	ns      string
	name    string // controller name: labels the metrics, so that tests do not share series
	cloud   *cloud
	tracker *orphans.Tracker
	logs    *logSink
}

func newFixture(t *testing.T, opts ...orphans.Option) *fixture {
	cfg := env.Need(t)
	f := &fixture{t: t, cfg: cfg, cloud: newCloud(), logs: &logSink{}}
	var err error
	f.c, err = client.NewWithWatch(cfg, client.Options{})
	require.NoError(t, err)
	f.cs = kubernetes.NewForConfigOrDie(cfg)
	f.name = "t-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(f.name) > 60 {
		f.name = f.name[:60]
	}
	f.ns = f.name
	require.NoError(t, f.c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}))

	b := events.NewBroadcaster(&events.EventSinkImpl{Interface: f.cs.EventsV1()})
	stop := make(chan struct{})
	b.StartRecordingToSink(stop)
	t.Cleanup(func() { close(stop); b.Shutdown() })
	rec := b.NewRecorder(scheme.Scheme, f.name)
	f.tracker = orphans.New(f.c, rec, f.kinds(), append([]orphans.Option{orphans.Controller(f.name)}, opts...)...)
	return f
}

func (f *fixture) kinds() map[string]orphans.Kind {
	return map[string]orphans.Kind{"address": {
		Release: f.cloud.release,
		Owns:    func(obj client.Object, id string) bool { return strings.HasPrefix(id, string(obj.GetUID())+"-") },
	}}
}

func (f *fixture) ctx() context.Context {
	return log.IntoContext(context.Background(), logr.New(f.logs))
}

func (f *fixture) object(name string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name}}
	require.NoError(f.t, f.c.Create(context.Background(), cm))
	return cm
}

func (f *fixture) get(obj client.Object) error {
	return f.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
}

// reconcile runs the tracker on obj with a scope that acquires n resources.
func (f *fixture) reconcile(obj client.Object, n int) error {
	return f.tracker.Run(f.ctx(), obj, func(ctx context.Context, s *acquire.Scope) error {
		for i := range n {
			id := fmt.Sprintf("%s-%d", obj.GetUID(), i)
			if _, err := acquire.Temporary(s, "address/"+id,
				func(context.Context) (string, error) { f.cloud.reserve(id); return id, nil },
				f.cloud.release); err != nil {
				return err
			}
		}
		return nil
	})
}

func (f *fixture) records(obj client.Object) string {
	require.NoError(f.t, f.get(obj))
	return obj.GetAnnotations()[f.tracker.Key()]
}

// events returns the events.k8s.io Events about the object called name, once the
// asynchronous recorder has had time to send want of them.
func (f *fixture) events(name string, want int) []eventsv1.Event {
	var got []eventsv1.Event
	list := func() {
		l, err := f.cs.EventsV1().Events(f.ns).List(context.Background(), metav1.ListOptions{})
		require.NoError(f.t, err)
		got = got[:0]
		for _, e := range l.Items {
			if e.Regarding.Name == name {
				got = append(got, e)
			}
		}
	}
	assert.Eventually(f.t, func() bool { list(); return len(got) >= want }, 10*time.Second, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // and nothing more arrives
	list()
	return got
}

func metric(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					continue next
				}
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

// logSink records the entries logged through it.
type logSink struct {
	mu      sync.Mutex
	entries []logEntry
}

// A logEntry is one line: an error-level one when isError, else an info one at level.
type logEntry struct {
	isError bool
	level   int
	msg     string
	err     error
	kv      []any
}

func (l *logSink) Init(logr.RuntimeInfo)          {}
func (l *logSink) Enabled(int) bool               { return true }
func (l *logSink) WithValues(...any) logr.LogSink { return l }
func (l *logSink) WithName(string) logr.LogSink   { return l }
func (l *logSink) Info(level int, msg string, kv ...any) {
	l.add(logEntry{level: level, msg: msg, kv: kv})
}
func (l *logSink) Error(err error, msg string, kv ...any) {
	l.add(logEntry{isError: true, msg: msg, err: err, kv: kv})
}

// text returns everything the entry says: its message, its error and its values.
func (e logEntry) text() string {
	s := e.msg
	if e.err != nil {
		s += " " + e.err.Error()
	}
	for _, v := range e.kv {
		s += " " + fmt.Sprint(v)
	}
	return s
}

// errorsNaming returns the error-level entries that mention s anywhere.
func (l *logSink) errorsNaming(s string) []logEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logEntry
	for _, e := range l.entries {
		if e.isError && strings.Contains(e.text(), s) {
			out = append(out, e)
		}
	}
	return out
}

func (l *logSink) add(e logEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

// with returns the entries whose message contains msg.
func (l *logSink) with(msg string) []logEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logEntry
	for _, e := range l.entries {
		if strings.Contains(e.msg, msg) {
			out = append(out, e)
		}
	}
	return out
}

// startController runs a controller-runtime controller of the fixture's ConfigMaps on a
// manager of its own, with a tracker from [orphans.NewForManager], controller-runtime's
// default panic recovery stated explicitly, and the fixture's log sink as the manager's
// logger. reconcile gets each ConfigMap as read from the cache. The returned stop cancels the
// manager's context and waits until it has stopped, its reconciles included.
func (f *fixture) startController(reconcileFn func(ctx context.Context, tr *orphans.Tracker, cm *corev1.ConfigMap) error) (tr *orphans.Tracker, stop func()) {
	mgr, err := ctrl.NewManager(f.cfg, ctrl.Options{
		Logger:                 logr.New(f.logs),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{f.ns: {}}},
	})
	require.NoError(f.t, err)
	tr = orphans.NewForManager(mgr, f.name, f.kinds())
	err = ctrl.NewControllerManagedBy(mgr).Named(f.name).For(&corev1.ConfigMap{}).
		WithOptions(controller.Options{RecoverPanic: ptr.To(true), SkipNameValidation: ptr.To(true)}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			cm := &corev1.ConfigMap{}
			if err := mgr.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			return reconcile.Result{}, reconcileFn(ctx, tr, cm)
		}))
	require.NoError(f.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(f.t, <-done)
		})
	}
	f.t.Cleanup(stop)
	return tr, stop
}

// acquireN acquires the resources "address/<obj uid>-<suffix>" in s, each released through
// the fixture's cloud.
func (f *fixture) acquireN(s *acquire.Scope, obj client.Object, suffixes ...string) error {
	for _, sfx := range suffixes {
		id := string(obj.GetUID()) + "-" + sfx
		if _, err := acquire.Temporary(s, "address/"+id,
			func(context.Context) (string, error) { f.cloud.reserve(id); return id, nil },
			f.cloud.release); err != nil {
			return err
		}
	}
	return nil
}

// await fails the test unless cond holds within timeout.
func (f *fixture) await(what string, timeout time.Duration, cond func() bool) {
	f.t.Helper()
	require.Eventually(f.t, cond, timeout, 50*time.Millisecond, what)
}
