package deferguard

// An index whose holder says by a field whether it was opened to the end; the deferred
// closure closes it until then.
type index interface {
	Open() error
	Close() error
}

type holder struct {
	i    index
	open bool
}

func prepare() error { return nil }

// openThrough closes through the literal's parameter, bound to rv, until rv.open is set; the
// last return hands rv on.
func openThrough(i index) (*holder, error) {
	rv := &holder{i: i}
	if err := rv.i.Open(); err != nil {
		return nil, err
	}
	defer func(rv *holder) {
		if !rv.open {
			rv.i.Close()
		}
	}(rv)
	if err := prepare(); err != nil {
		return nil, err
	}
	rv.open = true
	return rv, nil
}

// openCaptured reads the field through the captured local.
func openCaptured(i index) (*holder, error) {
	rv := &holder{i: i}
	if err := rv.i.Open(); err != nil {
		return nil, err
	}
	defer func() {
		if !rv.open {
			rv.i.Close()
		}
	}()
	if err := prepare(); err != nil {
		return nil, err
	}
	rv.open = true
	return rv, nil
}

// openDropped sets the flag and then drops the holder: nothing closes the index.
func openDropped(i index) error {
	rv := &holder{i: i}
	if err := rv.i.Open(); err != nil {
		return err
	}
	defer func() {
		if !rv.open {
			rv.i.Close()
		}
	}()
	if err := prepare(); err != nil {
		return err
	}
	rv.open = true
	return nil // want `^return may skip rv.i.Close \(Open at line 57\)$`
}

// openTwice sets the field through two holders: which one a test reads is not the path's to
// know, and the deferred close counts nowhere.
func openTwice(i index, spare *holder) (*holder, error) {
	rv := &holder{i: i}
	if err := rv.i.Open(); err != nil {
		return nil, err
	}
	defer func() {
		if !rv.open {
			rv.i.Close()
		}
	}()
	spare.open = true
	if err := prepare(); err != nil {
		return nil, err // want `^return may skip rv.i.Close \(Open at line 76\)$`
	}
	rv.open = true
	return rv, nil
}

// openNamed holds the index in a named result, assigned once, as bleve's openIndexUsing
// does.
func openNamed(i index) (rv *holder, err error) {
	rv = &holder{i: i}
	if err = rv.i.Open(); err != nil {
		return nil, err
	}
	defer func(rv *holder) {
		if !rv.open {
			rv.i.Close()
		}
	}(rv)
	if err = prepare(); err != nil {
		return nil, err
	}
	rv.open = true
	return rv, nil
}

// openRenamed assigns its named result twice: the field it tests may be another holder's.
func openRenamed(i index, spare bool) (rv *holder, err error) {
	rv = &holder{i: i}
	if spare {
		rv = &holder{i: i}
	}
	if err = rv.i.Open(); err != nil {
		return nil, err
	}
	defer func() {
		if !rv.open {
			rv.i.Close()
		}
	}()
	if err = prepare(); err != nil {
		return nil, err // want `^return may skip rv.i.Close \(Open at line 117\)$`
	}
	rv.open = true
	return rv, nil
}
