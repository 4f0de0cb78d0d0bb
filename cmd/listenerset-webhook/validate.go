package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/airlock/listenerset-webhook/offline"
)

func validate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths stringList
	fs.Var(&paths, "f", `file, directory (recursive: *.yaml, *.yml, *.json) or "-" for stdin; repeatable`)
	fs.Var(&paths, "filename", "same as -f")
	format := fs.String("o", string(offline.Text), "output format: text or json")
	strict := fs.Bool("strict", false, "listener conflicts and certificateRefs no ReferenceGrant permits are errors, not warnings")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: listenerset-webhook validate -f PATH [-f PATH...] [-o text|json] [--strict]

Validates gateway.networking.k8s.io/v1 ListenerSets exactly as the webhook does
(defaults, then validation), without a cluster. Gateways, ReferenceGrants,
Namespaces and Secrets in the input are used for the cluster-aware checks
(parent Gateway, allowedListeners, merged-listener conflicts, references);
other objects are skipped.

Exit status: 0 all valid (or none found), 1 some invalid, 2 input unreadable
or unparsable, or a bad command line.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parse(fs, args); done {
		return code
	}
	if len(paths) == 0 || fs.NArg() > 0 {
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "unexpected arguments %q: name inputs with -f\n", fs.Args())
		} else {
			fmt.Fprintln(stderr, "validate needs -f PATH")
		}
		fs.Usage()
		return exitUsage
	}
	switch offline.Format(*format) {
	case offline.Text, offline.JSON:
	default:
		fmt.Fprintf(stderr, "-o %q: must be text or json\n", *format)
		return exitUsage
	}
	return offline.Validate(paths, offline.Options{
		Format: offline.Format(*format), Stdin: stdin, Stdout: stdout, Stderr: stderr, Strict: *strict,
	})
}
