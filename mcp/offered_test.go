package mcp

import (
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// TestOffered: a flow is a tool unless it says expose = false, and with
// --only only when it is named.
func TestOffered(t *testing.T) {
	prog := func(name string, hidden bool) *compiler.Program {
		return &compiler.Program{Flow: &lang.Flow{Name: name, Hidden: hidden}}
	}
	for _, c := range []struct {
		p    *compiler.Program
		only []string
		want bool
	}{
		{prog("a", false), nil, true},
		{prog("a", true), nil, false},
		{prog("a", false), []string{"b"}, false},
		{prog("a", false), []string{"b", "a"}, true},
		{prog("a", true), []string{"a"}, false},
	} {
		if got := Offered(c.p, c.only); got != c.want {
			t.Errorf("Offered(%s hidden=%v, %v) = %v", c.p.Flow.Name, c.p.Flow.Hidden, c.only, got)
		}
	}
}
