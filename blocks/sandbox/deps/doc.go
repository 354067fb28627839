// Package deps resolves, locks, installs and caches the packages code
// blocks declare (docs/language.md, "Dependencies"; docs/runtime.md,
// "Packages").
//
// A python block's requirements are resolved by pip itself, with pip's own
// configuration (PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX, pip.conf),
// to wheels only: no package's build code runs on this machine. Lock
// writes flowctl.lock.hcl beside the flows: one entry a distinct set of
// requirements, with each package's exact version, the SHA-256 of its
// wheel, the top-level modules it provides, and the interpreter and
// platform it was locked for. Install puts exactly what an entry says into
// an environment directory of the user's cache, keyed by the entry's hash
// and shared across projects, with pip's --require-hashes (a wheel whose
// hash differs is refused) and --no-deps (nothing is resolved at install);
// an environment that is there already needs no network and no pip. The
// environment is made read-only; the python worker reads it, through its
// confinement, and nothing else changes (package pyrun).
//
// A js block's packages are resolved against the npm registry
// (npm_config_registry) with their dependencies, laid out as npm lays out
// node_modules, and pinned with each tarball's URL and sha512 integrity
// (npm.go); InstallJS unpacks an entry's checked tarballs read-only into
// the cache, and Bundle makes a block's source and its packages one
// program for goja with esbuild (bundle.go), refusing imports of Node's
// built-in modules with the chain that leads to them. A compiled go
// block's require is resolved by the go command through the module proxy
// (GOPROXY) into every module of its build list with go.sum's hashes
// (golock.go); package gobuild builds with a go.mod and go.sum written
// from the entry.
//
// Nothing here runs inside the sandbox, and nothing runs package code:
// pip only downloads, checks and unpacks wheels.
package deps
