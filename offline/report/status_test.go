package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/test/golden"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestStatusFindingsGolden: the audit's status findings (judge.Stored with
// Reported) in every format, each with its code: LS017 for a listener
// whose status differs from the prediction, LS018 for one of which nothing
// was reported, warnings at the listener that leave the set valid and the
// exit code 0; the controller's message with an escape sequence stays
// escaped.
func TestStatusFindingsGolden(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	accepted := metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}
	differs := vt.TenantSet("team-a", "differs", t0, vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	differs.Status.Conditions = []metav1.Condition{accepted}
	differs.Status.Listeners = []gwv1.ListenerEntryStatus{{Name: "web", Conditions: []metav1.Condition{accepted,
		{Type: "Conflicted", Status: metav1.ConditionTrue, Reason: "HostnameConflict", Message: "a.example.com\x1b[2J is taken"}}}}
	agrees := vt.TenantSet("team-a", "agrees", t0, vt.Listener("web", 8081, gwv1.HTTPProtocolType, "a.example.com"))
	agrees.Status.Conditions = []metav1.Condition{accepted}
	agrees.Status.Listeners = []gwv1.ListenerEntryStatus{{Name: "web", Conditions: []metav1.Condition{accepted}}}
	pending := vt.TenantSet("team-b", "pending", t0, vt.Listener("web", 8082, gwv1.HTTPProtocolType, "b.example.com"),
		vt.Listener("api", 8083, gwv1.HTTPProtocolType, "b.example.com"))
	pending.Status.Conditions = []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending", Message: "Waiting for controller"}}
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{agrees, differs, pending})
	r := New(judge.Stored(cluster, cluster.Sets, judge.Options{Reported: true}))
	require.Equal(t, ExitValid, r.Summary.ExitCode, "status findings are warnings")
	for _, f := range []Format{Text, JSON, JSONLines, JUnit, SARIF, GitHub} {
		t.Run(string(f), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.NoError(t, r.Write(f, &stdout, &stderr, "/repo"))
			golden.Assert(t, filepath.Join("testdata", "status."+string(f)+".golden"), "--- stdout\n"+stdout.String()+"--- stderr\n"+stderr.String())
		})
	}
}
