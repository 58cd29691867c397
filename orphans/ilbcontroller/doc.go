// Package ilbcontroller is an example controller built on the orphans module: it ensures an
// internal load balancer for each Service of type LoadBalancer, on a cloud reached through
// [Cloud], and reports and records the orphans its failed releases leave.
//
// Each reconcile reserves the Service's address by a name derived from the Service's UID,
// points a forwarding rule at it, publishes the address in the Service's status, and releases
// the reservation on every return path, through [acquire] (the forwarding rule holds the
// address from then on). That is the shape of the GCE internal load balancer controller whose
// early returns leaked a reservation per failed sync (kubernetes#97740). A failed release is
// an orphan: [orphans.Tracker.Run] records it on the Service, reports it, and retries it at
// the start of every later reconcile, in whichever process runs it. The Service's
// status.conditions show them too ([orphans.Tracker.Condition]), written only when the
// condition changes.
//
// Because the address's name comes from the Service's UID, an attempt that dies before it
// can record anything (a SIGKILL between the reservation and the record) is repaired too:
// the next reconcile reserves the same name, which the cloud treats as the same reservation,
// and releases it. The module's crash test kills the controller at such points.
package ilbcontroller
