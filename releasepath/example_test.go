package releasepath_test

import (
	"fmt"

	"github.com/safereconcile/safereconcile/releasepath"
)

// ExampleNew configures an Analyzer with a pair of an in-house cloud client, as the
// golangci-lint plugin does from its settings; a malformed pair is an error.
func ExampleNew() {
	a, err := releasepath.New(releasepath.Config{
		Pairs: []string{"example.com/cloud.Client.Reserve=example.com/cloud.Client.Release"},
	})
	fmt.Println(a.Name, err)

	_, err = releasepath.New(releasepath.Config{Pairs: []string{"Reserve=Release"}})
	fmt.Println(err)
	// Output:
	// releasepath <nil>
	// releasepath: pair "Reserve=Release": want acquire=release, each a full name such as example.com/pkg.Func or example.com/pkg.Type.Method
}
