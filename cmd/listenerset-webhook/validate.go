package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/offline"
)

func validate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths stringList
	fs.Var(&paths, "f", `file, directory (recursive: *.yaml, *.yml, *.json) or "-" for stdin; repeatable`)
	fs.Var(&paths, "filename", "same as -f")
	format := fs.String("o", string(offline.Text), "output format: "+strings.ReplaceAll(offline.FormatList(), "|", ", ")+
		" (junit: a testsuite per file; sarif: SARIF 2.1.0 for code scanning; github: Actions workflow commands)")
	strict := fs.Bool("strict", false, "listener conflicts and certificateRefs no ReferenceGrant permits are errors, not warnings")
	var crds stringList
	fs.Var(&crds, "crd", "file or directory with the ListenerSet CRD to apply (the cluster's own, e.g. Gateway API v1.7.0 standard or experimental) instead of the embedded v1.6.3 standard one; repeatable")
	unknownFields := fs.String("unknown-fields", string(offline.UnknownFieldsError),
		"fields the CRD does not know: error (kubectl apply's strict field validation), warn or ignore")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: listenerset-webhook validate -f PATH [-f PATH...] [-o `+offline.FormatList()+`] [--strict]
       listenerset-webhook validate [flags] PATH...   (paths as arguments too, as pre-commit passes them)

Validates gateway.networking.k8s.io/v1 ListenerSets as kube-apiserver with the
webhook does, without a cluster: the ListenerSet CRD (schema, unknown fields,
defaults, CEL rules), object metadata, then the webhook's defaults and rules.
Gateways, ReferenceGrants, Namespaces and Secrets in the input are used for the
cluster-aware checks (parent Gateway, allowedListeners, merged-listener
conflicts, references); other objects are skipped.

Exit status: 0 all valid (or none found), 1 some invalid, 2 input unreadable
or unparsable, or a bad command line.

Flags:
`)
		fs.PrintDefaults()
	}
	// PATHs may also stand as arguments, between or after flags (pre-commit
	// appends the changed files to the hook's args); after "--" every
	// argument is a PATH.
	for rest := args; ; {
		if code, done := parse(fs, rest); done {
			return code
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if consumed := len(rest) - len(left); consumed > 0 && rest[consumed-1] == "--" {
			paths = append(paths, left...)
			break
		}
		paths, rest = append(paths, left[0]), left[1:]
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "validate needs -f PATH (or PATH arguments)")
		fs.Usage()
		return exitUsage
	}
	if !slices.Contains(offline.Formats, offline.Format(*format)) {
		fmt.Fprintf(stderr, "-o %q: must be one of %s\n", *format, offline.FormatList())
		return exitUsage
	}
	if !slices.Contains(offline.UnknownFieldsModes, offline.UnknownFields(*unknownFields)) {
		fmt.Fprintf(stderr, "--unknown-fields %q: must be error, warn or ignore\n", *unknownFields)
		return exitUsage
	}
	return offline.Validate(paths, offline.Options{
		Format: offline.Format(*format), Stdin: stdin, Stdout: stdout, Stderr: stderr, Strict: *strict,
		CRDs: crds, UnknownFields: offline.UnknownFields(*unknownFields),
	})
}
