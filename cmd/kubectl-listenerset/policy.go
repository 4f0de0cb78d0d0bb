package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/cmd/internal/flags"
	"github.com/airlock/listenerset-webhook/policy"
)

// validationActions are the binding's possible validationActions.
var validationActions = []admissionregistrationv1.ValidationAction{
	admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit,
}

func newPolicy(code *int) *cobra.Command {
	var (
		opts       policy.Options
		actions    []string
		nsSelector string
	)
	cmd := &cobra.Command{
		Use:   "policy [flags]",
		Short: "Print the ValidatingAdmissionPolicies with the webhook's object rules",
		Long: `Prints two admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies, each
with its binding, that enforce the webhook's object-only rules inside
kube-apiserver (Kubernetes 1.30 or later), without a webhook call: kubectl
apply -f - takes the output as it is. The cluster-aware checks stay with the
webhook, but for the hostnames a Namespace declares
(--allowed-hostnames-annotation), which the policies read from the request's
Namespace: the rules' policy (--name) lets the usual valid ListenerSet
through by a match condition, which cannot read the Namespace, and the
declarations' policy (named with the prefix declared-hostnames.) judges
that one's hostnames against the declaration.

A policy cannot read a ListenerSet's parent Gateway or its GatewayClass: with
--gateways it judges only the ListenerSets of the Gateways listed, Airlock's,
and admits every other implementation's untouched (docs/policy.md). Apply
the output again when the list changes.`,
		Example: `  kubectl listenerset policy | kubectl apply -f -
  kubectl listenerset policy --validation-actions Warn,Audit --namespace-selector 'team in (a,b)'
  kubectl listenerset policy --gateways infra/airlock,team-a/*`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("policy takes no arguments, got %q", args)
			}
			for _, a := range actions {
				if a = strings.TrimSpace(a); a == "" {
					continue
				}
				action := admissionregistrationv1.ValidationAction(a)
				if !slices.Contains(validationActions, action) {
					return fmt.Errorf("--validation-actions: %q is not one of Deny, Warn, Audit", a)
				}
				opts.Actions = append(opts.Actions, action)
			}
			if nsSelector != "" {
				sel, err := metav1.ParseToLabelSelector(nsSelector)
				if err != nil {
					return fmt.Errorf("--namespace-selector: %w", err)
				}
				opts.NamespaceSelector = sel
			}
			if errs := policy.ValidateGateways(opts.Gateways, field.NewPath("--gateways")); len(errs) > 0 {
				return errs.ToAggregate()
			}
			if err := (validation.Tenancy{AllowedHostnamesAnnotation: opts.AllowedHostnamesAnnotation}).Check(); err != nil {
				return err
			}

			out, err := policy.YAML(opts)
			if err == nil {
				_, err = cmd.OutOrStdout().Write(out)
			}
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = exitError
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	f := cmd.Flags()
	f.StringVar(&opts.PolicyName, "name", policy.DefaultPolicyName, "name of the rules' ValidatingAdmissionPolicy; the declarations' is "+policy.DeclarationsPrefix+"NAME")
	f.StringVar(&opts.BindingName, "binding-name", policy.DefaultBindingName, "name of the rules' ValidatingAdmissionPolicyBinding; the declarations' is "+policy.DeclarationsPrefix+"NAME")
	f.StringSliceVar(&actions, "validation-actions", nil, "the binding's validationActions, comma-separated: Deny, Warn, Audit (default Deny); repeatable")
	f.Var(&opts.AddedNames, "add-names", flags.AddedNamesUsage)
	f.StringVar(&nsSelector, "namespace-selector", "", `the binding applies to the namespaces this label selector selects (e.g. "team in (a,b),!legacy"); every namespace when empty`)
	f.StringSliceVar(&opts.Gateways, "gateways", nil, `judge only the ListenerSets of these Gateways, Airlock's: "namespace/name", or "namespace/*" for every Gateway of a namespace, comma-separated; repeatable. Every ListenerSet when empty`)
	allowedHostnamesAnnotationFlag(cmd, &opts.AllowedHostnamesAnnotation)
	completeValues(cmd, "validation-actions", validationActions)
	return cmd
}
