package deps

import (
	"errors"
	"path"
	"strings"
)

// polyfill is the npm package that gives a Node built-in module to a
// bundle, as browser bundlers give it (browserify, webpack 4): it is
// locked like any package, its version and integrity pinned, and
// installed at node_modules/MODULE (npm's alias, "MODULE": "npm:NAME@RANGE"),
// where the packages that require the built-in find it.
type polyfill struct{ name, rng string }

// polyfills are the built-in modules flowctl lock resolves to a package:
// ones that are plain JavaScript over what goja has. A built-in not here
// (fs, net, child_process, ...) is refused; so is stream, whose
// polyfill (stream-browserify, readable-stream) needs util.
var polyfills = map[string]polyfill{
	"buffer":         {"buffer", "^6.0.3"},
	"events":         {"events", "^3.3.0"},
	"string_decoder": {"string_decoder", "^1.3.0"},
	"timers":         {"timers-browserify", "^2.0.12"},
}

// polyfillFor is the polyfill of the built-in a lock's check refused, and
// the module it is installed as; ok is false when it has none or the tree
// holds that module already (the refusal then stands).
func polyfillFor(err error, byPath map[string]*JSPackage) (string, polyfill, bool) {
	var be *BuiltinError
	if !errors.As(err, &be) {
		return "", polyfill{}, false
	}
	module := strings.TrimPrefix(be.Module, "node:")
	p, ok := polyfills[module]
	if !ok {
		return "", polyfill{}, false
	}
	if _, there := byPath[path.Join("node_modules", module)]; there {
		return "", polyfill{}, false
	}
	return module, p, true
}

// aliasOK says whether a package may be at path under another name: a
// polyfill installed as its built-in module.
func aliasOK(p *JSPackage, clean string) bool {
	module := path.Base(clean)
	pf, ok := polyfills[module]
	return ok && pf.name == p.Name && strings.HasSuffix(clean, "node_modules/"+module)
}
