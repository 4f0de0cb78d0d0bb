package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/offline/report"
)

// TestAuditUsage: the audit command's flags and each command line's exit
// code and streams, in TestUsage's manner. What it finds in a cluster is
// test/e2e's (TestAuditCommand, against a real kube-apiserver).
func TestAuditUsage(t *testing.T) {
	usage := "kubectl listenerset audit [--kubeconfig FILE] [flags]"
	see := "See 'kubectl listenerset audit --help' for usage."
	// A cluster nothing listens for: connection refused at once.
	unreachable := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(unreachable, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
		stderr []string
	}{
		{"in the command list", []string{"help"}, exitOK, []string{"audit       Judge the ListenerSets a cluster stores"}, nil},
		{"-h", []string{"audit", "-h"}, exitOK, []string{usage, "--kubeconfig string", "--context string", "-n, --namespace string",
			"--gateway string", "-o, --output string", "--strict", "--secrets", "--print-rbac",
			"list on gateways, listenersets, referencegrants, gatewayclasses, httproutes (gateway.networking.k8s.io)\n  list on namespaces (core)\n",
			"--scope string", "--controller-names strings", "--unknown-parent string", "Exit status: 0 all valid",
			"--exit-code-on-findings", "With --exit-code-on-findings=false (the chart's CronJob) invalid"}, nil},
		{"print-rbac", []string{"audit", "--print-rbac"}, exitOK, []string{"kind: ClusterRole", "name: listenerset-audit", "- listenersets", "- gatewayclasses", "- list"}, nil},
		{"bad scope", []string{"audit", "--scope", "mine"}, exitUsage, nil, []string{`error: invalid argument "mine" for "--scope" flag: must be "class" or "all"`, see}},
		{"bad unknown-parent", []string{"audit", "--unknown-parent", "deny"}, exitUsage, nil,
			[]string{`error: invalid argument "deny" for "--unknown-parent" flag: must be "judge" or "admit"`, see}},
		{"no controller names", []string{"audit", "--controller-names", ","}, exitUsage, nil,
			[]string{`"--controller-names" flag: names no controller: to judge every ListenerSet, use --scope=all`, see}},
		{"positional argument", []string{"audit", "x"}, exitUsage, nil, []string{`error: unexpected arguments ["x"]`, see}},
		{"gateway without namespace", []string{"audit", "--gateway", "shared"}, exitUsage, nil, []string{`error: --gateway "shared": must be namespace/name`}},
		{"bad format", []string{"audit", "-o", "yaml"}, exitUsage, nil, []string{`error: -o "yaml": must be one of text|json|junit|sarif|github`}},
		{"missing kubeconfig", []string{"audit", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, report.ExitInputError, nil, []string{"error: ", "none"}},
		{"unreachable", []string{"audit", "--kubeconfig", unreachable}, report.ExitInputError, nil, []string{"error: listing Gateways: ", "127.0.0.1:1"}},
		{"unreachable json", []string{"audit", "--kubeconfig", unreachable, "-o", "json"}, report.ExitInputError,
			[]string{`"inputErrors": [`, `"message": "listing Gateways: `, `"exitCode": 2`}, nil},
		// Findings may exit 0 (the chart's CronJob); a run that fails may not.
		{"unreachable without findings' exit", []string{"audit", "--kubeconfig", unreachable, "-o", "json", "--exit-code-on-findings=false"},
			report.ExitInputError, []string{`"message": "listing Gateways: `, `"exitCode": 2`}, nil},
		{"missing kubeconfig without findings' exit", []string{"audit", "--exit-code-on-findings=false", "--kubeconfig", filepath.Join(t.TempDir(), "none")},
			report.ExitInputError, nil, []string{"error: ", "none"}},
		{"bad exit-code-on-findings", []string{"audit", "--exit-code-on-findings=maybe"}, exitUsage, nil,
			[]string{`invalid argument "maybe" for "--exit-code-on-findings" flag`, see}},
	}
	validateTests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
		stderr []string
	}{
		{"validate -h", []string{"validate", "-h"}, exitOK, []string{"--kubeconfig string", "--context string", "--any-error", "introduced, unchanged or fixed"}, nil},
		{"validate against an unreachable cluster", []string{"validate", "-f", filepath.Join("testdata", "input", "valid.yaml"), "--kubeconfig", unreachable, "-o", "json"},
			report.ExitInputError, []string{`"message": "listing Gateways: `, `"valid": true`, `"exitCode": 2`}, nil},
		{"validate against a missing kubeconfig", []string{"validate", "-f", "x.yaml", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, report.ExitInputError, nil, []string{"error: ", "none"}},
	}
	tests = append(tests, validateTests...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRun(t, tt.args, tt.exit, tt.stdout, tt.stderr)
		})
	}
}

// TestPrintRBACFollowsScope: --print-rbac asks for list on gatewayclasses
// exactly when the scope reads them (the default), not with --scope=all.
func TestPrintRBACFollowsScope(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		classes bool
	}{
		{[]string{"audit", "--print-rbac"}, true},
		{[]string{"audit", "--print-rbac", "--scope=class", "--unknown-parent=admit"}, true},
		{[]string{"audit", "--print-rbac", "--scope=all"}, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			require.Equal(t, exitOK, run(tc.args, strings.NewReader(""), &out, io.Discard))
			var role rbacv1.ClusterRole
			require.NoError(t, yaml.Unmarshal(out.Bytes(), &role))
			assert.Equal(t, live.ClusterRole(false, tc.classes).Rules, role.Rules)
		})
	}
}
