package judge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestStored: stored sets are judged as creates against the cluster they
// are in. An error an update would ratchet (the set is stored with it) is
// an error; the older of two sets on one endpoint keeps it and only the
// newer is told of the conflict, whichever comes first in the list; a
// stored set is no rival of itself.
func TestStored(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	older := vt.TenantSet("team-b", "older", t0, vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	newer := vt.TenantSet("team-a", "newer", t0.Add(time.Second), vt.Listener("web", 8080, gwv1.HTTPProtocolType, "a.example.com"))
	// Allowed by the CRD, refused by the webhook: a route kind Airlock
	// Microgateway does not serve.
	broken := vt.TenantSet("team-a", "broken", t0, vt.Listener("grpc", 9090, gwv1.HTTPProtocolType, "b.example.com"))
	broken.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "TCPRoute"}}}
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{broken, newer, older})

	for _, strict := range []bool{false, true} {
		v := judge.Stored(cluster, cluster.Sets, judge.Options{Strict: strict})
		require.Len(t, v.Results, 3)
		b, n, o := v.Results[0], v.Results[1], v.Results[2]
		assert.Equal(t, "team-a/broken", b.Namespace+"/"+b.Name, "results in the order given")
		assert.False(t, b.Valid)
		require.NotEmpty(t, b.Errors)
		assert.Equal(t, "spec.listeners[0].allowedRoutes.kinds[0].kind", b.Errors[0].Field)
		assert.Zero(t, b.Location, "a stored object has no file")

		assert.True(t, o.Valid, "the older set wins: %+v", o)
		assert.Empty(t, o.Warnings, "no conflict with its own stored copy or the newer set")
		conflict := func(r judge.Result) bool {
			for _, e := range r.Errors {
				if strings.Contains(e.Message, "HostnameConflict") || strings.Contains(e.Message, "team-b/older") {
					return true
				}
			}
			for _, w := range r.Warnings {
				if strings.Contains(w.Message, "team-b/older") {
					return true
				}
			}
			return false
		}
		assert.True(t, conflict(n), "strict=%v: the newer set loses to team-b/older: %+v", strict, n)
		assert.Equal(t, !strict, n.Valid, "strict=%v: a conflict is an error only under --strict", strict)
	}
}

// TestStoredScope: the audit judges only Airlock's stored sets, by the
// listed GatewayClasses, as the webhook with the same --scope would: a set
// of another implementation's class has no finding (and says so in
// Result.Scope); one of a class not listed follows Scope.Unknown; with
// the scope off every set is judged.
func TestStoredScope(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// TCP: fine for another implementation, refused by Airlock's rules.
	set := func(name string) *gwv1.ListenerSet {
		return vt.TenantSet("team-a", name, t0, vt.Listener("tcp", 5432, gwv1.TCPProtocolType, "db.example.com"))
	}
	gateway := func(name, class string) *gwv1.Gateway {
		gw := vt.SharedGateway()
		gw.Name, gw.Spec.GatewayClassName = name, gwv1.ObjectName(class)
		return gw
	}
	onAirlock, onEnvoy, onNginx := set("on-airlock"), set("on-envoy"), set("on-nginx")
	onAirlock.Spec.ParentRef.Name, onEnvoy.Spec.ParentRef.Name, onNginx.Spec.ParentRef.Name = "airlock-gw", "envoy-gw", "nginx-gw"
	cluster := &validation.Objects{
		Gateways: []*gwv1.Gateway{gateway("airlock-gw", "airlock"), gateway("envoy-gw", "envoy"), gateway("nginx-gw", "nginx")},
		Classes: []*gwv1.GatewayClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "airlock"}, Spec: gwv1.GatewayClassSpec{ControllerName: validation.AirlockControllerName}},
			{ObjectMeta: metav1.ObjectMeta{Name: "envoy"}, Spec: gwv1.GatewayClassSpec{ControllerName: "gateway.envoyproxy.io/gatewayclass-controller"}},
		},
		Sets: []*gwv1.ListenerSet{onAirlock, onEnvoy, onNginx},
	}
	airlock := []gwv1.GatewayController{validation.AirlockControllerName}
	for _, tc := range []struct {
		name  string
		scope validation.Scope
		// want are valid and Scope of on-airlock, on-envoy, on-nginx.
		valid  [3]bool
		scoped [3]validation.Outcome
		// note: on-nginx has the unknown parent's warning (LS309).
		note bool
	}{
		{"default", validation.Scope{ControllerNames: airlock}, [3]bool{false, true, false}, [3]validation.Outcome{"", validation.OutcomeOther, ""}, true},
		{"admit", validation.Scope{ControllerNames: airlock, Unknown: validation.UnknownAdmit}, [3]bool{false, true, true},
			[3]validation.Outcome{"", validation.OutcomeOther, validation.OutcomeUnknownAdmitted}, true},
		{"off", validation.Scope{}, [3]bool{false, false, false}, [3]validation.Outcome{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge.Stored(cluster, cluster.Sets, judge.Options{Scope: tc.scope})
			require.Len(t, v.Results, 3)
			for i, r := range v.Results {
				assert.Equal(t, tc.valid[i], r.Valid, "%s: %+v", r.Name, r)
				assert.Equal(t, tc.scoped[i], r.Scope, r.Name)
			}
			if tc.scope.On() {
				assert.Empty(t, v.Results[1].Errors, "another implementation's set has no finding")
				assert.Empty(t, v.Results[1].Warnings, "another implementation's set has no finding")
			}
			hasNote := false
			for _, w := range v.Results[2].Warnings {
				hasNote = hasNote || w.Code == string(validation.CodeScopeUnknown)
			}
			assert.Equal(t, tc.note, hasNote, "on-nginx's warnings: %+v", v.Results[2].Warnings)
		})
	}
}

// TestStoredOverlaps: the audit reports OverlappingTLSConfig on both
// listeners whose hostnames overlap on one port (the reference's A
// foo.example.com and C *.example.com, in two sets), as the cluster-aware
// warning LS307, never as an error, not even under --strict; B
// foo.example.org has none.
func TestStoredOverlaps(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := vt.TenantSet("team-a", "a", t0, vt.Listener("a", 443, gwv1.HTTPSProtocolType, "foo.example.com"))
	b := vt.TenantSet("team-b", "b", t0.Add(time.Second), vt.Listener("b", 443, gwv1.HTTPSProtocolType, "foo.example.org"))
	c := vt.TenantSet("team-c", "c", t0.Add(2*time.Second), vt.Listener("c", 443, gwv1.HTTPSProtocolType, "*.example.com"))
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{a, b, c})
	for _, strict := range []bool{false, true} {
		v := judge.Stored(cluster, cluster.Sets, judge.Options{Strict: strict})
		require.Len(t, v.Results, 3)
		overlaps := map[string][]string{}
		for _, r := range v.Results {
			assert.True(t, r.Valid, "strict=%v: an overlap never denies: %+v", strict, r)
			for _, w := range r.Warnings {
				if w.Code == "LS307" {
					overlaps[r.Name] = append(overlaps[r.Name], w.Message)
				}
			}
		}
		assert.Equal(t, map[string][]string{
			"a": {`spec.listeners[0].hostname: hostname "foo.example.com" overlaps hostname "*.example.com" of team-c/c listener c on port 443: both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`},
			"c": {`spec.listeners[0].hostname: hostname "*.example.com" overlaps hostname "foo.example.com" of team-a/a listener a on port 443: both get OverlappingTLSConfig (OverlappingHostnames); HTTP/2 connection coalescing may reach the other's routes`},
		}, overlaps, "strict=%v", strict)
	}
}

// TestStoredReported: with Reported (the audit), each listener of a judged
// set whose stored status differs from the merged list's prediction is a
// warning LS017, each of which nothing was reported LS018, at the
// listener's path and named by its name, the controller's text escaped;
// a listener that agrees has none. Without Reported (validate
// --kubeconfig's stored verdict) the status is not read; a set the scope
// does not judge has no finding.
func TestStoredReported(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	accepted := metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}
	set := vt.TenantSet("team-a", "shop", t0,
		vt.Listener("agrees", 8080, gwv1.HTTPProtocolType, "a.example.com"),
		vt.Listener("differs", 8081, gwv1.HTTPProtocolType, "a.example.com"),
		vt.Listener("silent", 8082, gwv1.HTTPProtocolType, "a.example.com"))
	set.Status.Conditions = []metav1.Condition{accepted}
	set.Status.Listeners = []gwv1.ListenerEntryStatus{
		{Name: "agrees", Conditions: []metav1.Condition{accepted}},
		{Name: "differs", Conditions: []metav1.Condition{accepted,
			{Type: "Conflicted", Status: metav1.ConditionTrue, Reason: "HostnameConflict", Message: "taken\x1b[2J"}}},
	}
	cluster := vt.SharedCluster([]*gwv1.ListenerSet{set})

	v := judge.Stored(cluster, cluster.Sets, judge.Options{Reported: true})
	require.Len(t, v.Results, 1)
	assert.True(t, v.Results[0].Valid, "status findings are warnings")
	var got []string
	for _, w := range v.Results[0].Warnings {
		got = append(got, w.Code+" "+w.Kind+" "+w.Field+" "+w.Message)
	}
	assert.Equal(t, []string{
		`LS017 StatusDiffers spec.listeners[1] spec.listeners[1]: listener "differs" status differs from the prediction: predicted Accepted, reported Conflicted (HostnameConflict): taken\x1b[2J`,
		`LS018 StatusNotReported spec.listeners[2] spec.listeners[2]: listener "silent" status not reported: nothing reported`,
	}, got)

	v = judge.Stored(cluster, cluster.Sets, judge.Options{})
	assert.Empty(t, v.Results[0].Warnings, "without Reported the status is not read")

	other := judge.Options{Reported: true, Scope: validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}}
	cluster.Classes = []*gwv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "airlock"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}}}
	v = judge.Stored(cluster, cluster.Sets, other)
	assert.Empty(t, v.Results[0].Warnings, "another implementation's set is not compared")
	assert.Equal(t, validation.OutcomeOther, v.Results[0].Scope)
}
