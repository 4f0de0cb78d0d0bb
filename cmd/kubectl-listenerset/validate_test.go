package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock/listenerset-webhook/offline/report"
)

// TestValidateNamespace: validate puts a manifest without a namespace
// where kubectl apply would: -n, else the kubeconfig context's namespace
// (here $KUBECONFIG's, as kubectl's loading rules find it), else default.
// A bad -n is refused naming the flag.
func TestValidateNamespace(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join("..", "..", "offline", "judge", "testdata", "no-namespace.yaml")
	refused := []string{`Namespace "team-b" declares`}
	// The Gateway without a namespace is in the set's: the scope's note
	// on the refused set names it there (a valid set's warnings are not
	// printed).
	inB, inDefault := []string{"Gateway team-b/gw is unknown"}, []string{"skipped Gateway"}
	inC := inDefault
	t.Run("default", func(t *testing.T) {
		assertRun(t, []string{"validate", "-f", manifest}, report.ExitValid, []string{"listenerset.gateway.networking.k8s.io/squat valid"}, inDefault)
	})
	t.Run("-n", func(t *testing.T) {
		assertRun(t, []string{"validate", "-n", "team-b", "-f", manifest}, report.ExitInvalid, refused, inB)
	})
	t.Run("context", func(t *testing.T) {
		kubeconfig := filepath.Join(dir, "config")
		if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts:
- {name: b, context: {cluster: c, user: u, namespace: team-b}}
- {name: other, context: {cluster: c, user: u, namespace: team-c}}
current-context: b
`), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("KUBECONFIG", kubeconfig)
		assertRun(t, []string{"validate", "-f", manifest}, report.ExitInvalid, refused, inB)
		assertRun(t, []string{"validate", "--context", "other", "-f", manifest}, report.ExitValid, []string{"squat valid"}, inC)
		assertRun(t, []string{"validate", "-n", "team-b", "--context", "other", "-f", manifest}, report.ExitInvalid, refused, inB)
	})
	t.Run("bad -n", func(t *testing.T) {
		assertRun(t, []string{"validate", "-n", "Team_B", "-f", manifest}, report.ExitInputError, nil, []string{`-n "Team_B"`})
	})
}
