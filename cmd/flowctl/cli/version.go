package cli

import (
	"runtime/debug"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/spf13/cobra"
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/flowctl/flowctl/cmd/flowctl/cli.Version=v1.2.3".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newVersionCommand(s streams) *cobra.Command {
	var a arguments.Version
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the flowctl version",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return views.NewVersion(s.out, a.JSON).Version(version())
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
