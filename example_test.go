package safereconcile_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/safereconcile/safereconcile/acquire"
)

// A controller retries forever: each failed attempt must leave nothing behind that the next
// attempt trips over. Here the first attempt fails after reserving an address; the scope
// releases it, so the second attempt can reserve the same name again.
func Example() {
	reserved := map[string]bool{}
	reserve := func(ctx context.Context) (string, error) {
		if reserved["ilb-a1b2"] {
			return "", errors.New("address ilb-a1b2 already exists")
		}
		reserved["ilb-a1b2"] = true
		return "ilb-a1b2", nil
	}
	release := func(ctx context.Context, name string) error {
		delete(reserved, name)
		return nil
	}
	for attempt := 1; attempt <= 2; attempt++ {
		err := acquire.Run(context.Background(), func(ctx context.Context, s *acquire.Scope) error {
			if _, err := acquire.Temporary(s, "address/ilb-a1b2", reserve, release); err != nil {
				return err
			}
			if attempt == 1 {
				return errors.New("health check: 503 backend error")
			}
			return nil
		})
		fmt.Printf("attempt %d: err=%v, reservations left=%d\n", attempt, err, len(reserved))
	}
	// Output:
	// attempt 1: err=health check: 503 backend error, reservations left=0
	// attempt 2: err=<nil>, reservations left=0
}
