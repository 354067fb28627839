package views

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"
)

// Import renders the result of import: the files written, the
// secrets to set and what else to do, or the diagnostics that stopped it:
// problems of the sources (Failed), or files it would not replace
// (Refused).
type Import interface {
	Written(files map[string]*hcl.File, diags hcl.Diagnostics, written []importer.Written, res *importer.Result) error
	Failed(files map[string]*hcl.File, diags hcl.Diagnostics) error
	Refused(files map[string]*hcl.File, diags hcl.Diagnostics) error
}

var (
	_ Import = importHuman{}
	_ Import = importJSON{}
)

// NewImport returns the view of import: JSON on out, or for people the
// files and next steps on out and the diagnostics on errw, in colour with
// errColor. partial is import's --partial.
func NewImport(out, errw io.Writer, errColor, jsonOut, partial bool) Import {
	if jsonOut {
		return importJSON{out}
	}
	return importHuman{out, errw, errColor, partial}
}

// importHuman prints the diagnostics with their snippets on stderr, and
// the files and next steps on stdout.
type importHuman struct {
	out, err io.Writer
	color    bool
	partial  bool
}

func (v importHuman) Written(files map[string]*hcl.File, diags hcl.Diagnostics, written []importer.Written, res *importer.Result) error {
	WriteDiagnostics(v.err, v.color, files, diags)
	for _, w := range written {
		if w.Unchanged {
			fmt.Fprintf(v.out, "Unchanged %s\n", w.Path)
		} else {
			fmt.Fprintf(v.out, "Wrote %s\n", w.Path)
		}
	}
	if len(res.Secrets) > 0 {
		fmt.Fprintln(v.out, "\nSet these secrets before a run (their values are not in the files):")
		for _, sec := range res.Secrets {
			fmt.Fprintf(v.out, "  %s  %s (secret.%s of flow %s)\n", sec.Env, sec.For, sec.Name, sec.Flow)
		}
	}
	if len(res.Next) > 0 {
		fmt.Fprintln(v.out, "\nThen:")
		for _, n := range res.Next {
			fmt.Fprintf(v.out, "  %s\n", n)
		}
	}
	if len(written) > 0 {
		fmt.Fprintf(v.out, "\nNext: flowctl validate %s, then flowctl plan on each flow.\n", filepath.Dir(written[0].Path))
	}
	if errs, _ := CountDiags(diags); errs > 0 {
		// --partial: the files that could not be converted at all.
		fmt.Fprintf(v.err, "The other files were written; %s kept the files they concern from being written.\n", Plural(errs, "error", "errors"))
		return ErrReported
	}
	return nil
}

func (v importHuman) Failed(files map[string]*hcl.File, diags hcl.Diagnostics) error {
	WriteDiagnostics(v.err, v.color, files, diags)
	errs, warns := CountDiags(diags)
	fmt.Fprintf(v.err, "Nothing written: %s, %s.", Plural(errs, "error", "errors"), Plural(warns, "warning", "warnings"))
	if !v.partial {
		fmt.Fprint(v.err, " With --partial the flows are written, each part that could not be converted a step that fails with its message.")
	}
	fmt.Fprintln(v.err)
	return ErrReported
}

// Refused says which files import would not replace; nothing was
// written.
func (v importHuman) Refused(files map[string]*hcl.File, diags hcl.Diagnostics) error {
	WriteDiagnostics(v.err, v.color, files, diags)
	errs, warns := CountDiags(diags)
	fmt.Fprintf(v.err, "Nothing written: %s, %s.", Plural(errs, "error", "errors"), Plural(warns, "warning", "warnings"))
	for _, d := range diags {
		if d.Summary == importer.FileExistsSummary {
			fmt.Fprint(v.err, " With --force import replaces the files that exist.")
			break
		}
	}
	fmt.Fprintln(v.err)
	return ErrReported
}

// importJSON prints one object: the files written (none when it failed),
// the secrets, the next steps and the diagnostics, each with the place in
// its source file.
type importJSON struct{ w io.Writer }

type importJSONResult struct {
	FormatVersion string                 `json:"format_version"`
	Written       bool                   `json:"written"`
	Files         []string               `json:"files"`
	Secrets       []importJSONSecret     `json:"secrets"`
	Next          []string               `json:"next"`
	Diagnostics   []importJSONDiagnostic `json:"diagnostics"`
}

type importJSONSecret struct {
	Flow string `json:"flow"`
	Name string `json:"name"`
	Env  string `json:"env"`
	For  string `json:"for"`
}

type importJSONDiagnostic struct {
	diagjson.Diagnostic
	Source *importer.Origin `json:"source,omitempty"`
}

func (v importJSON) write(files map[string]*hcl.File, diags hcl.Diagnostics, written []importer.Written, res *importer.Result) error {
	out := importJSONResult{FormatVersion: diagjson.FormatVersion, Written: res != nil,
		Files: []string{}, Secrets: []importJSONSecret{}, Next: []string{}, Diagnostics: []importJSONDiagnostic{}}
	for _, w := range written {
		out.Files = append(out.Files, w.Path)
	}
	if res != nil {
		for _, s := range res.Secrets {
			out.Secrets = append(out.Secrets, importJSONSecret(s))
		}
		out.Next = append(out.Next, res.Next...)
	}
	for _, d := range diags {
		jd := importJSONDiagnostic{Diagnostic: diagjson.NewDiagnostic(files, d)}
		if o, ok := d.Extra.(importer.Origin); ok {
			jd.Source = &o
		}
		out.Diagnostics = append(out.Diagnostics, jd)
	}
	enc := json.NewEncoder(v.w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (v importJSON) Written(files map[string]*hcl.File, diags hcl.Diagnostics, written []importer.Written, res *importer.Result) error {
	if err := v.write(files, diags, written, res); err != nil || !diags.HasErrors() {
		return err
	}
	return ErrReported
}

func (v importJSON) Failed(files map[string]*hcl.File, diags hcl.Diagnostics) error {
	if err := v.write(files, diags, nil, nil); err != nil {
		return err
	}
	return ErrReported
}

func (v importJSON) Refused(files map[string]*hcl.File, diags hcl.Diagnostics) error {
	return v.Failed(files, diags)
}
