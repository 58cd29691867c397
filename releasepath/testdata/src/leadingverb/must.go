package leadingverb

import "context"

// sqlTx is kine's generic.Tx: MustRollback is Rollback that panics where Rollback would
// return an error.
type sqlTx struct{}

func (*sqlTx) Exec(q string) error  { return nil }
func (*sqlTx) Commit() error        { return nil }
func (*sqlTx) Rollback() error      { return nil }
func (*sqlTx) MustRollback()        {}
func (*sqlTx) Mustard(q string) int { return 0 }

type dialect struct{}

func (dialect) BeginTx(ctx context.Context) (*sqlTx, error) { return &sqlTx{}, nil }

// compactBatch rolls the transaction back at every return through a deferred MustRollback.
func compactBatch(ctx context.Context, d dialect, qs []string) error {
	t, err := d.BeginTx(ctx)
	if err != nil {
		return err
	}
	defer t.MustRollback()
	for _, q := range qs {
		if err := t.Exec(q); err != nil {
			return err
		}
	}
	return t.Commit()
}

// compactEarly rolls back on one failure only; Mustard is no Must of anything.
func compactEarly(ctx context.Context, d dialect, qs []string) error {
	t, err := d.BeginTx(ctx)
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		t.Mustard("")
		return nil // want `return may skip t.MustRollback \(BeginTx at line 36\)`
	}
	if err := t.Exec(qs[0]); err != nil {
		t.MustRollback()
		return err
	}
	return t.Commit()
}
