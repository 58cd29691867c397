// Package resultholds returns what its helpers wrap the acquired value in: a result that
// holds the value hands it on to the caller, as pgx's pool hands the connection to the rows
// that release it.
package resultholds

import "errors"

var errBusy = errors.New("busy")

type pool struct{ free []*conn }

type conn struct {
	res   *resource
	spare []rows
}

type resource struct{ p *pool }

// Acquire takes a connection from the pool.
func (p *pool) Acquire() (*conn, error) {
	if len(p.free) == 0 {
		return nil, errBusy
	}
	c := p.free[0]
	p.free = p.free[1:]
	return c, nil
}

// Release gives the connection back.
func (c *conn) Release() { c.res.p.free = append(c.res.p.free, c) }

// Destroy drops the connection from the pool.
func (c *conn) Destroy() {}

type rows struct {
	c    *conn
	data []string
}

// Close releases the connection the rows hold.
func (r *rows) Close() { r.c.Release() }

// wrap stores c in rows it takes from c's own spares, and returns them.
func (c *conn) wrap(data []string) *rows {
	r := &c.spare[len(c.spare)-1]
	c.spare = c.spare[:len(c.spare)-1]
	r.c = c
	r.data = data
	return r
}

// rowsOf passes c on to wrap: its result holds c too.
func rowsOf(c *conn, data []string) *rows { return c.wrap(data) }

// literal returns c in a composite literal.
func literal(c *conn) rows { return rows{c: c} }

// dataOnly returns what c holds, not c.
func (c *conn) dataOnly() []string { return c.spare[0].data }

func query(c *conn, q string) ([]string, error) { return nil, nil }

// Query hands c to the rows it returns.
func Query(p *pool, q string) (*rows, error) {
	c, err := p.Acquire()
	if err != nil {
		return nil, err
	}
	data, err := query(c, q)
	if err != nil {
		c.Release()
		return nil, err
	}
	return c.wrap(data), nil
}

// QueryThrough hands c on through rowsOf.
func QueryThrough(p *pool, q string) (*rows, error) {
	c, err := p.Acquire()
	if err != nil {
		return nil, err
	}
	data, err := query(c, q)
	if err != nil {
		c.Release()
		return nil, err
	}
	return rowsOf(c, data), nil
}

// QueryLiteral hands c on in a composite literal.
func QueryLiteral(p *pool, q string) (rows, error) {
	c, err := p.Acquire()
	if err != nil {
		return rows{}, err
	}
	if _, err := query(c, q); err != nil {
		c.Release()
		return rows{}, err
	}
	return literal(c), nil
}

// QueryData returns what c holds and keeps c.
func QueryData(p *pool, q string) ([]string, error) {
	c, err := p.Acquire()
	if err != nil {
		return nil, err
	}
	if _, err := query(c, q); err != nil {
		c.Release()
		return nil, err
	}
	return c.dataOnly(), nil // want `return may skip c.Release \(Acquire at line 106\)`
}

// Retry destroys a connection it cannot use and tries the next: Destroy gives it back too.
func Retry(p *pool, q string, n int) (*rows, error) {
	for range n {
		c, err := p.Acquire()
		if err != nil {
			return nil, err
		}
		data, err := query(c, q)
		if err != nil {
			c.Destroy()
			continue
		}
		return c.wrap(data), nil
	}
	return nil, errBusy
}

type plain struct{ n int }

// freshPlain is passed c and returns something else.
func freshPlain(c *conn) *plain { return &plain{} }

// QueryPlain returns what holds nothing of c: c is kept.
func QueryPlain(p *pool, q string) (*plain, error) {
	c, err := p.Acquire()
	if err != nil {
		return nil, err
	}
	if _, err := query(c, q); err != nil {
		c.Release()
		return nil, err
	}
	return freshPlain(c), nil // want `return may skip c.Release \(Acquire at line 141\)`
}
