package pyrun

import (
	"slices"
	"strings"
)

// Module is an entry of the allowlist: a module python blocks may import.
type Module struct {
	Name string
	// Members, when set, are the only names a block may import from the
	// module (from io import StringIO, BytesIO).
	Members []string
	// Note says what else holds for the module, for the docs.
	Note string
}

// Modules are the standard library modules a python block may import: those
// a data block needs that cannot reach the host. It is the one list: the
// static checks of validate, the runner's import guard, the docs
// (docs/language.md, checked by a test) and the thinker's description of
// the runtime read it.
var Modules = []Module{
	{Name: "json"}, {Name: "math"}, {Name: "cmath"}, {Name: "statistics"}, {Name: "decimal"},
	{Name: "fractions"}, {Name: "random"}, {Name: "re"}, {Name: "string"}, {Name: "textwrap"},
	{Name: "unicodedata"}, {Name: "difflib"}, {Name: "datetime"},
	{Name: "zoneinfo", Note: "with the system's time zone database"},
	{Name: "calendar"}, {Name: "collections"}, {Name: "heapq"}, {Name: "bisect"}, {Name: "array"},
	{Name: "itertools"}, {Name: "functools"}, {Name: "operator"}, {Name: "dataclasses"}, {Name: "enum"},
	{Name: "typing"}, {Name: "copy"}, {Name: "pprint"}, {Name: "csv"}, {Name: "base64"}, {Name: "binascii"},
	{Name: "hashlib"}, {Name: "hmac"}, {Name: "uuid"}, {Name: "html"}, {Name: "urllib.parse"},
	{Name: "ipaddress"},
	{Name: "asyncio", Note: "for async def: no subprocess, network or file APIs"},
	{Name: "io", Members: []string{"StringIO", "BytesIO"}},
}

// asyncioDenied are the names of asyncio a block may not use: they start
// programs, use the network or open files (and the operating system would
// refuse them anyway).
var asyncioDenied = []string{
	"create_subprocess_exec", "create_subprocess_shell", "subprocess",
	"open_connection", "start_server", "open_unix_connection", "start_unix_server",
	"StreamReader", "StreamWriter", "streams", "base_subprocess", "unix_events", "sslproto",
}

// runnerModules are the modules the runner itself imports, besides the
// allowlist's: the interpreter reads them too.
var runnerModules = []string{"_json", "json", "signal", "resource", "ctypes", "_thread", "asyncio", "builtins"}

// moduleNames are the names of the modules of the allowlist that a block
// imports whole (not io, whose members are listed).
func moduleNames() []string {
	var names []string
	for _, m := range Modules {
		if m.Members == nil {
			names = append(names, m.Name)
		}
	}
	return names
}

// members maps the modules whose members are listed to them.
func members() map[string][]string {
	out := map[string][]string{}
	for _, m := range Modules {
		if m.Members != nil {
			out[m.Name] = m.Members
		}
	}
	return out
}

// Allowed reports whether a block may import module (import module), or
// the given names from it (from module import names): a module of the
// list, a submodule of one (but asyncio's), a member of a module whose
// members are listed, or a listed submodule named in a from import (from
// urllib import parse).
func Allowed(module string, names []string) bool {
	for _, m := range Modules {
		if m.Name != module {
			continue
		}
		if m.Members != nil {
			return len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(m.Members, n) })
		}
		return module != "asyncio" || !slices.ContainsFunc(names, func(n string) bool { return slices.Contains(asyncioDenied, n) })
	}
	if top, _, ok := strings.Cut(module, "."); ok && top != "asyncio" {
		for _, m := range Modules {
			if m.Name == top && m.Members == nil {
				return true
			}
		}
	}
	if len(names) == 0 {
		return false
	}
	for _, n := range names {
		if !slices.ContainsFunc(Modules, func(m Module) bool { return m.Name == module+"."+n && m.Members == nil }) {
			return false
		}
	}
	return true
}

// Listing is the allowlist as a sentence's list: "json, math, …, asyncio
// (for async def: …), io.StringIO and io.BytesIO".
func Listing() string {
	var parts []string
	for _, m := range Modules {
		switch {
		case m.Members != nil:
			for _, n := range m.Members {
				parts = append(parts, m.Name+"."+n)
			}
		default:
			parts = append(parts, m.Name)
		}
	}
	return strings.Join(parts, ", ")
}
