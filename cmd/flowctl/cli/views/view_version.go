package views

import (
	"fmt"
	"io"
	"runtime"
)

// Version renders the version.
type Version interface{ Version(v string) error }

var (
	_ Version = versionHuman{}
	_ Version = versionJSON{}
)

// NewVersion returns the version's view: for people, or JSON.
func NewVersion(w io.Writer, jsonOut bool) Version {
	if jsonOut {
		return versionJSON{w}
	}
	return versionHuman{w}
}

type versionHuman struct{ w io.Writer }

func (h versionHuman) Version(v string) error {
	_, err := fmt.Fprintf(h.w, "flowctl %s (%s %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}

type versionJSON struct{ w io.Writer }

func (j versionJSON) Version(v string) error {
	return WriteJSON(j.w, map[string]string{"version": v, "go": runtime.Version()})
}
