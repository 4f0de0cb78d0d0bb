// Command kubectl-listenerset is the offline side of the ListenerSet
// webhook, a kubectl plugin: on PATH, kubectl runs it as
// `kubectl listenerset`.
//
//	kubectl listenerset validate -f PATH... [-o FORMAT]       validate manifests without a cluster
//	  (with --kubeconfig F: against a live cluster, findings introduced, unchanged or fixed)
//	kubectl listenerset listeners (-f PATH... | --kubeconfig F) each Gateway's merged listener list
//	kubectl listenerset audit [--kubeconfig F] [flags]          judge the ListenerSets a cluster stores
//	kubectl listenerset why NAMESPACE/NAME [--kubeconfig F]     why one ListenerSet's listeners are (not) accepted
//	kubectl listenerset policy [flags]                         print the ValidatingAdmissionPolicy
//	kubectl listenerset check [-n NS] [--expect webhook|policy]  a dry-run ListenerSet: does the webhook answer?
//	kubectl listenerset completion bash|zsh|fish|powershell    shell completion
//	kubectl listenerset version (or --version)                 version, commit and Go version
//
// Flags are kubectl's (spf13/cobra and pflag, as kubectl uses them):
// --flag, -f/--filename, -o/--output, --kubeconfig and --context. The server
// is cmd/listenerset-webhook, which links none of this.
//
// This package is flags and wiring only: validating is offline.Validate,
// listing is listing.Run, auditing live.Audit, explaining why.Run, the policy is policy.YAML.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/airlock/listenerset-webhook/version"
)

// Exit codes besides those of offline.Validate and listing.Run.
const (
	exitOK    = 0
	exitError = 1 // policy could not be written
	exitUsage = 2 // bad command line (offline.Validate's 2 for input errors too)
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it with their own streams.
// Each command's RunE sets code, the exit status of what it ran, or returns
// an error when the command line is bad, as cobra does for an unknown flag
// or command: every error is a usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := exitOK
	root := newRoot(&code)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err != nil {
		// kubectl's two lines for a bad command line.
		fmt.Fprintf(stderr, "error: %v\nSee '%s --help' for usage.\n", err, cmd.CommandPath())
		return exitUsage
	}
	return code
}

func newRoot(code *int) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-listenerset",
		Short: "Validate Gateway API ListenerSets offline, as kube-apiserver with the webhook would",
		Long: `kubectl listenerset: the offline side of the admission webhook for Gateway API
ListenerSets on Airlock Microgateway. On PATH, kubectl runs it as
"kubectl listenerset"; run alone, it is "kubectl-listenerset".`,
		Annotations: map[string]string{
			// Help and errors show the command as kubectl users type it.
			cobra.CommandDisplayNameAnnotation: "kubectl listenerset",
		},
		SilenceErrors: true, // run prints them, in kubectl's words
		SilenceUsage:  true,
		// --version (cobra adds the flag): the version, commit and Go version.
		Version: version.String("kubectl-listenerset"),
	}
	root.AddCommand(newVersion())
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newValidate(code), newListeners(code), newAudit(code), newPolicy(code), newWhy(code), newCheck(code))
	return root
}
