package admission

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/safereconcile/safereconcile/quota"
)

// ServiceUsage returns the quota usage of creating svc, as the Kubernetes v1.20 service
// evaluator computed it: one service, plus its load balancers and NodePorts, both listed even
// when zero. A NodePort Service uses a NodePort per port; a LoadBalancer Service uses one load
// balancer and, like a NodePort Service, a NodePort per port.
func ServiceUsage(svc *corev1.Service) corev1.ResourceList {
	var loadBalancers, nodePorts int64
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		nodePorts = int64(len(svc.Spec.Ports))
	case corev1.ServiceTypeLoadBalancer:
		loadBalancers = 1
		nodePorts = int64(len(svc.Spec.Ports))
	}
	return corev1.ResourceList{
		corev1.ResourceServices:              *resource.NewQuantity(1, resource.DecimalSI),
		corev1.ResourceServicesLoadBalancers: *resource.NewQuantity(loadBalancers, resource.DecimalSI),
		corev1.ResourceServicesNodePorts:     *resource.NewQuantity(nodePorts, resource.DecimalSI),
	}
}

// An ExceededError refuses a request that would take a quota past a hard limit. It lists
// only the resources whose limit the request would exceed.
type ExceededError struct {
	Quota     string              // the ResourceQuota's name
	Requested corev1.ResourceList // what the request asks for of each exceeded resource
	Used      corev1.ResourceList // what the quota had in use of each, before the request
	Hard      corev1.ResourceList // the quota's limit on each
}

// Error returns the message kube-apiserver gave users, after its "forbidden" prefix, so that
// the reproduction prints what the bug report quoted:
// "exceeded quota: <name>, requested: <name>=<amount>, used: ..., limited: ...", with the
// resources of each list sorted by name and joined by commas.
func (e *ExceededError) Error() string {
	return fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
		e.Quota, format(e.Requested), format(e.Used), format(e.Hard))
}

// format prints list as name=amount pairs, sorted by name and joined by commas; an empty or
// nil list prints as the empty string.
func format(list corev1.ResourceList) string {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		q := list[corev1.ResourceName(name)]
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(q.String())
	}
	return b.String()
}

// CheckOld admits a request whose usage delta is delta, returning nil, or refuses it with an
// *ExceededError for the first quota it would exceed, in the shape of Kubernetes v1.20.1: it
// admits at once only when every entry of delta is zero, and otherwise compares used+requested
// with hard for every resource in delta that a quota limits, zero entries included. That is
// the bug: see the package documentation. It reads quotas' Status.Hard and Status.Used and
// changes neither quotas nor delta.
func CheckOld(delta corev1.ResourceList, quotas []corev1.ResourceQuota) error {
	// v1.20.1's short-circuit looked at the delta as a whole. {services: 1,
	// services.nodeports: 0} is not all zero, so the zero entry went on to the comparison
	// below and met a quota whose used (2) was already over its hard limit (0): 2+0 > 0.
	allZero := true
	for _, q := range delta {
		if !q.IsZero() {
			allZero = false
			break
		}
	}
	if allZero {
		return nil
	}
	return compare(delta, quotas)
}

// CheckFixed admits or refuses a request like [CheckOld], in the shape of the fix
// (kubernetes#97451): it drops the zero entries of delta first and admits at once when none
// is left, so a request is only ever refused for a resource it consumes. It changes neither
// quotas nor delta.
func CheckFixed(delta corev1.ResourceList, quotas []corev1.ResourceQuota) error {
	// A zero entry is not a request for that resource (kubernetes#97437). NonZero returns a
	// new list, so the caller's delta keeps its zero entries.
	delta = quota.NonZero(delta)
	if len(delta) == 0 {
		return nil
	}
	return compare(delta, quotas)
}

// compare refuses delta for the first quota in which used+requested exceeds hard for a
// resource of delta that the quota limits. A resource the quota does not limit is not
// compared.
func compare(delta corev1.ResourceList, quotas []corev1.ResourceQuota) error {
	for i := range quotas {
		rq := &quotas[i]
		var exceeded []corev1.ResourceName
		for name, requested := range delta {
			hard, limited := rq.Status.Hard[name]
			if !limited {
				continue
			}
			// DeepCopy, because Add writes through the inf.Dec a copied Quantity may share
			// with the quota's own Used entry.
			used := rq.Status.Used[name]
			total := used.DeepCopy()
			total.Add(requested)
			if total.Cmp(hard) > 0 {
				exceeded = append(exceeded, name)
			}
		}
		if len(exceeded) > 0 {
			return &ExceededError{
				Quota:     rq.Name,
				Requested: mask(delta, exceeded),
				Used:      mask(rq.Status.Used, exceeded),
				Hard:      mask(rq.Status.Hard, exceeded),
			}
		}
	}
	return nil
}

// mask returns a deep copy of the entries of list named in names; a name list lacks is left
// out.
func mask(list corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := make(corev1.ResourceList, len(names))
	for _, name := range names {
		if q, ok := list[name]; ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}
