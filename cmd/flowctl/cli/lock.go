package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/spf13/cobra"
)

func newLockCommand(s streams) *cobra.Command {
	var a arguments.Lock
	cmd := &cobra.Command{
		Use:   "lock [DIR]",
		Short: "Pin the packages code blocks require in flowctl.lock.hcl",
		Long: `Lock resolves the requirements of every python block under DIR (default: the
current directory) with pip, wheels only, and pins each package's exact
version, SHA-256 and modules in DIR/flowctl.lock.hcl, for version control.
It pins js blocks' packages from the npm registry (npm_config_registry), with
tarball and sha512 integrity, and compiled go blocks' require through the Go
module proxy (GOPROXY), with go.sum's h1: hashes.
Requirements the lock pins already are kept as they are; new ones are
resolved; ones no block declares any more are dropped. Apply installs exactly
what the lock says and never resolves by itself. pip's own configuration
(PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX) says where packages come from.

With --check, lock changes nothing and exits 1 when the lock file is missing,
or out of date: a block's set it lacks, one it has that no block declares, a
python entry locked for another interpreter or platform than this machine's,
or a js or go entry lacking a package its block declares (each named).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			ctx, stop := interruptible()
			defer stop()
			res, diags := project.Lock(ctx, a.Dir, a.Check)
			if diags.HasErrors() {
				return failDiags(nil, diags)
			}
			views.WriteLock(s.out, res.Path, res.Added, res.Kept, res.Removed, res.Problems, res.Written, a.Check)
			if a.Check && res.Stale {
				return exitError{exitFailure}
			}
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
