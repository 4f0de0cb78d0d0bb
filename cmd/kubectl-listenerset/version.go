package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/version"
)

// newVersion is `kubectl listenerset version`, --version as a command, the
// form kubectl's own `kubectl version` has.
func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the Go version (as --version)",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), version.String("kubectl-listenerset"))
		},
	}
}
