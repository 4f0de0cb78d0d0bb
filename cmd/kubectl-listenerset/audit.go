package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/offline/policyreport"
	"github.com/airlock/listenerset-webhook/offline/report"
)

func newAudit(code *int) *cobra.Command {
	var (
		kubeconfig, kubeContext, namespace, gw, format string
		strict, secrets, printRBAC, reports            bool
		exitOnFindings                                 bool
		added                                          validation.AddedNames
	)
	var scope *flags.ScopeFlags     // set below, read when the command runs
	var tenancy *validation.Tenancy // likewise
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig FILE] [flags]",
		Short: "Judge the ListenerSets a cluster stores, each as a create of it would be judged",
		Long: `Lists a live cluster (read-only) and judges every stored
gateway.networking.k8s.io/v1 ListenerSet (or those of --namespace, or of
--gateway) with the webhook's rules and cluster-aware checks, each as a create
of it would be judged: nothing is ratcheted, so the report shows what an
update lets through as warnings. The Gateways, ListenerSets, ReferenceGrants
and Namespaces of the whole cluster are its context (with --secrets also
Secrets' metadata). As the webhook with --scope=class (the default), only
the sets whose parent Gateway's GatewayClass names one of --controller-names
are judged; the others have no findings, and a line on stderr counts them.
kube-apiserver applied the CRD when each object was written; it is not
applied again. HTTPRoutes whose parentRef names a judged ListenerSet (or one
that does not exist) but attach to none of its listeners are reported too,
as warnings with the reason their status will carry (routes whose parent is
a Gateway are not looked at). Each listener of a judged set whose stored
status differs from what listeners predicts is a warning LS017, each of
which the controller reported nothing (no entry, the CRD's Pending, an older
generation) LS018. The output formats are validate's.
With --write-reports it also writes one wgpolicyk8s.io PolicyReport per
namespace (its only write), for policy-reporter and the like.

RBAC: it needs only these permissions (--print-rbac prints them as a ClusterRole):
  ` + strings.Join(live.DescribeRules(live.RBACRules(false, true)), "\n  ") + `
(gatewayclasses not with --scope=all), and with --secrets also list on
secrets (core); --write-reports also
  ` + strings.Join(live.DescribeRules(policyreport.RBACRules()), "\n  ") + `

Exit status: 0 all valid (or none found), 1 some invalid, 2 the cluster
unreachable or not listable, the PolicyReports not written, or a bad command
line. With --exit-code-on-findings=false (the chart's CronJob) invalid
ListenerSets exit 0 too: the findings are in the output and the reports, and
only a run that failed exits non-zero.`,
		Example: `  kubectl listenerset audit
  kubectl listenerset audit --kubeconfig ~/.kube/config --context prod -o sarif > audit.sarif
  kubectl listenerset audit --gateway infra/shared --strict
  kubectl listenerset audit --print-rbac | kubectl apply -f -
  kubectl listenerset audit -o jsonl --write-reports`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 0:
				return fmt.Errorf("unexpected arguments %q", args)
			case printRBAC:
				return printRoles(cmd.OutOrStdout(), secrets, scope.Scope().On(), reports)
			case !slices.Contains(report.Formats, report.Format(format)):
				return fmt.Errorf("-o %q: must be one of %s", format, report.FormatList())
			case gw != "" && !listing.ValidGatewayName(gw):
				return fmt.Errorf("--gateway %q: must be namespace/name", gw)
			case gw != "" && reports:
				return fmt.Errorf("--write-reports with --gateway: a namespace's report holds all of its ListenerSets")
			}
			if err := tenancy.Check(); err != nil {
				return err
			}
			cfg, err := listing.RESTConfig(kubeconfig, kubeContext)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = report.ExitInputError
				return nil
			}
			*code = live.Audit(cmd.Context(), cfg, live.Options{
				Namespace: namespace, Gateway: gw, Secrets: secrets, Reports: reports, Judge: judge.Options{Strict: strict, AddedNames: added, Scope: scope.Scope(), Tenancy: *tenancy},
				Format: report.Format(format), NoFindingsExit: !exitOnFindings, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
			})
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	f := cmd.Flags()
	kubeconfigFlags(cmd, &kubeconfig, &kubeContext, "the kubeconfig of the cluster to audit (default: as kubectl finds one, $KUBECONFIG or ~/.kube/config)")
	f.StringVarP(&namespace, "namespace", "n", "", "only the ListenerSets of this namespace (the context is still the whole cluster)")
	f.StringVar(&gw, "gateway", "", "only the ListenerSets attached to this Gateway, as namespace/name")
	f.StringVarP(&format, "output", "o", string(report.Text), "output format: "+strings.ReplaceAll(report.FormatList(), "|", ", ")+" (as validate's)")
	strictFlag(cmd, &strict)
	f.Var(&added, "add-names", flags.AddedNamesUsage)
	scope = scopeFlags(cmd, "by the cluster's Gateways and GatewayClasses (list on gatewayclasses)")
	tenancy = tenancyFlags(cmd)
	f.BoolVar(&secrets, "secrets", false, "also list Secrets' metadata, to check that each certificateRef's Secret exists (needs list on secrets)")
	f.BoolVar(&reports, "write-reports", false, "also write a "+policyreport.Group+"/"+policyreport.Version+" "+policyreport.Kind+" named "+
		policyreport.ReportName+" in each namespace with ListenerSets and delete stale ones, when the cluster serves that API (docs/audit.md)")
	f.BoolVar(&exitOnFindings, "exit-code-on-findings", true, "exit 1 when a ListenerSet is invalid; false: exit 0 with findings (they are reported), non-zero only when the run failed (exit 2)")
	f.BoolVar(&printRBAC, "print-rbac", false, "print the ClusterRole the audit needs (with --secrets, the one it needs then; with --write-reports also the reports' own) and exit")
	completeValues(cmd, "output", report.Formats)
	return cmd
}

// printRoles writes the ClusterRole the audit needs (with classes, the
// scope on, list on GatewayClasses too) and, with reports, the one of its
// reports after it, as YAML documents.
func printRoles(w io.Writer, secrets, classes, reports bool) error {
	roles := []any{live.ClusterRole(secrets, classes)}
	if reports {
		roles = append(roles, live.ReportsClusterRole())
	}
	for i, r := range roles {
		out, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		if i > 0 {
			out = append([]byte("---\n"), out...)
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}
