// Package kubetest starts a real kube-apiserver and etcd for the orphans module's tests, with
// controller-runtime's envtest, and counts the requests the API server served.
//
// The binaries come from KUBEBUILDER_ASSETS, which the repository's .ci/envtest-assets script
// provisions; without it the tests that need an API server skip.
package kubetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// SkipReason is the sentence a test skips with when there is no API server to run against.
const SkipReason = "KUBEBUILDER_ASSETS is not set: run `export KUBEBUILDER_ASSETS=\"$(.ci/envtest-assets)\"` to provide kube-apiserver and etcd"

// An Env is a running API server.
type Env struct {
	Config *rest.Config
	env    *envtest.Environment
}

// Start starts an API server when KUBEBUILDER_ASSETS is set, and returns nil when it is not.
// Call it from TestMain, and Stop the result when the tests are done.
func Start() (*Env, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, nil
	}
	e := &envtest.Environment{}
	cfg, err := e.Start()
	if err != nil {
		return nil, fmt.Errorf("kubetest: start envtest: %w", err)
	}
	// The default client-side rate limit (5 QPS) would make the tests measure the limiter.
	cfg.QPS, cfg.Burst = 500, 1000
	return &Env{Config: cfg, env: e}, nil
}

// Stop stops the API server and etcd. Stop on a nil Env does nothing.
func (e *Env) Stop() error {
	if e == nil {
		return nil
	}
	return e.env.Stop()
}

// Need returns e's config, or skips t when there is no API server.
func (e *Env) Need(t testing.TB) *rest.Config {
	t.Helper()
	if e == nil {
		t.Skip(SkipReason)
	}
	return rest.CopyConfig(e.Config)
}

// WriteKubeconfig writes a kubeconfig for e to path, for a controller in another process.
func (e *Env) WriteKubeconfig(path string) error {
	c := e.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData}
	kc.AuthInfos["envtest"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertData, ClientKeyData: c.KeyData, Token: c.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "envtest"}
	kc.CurrentContext = "envtest"
	return clientcmd.WriteToFile(*kc, path)
}

// Counts is the API server's apiserver_request_total, summed by "VERB resource[/subresource]"
// (for example "PATCH services", "PUT services/status", "POST events").
type Counts map[string]float64

var sample = regexp.MustCompile(`^apiserver_request_total\{([^}]*)\} ([0-9.e+]+)$`)
var label = regexp.MustCompile(`(\w+)="([^"]*)"`)

// RequestCounts reads the API server's request counters from its /metrics endpoint.
func RequestCounts(ctx context.Context, cfg *rest.Config) (Counts, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("kubetest: read apiserver metrics: %w", err)
	}
	out := make(Counts)
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := sample.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, l := range label.FindAllStringSubmatch(m[1], -1) {
			labels[l[1]] = l[2]
		}
		if labels["resource"] == "" {
			continue // non-resource requests: /metrics itself, discovery
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, fmt.Errorf("kubetest: parse %q: %w", sc.Text(), err)
		}
		k := labels["verb"] + " " + labels["resource"]
		if s := labels["subresource"]; s != "" {
			k += "/" + s
		}
		out[k] += v
	}
	return out, sc.Err()
}

// Sub returns the counts in c that grew since before, without the verbs of informers (LIST,
// WATCH) and of leader election (leases): the requests a reconcile makes.
func (c Counts) Sub(before Counts) Counts {
	out := make(Counts)
	for k, v := range c {
		verb, res, _ := strings.Cut(k, " ")
		if verb == "LIST" || verb == "WATCH" || strings.HasPrefix(res, "leases") {
			continue
		}
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// Only returns the counts of c for the given resources (with any subresource): the API server
// itself makes requests too, such as its periodic GET of the default/kubernetes endpoints.
func (c Counts) Only(resources ...string) Counts {
	out := make(Counts)
	for k, v := range c {
		_, res, _ := strings.Cut(k, " ")
		res, _, _ = strings.Cut(res, "/")
		for _, r := range resources {
			if res == r {
				out[k] = v
			}
		}
	}
	return out
}

// Total returns the sum of c.
func (c Counts) Total() float64 {
	var n float64
	for _, v := range c {
		n += v
	}
	return n
}
