package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

func newFmtCommand(s streams) *cobra.Command {
	var a arguments.Fmt
	cmd := &cobra.Command{
		Use:   "fmt [PATH...]",
		Short: "Rewrite flow and block files in canonical style",
		Long: `Fmt rewrites every *.hcl file under the paths (default: the current
directory), recursively, in canonical HCL style and lists the files it changed.
With --check it changes nothing, lists the files that would change and exits 1
if there are any. With --diff it also prints the changes as a unified diff.
The path - formats standard input to standard output.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return runFmt(s, a.Paths, a.Check, a.Diff)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runFmt(s streams, paths []string, check, diff bool) error {
	parser := lang.NewParser()
	var diags hcl.Diagnostics
	changed := 0
	var files []string
	for _, p := range paths {
		if p == "-" {
			src, err := io.ReadAll(s.in)
			if err != nil {
				return err
			}
			out, d := lang.Format(src, "<stdin>")
			if d.HasErrors() {
				parser.ParseSource(src, "<stdin>")
				diags = append(diags, d...)
				continue
			}
			if check && !bytes.Equal(src, out) {
				changed++
			}
			if diff {
				views.WriteDiff(s.out, "<stdin>", src, out)
			} else if !check {
				s.out.Write(out)
			}
			continue
		}
		found, d := project.Find([]string{p}, isHCLFile)
		diags = append(diags, d...)
		files = append(files, found...)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			diags = append(diags, pathError(name, err))
			continue
		}
		out, d := lang.Format(src, name)
		if d.HasErrors() {
			parser.ParseSource(src, name)
			diags = append(diags, d...)
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		changed++
		fmt.Fprintln(s.out, name)
		if diff {
			views.WriteDiff(s.out, name, src, out)
		}
		if !check {
			if err := writeFileAtomic(name, out); err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Cannot write file",
					Detail:   fmt.Sprintf("The formatted %s could not be written: %s.", name, err),
				})
			}
		}
	}
	diags = compiler.Normalize(diags)
	writeHumanDiagnostics(s.err, parser.Files(), diags)
	if diags.HasErrors() || (check && changed > 0) {
		return exitError{exitFailure}
	}
	return nil
}

// writeFileAtomic replaces a file's content through a temporary file and a
// rename, keeping its permissions, so that an interrupted write loses
// nothing. A file that does not exist is created (0644), with its
// directory.
func writeFileAtomic(name string, data []byte) error {
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target // rewrite the file a link points to, keep the link
	}
	perm := os.FileMode(0o644)
	switch info, err := os.Stat(name); {
	case err == nil:
		perm = info.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
	default:
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
