package cli

import (
	"context"
	"io"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// openStore opens the state in dir, or the database of a postgres://
// URL, as the flags of a command that runs flows (plan, apply, watch,
// worker, serve, mcp) say: whether it may upgrade its schema, and how
// long it waits for it when it stops answering. When it makes the state
// directory it says where on w (openRunState).
func openStore(w io.Writer, f *arguments.Store, dir string) (*state.Store, error) {
	return openRunState(w, dir, state.Options{Migrate: f.Migrate, Wait: f.Wait})
}

func newStateCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Manage the state: upgrade a shared database's schema",
	}
	cmd.AddCommand(newStateMigrateCommand(s))
	return cmd
}

func newStateMigrateCommand(s streams) *cobra.Command {
	var a arguments.StateMigrate
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Upgrade the schema of the state to this flowctl's",
		Long: `Migrate upgrades the schema of a shared PostgreSQL state (--state
postgres://…, or ` + project.EnvState + `) to this flowctl's version, in one
transaction. A flowctl refuses to open a shared state whose schema is older
than its own, so that no process upgrades it by chance: upgrade it with this
command, or --migrate, once every flowctl that uses it is of this version or
newer (an older one refuses the upgraded schema). --dry-run prints the SQL it
would run and changes nothing. A SQLite state (a directory) is upgraded
whenever it is opened; migrate opens it and says its version.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			dir, dryRun := project.State(a.State, "."), a.DryRun
			if !state.IsURL(dir) {
				if !dirExists(dir) {
					return failf("No state", "There is no state in %s: name it with --state DIR or a postgres:// URL.", dir)
				}
				st, err := openStateDir(dir)
				if err != nil {
					return err
				}
				st.Close()
				views.WriteStateVersion(s.out, dir, state.SchemaVersion())
				return nil
			}
			shown := state.RedactURL(dir)
			m, err := state.MigrateURL(context.Background(), dir, dryRun)
			if err != nil {
				return failf("Cannot migrate the state", "The state database %s cannot be migrated: %s.", shown, strings.TrimRight(err.Error(), "."))
			}
			views.WriteMigration(s.out, shown, m, dryRun)
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
