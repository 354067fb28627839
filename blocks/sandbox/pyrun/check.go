package pyrun

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/lang"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/hcl/v2"
)

// MaxSourceBytes bounds the size of a python block's code.
const MaxSourceBytes = 1 << 20

// checkTimeout bounds the parse of one block's code by the helper.
const checkTimeout = 30 * time.Second

// parsed is what the helper says of one block's code (helper.py, check).
type parsed struct {
	Syntax *struct {
		Line    int    `json:"line"`
		Col     int    `json:"col"` // 1-based, in characters
		EndLine int    `json:"end_line"`
		EndCol  int    `json:"end_col"`
		Msg     string `json:"msg"`
	} `json:"syntax"`
	Imports []struct {
		place
		Module string   `json:"module"`
		Names  []string `json:"names"`
		Level  int      `json:"level"`
	} `json:"imports"`
	Asyncio []struct {
		place
		Name string `json:"name"`
	} `json:"asyncio"`
	Execute *struct {
		place
		Async          bool     `json:"async"`
		Other          bool     `json:"other"` // bound otherwise than by def: not checked
		Positional     int      `json:"positional"`
		Required       int      `json:"required"`
		Varargs        bool     `json:"varargs"`
		KwonlyRequired int      `json:"kwonly_required"`
		Params         []string `json:"params"`
	} `json:"execute"`
	Error string `json:"error"`
}

// place is where something is in the code: a line, and byte columns
// (1-based; EndCol 0 when it ends on another line).
type place struct {
	Line   int `json:"line"`
	Col    int `json:"col"`
	EndCol int `json:"end_col"`
}

func (p place) rng(def *lang.BlockDef) hcl.Range {
	chars := 0
	if src, ok := sandbox.SourceLine(def.Source, p.Line); ok && p.EndCol > p.Col {
		chars = len([]rune(src[min(p.Col-1, len(src)):min(p.EndCol-1, len(src))]))
	}
	return sandbox.Range(def, p.Line, p.Col, chars)
}

var checked, _ = lru.New[[32]byte, *parsed](256)

// Check checks the code of python blocks without running any of it, with
// CPython's own parser (the helper process, started once per flowctl
// process): a syntax error, an import outside the allowlist, an asyncio
// API the blocks may not use, or an execute that is missing or cannot be
// called with (input, ctx), each an error at its place in the flow or
// block file. Without an interpreter, each block gets an error at its
// runtime argument (NotFoundSummary) that says so.
func Check(defs []*lang.BlockDef) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var interpErr error
	for _, def := range defs {
		if def.Runtime != lang.RuntimePython || def.Source == "" {
			continue
		}
		if interpErr == nil {
			_, interpErr = Find()
		}
		if interpErr != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  NotFoundSummary,
				Detail:   fmt.Sprintf("Block %q is a python block: %s.", def.Name, sentence(interpErr)),
				Subject:  runtimeRange(def).Ptr(),
			})
			continue
		}
		diags = append(diags, checkDef(def)...)
	}
	return diags
}

// runtimeRange is where a diagnostic about the block's runtime points.
func runtimeRange(def *lang.BlockDef) hcl.Range {
	if def.RuntimeRange.Filename != "" {
		return def.RuntimeRange
	}
	return def.DeclRange
}

func sentence(err error) string {
	return strings.TrimSuffix(err.Error(), ".")
}

func checkDef(def *lang.BlockDef) hcl.Diagnostics {
	errorAt := func(r hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: fmt.Sprintf("Block %q: ", def.Name) + fmt.Sprintf(format, args...), Subject: r.Ptr()}
	}
	if len(def.Source) > MaxSourceBytes {
		return hcl.Diagnostics{errorAt(def.SourceRange, "Python block too large",
			"its code is %d KiB; a python block's code may be at most %d KiB.", (len(def.Source)+1023)>>10, MaxSourceBytes>>10)}
	}
	p, err := parse(def.Source)
	if err != nil {
		return hcl.Diagnostics{errorAt(runtimeRange(def), "Python code not checked",
			"its code could not be checked: %s.", sentence(err))}
	}
	if s := p.Syntax; s != nil {
		col := 0
		if line, ok := sandbox.SourceLine(def.Source, s.Line); ok && s.Col > 0 {
			col = sandbox.RuneOffset(line, s.Col-1) + 1
		}
		r := sandbox.Range(def, s.Line, col, 1)
		if s.Line == 0 {
			r = def.SourceRange
		}
		return hcl.Diagnostics{errorAt(r, "Invalid Python", "SyntaxError: %s (line %d of its code).", s.Msg, s.Line)}
	}
	var diags hcl.Diagnostics
	pkgs, locked, d := packageModules(def)
	diags = append(diags, d...)
	for _, im := range p.Imports {
		what := im.Module
		switch {
		case im.Level > 0:
			diags = append(diags, errorAt(im.rng(def), "Forbidden import",
				"the code has a relative import (from %s%s import …); a python block is one file and imports only these modules: %s.",
				strings.Repeat(".", im.Level), im.Module, Listing()))
			continue
		case im.Module == "":
			diags = append(diags, errorAt(im.rng(def), "Forbidden import",
				"the code calls __import__ with a name that is not a string literal; a python block imports only these modules, with import statements: %s.", Listing()))
			continue
		case Allowed(im.Module, im.Names) || slices.Contains(pkgs, strings.SplitN(im.Module, ".", 2)[0]):
			continue
		case !locked:
			continue // which modules its packages provide is known once they are locked

		case im.Names != nil:
			what = "from " + im.Module + " import " + strings.Join(im.Names, ", ")
		}
		diags = append(diags, errorAt(im.rng(def), "Forbidden import", "%s.", forbidden(what, im.Module)))
	}
	for _, u := range p.Asyncio {
		if slices.Contains(asyncioDenied, u.Name) {
			diags = append(diags, errorAt(u.rng(def), "Forbidden asyncio API",
				"asyncio.%s is not available in python blocks: they cannot start programs, use the network or open files. A block gets its data from its inputs; call URLs with the http built-in block.", u.Name))
		}
	}
	switch e := p.Execute; {
	case e == nil:
		diags = append(diags, errorAt(def.DeclRange, "Missing execute function",
			"the code does not define execute; a python block defines def execute(input, ctx) (or async def execute(inputs, context)) at its top level, returning a dict of its outputs."))
	case !e.Other && !callableWithTwo(e.Required, e.Positional, e.Varargs, e.KwonlyRequired):
		kw := "async def"
		if !e.Async {
			kw = "def"
		}
		diags = append(diags, errorAt(e.rng(def), "Wrong execute signature",
			"%s execute(%s) cannot be called with two arguments; a python block defines %s execute(input, ctx): its inputs and the call's context.",
			kw, strings.Join(e.Params, ", "), kw))
	}
	return diags
}

// callableWithTwo reports whether a function with these parameters can be
// called with two positional arguments.
func callableWithTwo(required, positional int, varargs bool, kwonlyRequired int) bool {
	return required <= 2 && (positional >= 2 || varargs) && kwonlyRequired == 0
}

// forbidden is the detail of a forbidden import.
func forbidden(what, module string) string {
	msg := fmt.Sprintf("The code imports %s, which a python block cannot use. A python block can import only these modules: %s, and the packages its requirements argument declares once flowctl lock pins them", what, Listing())
	switch top, _, _ := strings.Cut(module, "."); top {
	case "os", "sys", "io", "pathlib", "shutil", "glob", "tempfile", "socket", "urllib", "http", "requests", "subprocess":
		msg += ". A block gets its data from its inputs; read files and call URLs with the file and http built-in blocks"
	case "threading", "multiprocessing", "concurrent":
		msg += ". A block runs in one thread of its own; use async def with asyncio to wait for several things at once"
	}
	return msg
}

// parse asks the helper to parse a block's code, once per distinct code.
func parse(src string) (*parsed, error) {
	key := sha256.Sum256([]byte(src))
	if p, ok := checked.Get(key); ok {
		return p, nil
	}
	var p parsed
	if err := ask(map[string]any{"op": "check", "source": src}, &p, checkTimeout); err != nil {
		return nil, err
	}
	if p.Error != "" {
		return nil, errors.New(p.Error)
	}
	checked.Add(key, &p)
	return &p, nil
}

// packageModules are the top-level modules a python block's locked
// requirements provide. locked is false when the block has requirements
// that no lock file pins (a warning: run flowctl lock); a block without
// requirements is locked, with none.
func packageModules(def *lang.BlockDef) (modules []string, locked bool, diags hcl.Diagnostics) {
	if len(def.Requirements) == 0 {
		return nil, true, nil
	}
	e, err := deps.PythonOf(def.DeclRange.Filename, def.Requirements)
	var nl *deps.NotLockedError
	switch {
	case errors.As(err, &nl):
		return nil, false, hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Requirements not locked",
			Detail:  fmt.Sprintf("Block %q: %s; apply installs only what the lock file says.", def.Name, nl),
			Subject: def.RequirementsRange.Ptr()}}
	case err != nil:
		return nil, false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid lock file",
			Detail: fmt.Sprintf("Block %q: %s.", def.Name, sentence(err)), Subject: def.RequirementsRange.Ptr()}}
	}
	return e.Modules(), true, nil
}
