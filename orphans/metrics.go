package orphans

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The metrics every Tracker reports, registered on controller-runtime's registry
// ([ctrlmetrics.Registry]) and so served on the manager's metrics endpoint. Their labels are
// "controller", the tracker's controller name, and "kind", the orphan's kind (see
// lease.OrphanError.Kind); safereconcile_orphan_retries_total has a third, "result":
// "released", "failed" or "skipped". Never a resource name, which would give every orphan a
// series of its own.
var (
	orphansTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "safereconcile_orphans_total",
		Help: "Releases that failed during a reconcile, leaving an orphan that was recorded on the reconciled object.",
	}, []string{"controller", "kind"})

	retriesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "safereconcile_orphan_retries_total",
		Help: "Retried releases of recorded orphans, by result: released, failed, or skipped (no release function for its kind, or not owned by the object).",
	}, []string{"controller", "kind", "result"})

	recordedGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "safereconcile_orphans_recorded",
		Help: "Orphans recorded on the objects this process reconciled, as of their latest reconcile.",
	}, []string{"controller", "kind"})

	unrecordedGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "safereconcile_orphans_unrecorded",
		Help: "Orphans this process holds in memory, not yet recorded on their object: the record was at its budget, or the write failed. The object's next reconcile in this process records them as room allows.",
	}, []string{"controller", "kind"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(orphansTotal, retriesTotal, recordedGauge, unrecordedGauge)
}
