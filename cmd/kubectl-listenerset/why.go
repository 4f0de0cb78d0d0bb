package main

import (
	"context"
	"fmt"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
	"github.com/airlock/listenerset-webhook/why"
)

// completionTimeout bounds the list a completion asks the cluster for: a
// shell waits for it.
const completionTimeout = 5 * time.Second

func newWhy(code *int) *cobra.Command {
	var (
		kubeconfig, kubeContext, namespace, format string
		added                                      validation.AddedNames
	)
	var scope *flags.ScopeFlags     // set below, read when the command runs
	var tenancy *validation.Tenancy // likewise
	cmd := &cobra.Command{
		Use:   "why NAMESPACE/NAME [flags]",
		Short: "Explain why one ListenerSet's listeners are, or are not, accepted",
		Long: `Prints, for one ListenerSet of a live cluster, the chain of decisions that
makes each of its listeners what it is, with what each decision read: whose
it is (its Gateway, GatewayClass, controller and the --scope decision; the
class's Accepted condition and ListenerSet support), whether the Gateway's
allowedListeners admits it (the rule, the selector and the Namespace's
labels), and per listener its place in the Gateway's merged list, its
predicted state, what it conflicts or overlaps with and who wins, its owner
and claims, its certificate's Secret (existence and type) and
ReferenceGrant, the HTTPRoutes attached, and the status the controller
reported beside the prediction; then the HTTPRoutes that name the set but
attach to none of its listeners, with the reason.

It reads with your kubeconfig and rights and writes nothing. What it may not
read is named ("could not read HTTPRoutes of all namespaces: forbidden") and
the decisions that need it say unknown; the rest is still told. A Secret is
read (get) only to learn its type; its data is never kept or printed.

NAME alone is looked up in -n, else in the kubeconfig context's namespace.

Exit status: 0 nothing wrong (or the set is another implementation's), 1
something is wrong (a listener predicted not Accepted, a difference with the
reported status, a route naming the set that does not attach, a missing or
non-TLS Secret, a reference no ReferenceGrant permits, a class not accepted
or without ListenerSet support, a missing parent Gateway), 2 the command
could not run (a bad argument, the ListenerSet not found, the cluster
unreachable).`,
		Example: `  kubectl listenerset why team-a/shop
  kubectl listenerset why shop -n team-a -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("why takes one ListenerSet, NAMESPACE/NAME or NAME; got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			kc := why.Kubeconfig{Path: kubeconfig, Context: kubeContext}
			ns, name, err := why.ParseName(args[0], namespace, kc.Namespace)
			if err != nil {
				return err
			}
			f := why.Format(format)
			if f != why.Text && f != why.JSON {
				return fmt.Errorf("-o %q: must be json", format)
			}
			if err := tenancy.Check(); err != nil {
				return err
			}
			cfg, err := kc.RESTConfig()
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = why.ExitCannotRun
				return nil
			}
			c, err := why.NewClient(cfg)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = why.ExitCannotRun
				return nil
			}
			*code = why.Run(cmd.Context(), why.RunOptions{
				Options:   why.Options{Scope: scope.Scope(), Tenancy: *tenancy, AddedNames: added},
				Namespace: ns, Name: name, Client: c, Format: f,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
			return nil
		},
		// The ListenerSets the kubeconfig can list, as namespace/name;
		// quietly nothing when it cannot.
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			cfg, err := why.Kubeconfig{Path: kubeconfig, Context: kubeContext}.RESTConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			c, err := why.NewClient(cfg)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
			defer cancel()
			names, err := why.Names(ctx, c)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
	f := cmd.Flags()
	kubeconfigFlags(cmd, &kubeconfig, &kubeContext, "the kubeconfig to read the cluster with (default: as kubectl finds it); read-only")
	f.StringVarP(&namespace, "namespace", "n", "", "the namespace of NAME (default: the kubeconfig context's)")
	f.StringVarP(&format, "output", "o", "", "output format: json (default: text)")
	f.Var(&added, "add-names", flags.AddedNamesUsage)
	scope = scopeFlags(cmd, "by the parent Gateway's GatewayClass (get on gateways and gatewayclasses)")
	tenancy = tenancyFlags(cmd)
	completeValues(cmd, "output", []why.Format{why.JSON})
	return cmd
}
