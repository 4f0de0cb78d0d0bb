package main

import (
	"flag"
	"fmt"
	"io"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock/listenerset-webhook/policy"
)

func policyCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts policy.Options
	fs.StringVar(&opts.PolicyName, "name", policy.DefaultPolicyName, "name of the ValidatingAdmissionPolicy")
	fs.StringVar(&opts.BindingName, "binding-name", policy.DefaultBindingName, "name of the ValidatingAdmissionPolicyBinding")
	var actions commaList
	fs.Var(&actions, "validation-actions", "the binding's validationActions, comma-separated: Deny, Warn, Audit (default Deny)")
	nsSelector := fs.String("namespace-selector", "", `the binding applies to the namespaces this label selector selects (e.g. "team in (a,b),!legacy"); every namespace when empty`)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: listenerset-webhook policy [--name NAME] [--binding-name NAME] [--validation-actions Deny,Warn,Audit] [--namespace-selector SELECTOR]

Prints an admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its
binding that enforce the webhook's object-only rules inside kube-apiserver
(Kubernetes 1.30 or later), without a webhook call: kubectl apply -f - takes
the output as it is. The cluster-aware checks stay with the webhook.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "policy takes no arguments, got %q\n", fs.Args())
		return exitUsage
	}
	for _, a := range actions {
		switch action := admissionregistrationv1.ValidationAction(a); action {
		case admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit:
			opts.Actions = append(opts.Actions, action)
		default:
			fmt.Fprintf(stderr, "--validation-actions: %q is not one of Deny, Warn, Audit\n", a)
			return exitUsage
		}
	}
	if *nsSelector != "" {
		sel, err := metav1.ParseToLabelSelector(*nsSelector)
		if err != nil {
			fmt.Fprintf(stderr, "--namespace-selector: %v\n", err)
			return exitUsage
		}
		opts.NamespaceSelector = sel
	}
	out, err := policy.YAML(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	return exitOK
}
