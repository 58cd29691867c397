package upstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientset "k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/legacy-cloud-providers/gce"
)

// An apiServer is the part of the Kubernetes API that the GCE cloud provider calls while it
// ensures an internal load balancer, served over HTTP on loopback:
//
//   - the cluster ID: a list and a watch of config map kube-system/ingress-uid, always empty,
//     and its create, so the provider makes up a cluster ID itself;
//   - the Service: a patch that adds the ILB finalizer;
//   - events, which are accepted and dropped.
//
// Any other request is answered 404 and recorded; [apiServer.unexpected] returns them.
type apiServer struct {
	srv *httptest.Server
	svc *v1.Service

	listed   chan struct{} // closed at the first list of config maps
	listOnce sync.Once

	mu    sync.Mutex
	other []string
}

func newAPIServer(svc *v1.Service) *apiServer {
	a := &apiServer{svc: svc, listed: make(chan struct{})}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	return a
}

// close stops the server. Watches end when the cloud's informer stops; the connections of
// any that did not are dropped, so that Close does not wait for them.
func (a *apiServer) close() {
	a.srv.CloseClientConnections()
	a.srv.Close()
}

const configMapsPath = "/api/v1/namespaces/" + gce.UIDNamespace + "/configmaps"

func (a *apiServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == configMapsPath && r.URL.Query().Get("watch") == "true":
		// No config map ever appears: hold the watch open until the client leaves.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case r.Method == http.MethodGet && r.URL.Path == configMapsPath:
		a.listOnce.Do(func() { close(a.listed) })
		reply(w, http.StatusOK, &v1.ConfigMapList{
			TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"},
			ListMeta: metav1.ListMeta{ResourceVersion: "1"},
		})
	case r.Method == http.MethodPost && r.URL.Path == configMapsPath:
		var cm v1.ConfigMap
		if err := json.Unmarshal(body, &cm); err != nil {
			a.record(r, "bad config map: "+err.Error())
			reply(w, http.StatusBadRequest, status(http.StatusBadRequest, err.Error()))
			return
		}
		cm.ResourceVersion = "2"
		reply(w, http.StatusCreated, &cm)
	case r.Method == http.MethodPatch && r.URL.Path == "/api/v1/namespaces/"+a.svc.Namespace+"/services/"+a.svc.Name+"/status":
		svc := a.svc.DeepCopy()
		svc.TypeMeta = metav1.TypeMeta{Kind: "Service", APIVersion: "v1"}
		svc.Finalizers = append(svc.Finalizers, gce.ILBFinalizerV1)
		reply(w, http.StatusOK, svc)
	case (r.Method == http.MethodPost || r.Method == http.MethodPatch) && strings.Contains(r.URL.Path, "/events"):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	default:
		a.record(r, "")
		reply(w, http.StatusNotFound, status(http.StatusNotFound, "not served by this test"))
	}
}

func (a *apiServer) record(r *http.Request, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.other = append(a.other, strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Method, r.URL, why)))
}

// unexpected returns the requests the server did not expect, in the order they came.
func (a *apiServer) unexpected() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.other...)
}

func reply(w http.ResponseWriter, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func status(code int32, msg string) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Message: msg,
	}
}

// clientBuilder hands the cloud provider clients of the server, as the cloud controller
// manager hands it clients of the real API server.
type clientBuilder struct{ host string }

func (b clientBuilder) Config(string) (*restclient.Config, error) {
	return &restclient.Config{Host: b.host}, nil
}

func (b clientBuilder) ConfigOrDie(name string) *restclient.Config {
	cfg, _ := b.Config(name)
	return cfg
}

func (b clientBuilder) Client(name string) (clientset.Interface, error) {
	cfg, err := b.Config(name)
	if err != nil {
		return nil, err
	}
	return clientset.NewForConfig(cfg)
}

func (b clientBuilder) ClientOrDie(name string) clientset.Interface {
	c, err := b.Client(name)
	if err != nil {
		panic(fmt.Sprintf("upstream: client %s: %v", name, err))
	}
	return c
}
