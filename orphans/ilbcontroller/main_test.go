package ilbcontroller_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/safereconcile/safereconcile/orphans"
	"github.com/safereconcile/safereconcile/orphans/ilbcontroller"
	"github.com/safereconcile/safereconcile/orphans/internal/fakecloud"
	"github.com/safereconcile/safereconcile/orphans/internal/kubetest"
)

var env *kubetest.Env

// The environment of a controller process that a test starts by running its own binary again.
const (
	childEnv        = "ILB_CHILD"      // the caller id; set only in a child
	childKubeconfig = "ILB_KUBECONFIG" // path of a kubeconfig for the API server
	childCloud      = "ILB_CLOUD"      // base URL of the cloud the parent serves
	childNamespace  = "ILB_NAMESPACE"  // the one namespace the child watches
	childLeader     = "ILB_LEADER"     // "1": run with leader election
	// The kill points inside a child (see crash_test.go): the n-th occurrence of the point.
	childKillOnFailed = "ILB_KILL_ON_FAILED_RELEASE" // n
	childKillOnWrite  = "ILB_KILL_ON_RECORD_WRITE"   // "n:" + writeBeforeSend or writeAfterApply
	childStopOnFailed = "ILB_STOP_ON_FAILED_RELEASE" // n
)

// childGracefulShutdown is the child manager's GracefulShutdownTimeout: how long, after
// SIGTERM, its reconciles have to finish before the manager gives up on them.
const childGracefulShutdown = 10 * time.Second

func TestMain(m *testing.M) {
	if id := os.Getenv(childEnv); id != "" {
		os.Exit(runChild(id))
	}
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

// runChild runs the controller as a process of its own would, until SIGTERM or SIGKILL.
func runChild(id string) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv(childKubeconfig))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.QPS, cfg.Burst = 500, 1000
	if v := os.Getenv(childKillOnWrite); v != "" {
		// Kill point "during the record write", in the transport of every client the
		// manager makes from cfg.
		n, when, _ := strings.Cut(v, ":")
		k := &recordWriteKill{key: orphans.Key(ilbcontroller.Name), when: when}
		k.nth, _ = strconv.ParseInt(n, 10, 64)
		cfg.WrapTransport = k.wrap
	}
	ns := os.Getenv(childNamespace)
	opts := ctrl.Options{
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		GracefulShutdownTimeout: ptr.To(childGracefulShutdown),
	}
	if os.Getenv(childLeader) == "1" {
		opts.LeaderElection = true
		opts.LeaderElectionID = "ilb-controller"
		opts.LeaderElectionNamespace = ns
		opts.LeaseDuration = ptr.To(2 * time.Second)
		opts.RenewDeadline = ptr.To(1500 * time.Millisecond)
		opts.RetryPeriod = ptr.To(200 * time.Millisecond)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}

	// ctx is cancelled by the first SIGTERM, as in a controller's main.
	ctx := ctrl.SetupSignalHandler()
	killOn, _ := strconv.ParseInt(os.Getenv(childKillOnFailed), 10, 64)
	stopOn, _ := strconv.ParseInt(os.Getenv(childStopOnFailed), 10, 64)
	var failed atomic.Int64
	cloud := &fakecloud.Client{BaseURL: os.Getenv(childCloud), Caller: id,
		// OnFailure runs in the reconcile, once the failed release's answer has arrived and
		// before the scope hears of it.
		OnFailure: func(op fakecloud.Op, name string, _ error) {
			if op != fakecloud.ReleaseAddress {
				return
			}
			switch n := failed.Add(1); n {
			case killOn:
				// Kill point "after a failed release, before the record is written": the
				// process dies before the scope can report the failure.
				reportPoint(pointReport{Point: killAfterFailure, Address: name})
				die()
			case stopOn:
				// Kill point "during a graceful shutdown": the parent SIGTERMs this process
				// when it reads the report, and the reconcile holds the failed release until
				// the signal has cancelled the manager's context. It then goes on with a
				// cancelled context, as a reconcile that a rollout interrupts does. The wait
				// is bounded so that a parent that never signals cannot hang the child.
				reportPoint(pointReport{Point: killDuringShutdown, Address: name})
				select {
				case <-ctx.Done():
				case <-time.After(childGracefulShutdown):
				}
			}
		}}
	if _, err := ilbcontroller.SetupWithManager(mgr, cloud, func(b *builder.Builder) *builder.Builder {
		return b.WithOptions(controller.Options{MaxConcurrentReconciles: 1})
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := mgr.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// skipNameValidation lets several managers in one test process run the controller.
func skipNameValidation(b *builder.Builder) *builder.Builder {
	return b.WithOptions(controller.Options{SkipNameValidation: ptr.To(true)})
}
