package e2e

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// TestValidateAgainstCluster: `validate -f DIR --kubeconfig` against the
// real kube-apiserver. testdata/against-cluster.yaml is stored with the
// webhook unregistered: ag-team/app with two errors and
// ag-team/cluster-only. testdata/against-files changes app (one error
// fixed, one unchanged, one introduced) and adds newcomer on
// cluster-only's endpoint, a conflict with a set only the cluster holds.
// Every format marks each finding; exit 1 only for the introduced error
// (or --any-error).
func TestValidateAgainstCluster(t *testing.T) {
	requireCluster(t)
	bin, err := testproc.PluginBinary()
	require.NoError(t, err, "building cmd/kubectl-listenerset")
	ctx := context.Background()
	t.Cleanup(func() {
		kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io", "--all", "-n", "ag-team", "--ignore-not-found")
		kubectl(t, "", "delete", "gateways.gateway.networking.k8s.io", "--all", "-n", "ag-infra", "--ignore-not-found")
	})
	require.NoError(t, cluster.UnregisterWebhooks(ctx, namespace))
	r := kubectl(t, "", "apply", "-f", filepath.Join(root, "test", "e2e", "testdata", "against-cluster.yaml"))
	require.NoError(t, cluster.RegisterWebhooks(ctx, endpoint, namespace), "re-registering the webhook: later tests need it")
	require.NoError(t, r.Err, r.Output())

	files := filepath.Join(root, "test", "e2e", "testdata", "against-files")
	validate := func(t *testing.T, wantExit int, args ...string) string {
		t.Helper()
		out, _ := runAudit(t, bin, wantExit, append([]string{"validate", "-f", files, "--kubeconfig", cluster.KubeconfigPath}, args...)...)
		return out
	}
	const (
		fixed      = `spec.listeners[0].allowedRoutes.kinds[0].kind: Unsupported value: "TCPRoute": supported values: "HTTPRoute"`
		unchanged  = `spec.listeners[1].allowedRoutes.kinds[0].kind: Unsupported value: "UDPRoute": supported values: "HTTPRoute"`
		introduced = `spec.listeners[2].allowedRoutes.kinds[0].kind: Unsupported value: "TLSRoute": supported values: "HTTPRoute"`
		conflict   = `spec.listeners[0].hostname: same port, protocol and hostname as ag-team/cluster-only listener web; this listener would be Conflicted (HostnameConflict)`
	)

	t.Run("text", func(t *testing.T) {
		out := validate(t, report.ExitInvalid)
		for _, want := range []string{
			"introduced (2):\n",
			"  error: ListenerSet ag-team/app: " + introduced + " (at ",
			"  warning: ListenerSet ag-team/newcomer: " + conflict + " (at ",
			"unchanged (1):\n  error: ListenerSet ag-team/app: " + unchanged + " (at ",
			// The live object's: the file has no line of it.
			"fixed (1):\n  error: ListenerSet ag-team/app: " + fixed + " (at " + filepath.Join(files, "app.yaml") + ")\n",
			"2 ListenerSets judged against the cluster (1 invalid): 2 introduced (1 errors), 1 unchanged, 1 fixed\n",
		} {
			assert.Contains(t, out, want)
		}
	})

	t.Run("json", func(t *testing.T) {
		var rep report.Report
		require.NoError(t, json.Unmarshal([]byte(validate(t, report.ExitInvalid, "-o", "json")), &rep))
		require.Len(t, rep.Results, 2, "app and newcomer; cluster-only's findings do not change")
		app, newcomer := rep.Results[0], rep.Results[1]
		require.Len(t, app.Errors, 2)
		assert.Equal(t, judge.Unchanged, app.Errors[0].Baseline)
		assert.Equal(t, judge.Introduced, app.Errors[1].Baseline)
		require.NotNil(t, app.Fixed)
		require.Len(t, app.Fixed.Errors, 1)
		assert.Equal(t, fixed, app.Fixed.Errors[0].Message)
		assert.Equal(t, judge.Fixed, app.Fixed.Errors[0].Baseline)
		require.Len(t, newcomer.Warnings, 1)
		assert.Equal(t, conflict, newcomer.Warnings[0].Message)
		assert.Equal(t, string(judge.Introduced), newcomer.Warnings[0].Baseline)
		assert.Equal(t, &report.BaselineSummary{Introduced: 2, Unchanged: 1, Fixed: 1, IntroducedErrors: 1}, rep.Summary.Baseline)
	})

	t.Run("sarif", func(t *testing.T) {
		var log struct {
			Runs []struct {
				Results []struct {
					Level         string                `json:"level"`
					BaselineState string                `json:"baselineState"`
					Message       struct{ Text string } `json:"message"`
				} `json:"results"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal([]byte(validate(t, report.ExitInvalid, "-o", "sarif")), &log))
		states := map[string]string{}
		for _, r := range log.Runs[0].Results {
			states[r.Message.Text] = r.BaselineState
		}
		assert.Equal(t, map[string]string{
			"ListenerSet ag-team/app: " + unchanged:     "unchanged",
			"ListenerSet ag-team/app: " + introduced:    "new",
			"ListenerSet ag-team/app: " + fixed:         "absent",
			"ListenerSet ag-team/newcomer: " + conflict: "new",
		}, states)
	})

	t.Run("junit and github", func(t *testing.T) {
		var suites struct {
			Suites []struct {
				Cases []struct {
					Name     string `xml:"name,attr"`
					Failures []struct {
						Baseline string `xml:"baseline,attr"`
						Message  string `xml:"message,attr"`
					} `xml:"failure"`
					SystemOut string `xml:"system-out"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal([]byte(validate(t, report.ExitInvalid, "-o", "junit")), &suites))
		var app string
		for _, s := range suites.Suites {
			for _, c := range s.Cases {
				if c.Name == "ag-team/app" {
					require.Len(t, c.Failures, 2)
					app = c.Failures[0].Baseline + "," + c.Failures[1].Baseline
					assert.Contains(t, c.SystemOut, "Fixed error LS")
					assert.Contains(t, c.SystemOut, fixed)
				}
			}
		}
		assert.Equal(t, "unchanged,introduced", app)

		out := validate(t, report.ExitInvalid, "-o", "github")
		assert.Contains(t, out, "::introduced: ListenerSet ag-team/app: "+introduced+"\n")
		assert.Contains(t, out, "::unchanged: ListenerSet ag-team/app: "+unchanged+"\n")
		assert.Contains(t, out, "::notice file="+filepath.Join(files, "app.yaml")+",title=")
		assert.Contains(t, out, "::fixed: ListenerSet ag-team/app: "+fixed+"\n")
	})

	t.Run("exit status", func(t *testing.T) {
		// Without the introduced error, the unchanged one does not fail
		// the run, unless --any-error; --strict makes the conflict with
		// the cluster-only set an introduced error.
		dir := t.TempDir()
		app, err := os.ReadFile(filepath.Join(files, "app.yaml"))
		require.NoError(t, err)
		i := strings.Index(string(app), "  - name: added")
		require.Positive(t, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), app[:i], 0o644))
		base := []string{"validate", "-f", dir, "--kubeconfig", cluster.KubeconfigPath}
		runAudit(t, bin, report.ExitValid, base...)
		runAudit(t, bin, report.ExitInvalid, append(base, "--any-error")...)
		out, _ := runAudit(t, bin, report.ExitInvalid, "validate", "-f", files, "--kubeconfig", cluster.KubeconfigPath, "--strict", "-o", "json")
		assert.Contains(t, out, `"introducedErrors": 2`)
	})
}
