package main

import (
	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/validation"
)

// scopeFlags are the server's --scope, --controller-names and
// --unknown-parent on cmd (validation.ScopeFlags: the same names, defaults,
// help and checks), their values completed; reads says where cmd finds the
// Gateways and GatewayClasses.
func scopeFlags(cmd *cobra.Command, reads string) *validation.ScopeFlags {
	s := validation.NewScopeFlags()
	f := cmd.Flags()
	f.Var(s.ModeFlag(), "scope", validation.ScopeUsage(reads))
	f.Var(s.NamesFlag(), "controller-names", validation.ControllerNamesUsage)
	f.Var(s.UnknownFlag(), "unknown-parent", validation.UnknownParentUsage)
	completeValues(cmd, "scope", validation.ScopeModes)
	completeValues(cmd, "unknown-parent", validation.UnknownParents)
	return s
}
