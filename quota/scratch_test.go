package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type boxed struct{ p *int }

// A copy goes back to the pool empty, so that the pool keeps nothing of a caller's list alive,
// and a pooled copy of another type is never handed out as this one.
func TestScratchIsPooledEmptyAndByType(t *testing.T) {
	n := 7
	v := getScratch[boxed]()
	v.p = &n
	putScratch(v)
	assert.Nil(t, v.p)

	s := getScratch[string]()
	assert.Equal(t, "", *s)
	putScratch(s)
}
