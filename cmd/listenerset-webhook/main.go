// Command listenerset-webhook is the admission webhook for Gateway API
// ListenerSets on Airlock Microgateway, and its offline twin.
//
//	listenerset-webhook serve [flags]                     serve the webhooks over HTTPS
//	listenerset-webhook validate PATH... [-o FORMAT]        validate manifests without a cluster
//	listenerset-webhook listeners -f PATH...|--kubeconfig F each Gateway's merged listener list
//	listenerset-webhook policy [flags]                    print the ValidatingAdmissionPolicy
//
// This file is flags and wiring only: serving is webhook.Run, validating is
// offline.Validate, listing is listing.Run, the policy is policy.YAML.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes besides those of offline.Validate.
const (
	exitOK    = 0
	exitError = 1 // serve failed
	exitUsage = 2 // bad command line, as flag.ExitOnError uses
)

const usage = `listenerset-webhook: admission webhook for Gateway API ListenerSets on Airlock Microgateway.

Usage:
  listenerset-webhook serve [flags]                       serve the mutating and validating webhooks
  listenerset-webhook validate [-f] PATH... [-o text|json|junit|sarif|github] [--crd FILE|DIR]
                                                          validate manifests offline, as kube-apiserver and the webhook would
  listenerset-webhook listeners (-f PATH | --kubeconfig FILE) [--gateway NS/NAME] [-o wide|json]
                                                          each Gateway's merged listeners and their states
  listenerset-webhook policy [--validation-actions Deny,Warn,Audit] [--namespace-selector SEL]
                                                          print a ValidatingAdmissionPolicy with the webhook's object rules

Run "listenerset-webhook <command> -h" for a command's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it with their own streams.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr)
	case "validate":
		return validate(args[1:], stdin, stdout, stderr)
	case "listeners":
		return listeners(args[1:], stdin, stdout, stderr)
	case "policy":
		return policyCommand(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}

// parse parses args; done says the command is over (help shown, or a bad flag).
func parse(fs *flag.FlagSet, args []string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return exitOK, true
	default:
		return exitUsage, true // flag has printed the error and usage
	}
}

// stringList is a repeatable string flag.
type stringList []string

// String implements flag.Value.
func (s *stringList) String() string { return strings.Join(*s, ",") }

// Set implements flag.Value; each -f adds a path.
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// commaList is a repeatable flag whose values are comma-separated lists.
type commaList []string

// String implements flag.Value.
func (s *commaList) String() string { return strings.Join(*s, ",") }

// Set implements flag.Value: each value adds its non-empty items.
func (s *commaList) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*s = append(*s, item)
		}
	}
	return nil
}
