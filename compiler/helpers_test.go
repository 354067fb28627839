package compiler_test

import (
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

func typeString(s *compiler.Step) string {
	v := s.Value
	if v == cty.NilVal {
		return "?"
	}
	return lang.TypeString(v.Type())
}
