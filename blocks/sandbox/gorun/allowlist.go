package gorun

import (
	"embed"
	"go/constant"
	"math/bits"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"

	htmltemplate "github.com/flowctl/flowctl/blocks/sandbox/gorun/wrap/htmltemplate"
	texttemplate "github.com/flowctl/flowctl/blocks/sandbox/gorun/wrap/texttemplate"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/generic"
)

//go:generate go run ./gendocs ../../../docs/language.md

// allowed maps each standard package a go block may import to the symbols
// removed from it (nil: none). fmt is the exception: its symbols are listed
// in fmtKept, and everything else in it is dropped. It is the one list of
// both engines (the interpreter's symbol table and the compiled engine's
// checks) and of the docs (docs/language.md is checked against Packages).
//
// A package is allowed when a data-processing block needs it and nothing
// in it reaches the host: no file, network, process, or state shared with
// other blocks. Symbols are removed when they do (mime's type tables are
// read from the system's files, zip.OpenReader opens a file, the archive
// and mime registries are the process's), reach the process's standard
// streams, sleep or start timers that would outlive the call, or run the
// block's code on a goroutine of its own (time.AfterFunc,
// context.AfterFunc). The methods of an allowed type cannot be removed, so
// a package is allowed only when none of its types has a method that does
// I/O, or when the block gets a wrapper of its own in its place (see
// wrapped). Readers and writers are what the block makes (strings, bytes):
// no allowed package yields a file or a connection.
var allowed = map[string][]string{
	"archive/tar":     {"FileInfoHeader"},
	"archive/zip":     {"OpenReader", "RegisterCompressor", "RegisterDecompressor"},
	"bytes":           nil,
	"cmp":             nil,
	"compress/flate":  nil,
	"compress/gzip":   nil,
	"compress/zlib":   nil,
	"container/heap":  nil,
	"container/list":  nil,
	"container/ring":  nil,
	"context":         {"AfterFunc"},
	"crypto/hmac":     nil,
	"crypto/md5":      nil,
	"crypto/sha256":   nil,
	"crypto/sha512":   nil,
	"encoding/base32": nil,
	"encoding/base64": nil,
	"encoding/csv":    nil,
	"encoding/hex":    nil,
	"encoding/json":   nil,
	"encoding/xml":    nil,
	"errors":          nil,
	"fmt":             nil, // see fmtKept
	"hash":            nil,
	"hash/adler32":    nil,
	"hash/crc32":      nil,
	"hash/crc64":      nil,
	"hash/fnv":        nil,
	"hash/maphash":    nil,
	"html":            nil,
	"html/template":   {"ParseFS", "ParseFiles", "ParseGlob"},
	"maps":            nil,
	"math":            nil,
	"math/big":        nil,
	"math/bits":       nil,
	"math/rand":       nil,
	"math/rand/v2":    nil,
	"mime":            {"AddExtensionType", "ExtensionsByType", "TypeByExtension"},
	"net/netip":       nil,
	"net/url":         nil,
	"regexp":          nil,
	"slices":          nil,
	"sort":            nil,
	"strconv":         nil,
	"strings":         nil,
	"text/tabwriter":  nil,
	"text/template":   {"ParseFS", "ParseFiles", "ParseGlob"},
	"time":            {"After", "AfterFunc", "NewTicker", "NewTimer", "Sleep", "Tick"},
	"unicode":         nil,
	"unicode/utf16":   nil,
	"unicode/utf8":    nil,
}

// wrapped are the allowed packages a block gets a wrapper of in their
// place, by import path: the wrapper's symbols for the interpreter, its
// source (WrapperFS, under the directory named here) for the compiled
// engine. A template executes with the methods of its data in reach, and
// text/template's and html/template's Template has methods that read
// files (ParseFiles, ParseGlob, ParseFS), which no table can remove.
var wrapped = map[string]struct {
	dir     string
	symbols map[string]reflect.Value
}{
	"text/template": {"wrap/texttemplate", map[string]reflect.Value{
		"Template": reflect.ValueOf((*texttemplate.Template)(nil)),
		"New":      reflect.ValueOf(texttemplate.New),
		"Must":     reflect.ValueOf(texttemplate.Must),
	}},
	"html/template": {"wrap/htmltemplate", map[string]reflect.Value{
		"Template": reflect.ValueOf((*htmltemplate.Template)(nil)),
		"New":      reflect.ValueOf(htmltemplate.New),
		"Must":     reflect.ValueOf(htmltemplate.Must),
	}},
}

// removedMethods are the methods of the wrapped packages' Template that
// their wrappers leave out; the checks name them in any selector of code
// that imports one of those packages, so both engines refuse them alike.
var removedMethods = []string{"ParseFS", "ParseFiles", "ParseGlob"}

// WrapperFS holds the source of the wrappers (see wrapped) and of package
// contextcheck (see contextFuncs), which the compiled engine copies into
// each program.
//
//go:embed wrap/*/*.go
var WrapperFS embed.FS

// Wrapper returns the directory of WrapperFS that holds the wrapper a
// block's code gets for the import path, when it gets one.
func Wrapper(importPath string) (string, bool) {
	w, ok := wrapped[importPath]
	return w.dir, ok
}

// pkgName is the name of an allowed package (rand for math/rand/v2).
func pkgName(importPath string) string {
	for k := range stdlib.Symbols {
		if dir, name := path.Split(k); strings.TrimSuffix(dir, "/") == importPath {
			return name
		}
	}
	return path.Base(importPath)
}

// fmtKept are the symbols of fmt a block can use: formatting to strings,
// byte slices, errors and writers the code holds (no allowed package yields
// a file or a connection), and scanning from strings. Print*, Scan* and
// Fscan* are gone.
var fmtKept = []string{
	"Append", "Appendf", "Appendln", "Errorf", "FormatString",
	"Fprint", "Fprintf", "Fprintln", "Sprint", "Sprintf", "Sprintln",
	"Sscan", "Sscanf", "Sscanln",
	"Formatter", "GoStringer", "ScanState", "Scanner", "State", "Stringer",
}

// genericPackages are the allowed packages that yaegi implements partly as
// interpreted Go source (stdlib/generic), compiled into an interpreter that
// imports any of them, in this order.
var genericPackages = []string{"cmp", "maps", "slices"}

// Packages lists the import paths a go block may use, sorted.
func Packages() []string {
	out := make([]string, 0, len(allowed))
	for p := range allowed {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Allowed reports whether a go block may import the package path.
func Allowed(importPath string) bool {
	_, ok := allowed[importPath]
	return ok
}

// symbols is the filtered symbol table of every allowed package, keyed by
// import path, built once from yaegi's stdlib.Symbols.
var symbols = buildSymbols()

func buildSymbols() map[string]map[string]reflect.Value {
	out := map[string]map[string]reflect.Value{}
	for p, removed := range allowed {
		src, ok := stdlib.Symbols[p+"/"+pkgName(p)]
		if !ok {
			panic("gorun: yaegi has no symbols for the allowed package " + p)
		}
		syms := map[string]reflect.Value{}
		for name, v := range src {
			if p == "fmt" && !keptInFmt(name) {
				continue
			}
			if slices.Contains(removed, name) {
				continue
			}
			syms[name] = v
		}
		for name, v := range wrapped[p].symbols {
			syms[name] = v
		}
		out[p] = syms
	}
	for name, f := range contextFuncs {
		if _, ok := out["context"][name]; !ok {
			panic("gorun: yaegi has no context." + name)
		}
		out["context"][name] = reflect.ValueOf(f)
	}
	// The wrapper types of io's interfaces, and nothing else of io: yaegi
	// wraps an interpreted value in them when the code hands it to
	// compiled code as an io.Writer or io.Reader (fmt.Fprintf with a
	// writer of the block's own, json.NewEncoder). Without them the value
	// is a nil interface inside that code. Their names start with "_", so
	// no block can refer to them, and io itself still cannot be imported.
	io := map[string]reflect.Value{}
	for name, v := range stdlib.Symbols["io/io"] {
		if strings.HasPrefix(name, "_") {
			io[name] = v
		}
	}
	out[wrappersOnly] = io
	// What yaegi's fixStdlib does for math/bits: UintSize of this machine,
	// not of the one that generated the symbols.
	out["math/bits"]["UintSize"] = reflect.ValueOf(constant.MakeInt64(bits.UintSize))
	return out
}

// keptInFmt reports whether the fmt symbol name stays: a listed one, or the
// wrapper type yaegi uses for one of the kept interfaces (_Stringer, …).
func keptInFmt(name string) bool {
	return slices.Contains(fmtKept, strings.TrimPrefix(name, "_"))
}

// exports returns the symbols to give an interpreter whose code imports
// the packages imports (all allowed), with the packages' variables copied
// for that interpreter alone.
//
// The keys are written "dir/./name" rather than yaegi's usual "dir/name":
// Interpreter.Use treats a map holding the key "fmt/fmt" as the standard
// library and then puts fmt.Print, Printf, Println, Scan, Scanf and Scanln
// back, writing to the interpreter's streams. Use splits a key with
// path.Dir and path.Base, which clean the "/.", so the packages are found
// under their real import paths all the same.
func exports(imports []string) interp.Exports {
	ex := interp.Exports{}
	memo := map[uintptr]reflect.Value{}
	for _, p := range imports {
		ex[p+"/./"+pkgName(p)] = ownVariables(symbols[p], memo)
	}
	if genericSources(imports) != nil {
		// The interpreted sources import one another (slices imports cmp).
		for _, p := range genericPackages {
			if _, ok := ex[p+"/./"+p]; !ok {
				ex[p+"/./"+p] = ownVariables(symbols[p], memo)
			}
		}
	}
	// MapTypes tells yaegi which interfaces to wrap interpreted values in
	// when they are passed to fmt.Sprint and the like (so that an
	// interpreted String method is used). It names no symbol.
	ex["."] = stdlib.Symbols["."]
	ex[wrappersOnly+"/./io"] = symbols[wrappersOnly]
	return ex
}

// wrappersOnly is the package whose wrapper types every interpreter gets
// (see buildSymbols); its functions are not there.
const wrappersOnly = "io"

// genericSources returns the interpreted sources of the generic packages to
// compile into an interpreter for the given imports.
func genericSources(imports []string) []string {
	need := false
	for _, p := range imports {
		if slices.Contains(genericPackages, p) {
			need = true
		}
	}
	if !need {
		return nil
	}
	// cmp, maps and slices in this order: slices imports cmp.
	return generic.Sources[:]
}

// PackagesMarkdown is the list of the allowed packages as docs/language.md
// gives it between the markers DocsStart and DocsEnd: a Markdown item per
// package, with the symbols left out of it (go generate writes it there;
// a test checks it).
func PackagesMarkdown() string {
	var b strings.Builder
	for _, p := range Packages() {
		b.WriteString("- `" + p + "`")
		switch removed := allowed[p]; {
		case p == "fmt":
			b.WriteString(": formatting to strings, byte slices, errors and writers the code holds, and `Sscan*`; no `Print*` or `Scan*`")
		case wrapped[p].dir != "":
			b.WriteString(": templates parsed from strings; its functions and methods that read files (`" + strings.Join(removed, "`, `") + "`) are left out")
		case len(removed) > 0:
			b.WriteString(": without `" + strings.Join(removed, "`, `") + "`")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The markers of the list of allowed packages in docs/language.md.
const (
	DocsStart = "<!-- go allowlist: go generate ./blocks/sandbox/gorun -->\n"
	DocsEnd   = "<!-- end of go allowlist -->\n"
)
