package main

import (
	"fmt"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
	"github.com/airlock/listenerset-webhook/listing"
)

func newListeners(code *int) *cobra.Command {
	var (
		paths                               []string
		kubeconfig, kubeContext, gw, format string
		added                               validation.AddedNames
	)
	var scope *flags.ScopeFlags     // set below, read when the command runs
	var tenancy *validation.Tenancy // likewise
	cmd := &cobra.Command{
		Use:   "listeners (-f PATH... | --kubeconfig FILE) [flags]",
		Short: "Print each Gateway's merged listener list and each listener's state",
		Long: `Prints each Gateway's merged listener list as Gateway API says an
implementation must build it (the Gateway's own listeners, then its
ListenerSets oldest first, then by namespace/name), one row per listener with
its state: Accepted, Conflicted (HostnameConflict, ProtocolConflict),
NotAllowed (allowedListeners), Invalid (kube-apiserver with the webhook
would refuse the set) or Unknown. The states are the webhook's cluster-aware
checks' own.

From manifests, Gateways, ListenerSets and Namespaces are read and judged as
validate reads and judges them (a set validate finds invalid is Invalid); a
ListenerSet without creationTimestamp counts as not created yet. From a
cluster, Gateways, ListenerSets and Namespaces are listed (read-only), and
GatewayClasses: only Airlock Microgateway's Gateways are shown (--scope=class,
the default, as the webhook's), and a line on stderr counts the others. From a
cluster each listener also shows what its stored status reports (REPORTED:
state/reason, from the ListenerSet's status, or the Gateway's for its own
listeners) and DIFFERENCE: Differs where that is not the prediction,
NotReported where the controller reported nothing; -o wide's MESSAGE says
how.

Exit status: 0 listed, 1 --gateway not found, 2 input unreadable, cluster
unreachable, or a bad command line.`,
		Example: `  kubectl listenerset listeners -f manifests/
  kubectl listenerset listeners --kubeconfig ~/.kube/config --gateway infra/gw -o wide`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 0:
				return fmt.Errorf("unexpected arguments %q: name inputs with -f", args)
			case len(paths) == 0 && kubeconfig == "":
				return fmt.Errorf("listeners needs -f PATH or --kubeconfig FILE")
			case len(paths) > 0 && kubeconfig != "":
				return fmt.Errorf("-f and --kubeconfig exclude each other")
			case gw != "" && !listing.ValidGatewayName(gw):
				return fmt.Errorf("--gateway %q: must be namespace/name", gw)
			}
			if err := tenancy.Check(); err != nil {
				return err
			}
			opts := listing.Options{Paths: paths, Stdin: cmd.InOrStdin(), Gateway: gw, AddedNames: added, Scope: scope.Scope(), Tenancy: *tenancy,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
			switch f := listing.Format(format); f {
			case listing.Table, listing.Wide, listing.JSON:
				opts.Format = f
			default:
				return fmt.Errorf("-o %q: must be wide or json", format)
			}
			if kubeconfig != "" {
				cfg, err := listing.RESTConfig(kubeconfig, kubeContext)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
					*code = listing.ExitInputError
					return nil
				}
				opts.RESTConfig = cfg
			}
			*code = listing.Run(cmd.Context(), opts)
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	f := cmd.Flags()
	filenameFlag(cmd, &paths)
	kubeconfigFlags(cmd, &kubeconfig, &kubeContext, "list the cluster this kubeconfig reaches instead of manifests (read-only)")
	f.StringVar(&gw, "gateway", "", "only this Gateway, as namespace/name")
	f.StringVarP(&format, "output", "o", "", "output format: wide or json (default: a table)")
	f.Var(&added, "add-names", flags.AddedNamesUsage)
	scope = scopeFlags(cmd, "a Gateway of another class is left out; by the GatewayClasses of the input or cluster (list on gatewayclasses)")
	tenancy = tenancyFlags(cmd)
	completeValues(cmd, "output", []listing.Format{listing.Wide, listing.JSON})
	return cmd
}

// kubeconfigFlags are kubectl's --kubeconfig and --context, the contexts
// of the kubeconfig given completed.
func kubeconfigFlags(cmd *cobra.Command, kubeconfig, kubeContext *string, usage string) {
	cmd.Flags().StringVar(kubeconfig, "kubeconfig", "", usage)
	cmd.Flags().StringVar(kubeContext, "context", "", "the kubeconfig context to use (default: its current context)")
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		names, err := listing.Contexts(*kubeconfig)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}
