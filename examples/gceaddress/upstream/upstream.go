package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/GoogleCloudPlatform/k8s-cloud-provider/pkg/cloud"
	"github.com/GoogleCloudPlatform/k8s-cloud-provider/pkg/cloud/meta"
	"github.com/GoogleCloudPlatform/k8s-cloud-provider/pkg/cloud/mock"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/legacy-cloud-providers/gce"
)

// modulePath is the upstream module whose code Conform runs.
const modulePath = "k8s.io/legacy-cloud-providers"

// Table is the golden file's schema, written by package ilb from its replicas.
type Table struct {
	Service string `json:"service"` // namespace/name of the Service every row ensures
	Rows    []Row  `json:"rows"`    // in the order a successful v1.20.1 makes the calls
	// Calls lists, per Kubernetes version, the calls a successful ensure of the replica
	// makes ("addresses.get #1"), in order.
	Calls map[string][]string `json:"calls"`
}

// A Row is one failing call, the nth call of Op counted per operation, and what each version
// did when it failed.
type Row struct {
	Op    string  `json:"op"`
	Nth   int     `json:"nth"`
	V1201 Outcome `json:"v1.20.1"`
	V1202 Outcome `json:"v1.20.2"`
}

// An Outcome is what an ensure reported and what it left.
type Outcome struct {
	Err  bool `json:"err"`  // the ensure returned an error
	Left bool `json:"left"` // the reservation named after the load balancer still exists
}

// String returns "clean" when the reservation is gone, "LEAKED" when it is left and the
// ensure failed, and "LEAKED, said ok" when it is left and the ensure reported success.
func (o Outcome) String() string {
	switch {
	case !o.Left:
		return "clean"
	case o.Err:
		return "LEAKED"
	}
	return "LEAKED, said ok"
}

// orphanLog is what both versions log, and all they do, when the release fails.
const orphanLog = "failed to release address reservation, possibly causing an orphan"

// versions maps each upstream version Conform knows to its Kubernetes version and to its
// column of the golden table.
var versions = map[string]struct {
	kube   string
	column func(Row) Outcome
}{
	"v0.20.1": {"v1.20.1", func(r Row) Outcome { return r.V1201 }},
	"v0.20.2": {"v1.20.2", func(r Row) Outcome { return r.V1202 }},
}

// Conform runs the real ensure of the linked k8s.io/legacy-cloud-providers, which must be
// version ("v0.20.1" or "v0.20.2"), once per row of the golden table at path golden, with that
// row's call failing, and requires the outcome the table has for the matching Kubernetes
// version (v1.20.1 or v1.20.2). It also requires that a successful ensure of the real code
// makes the calls the table lists for that version in the same order, so that no row passes
// because its fault hit another call or none, and that an ensure that says ok with the
// reservation left behind logged the orphan. Calls the real code makes that the replica does
// not are failed too and logged, not compared.
func Conform(t *testing.T, version, golden string) {
	v, ok := versions[version]
	require.True(t, ok, "upstream: no column for %s %s", modulePath, version)
	require.Equal(t, version, linkedVersion(t), "upstream: the test binary links another version of %s", modulePath)

	raw, err := os.ReadFile(golden)
	require.NoError(t, err)
	var table Table
	require.NoError(t, json.Unmarshal(raw, &table))
	require.NotEmpty(t, table.Rows, "upstream: %s has no rows", golden)
	svc, err := service(table.Service)
	require.NoError(t, err)
	logs := captureKlog(t)

	// A run without faults must succeed, leave no reservation, and make the replica's calls
	// in the replica's order, among others of its own.
	clean, made, err := ensureOnce(svc, call{})
	require.NoError(t, err)
	require.Equal(t, Outcome{}, clean, "upstream: an ensure without faults")
	listed := map[string]bool{}
	for _, c := range table.Calls[v.kube] {
		listed[c] = true
	}
	var shared []string
	for _, c := range made {
		if listed[c.String()] {
			shared = append(shared, c.String())
		}
	}
	require.Empty(t, cmp.Diff(table.Calls[v.kube], shared),
		"upstream: %s %s does not make the replica's calls in the replica's order (-replica +upstream)", modulePath, version)

	var got, want []string
	for _, r := range table.Rows {
		c := call{r.Op, r.Nth}
		logs.reset()
		o, _, err := ensureOnce(svc, c)
		require.NoError(t, err)
		got = append(got, row(c, o))
		want = append(want, row(c, v.column(r)))
		if o.Left && !o.Err {
			require.Contains(t, logs.String(), orphanLog, "upstream: %s left the reservation and said ok, but logged no orphan", c)
		}
	}
	require.Empty(t, cmp.Diff(want, got), "upstream: %s %s differs from the replica's table %s (-replica +upstream)", modulePath, version, golden)
	t.Logf("%s %s, call by call, matches the replica's %s column of %s:\n%s", modulePath, version, v.kube, golden, strings.Join(got, "\n"))

	var extra []string
	for _, c := range made {
		if listed[c.String()] {
			continue
		}
		o, _, err := ensureOnce(svc, c)
		require.NoError(t, err)
		extra = append(extra, row(c, o))
	}
	if len(extra) > 0 {
		t.Logf("calls %s %s makes that the replica does not, each failed in turn (not compared):\n%s", modulePath, version, strings.Join(extra, "\n"))
	}
}

// row formats what failing c did: the outcome, and whether the ensure returned an error (which
// a clean outcome does not show).
func row(c call, o Outcome) string {
	return fmt.Sprintf("%-26s %-16s error: %t", c, o, o.Err)
}

// linkedVersion returns the version of the upstream module linked into the test binary, read
// from the source path the compiler recorded for one of its functions
// (".../k8s.io/legacy-cloud-providers@v0.20.1/gce/gce_fake.go"): test binaries carry no
// module list in their build information.
func linkedVersion(t *testing.T) string {
	file, _ := runtime.FuncForPC(reflect.ValueOf(gce.NewFakeGCECloud).Pointer()).FileLine(0)
	_, rest, ok := strings.Cut(filepath.ToSlash(file), modulePath+"@")
	require.True(t, ok, "upstream: gce.NewFakeGCECloud is compiled from %s, not from module %s", file, modulePath)
	version, _, _ := strings.Cut(rest, "/")
	return version
}

// service returns the internal load balancer Service the replica's scenario ensures, named
// key (namespace/name), with the replica's UID so that the load balancer has the same name.
func service(key string) (*v1.Service, error) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return nil, fmt.Errorf("upstream: service %q is not namespace/name", key)
	}
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, UID: "9c0e6d7a-4b1f-4e55-a0c2-3f6b1d2e8a91",
			Annotations: map[string]string{gce.ServiceAnnotationLoadBalancerType: string(gce.LBTypeInternal)},
		},
		Spec: v1.ServiceSpec{
			Type:  v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Protocol: v1.ProtocolTCP, Port: 80}},
		},
	}, nil
}

// nodeName is the one node behind the load balancer, as in the upstream tests.
const nodeName = "test-node-1"

// Ensure runs the real EnsureLoadBalancer of the linked k8s.io/legacy-cloud-providers once,
// for the internal load balancer Service key (namespace/name), on a fresh MockGCE whose nth
// call of op fails with an HTTP 500 (none when op is ""), then looks the reservation up by the
// load balancer's name as TestEnsureInternalLoadBalancerErrors does. op is named as package
// gcecloud names operations ("firewalls.insert"), nth counts from 1. Ensure returns an error
// when the harness itself fails: the call was never made, or the API server was asked for
// something it does not serve.
func Ensure(key, op string, nth int) (Outcome, error) {
	svc, err := service(key)
	if err != nil {
		return Outcome{}, err
	}
	o, _, err := ensureOnce(svc, call{op, nth})
	return o, err
}

// ensureOnce is [Ensure] for svc; it also returns the calls the ensure made.
func ensureOnce(svc *v1.Service, fail call) (Outcome, []call, error) {
	vals := gce.DefaultTestClusterValues()
	g := gce.NewFakeGCECloud(vals)
	m, ok := g.Compute().(*cloud.MockGCE)
	if !ok {
		return Outcome{}, nil, fmt.Errorf("upstream: NewFakeGCECloud's compute is %T, not MockGCE", g.Compute())
	}

	// What the upstream tests' fakeGCECloud sets up, through exported fields only: the
	// canned hooks that allocate addresses, accept forwarding rules and keep instance groups.
	m.MockAddresses.InsertHook = mock.InsertAddressHook
	m.MockAddresses.X = mock.AddressAttributes{}
	m.MockForwardingRules.InsertHook = mock.InsertFwdRuleHook
	m.MockInstanceGroups.X = mock.InstanceGroupAttributes{
		InstanceMap: make(map[meta.Key]map[string]*compute.InstanceWithNamedPorts),
		Lock:        &sync.Mutex{},
	}
	m.MockInstanceGroups.AddInstancesHook = mock.AddInstancesHook
	m.MockInstanceGroups.RemoveInstancesHook = mock.RemoveInstancesHook
	m.MockInstanceGroups.ListInstancesHook = mock.ListInstancesHook
	m.MockRegionBackendServices.UpdateHook = mock.UpdateRegionBackendServiceHook
	m.MockHealthChecks.UpdateHook = mock.UpdateHealthCheckHook
	m.MockFirewalls.UpdateHook = mock.UpdateFirewallHook
	if err := g.InsertInstance(g.ProjectID(), vals.ZoneName, &compute.Instance{
		Name: nodeName, Zone: vals.ZoneName, Tags: &compute.Tags{Items: []string{nodeName}},
	}); err != nil {
		return Outcome{}, nil, fmt.Errorf("upstream: insert instance %s: %w", nodeName, err)
	}
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{
		Name:   nodeName,
		Labels: map[string]string{v1.LabelHostname: nodeName, v1.LabelFailureDomainBetaZone: vals.ZoneName},
	}}}

	// The Kubernetes client, the way the cloud controller manager provides it. Initialize
	// starts the cluster ID's informer in a goroutine that replaces the cloud's ClusterID;
	// its first list request is what says that it has, before the ensure reads it.
	api := newAPIServer(svc)
	defer api.close()
	stop := make(chan struct{})
	defer close(stop) // before api.close: the informer ends its watch
	g.Initialize(clientBuilder{host: api.srv.URL}, stop)
	select {
	case <-api.listed:
	case <-time.After(time.Minute):
		return Outcome{}, nil, errors.New("upstream: the cloud provider never listed its cluster ID config map")
	}

	in := &injector{fail: fail}
	in.install(m)
	_, err := g.EnsureLoadBalancer(context.Background(), vals.ClusterName, svc, nodes)
	in.stop()
	made, fired := in.calls()
	if fail != (call{}) && !fired {
		return Outcome{}, made, fmt.Errorf("upstream: call %s was never made", fail)
	}

	// Look the reservation up by name, as TestEnsureInternalLoadBalancerErrors does.
	lbName := g.GetLoadBalancerName(context.Background(), vals.ClusterName, svc)
	addr, lookupErr := g.GetRegionAddress(lbName, vals.Region)
	left := lookupErr == nil && addr != nil
	var gerr *googleapi.Error
	if !left && !(errors.As(lookupErr, &gerr) && gerr.Code == http.StatusNotFound) {
		return Outcome{}, made, fmt.Errorf("upstream: look up address %s: %w", lbName, lookupErr)
	}
	if other := api.unexpected(); len(other) > 0 {
		return Outcome{}, made, fmt.Errorf("upstream: requests the API server does not serve: %q", other)
	}
	return Outcome{Err: err != nil, Left: left}, made, nil
}

// A klogBuffer collects what the upstream code logs, instead of standard error.
type klogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *klogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *klogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *klogBuffer) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// captureKlog sends klog's output to a buffer for the rest of the test.
func captureKlog(t *testing.T) *klogBuffer {
	b := &klogBuffer{}
	LogTo(b)
	t.Cleanup(klog.Flush)
	return b
}

// LogTo sends everything the upstream code logs through klog to w, and nothing to standard
// error. klog's configuration is global: call LogTo before [Ensure], not while it runs.
func LogTo(w io.Writer) {
	fs := flag.NewFlagSet("klog", flag.PanicOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(w)
}
