package main

import (
	"path/filepath"
	"testing"

	"github.com/airlock/listenerset-webhook/listing"
)

// TestListenersUsage: the listeners command's flags, each command line's exit
// code and streams, in TestUsage's manner (an expectation of nothing on a
// stream asserts it is empty). The listing itself has golden tests in
// package listing.
func TestListenersUsage(t *testing.T) {
	fixture := filepath.Join("..", "..", "listing", "testdata", "merged.yaml")
	usage := "kubectl listenerset listeners (-f PATH... | --kubeconfig FILE) [flags]"
	see := "See 'kubectl listenerset listeners --help' for usage."
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
		stderr []string
	}{
		{"in the command list", []string{"help"}, exitOK, []string{"listeners   Print each Gateway's merged listener list"}, nil},
		{"-h", []string{"listeners", "-h"}, exitOK, []string{usage, "--kubeconfig string", "--context string", "--gateway string",
			"-f, --filename strings", "-o, --output string", "Exit status: 0 listed"}, nil},
		{"no input", []string{"listeners"}, exitUsage, nil, []string{"error: listeners needs -f PATH or --kubeconfig FILE", see}},
		{"both inputs", []string{"listeners", "-f", fixture, "--kubeconfig", "k"}, exitUsage, nil, []string{"error: -f and --kubeconfig exclude each other"}},
		{"positional argument", []string{"listeners", "-f", fixture, "x.yaml"}, exitUsage, nil, []string{`error: unexpected arguments ["x.yaml"]: name inputs with -f`}},
		{"gateway without namespace", []string{"listeners", "-f", fixture, "--gateway", "shared"}, exitUsage, nil, []string{`error: --gateway "shared": must be namespace/name`}},
		{"bad format", []string{"listeners", "-f", fixture, "-o", "yaml"}, exitUsage, nil, []string{`error: -o "yaml": must be wide or json`}},
		{"bad flag", []string{"listeners", "--nope"}, exitUsage, nil, []string{"error: unknown flag: --nope", see}},
		{"missing kubeconfig", []string{"listeners", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, listing.ExitInputError, nil, []string{"error: ", "none"}},
		{"table", []string{"listeners", "-f", fixture}, listing.ExitOK, []string{"GATEWAY   ", "ListenerSet/lst-team-b/www", "HostnameConflict"}, nil},
		{"wide", []string{"listeners", "--filename", fixture, "-o", "wide"}, listing.ExitOK, []string{"WINNER", "ListenerSet/lst-team-a/api listener api"}, nil},
		{"json", []string{"listeners", "-f", fixture, "--output", "json", "--gateway", "lst-infra/shared"}, listing.ExitOK, []string{`"state": "NotAllowed"`}, nil},
		{"gateway not found", []string{"listeners", "-f", fixture, "--gateway", "lst-infra/nope"}, listing.ExitNotFound, nil, []string{"error: Gateway lst-infra/nope not found"}},
		{"stdin", []string{"listeners", "-f", "-"}, listing.ExitOK, nil, []string{"No Gateways found."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRun(t, tt.args, tt.exit, tt.stdout, tt.stderr)
		})
	}
}
