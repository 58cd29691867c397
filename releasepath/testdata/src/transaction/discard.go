package transaction

import "errors"

// A Store opens transactions that hold its write lock until they are committed or discarded,
// as goleveldb's OpenTransaction does; a failed Commit leaves the transaction open.
type Store struct{}

type Txn struct{}

func (s *Store) OpenTransaction() (*Txn, error) { return &Txn{}, nil }
func (t *Txn) Put(k, v string) error            { return nil }
func (t *Txn) Commit() error                    { return nil }
func (t *Txn) Discard()                         {}

// compact discards the transaction on each failure before the commit. A failed Commit counts
// as the release it is for most transactions (database/sql's, bbolt's), though goleveldb's
// leaves the transaction open.
func compact(s *Store, keys []string) error {
	t, err := s.OpenTransaction()
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := t.Put(k, ""); err != nil {
			t.Discard()
			return err
		}
	}
	if len(keys) == 0 {
		t.Discard()
		return errors.New("nothing to compact")
	}
	if err := t.Commit(); err != nil {
		return err
	}
	return nil
}
