// Package transaction creates inside function literals passed to a transaction, where an
// error return rolls back everything the transaction made, and outside one, where rollback
// evidence counts only for the object it undoes.
package transaction

import "errors"

type Tx struct{}

func (tx *Tx) CreateBucket(name string) error { return nil }
func (tx *Tx) DeleteBucket(name string) error { return nil }

type DB struct{}

func (db *DB) Update(fn func(tx *Tx) error) error { return fn(&Tx{}) }

func step() error { return nil }

// inTransaction returns errors after its creates: the transaction undoes them.
func inTransaction(db *DB) error {
	return db.Update(func(tx *Tx) error {
		if err := tx.CreateBucket("a"); err != nil {
			return err
		}
		if err := step(); err != nil {
			tx.DeleteBucket("a")
			return err
		}
		if step() != nil {
			return errors.New("second step")
		}
		return nil
	})
}

// otherObject undoes the create of a on its first failure only, which the later returns
// skip; the create of b has no rollback of its own, and the delete of a is no evidence for
// it: the returns name a's create alone.
func otherObject(tx *Tx) error {
	if err := tx.CreateBucket("a"); err != nil {
		return err
	}
	if err := step(); err != nil {
		tx.DeleteBucket("a")
		return err
	}
	if err := tx.CreateBucket("b"); err != nil {
		return err // want `^return may skip tx.DeleteBucket \(CreateBucket at line 40\)$`
	}
	if err := step(); err != nil {
		return err // want `^return may skip tx.DeleteBucket \(CreateBucket at line 40\)$`
	}
	return nil
}
