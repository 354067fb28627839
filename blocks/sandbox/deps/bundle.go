package deps

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/flowctl/flowctl/lang"
)

// BundleBanner starts every bundle: the one program a js block with
// packages runs, its source and its packages together.
const BundleBanner = "// flowctl bundle\n"

// BundleName is the name a block's own code has in a bundle's source map,
// and so in the stack frames of a bundle's errors.
const BundleName = "block.js"

// bundleGlobal holds the block's module in a bundle; execute is taken
// from it.
const bundleGlobal = "__flowctl_block"

// bundleFormat changes when bundles are made differently: bundles of an
// older format are not reused.
const bundleFormat = "2"

// bundles are the bundles made or read by this process, by their key.
var bundles sync.Map // file → string

// Bundle returns the program of a js block with packages: its source and
// the packages it imports, bundled by esbuild into one script for goja
// (platform neutral, no Node built-ins, the block's execute a global),
// with an inline source map that names the block's lines BundleName. The
// entry's packages are installed first when the cache lacks them
// (InstallJS); a bundle is kept in the cache under the hash of the entry
// and the source, and made once.
func Bundle(ctx context.Context, e *JSEntry, source string) (string, error) {
	root, err := cacheRoot("js-bundles")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", bundleFormat, e.Hash(), source)
	key := hex.EncodeToString(h.Sum(nil)[:16])
	file := filepath.Join(root, key+".js")
	if b, ok := bundles.Load(file); ok {
		return b.(string), nil
	}
	if b, err := os.ReadFile(file); err == nil && strings.HasPrefix(string(b), BundleBanner) {
		bundles.Store(file, string(b))
		return string(b), nil
	}
	dir, err := InstallJS(ctx, e)
	if err != nil {
		return "", err
	}
	code, err := bundle(dir, source+"\n;export { execute };\n", e.Packages, true)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err == nil {
		lang.WriteFileAtomic(file, []byte(code)) // a cache: a bundle not kept is made again
	}
	bundles.Store(file, code)
	return code, nil
}

// checkPackages bundles the declared packages' entry points alone: a
// package that needs what goja has not (Node's built-in modules) is
// refused when it is locked rather than when a block first runs.
func checkPackages(dir string, pkgs map[string]string) error {
	var entry strings.Builder
	for _, name := range sortedNames(pkgs) {
		fmt.Fprintf(&entry, "import %q;\n", name)
	}
	_, err := bundle(dir, entry.String(), pkgs, false)
	return err
}

// BuiltinError is a package that imports one of Node's built-in modules,
// which goja has not: Chain is the imports from the block to it.
type BuiltinError struct {
	Module string
	Chain  []string
}

func (e *BuiltinError) Error() string {
	who := e.Chain[len(e.Chain)-1]
	if i := strings.LastIndex(who, "node_modules/"); i >= 0 {
		who = "package " + strconv.Quote(lang.PackageOfImport(who[i+len("node_modules/"):]))
	}
	return fmt.Sprintf("%s needs Node's built-in module %q (%s), which a js block does not have: it runs on goja, without a file system, network or processes; choose a package that does not need Node",
		who, e.Module, strings.Join(append(slices.Clone(e.Chain), e.Module), " → "))
}

// resolving marks esbuild's own resolution, asked from the plugin.
type resolving struct{}

// bundle runs esbuild on an entry's text in a package tree: the entry may
// import only the declared packages, every path must resolve inside the
// tree, and a Node built-in is refused with the chain of imports to it.
// withBlock: the entry is a block's source, made a script that defines
// execute.
func bundle(dir, entry string, pkgs map[string]string, withBlock bool) (string, error) {
	var mu sync.Mutex
	parent := map[string]string{}
	builtins := map[string]*BuiltinError{}          // by module
	blockImporter := filepath.Join(dir, BundleName) // esbuild's name of the entry
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return p
	}
	chain := func(from string) []string {
		var out []string
		for p, n := from, 0; p != "" && n < 100; p, n = parent[p], n+1 {
			out = append([]string{rel(p)}, out...)
		}
		return out
	}
	guard := api.Plugin{Name: "flowctl", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if _, ok := args.PluginData.(resolving); ok {
				return api.OnResolveResult{}, nil
			}
			if args.Importer == blockImporter {
				if name := lang.PackageOfImport(args.Path); name == "" || pkgs[name] == "" {
					return api.OnResolveResult{}, fmt.Errorf("%s imports %q, which its packages argument does not declare", BundleName, args.Path)
				}
			}
			// node:events is the polyfill of events, when the tree has it.
			asked := args.Path
			if m := strings.TrimPrefix(args.Path, "node:"); m != args.Path && polyfills[m].name != "" {
				args.Path = m
			}
			res := b.Resolve(args.Path, api.ResolveOptions{Importer: args.Importer, ResolveDir: args.ResolveDir, Kind: args.Kind, Namespace: "file", PluginData: resolving{}})
			mu.Lock()
			defer mu.Unlock()
			if len(res.Errors) > 0 {
				text := res.Errors[0].Text
				for _, n := range res.Errors[0].Notes {
					text += " " + n.Text
				}
				if strings.Contains(text, "built into node") || strings.HasPrefix(args.Path, "node:") {
					err := &BuiltinError{Module: args.Path, Chain: chain(args.Importer)}
					if len(err.Chain) < 2 {
						err.Chain = append(err.Chain, rel(args.Importer))
					}
					if _, ok := builtins[asked]; !ok {
						builtins[asked] = err
					}
					// esbuild's own resolution fails too: an error, unless
					// the require is inside a try, which the package
					// expects to throw (it then does, at run time).
					return api.OnResolveResult{}, nil
				}
				return api.OnResolveResult{}, fmt.Errorf("%s: %s", rel(args.Importer), text)
			}
			if r, err := filepath.Rel(dir, res.Path); res.External || err != nil || strings.HasPrefix(r, "..") {
				return api.OnResolveResult{}, fmt.Errorf("%s imports %q, which is not in its packages", rel(args.Importer), args.Path)
			}
			if _, ok := parent[res.Path]; !ok {
				parent[res.Path] = args.Importer
			}
			return api.OnResolveResult{Path: res.Path, Namespace: res.Namespace}, nil
		})
	}}
	opts := api.BuildOptions{
		Stdin:          &api.StdinOptions{Contents: entry, ResolveDir: dir, Sourcefile: BundleName, Loader: api.LoaderJS},
		AbsWorkingDir:  dir,
		Bundle:         true,
		Write:          false,
		Platform:       api.PlatformNeutral,
		MainFields:     []string{"module", "main"},
		Format:         api.FormatIIFE,
		Target:         api.ES2017,
		LogLevel:       api.LogLevelSilent,
		Outfile:        filepath.Join(dir, "bundle.js"),
		Sourcemap:      api.SourceMapInline,
		SourcesContent: api.SourcesContentExclude,
		Charset:        api.CharsetUTF8,
		Plugins:        []api.Plugin{guard},
		// Node's global object, as browser bundlers give it to packages.
		Define: map[string]string{"global": "globalThis"},
	}
	if withBlock {
		opts.GlobalName = bundleGlobal
		opts.Banner = map[string]string{"js": strings.TrimSuffix(BundleBanner, "\n")}
		opts.Footer = map[string]string{"js": "var execute = " + bundleGlobal + ".execute;"}
	}
	res := api.Build(opts)
	for _, m := range res.Errors {
		for module, err := range builtins {
			if strings.Contains(m.Text, strconv.Quote(module)) {
				return "", err
			}
		}
	}
	if len(res.Errors) > 0 {
		return "", bundleError(res.Errors[0])
	}
	if len(res.OutputFiles) != 1 {
		return "", fmt.Errorf("esbuild wrote %d files", len(res.OutputFiles))
	}
	return string(res.OutputFiles[0].Contents), nil
}

// BundleError is esbuild's error in a block's code: Line and Column are
// in the source (0 when unknown).
type BundleError struct {
	Line, Column int
	Text         string
}

func (e *BundleError) Error() string { return e.Text }

var pluginPrefix = regexp.MustCompile(`^\[plugin flowctl\] `)

func bundleError(m api.Message) error {
	e := &BundleError{Text: pluginPrefix.ReplaceAllString(m.Text, "")}
	if m.Location != nil && m.Location.File == BundleName {
		e.Line, e.Column = m.Location.Line, m.Location.Column+1
	}
	return e
}

// Imports are the paths a js block's source imports (import statements
// and require calls), read by esbuild without resolving them; an error
// is a BundleError at the source's line.
func Imports(source string) ([]string, error) {
	var mu sync.Mutex
	var paths []string
	plugin := api.Plugin{Name: "flowctl", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			mu.Lock()
			paths = append(paths, args.Path)
			mu.Unlock()
			return api.OnResolveResult{Path: args.Path, External: true}, nil
		})
	}}
	res := api.Build(api.BuildOptions{
		Stdin:    &api.StdinOptions{Contents: source + "\n;export { execute };\n", Sourcefile: BundleName, Loader: api.LoaderJS},
		Bundle:   true,
		Write:    false,
		Platform: api.PlatformNeutral,
		Format:   api.FormatESModule,
		LogLevel: api.LogLevelSilent,
		Plugins:  []api.Plugin{plugin},
	})
	if len(res.Errors) > 0 {
		return nil, bundleError(res.Errors[0])
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}
