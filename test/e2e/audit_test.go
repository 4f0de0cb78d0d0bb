package e2e

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// auditNamespaces are testdata/audit.yaml's (kept after the test: without
// kube-controller-manager a deleted namespace never goes away).
var auditNamespaces = []string{"aud-infra", "aud-team-a", "aud-team-b"}

// TestAuditCommand: `kubectl listenerset audit` against the real
// kube-apiserver. testdata/audit.yaml is stored with the webhook
// unregistered, as a cluster holds objects from before the webhook was
// installed: a set the webhook denies, a hostname conflict, a
// cross-namespace certificate no ReferenceGrant permits, a set on a
// Gateway without allowedListeners and one whose Secret is missing. The
// audit finds each (cluster-aware findings as warnings, errors under
// --strict), filtered by --namespace and --gateway, in every format, with
// validate's exit codes; what ratcheting lets through on an update stays an
// error in the audit; and a user bound only to the ClusterRole
// --print-rbac prints can run it.
func TestAuditCommand(t *testing.T) {
	requireCluster(t)
	bin, err := testproc.PluginBinary()
	require.NoError(t, err, "building cmd/kubectl-listenerset")
	fixture := filepath.Join(root, "test", "e2e", "testdata", "audit.yaml")
	ctx := context.Background()
	t.Cleanup(func() {
		for _, ns := range auditNamespaces {
			kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io", "--all", "-n", ns, "--ignore-not-found")
		}
	})
	require.NoError(t, cluster.UnregisterWebhooks(ctx, namespace))
	r := kubectl(t, "", "apply", "-f", fixture)
	require.NoError(t, cluster.RegisterWebhooks(ctx, endpoint, namespace), "re-registering the webhook: later tests need it")
	require.NoError(t, r.Err, r.Output())

	admin := []string{"audit", "--kubeconfig", cluster.KubeconfigPath}
	audit := func(t *testing.T, wantExit int, args ...string) (stdout, stderr string) {
		t.Helper()
		stdout, stderr = runAudit(t, bin, wantExit, append(admin[:len(admin):len(admin)], args...)...)
		if i := slices.Index(args, "-o"); i >= 0 && slices.Contains([]string{"json", "junit", "sarif"}, args[i+1]) {
			return stdout, stderr // documents, not lines: each test reads them as it needs
		}
		return withoutUnreported(stdout), withoutUnreported(stderr)
	}
	const (
		brokenErr = `The ListenerSet "aud-team-a/broken" is invalid: spec.listeners[0].allowedRoutes.kinds[0].kind: Unsupported value: "TCPRoute": supported values: "HTTPRoute"` + "\n"
		conflict  = "Warning: spec.listeners[0].hostname: same port, protocol and hostname as aud-team-a/first listener web; this listener would be Conflicted (HostnameConflict)\n"
		claimed   = `Warning: spec.listeners[0].hostname: hostname "a.example.com" is held by namespace "aud-team-a" (aud-team-a/first listener web, port 8080): the first claim keeps it` + "\n"
		notGrant  = `Warning: spec.listeners[0].tls.certificateRefs[0].namespace: no ReferenceGrant in namespace "aud-infra" allows ListenerSets from "aud-team-b" to use this Secret (RefNotPermitted)` + "\n"
		closed    = "Warning: spec.parentRef: Gateway aud-infra/closed does not admit this ListenerSet (NotAllowed): allowedListeners.namespaces.from is None (the default)\n"
		noSecret  = "Warning: spec.listeners[0].tls.certificateRefs[0].name: Secret aud-team-a/missing not found"
	)
	valid := func(name string) string { return "listenerset.gateway.networking.k8s.io/" + name + " valid\n" }

	t.Run("namespace: a set stored before the webhook is invalid", func(t *testing.T) {
		out, errOut := audit(t, report.ExitInvalid, "--namespace", "aud-team-a")
		assert.Equal(t, brokenErr+valid("aud-team-a/first")+valid("aud-team-a/nocert"), out, "only aud-team-a's, in namespace/name order")
		assert.Empty(t, errOut, "without --secrets the missing Secret is not checked")
	})

	t.Run("cluster-aware findings", func(t *testing.T) {
		out, errOut := audit(t, report.ExitValid, "-n", "aud-team-b")
		assert.Equal(t, valid("aud-team-b/crossref")+valid("aud-team-b/second")+valid("aud-team-b/stranded"), out)
		// Each set's warnings just before its result: no ReferenceGrant
		// permits crossref's certificate, the newer of two sets on one
		// endpoint is told of the conflict and, another namespace's, that
		// the first claim keeps the hostname, stranded's Gateway admits none.
		assert.Equal(t, notGrant+claimed+conflict+closed, errOut)

		out, _ = audit(t, report.ExitInvalid, "-n", "aud-team-b", "--strict")
		assert.Contains(t, out, `The ListenerSet "aud-team-b/second" is invalid: spec.listeners[0].hostname: `)
		assert.Contains(t, out, `The ListenerSet "aud-team-b/crossref" is invalid: spec.listeners[0].tls.certificateRefs[0].namespace: `)
		assert.Contains(t, out, valid("aud-team-b/stranded"), "NotAllowed stays a warning")

		_, errOut = audit(t, report.ExitInvalid, "-n", "aud-team-a", "--secrets")
		assert.Contains(t, errOut, noSecret)
	})

	t.Run("gateway", func(t *testing.T) {
		out, errOut := audit(t, report.ExitValid, "--gateway", "aud-infra/closed")
		assert.Equal(t, valid("aud-team-b/stranded"), out)
		assert.Contains(t, errOut, closed)
		out, _ = audit(t, report.ExitInvalid, "--gateway", "aud-infra/shared")
		for _, name := range []string{"aud-team-a/first", "aud-team-a/nocert", "aud-team-b/crossref", "aud-team-b/second"} {
			assert.Contains(t, out, valid(name))
		}
		assert.Contains(t, out, brokenErr)
		assert.NotContains(t, out, "stranded")
		out, errOut = audit(t, report.ExitValid, "--gateway", "aud-infra/nothing-here")
		assert.Empty(t, out)
		assert.Equal(t, "no ListenerSet found\n", errOut)
	})

	t.Run("whole cluster", func(t *testing.T) {
		out, _ := audit(t, report.ExitInvalid)
		for _, want := range []string{brokenErr, valid("aud-team-a/first"), valid("aud-team-b/stranded")} {
			assert.Contains(t, out, want)
		}
	})

	t.Run("pages: one object a request lists what one request does", func(t *testing.T) {
		names := func(o *validation.Objects) (sets, gateways, grants []string) {
			for _, ls := range o.Sets {
				sets = append(sets, ls.Namespace+"/"+ls.Name)
			}
			for _, g := range o.Gateways {
				gateways = append(gateways, g.Namespace+"/"+g.Name)
			}
			for _, g := range o.Grants {
				grants = append(grants, g.Namespace+"/"+g.Name)
			}
			return sets, gateways, grants
		}
		all := live.Kinds{ReferenceGrants: true}
		whole, err := live.List(ctx, cluster.Config, all, 0)
		require.NoError(t, err)
		paged, err := live.List(ctx, cluster.Config, all, 1)
		require.NoError(t, err)
		wantSets, wantGateways, wantGrants := names(whole)
		require.Greater(t, len(wantSets), 1, "the fixture stores several sets, so that one a page takes several pages")
		gotSets, gotGateways, gotGrants := names(paged)
		assert.Equal(t, wantSets, gotSets)
		assert.Equal(t, wantGateways, gotGateways)
		assert.Equal(t, wantGrants, gotGrants)
		assert.Len(t, paged.Namespaces, len(whole.Namespaces))

		// What listeners lists: ReferenceGrants unknown (nil), not empty.
		less, err := live.List(ctx, cluster.Config, live.Kinds{}, 1)
		require.NoError(t, err)
		assert.Nil(t, less.Grants)
		assert.Nil(t, less.Secrets)
	})

	t.Run("every format", func(t *testing.T) {
		args := []string{"-n", "aud-team-a", "-o"}
		out, _ := audit(t, report.ExitInvalid, append(args, "json")...)
		var rep report.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		require.Len(t, rep.Results, 3)
		assert.Equal(t, "broken", rep.Results[0].Name)
		assert.False(t, rep.Results[0].Valid)
		assert.Equal(t, "spec.listeners[0].allowedRoutes.kinds[0].kind", rep.Results[0].Errors[0].Field)
		assert.Equal(t, report.Summary{Valid: 2, Invalid: 1, ExitCode: report.ExitInvalid}, rep.Summary)

		// The chart's CronJob: the same findings, reported; the run exit 0.
		out, _ = audit(t, report.ExitValid, "-n", "aud-team-a", "--exit-code-on-findings=false", "-o", "json")
		var reported report.Report
		require.NoError(t, json.Unmarshal([]byte(out), &reported), out)
		assert.Equal(t, rep.Results, reported.Results, "--exit-code-on-findings=false reports the same findings")
		assert.Equal(t, report.Summary{Valid: 2, Invalid: 1, ExitCode: report.ExitValid}, reported.Summary)

		out, _ = audit(t, report.ExitInvalid, append(args, "junit")...)
		var suites struct {
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Tests int    `xml:"tests,attr"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal([]byte(out), &suites), out)
		assert.Equal(t, 1, suites.Failures)
		require.Len(t, suites.Suites, 1)
		assert.Equal(t, "namespace aud-team-a", suites.Suites[0].Name)
		assert.Equal(t, 3, suites.Suites[0].Tests)

		out, _ = audit(t, report.ExitInvalid, append(args, "sarif")...)
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID string `json:"ruleId"`
					Level  string `json:"level"`
				} `json:"results"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &log), out)
		require.Len(t, log.Runs, 1)
		log.Runs[0].Results = slices.DeleteFunc(log.Runs[0].Results, func(r struct {
			RuleID string `json:"ruleId"`
			Level  string `json:"level"`
		}) bool {
			return r.RuleID == string(judge.CodeStatusNotReported)
		})
		require.Len(t, log.Runs[0].Results, 1)
		assert.Equal(t, string(validation.CodeRouteKind), log.Runs[0].Results[0].RuleID)
		assert.Equal(t, "error", log.Runs[0].Results[0].Level)

		out, _ = audit(t, report.ExitInvalid, append(args, "github")...)
		assert.Equal(t, "::error title=LS130 Unsupported route kind::ListenerSet aud-team-a/broken: "+
			strings.TrimPrefix(strings.TrimSuffix(brokenErr, "\n"), `The ListenerSet "aud-team-a/broken" is invalid: `)+"\n", out)
	})

	t.Run("what ratcheting lets through", func(t *testing.T) {
		// An update that leaves the invalid listener alone is admitted, its
		// error a warning; the audit still reports the object invalid.
		r := kubectl(t, "", "label", "listenersets.gateway.networking.k8s.io", "broken", "-n", "aud-team-a", "audited=yes")
		require.NoError(t, r.Err, r.Output())
		assert.Contains(t, r.Stderr, "kinds[0].kind", "the webhook let the unchanged error through with a warning")
		out, _ := audit(t, report.ExitInvalid, "-n", "aud-team-a")
		assert.Contains(t, out, brokenErr)
	})

	t.Run("the printed rules suffice", func(t *testing.T) {
		// The ClusterRole --print-rbac prints, applied as printed and bound
		// to a user who has nothing else.
		role, _ := audit(t, report.ExitValid, "--print-rbac")
		r := kubectl(t, role, "apply", "-f", "-")
		require.NoError(t, r.Err, r.Output())
		t.Cleanup(func() { kubectl(t, "", "delete", "clusterrole", live.ClusterRoleName, "--ignore-not-found") })
		const user = "e2e-auditor"
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: live.ClusterRoleName},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
		}
		require.NoError(t, cluster.Client.Create(ctx, binding))
		t.Cleanup(func() { _ = cluster.Client.Delete(ctx, binding) })
		kubeconfig := listOnlyKubeconfig(t, user)

		want, _ := audit(t, report.ExitInvalid, "-o", "json")
		got, _ := runAudit(t, bin, report.ExitInvalid, "audit", "--kubeconfig", kubeconfig, "-o", "json")
		assert.JSONEq(t, want, got, "as a user who may only list what the ClusterRole names")

		// Without the rules: forbidden, an input error.
		nobody := impersonating(t, "e2e-nobody")
		out, _ := runAudit(t, bin, report.ExitInputError, "audit", "--kubeconfig", nobody, "-o", "json")
		assert.Contains(t, out, "forbidden")
		assert.Contains(t, out, `"exitCode": 2`)
		// A run that fails still fails with --exit-code-on-findings=false (the chart's CronJob).
		out, _ = runAudit(t, bin, report.ExitInputError, "audit", "--kubeconfig", nobody, "-o", "jsonl", "--exit-code-on-findings=false")
		assert.Contains(t, out, "forbidden")
	})
}

// withoutUnreported is the audit's output (text, github or jsonl: a
// finding a line) without its LS018 findings: no controller runs beside the suite's
// kube-apiserver, so nothing is reported of any stored listener
// (TestReportedStatus writes status and holds those findings); the
// other tests look at the rest.
func withoutUnreported(out string) string {
	lines := strings.SplitAfter(out, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, unreported) }), "")
}

// unreported is in every LS018 finding's message.
const unreported = " status not reported: "

// runAudit runs the built binary and returns its stdout and stderr; it
// must exit with wantExit.
func runAudit(t *testing.T, bin string, wantExit int, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "%v", err)
		code = exit.ExitCode()
	}
	require.Equal(t, wantExit, code, "kubectl-listenerset %s\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return stdout.String(), stderr.String()
}
