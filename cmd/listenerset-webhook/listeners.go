package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/airlock/listenerset-webhook/listing"
)

func listeners(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("listeners", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths stringList
	fs.Var(&paths, "f", `file, directory (recursive: *.yaml, *.yml, *.json) or "-" for stdin; repeatable`)
	fs.Var(&paths, "filename", "same as -f")
	kubeconfig := fs.String("kubeconfig", "", "list the cluster this kubeconfig reaches instead of manifests (read-only)")
	kubeContext := fs.String("context", "", "the kubeconfig context to use (default: its current context)")
	gateway := fs.String("gateway", "", "only this Gateway, as namespace/name")
	format := fs.String("o", "", "output format: wide or json (default: a table)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: listenerset-webhook listeners (-f PATH [-f PATH...] | --kubeconfig FILE) [--gateway NS/NAME] [-o wide|json]

Prints each Gateway's merged listener list as Gateway API says an
implementation must build it (the Gateway's own listeners, then its
ListenerSets oldest first, then by namespace/name), one row per listener with
its state: Accepted, Conflicted (HostnameConflict, ProtocolConflict),
NotAllowed (allowedListeners), Invalid (the set fails its own rules) or
Unknown. The states are the webhook's cluster-aware checks' own.

From manifests, Gateways, ListenerSets and Namespaces are read as validate
reads them; a ListenerSet without creationTimestamp counts as not created
yet. From a cluster, Gateways, ListenerSets and Namespaces are listed
(read-only).

Exit status: 0 listed, 1 --gateway not found, 2 input unreadable, cluster
unreachable, or a bad command line.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parse(fs, args); done {
		return code
	}
	usageError := func(msg string) int {
		fmt.Fprintln(stderr, msg)
		fs.Usage()
		return exitUsage
	}
	switch {
	case fs.NArg() > 0:
		return usageError(fmt.Sprintf("unexpected arguments %q: name inputs with -f", fs.Args()))
	case len(paths) == 0 && *kubeconfig == "":
		return usageError("listeners needs -f PATH or --kubeconfig FILE")
	case len(paths) > 0 && *kubeconfig != "":
		return usageError("-f and --kubeconfig exclude each other")
	case *gateway != "" && !listing.ValidGatewayName(*gateway):
		return usageError(fmt.Sprintf("--gateway %q: must be namespace/name", *gateway))
	}
	opts := listing.Options{Paths: paths, Stdin: stdin, Gateway: *gateway, Stdout: stdout, Stderr: stderr}
	switch f := listing.Format(*format); f {
	case listing.Table, listing.Wide, listing.JSON:
		opts.Format = f
	default:
		return usageError(fmt.Sprintf("-o %q: must be wide or json", *format))
	}
	if *kubeconfig != "" {
		cfg, err := listing.RESTConfig(*kubeconfig, *kubeContext)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return listing.ExitInputError
		}
		opts.RESTConfig = cfg
	}
	return listing.Run(context.Background(), opts)
}
