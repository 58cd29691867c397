package deferguard

// A transaction committed or rolled back by its deferred closure, by the named err the
// function returns.
type txDB struct{}

type tx struct{}

func (db *txDB) Begin() (*tx, error) { return &tx{}, nil }
func (t *tx) Commit() error          { return nil }
func (t *tx) Rollback() error        { return nil }
func (t *tx) Put(k, v string) error  { return nil }

// putSwitch commits or rolls back by a switch on err, as an if on err == nil would.
func putSwitch(db *txDB, k, v string) (err error) {
	t, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() {
		switch err {
		case nil:
			err = t.Commit()
		default:
			t.Rollback()
		}
	}()
	return t.Put(k, v)
}

// putCommitOnly commits where err is nil and never rolls back: a return that may carry an
// error, which the named err takes before the closure reads it, leaves t open.
func putCommitOnly(db *txDB, k, v string) (err error) {
	t, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() {
		switch err {
		case nil:
			err = t.Commit()
		}
	}()
	return t.Put(k, v) // want `^return may skip t.Commit \(Begin at line 34\)$`
}

// putShadowed returns a shadowed err, which the named err takes: the Commit under err ==
// nil does not run there.
func putShadowed(db *txDB, k, v string) (err error) {
	t, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			err = t.Commit()
		}
	}()
	if err := t.Put(k, v); err != nil {
		return err // want `^return may skip t.Commit \(Begin at line 50\)$`
	}
	return nil
}
