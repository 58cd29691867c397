package golangci_test

import (
	"fmt"

	"github.com/safereconcile/safereconcile/releasepath/golangci"
)

// ExampleNew makes the plugin from the settings golangci-lint decodes from .golangci.yml.
func ExampleNew() {
	p, err := golangci.New(map[string]any{"pairs": []string{"example.com/ipam.ExecAdd=example.com/ipam.ExecDel"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	as, _ := p.BuildAnalyzers()
	fmt.Println(as[0].Name, p.GetLoadMode())
	// Output:
	// releasepath typesinfo
}
