package handoff

// A store opened in place, as a field of a holder: the holder returned or stored holds it.
type store interface {
	Open() error
	Close() error
}

type shard struct{ st store }

type shardSet struct{ shards []*shard }

func warm() error { return nil }

// openShard returns the holder of what it opened where it succeeds, and closes it where it
// fails after the open.
func openShard(st store) (*shard, error) {
	sh := &shard{st: st}
	if err := sh.st.Open(); err != nil {
		return nil, err
	}
	if err := warm(); err != nil {
		sh.st.Close()
		return nil, err
	}
	return sh, nil
}

// register keeps the holder in the set before a step that may fail: the shardSet's
// owner closes it.
func (r *shardSet) register(st store) error {
	sh := &shard{st: st}
	if err := sh.st.Open(); err != nil {
		return err
	}
	r.shards = append(r.shards, sh)
	return warm()
}

// openLost closes where warming fails, and drops the holder where it succeeds.
func openLost(st store) error {
	sh := &shard{st: st}
	if err := sh.st.Open(); err != nil {
		return err
	}
	if err := warm(); err != nil {
		sh.st.Close()
		return err
	}
	return nil // want `^return may skip sh.st.Close \(Open at line 43\)$`
}
