package cli

import (
	"fmt"
	"io"
	"runtime"
)

// versionView renders the version.
type versionView interface{ Version(v string) error }

var (
	_ versionView = versionHuman{}
	_ versionView = versionJSON{}
)

type versionHuman struct{ w io.Writer }

func (h versionHuman) Version(v string) error {
	_, err := fmt.Fprintf(h.w, "flowctl %s (%s %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}

type versionJSON struct{ w io.Writer }

func (j versionJSON) Version(v string) error {
	return writeJSON(j.w, map[string]string{"version": v, "go": runtime.Version()})
}
