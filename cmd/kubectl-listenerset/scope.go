package main

import (
	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
)

// scopeFlags are the server's --scope, --controller-names and
// --unknown-parent on cmd (flags.ScopeFlags: the same names, defaults,
// help and checks), their values completed; reads says where cmd finds the
// Gateways and GatewayClasses.
func scopeFlags(cmd *cobra.Command, reads string) *flags.ScopeFlags {
	s := flags.NewScopeFlags()
	f := cmd.Flags()
	f.Var(s.ModeFlag(), "scope", flags.ScopeUsage(reads))
	f.Var(s.NamesFlag(), "controller-names", flags.ControllerNamesUsage)
	f.Var(s.UnknownFlag(), "unknown-parent", flags.UnknownParentUsage)
	completeValues(cmd, "scope", flags.ScopeModes)
	completeValues(cmd, "unknown-parent", validation.UnknownParents)
	return s
}

// tenancyFlags are the server's --tenant-label, --allowed-hostnames-annotation
// and --first-claim on cmd, with the same names, defaults and help; the
// command calls Check on the result before it judges.
func tenancyFlags(cmd *cobra.Command) *validation.Tenancy {
	t := &validation.Tenancy{}
	f := cmd.Flags()
	f.StringVar(&t.TenantLabel, "tenant-label", "", flags.TenantLabelUsage)
	allowedHostnamesAnnotationFlag(cmd, &t.AllowedHostnamesAnnotation)
	f.Var(flags.FirstClaim(t), "first-claim", flags.FirstClaimUsage)
	completeValues(cmd, "first-claim", validation.ClaimModes)
	return t
}

// allowedHostnamesAnnotationFlag is the server's
// --allowed-hostnames-annotation on cmd, into key; a Tenancy of it checks
// it (Tenancy.Check).
func allowedHostnamesAnnotationFlag(cmd *cobra.Command, key *string) {
	cmd.Flags().StringVar(key, "allowed-hostnames-annotation", validation.DefaultAllowedHostnamesAnnotation,
		flags.AllowedHostnamesAnnotationUsage)
}
