package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/validation"
)

// validationActions are the binding's possible validationActions.
var validationActions = []admissionregistrationv1.ValidationAction{
	admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit,
}

// notFoundActions are the binding's possible parameterNotFoundActions.
var notFoundActions = []admissionregistrationv1.ParameterNotFoundActionType{admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction}

func newPolicy(code *int) *cobra.Command {
	var (
		opts       policy.Options
		actions    []string
		nsSelector string
		configMap  string
		notFound   string
	)
	cmd := &cobra.Command{
		Use:   "policy [flags]",
		Short: "Print a ValidatingAdmissionPolicy with the webhook's object rules",
		Long: `Prints an admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its
binding that enforce the webhook's object-only rules inside kube-apiserver
(Kubernetes 1.30 or later), without a webhook call: kubectl apply -f - takes
the output as it is. The cluster-aware checks stay with the webhook.

A policy cannot read a ListenerSet's parent Gateway or its GatewayClass: with
--gateways it judges only the ListenerSets of the Gateways listed, Airlock's,
and admits every other implementation's untouched. The list is the binding's
parameter, a ConfigMap (printed as a third object) that the platform keeps
current without touching the policy (docs/policy.md).`,
		Example: `  kubectl listenerset policy | kubectl apply -f -
  kubectl listenerset policy --validation-actions Warn,Audit --namespace-selector 'team in (a,b)'
  kubectl listenerset policy --gateways infra/airlock,team-a/* --gateways-configmap platform/airlock-gateways`,
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
			if len(opts.Gateways) == 0 && (configMap != "" || cmd.Flags().Changed("gateways-not-found")) {
				return fmt.Errorf("--gateways-configmap and --gateways-not-found configure --gateways, which is empty")
			}
			if configMap != "" {
				ns, name, ok := strings.Cut(configMap, "/")
				if !ok || ns == "" || name == "" {
					return fmt.Errorf("--gateways-configmap: %q is not namespace/name", configMap)
				}
				opts.GatewaysConfigMap = types.NamespacedName{Namespace: ns, Name: name}
			}
			action := admissionregistrationv1.ParameterNotFoundActionType(notFound)
			if !slices.Contains(notFoundActions, action) {
				return fmt.Errorf("--gateways-not-found: %q is not one of Deny, Allow", notFound)
			}
			opts.GatewaysNotFound = action
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
	f.StringVar(&opts.PolicyName, "name", policy.DefaultPolicyName, "name of the ValidatingAdmissionPolicy")
	f.StringVar(&opts.BindingName, "binding-name", policy.DefaultBindingName, "name of the ValidatingAdmissionPolicyBinding")
	f.StringSliceVar(&actions, "validation-actions", nil, "the binding's validationActions, comma-separated: Deny, Warn, Audit (default Deny); repeatable")
	f.Var(&opts.AddedNames, "add-names", validation.AddedNamesUsage)
	f.StringVar(&nsSelector, "namespace-selector", "", `the binding applies to the namespaces this label selector selects (e.g. "team in (a,b),!legacy"); every namespace when empty`)
	f.StringSliceVar(&opts.Gateways, "gateways", nil, `judge only the ListenerSets of these Gateways, Airlock's: "namespace/name", or "namespace/*" for every Gateway of a namespace, comma-separated; repeatable. Adds the ConfigMap that lists them as the binding's parameter; every ListenerSet when empty`)
	f.StringVar(&configMap, "gateways-configmap", "", `namespace/name of that ConfigMap (default `+policy.DefaultGatewaysNamespace+`/<binding name>); whoever can write it decides what the policy judges`)
	f.StringVar(&notFound, "gateways-not-found", string(admissionregistrationv1.DenyAction), "the binding's parameterNotFoundAction, when that ConfigMap does not exist: Deny denies every ListenerSet, Allow admits them unjudged")
	completeValues(cmd, "validation-actions", validationActions)
	completeValues(cmd, "gateways-not-found", notFoundActions)
	return cmd
}
