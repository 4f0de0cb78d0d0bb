package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/spf13/cobra"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/why"
)

// manifestExtensions are what a directory PATH is searched for, and what
// shell completion offers for -f and --crd.
var manifestExtensions = []string{"yaml", "yml", "json"}

func newValidate(code *int) *cobra.Command {
	var (
		paths, crds                                   []string
		format, unknownField, kubeconfig, kubeContext string
		namespace                                     string
		strict, anyError                              bool
		added                                         validation.AddedNames
	)
	var scope *flags.ScopeFlags     // set below, read when the command runs
	var tenancy *validation.Tenancy // likewise
	cmd := &cobra.Command{
		Use:   "validate (-f PATH | PATH)... [flags]",
		Short: "Validate ListenerSet manifests offline, as kube-apiserver and the webhook would",
		Long: `Validates gateway.networking.k8s.io/v1 ListenerSets as kube-apiserver with the
webhook does, without a cluster: the ListenerSet CRD (schema, unknown fields,
defaults, CEL rules), object metadata, then the webhook's defaults and rules.
Gateways, ReferenceGrants, Namespaces and Secrets in the input are used for the
cluster-aware checks (parent Gateway, allowedListeners, merged-listener
conflicts, references); other objects are skipped.

Only Airlock Microgateway's ListenerSets get the webhook's defaults and rules
(--scope=class, the default, as the webhook's): a set whose parent Gateway's
GatewayClass (in the input) names another controller gets kube-apiserver's
own checks alone, and one whose Gateway or class is not in the input follows
--unknown-parent.

PATHs may also stand as arguments, between or after flags, as pre-commit
passes them; after "--" every argument is a PATH.

With --kubeconfig, the live cluster it reaches is the context instead: the
files' objects replace the cluster's of the same namespace and name, the
cluster's other ListenerSets are rivals, and every finding is marked
introduced, unchanged or fixed against the cluster's own verdict on what it
stores (as the audit command judges it); the cluster's other ListenerSets
whose findings the files change are shown too. Needs list on what the audit
lists (kubectl listenerset audit --print-rbac).

Exit status: 0 all valid (or none found), 1 some invalid (with --kubeconfig:
some error introduced, or with --any-error any), 2 input unreadable or
unparsable, the cluster not listable, or a bad command line.`,
		Example: `  kubectl listenerset validate -f manifests/
  kubectl listenerset validate -f manifests/ -o sarif > listenersets.sarif
  kubectl get listenersets -A -o yaml | kubectl listenerset validate -f -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths = append(paths, args...)
			if len(paths) == 0 {
				return fmt.Errorf("validate needs -f PATH (or PATH arguments)")
			}
			if !slices.Contains(report.Formats, report.Format(format)) {
				return fmt.Errorf("-o %q: must be one of %s", format, report.FormatList())
			}
			if err := tenancy.Check(); err != nil {
				return err
			}
			if !slices.Contains(judge.UnknownFieldsModes, judge.UnknownFields(unknownField)) {
				return fmt.Errorf("--unknown-fields %q: must be error, warn or ignore", unknownField)
			}
			ns, err := manifestNamespace(namespace, kubeconfig, kubeContext)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = report.ExitInputError
				return nil
			}
			opts := offline.Options{
				Format: report.Format(format), Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
				Judge: judge.Options{Strict: strict, CRDs: crds, UnknownFields: judge.UnknownFields(unknownField), AddedNames: added,
					Scope: scope.Scope(), Tenancy: *tenancy, Namespace: ns},
				AnyError: anyError,
			}
			if kubeconfig == "" {
				*code = offline.Validate(paths, opts)
				return nil
			}
			cfg, err := listing.RESTConfig(kubeconfig, kubeContext)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = report.ExitInputError
				return nil
			}
			*code = live.Validate(cmd.Context(), cfg, paths, opts)
			return nil
		},
		ValidArgsFunction: completeManifests,
	}
	f := cmd.Flags()
	filenameFlag(cmd, &paths)
	f.StringVarP(&format, "output", "o", string(report.Text), "output format: "+strings.ReplaceAll(report.FormatList(), "|", ", ")+
		" (junit: a testsuite per file; sarif: SARIF 2.1.0 for code scanning; github: Actions workflow commands)")
	strictFlag(cmd, &strict)
	kubeconfigFlags(cmd, &kubeconfig, &kubeContext, "judge the files against the live cluster this kubeconfig reaches (read-only), marking findings introduced, unchanged or fixed")
	f.StringVarP(&namespace, "namespace", "n", "", "the namespace of the objects without one, as kubectl apply -n (default: the kubeconfig context's, else default)")
	f.BoolVar(&anyError, "any-error", false, "with --kubeconfig: exit 1 for any error, not only for introduced ones")
	f.StringSliceVar(&crds, "crd", nil, "file or directory with the ListenerSet CRD to apply (the cluster's own, e.g. Gateway API v1.7.0 standard or experimental) instead of the embedded v1.6.3 standard one; repeatable")
	f.StringVar(&unknownField, "unknown-fields", string(judge.UnknownFieldsError),
		"fields the CRD does not know: error (kubectl apply's strict field validation), warn or ignore")
	f.Var(&added, "add-names", flags.AddedNamesUsage)
	scope = scopeFlags(cmd, "by the Gateways and GatewayClasses of the input, with --kubeconfig over the cluster's")
	tenancy = tenancyFlags(cmd)
	_ = cmd.MarkFlagFilename("crd", manifestExtensions...)
	completeValues(cmd, "output", report.Formats)
	completeValues(cmd, "unknown-fields", judge.UnknownFieldsModes)
	return cmd
}

// manifestNamespace is the namespace kubectl would create an object
// without one in: -n, else the kubeconfig context's (the --kubeconfig
// file, else the one kubectl's loading rules find: $KUBECONFIG,
// ~/.kube/config), else "default" when there is no kubeconfig at all.
func manifestNamespace(flag, kubeconfig, kubeContext string) (string, error) {
	if flag != "" {
		if errs := k8svalidation.IsDNS1123Label(flag); len(errs) > 0 {
			return "", fmt.Errorf("-n %q: %s", flag, strings.Join(errs, "; "))
		}
		return flag, nil
	}
	ns, err := why.Kubeconfig{Path: kubeconfig, Context: kubeContext}.Namespace()
	if clientcmd.IsEmptyConfig(err) {
		return crdcheck.DefaultNamespace, nil
	}
	if err != nil {
		return "", fmt.Errorf("the namespace of objects without one (-n, else the kubeconfig context's): %w", err)
	}
	return ns, nil
}

// filenameFlag is kubectl's -f/--filename: repeatable, comma-separated
// values as kubectl takes them, completed with manifest files.
func filenameFlag(cmd *cobra.Command, paths *[]string) {
	cmd.Flags().StringSliceVarP(paths, "filename", "f", nil,
		`file, directory (recursive: *.yaml, *.yml, *.json) or "-" for stdin; repeatable`)
	_ = cmd.MarkFlagFilename("filename", manifestExtensions...)
}

// strictFlag is the webhook's --strict, for the commands that judge.
func strictFlag(cmd *cobra.Command, strict *bool) {
	cmd.Flags().BoolVar(strict, "strict", false, "listener conflicts and certificateRefs no ReferenceGrant permits are errors, not warnings")
}

// completeManifests completes PATH arguments with manifest files and
// directories.
func completeManifests(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return manifestExtensions, cobra.ShellCompDirectiveFilterFileExt
}

// completeValues offers values for flag name.
func completeValues[T ~string](cmd *cobra.Command, name string, values []T) {
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		out := make([]cobra.Completion, len(values))
		for i, v := range values {
			out[i] = string(v)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}
