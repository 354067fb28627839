package lsp

import (
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"go.lsp.dev/protocol"
)

// view is what a request about one file reads: the file's check, its
// text and syntax tree as checked.
type view struct {
	path  string
	text  *text
	file  *hcl.File
	flow  *flowCheck  // a flow file's
	test  *testCheck  // a test file's
	block *blockCheck // a block file's
}

func (s *Server) view(u protocol.DocumentURI) *view {
	path := pathOf(u)
	v := &view{path: path, text: newText(nil)}
	switch {
	case lang.IsFlowFile(path):
		v.flow = s.ws.flow(path)
		v.text, v.file = v.flow.text, v.flow.files[path]
	case lang.IsTestFile(path):
		v.test = s.ws.test(path)
		v.text, v.file = v.test.text, v.test.file
	case lang.IsBlockFile(path):
		v.block = s.ws.block(path)
		v.text, v.file = v.block.text, v.block.file
	}
	return v
}

// prog is the program the file's names resolve in: a flow's own, or for
// a test file the flow its test at off runs; nil when there is none.
func (v *view) prog(off int) *compiler.Program {
	switch {
	case v.flow != nil:
		return v.flow.prog
	case v.test != nil:
		c := locate(v.file, off)
		for def, fc := range v.test.flows {
			if c.block != nil && len(c.block.Labels) == 1 && c.block.Labels[0] == def.Name {
				return fc.prog
			}
		}
		// Outside a test: the flow of the first test, when every test
		// runs the same one.
		for _, fc := range v.test.flows {
			return fc.prog
		}
	}
	return nil
}

// offset is the byte offset of an LSP position in the file as checked.
func (v *view) offset(p protocol.Position) int { return v.text.offset(p) }

// staticValues are what references evaluate to for hover and hints: the
// compiler's values (unknown, of the declared types).
type staticValues struct{}

func (staticValues) Input(in *lang.Input) cty.Value { return cty.UnknownVal(in.Type.Type) }
func (staticValues) Secret(*lang.Secret) cty.Value  { return cty.UnknownVal(cty.String) }
func (staticValues) Memory(m *lang.Memory) cty.Value {
	return cty.UnknownVal(m.Type.Type)
}
func (staticValues) RunID() cty.Value { return cty.UnknownVal(cty.String) }
func (staticValues) Step(s *compiler.Step) cty.Value {
	if s.Value == cty.NilVal {
		return cty.DynamicVal
	}
	return s.Value
}

// typeName renders a type as a type expression ("any" for the dynamic
// type).
func typeName(ty cty.Type) (name string) {
	if ty == cty.NilType {
		return "any"
	}
	if ty.IsCapsuleType() {
		return ty.FriendlyName() // try's and can's expression arguments
	}
	defer func() {
		if recover() != nil {
			name = ty.FriendlyName()
		}
	}()
	return lang.TypeString(ty)
}

func hclTokens(v cty.Value) []byte { return hclwrite.TokensForValue(v).Bytes() }
