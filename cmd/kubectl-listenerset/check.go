package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/why"
)

// newCheck is `kubectl listenerset check`: the proof after an install or an
// upgrade that kube-apiserver reaches the webhook, which the chart's helm
// test runs (live.Check).
func newCheck(code *int) *cobra.Command {
	var kubeconfig, kubeContext, namespace, gateway, expect string
	cmd := &cobra.Command{
		Use:   "check [-n NAMESPACE] [--expect webhook|policy] [--kubeconfig FILE]",
		Short: "Send an invalid ListenerSet through kube-apiserver as a dry run and expect the webhook's answer",
		Long: `Creates the ListenerSet ` + live.CheckName + ` with a TCP listener, which
Airlock Microgateway does not serve, as a server-side dry run (nothing is
stored), and says who answered: the validating webhook (denied, or with
enforcement warn admitted with its "would be denied" warning) or the chart's
ValidatingAdmissionPolicy. A write admitted without either answer means no
webhook judged it: none registered for the namespace, or failurePolicy Ignore
while no pod answers. The chart's helm test runs it (helm test RELEASE).

The namespace must be one the webhook's namespaceSelector covers: the
chart never sends its own release namespace, nor kube-system.

RBAC: create on listenersets.gateway.networking.k8s.io in the namespace
(a dry run is authorized as the write).

Exit status: 0 answered as --expect says, 1 not answered (or by the other
one), 2 the request could not be made or a bad command line.`,
		Example: `  kubectl listenerset check -n team-a
  kubectl listenerset check -n team-a --expect webhook
  kubectl listenerset check -n team-a --gateway infra/airlock --expect policy`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(live.Expectations, expect) {
				return fmt.Errorf("--expect %q: must be one of %s", expect, strings.Join(live.Expectations, ", "))
			}
			kc := why.Kubeconfig{Path: kubeconfig, Context: kubeContext}
			cfg, err := kc.RESTConfig()
			if err == nil && namespace == "" {
				namespace, err = kc.Namespace()
			}
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = exitUsage
				return nil
			}
			line, ok, err := live.Check(cmd.Context(), cfg, live.CheckOptions{Namespace: namespace, Gateway: gateway, Expect: expect})
			switch {
			case err != nil:
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
				*code = exitUsage
			case !ok:
				fmt.Fprintf(cmd.ErrOrStderr(), "FAIL: %s\n", line)
				*code = exitError
			default:
				fmt.Fprintf(cmd.OutOrStdout(), "ok: %s\n", line)
			}
			return nil
		},
	}
	f := cmd.Flags()
	kubeconfigFlags(cmd, &kubeconfig, &kubeContext, "the kubeconfig of the cluster (default: as kubectl finds it; in a pod, its ServiceAccount)")
	f.StringVarP(&namespace, "namespace", "n", "", "where the ListenerSet is sent (default: the kubeconfig context's)")
	f.StringVar(&gateway, "gateway", "", "its parentRef, namespace/name or name (default: "+live.CheckName+", which does not exist)")
	f.StringVar(&expect, "expect", live.ExpectAny, "who must answer: "+strings.Join(live.Expectations, ", "))
	completeValues(cmd, "expect", live.Expectations)
	return cmd
}
