package handoff

// A reference counted object is the resource its acquireRef holds: storing the object, or
// returning it, hands the reference on (grpc's rls balancer gives each new picker its own
// reference to the default policy).
type policy struct{ refs int }

func (p *policy) acquireRef() { p.refs++ }
func (p *policy) releaseRef() { p.refs-- }

type picker struct{ def *policy }

type balancer struct {
	def  *policy
	last *picker
}

// newPicker gives the new picker its own reference and drops the previous picker's, taken
// on the same object when the previous picker was made.
func (b *balancer) newPicker() {
	if b.def != nil {
		b.def.acquireRef()
	}
	p := &picker{def: b.def}
	if b.last != nil {
		if b.def != nil {
			b.def.releaseRef()
		}
	}
	b.last = p
}

// pickerFor returns the object whose reference it took.
func (b *balancer) pickerFor(ok bool) *policy {
	b.def.acquireRef()
	if !ok {
		b.def.releaseRef()
		return nil
	}
	return b.def
}

// use takes a reference for the call and drops it on one path only.
func (b *balancer) use(ok bool) int {
	b.def.acquireRef()
	if !ok {
		return 0 // want `return may skip b.def.releaseRef \(acquireRef at line 45\)`
	}
	b.def.releaseRef()
	return 1
}
