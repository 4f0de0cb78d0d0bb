package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// reportedFixture is TestReportedStatus' cluster: Airlock's GatewayClass, a
// Gateway admitting every namespace with listeners http and admin, and
// three ListenerSets with HTTPRoutes to agree (web) and differs (docs).
const reportedFixture = `apiVersion: v1
kind: Namespace
metadata: {name: rep-infra}
---
apiVersion: v1
kind: Namespace
metadata: {name: rep-team}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: rep-airlock}
spec: {controllerName: microgateway.airlock.com/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: rep-infra}
spec:
  gatewayClassName: rep-airlock
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: admin, port: 9000, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: agree, namespace: rep-team}
spec:
  parentRef: {name: gw, namespace: rep-infra}
  listeners:
  - {name: web, port: 8080, protocol: HTTP, hostname: agree.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: differs, namespace: rep-team}
spec:
  parentRef: {name: gw, namespace: rep-infra}
  listeners:
  - {name: api, port: 8081, protocol: HTTP}
  - {name: docs, port: 8082, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: silent, namespace: rep-team}
spec:
  parentRef: {name: gw, namespace: rep-infra}
  listeners:
  - {name: web, port: 8083, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: rep-team}
spec:
  parentRefs: [{kind: ListenerSet, name: agree, sectionName: web}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: docs, namespace: rep-team}
spec:
  parentRefs: [{kind: ListenerSet, name: differs, sectionName: docs}]
`

// condition is a status condition as a controller writes it, for
// observedGeneration 1 (each object's generation after its create).
func condition(typ, status, reason, message string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message,
		"observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z"}
}

// TestReportedStatus: what a controller reported beside the prediction, on
// the real kube-apiserver. Status is written through the status
// subresource as a controller writes it: the GatewayClass accepted with
// ListenerSet support, the Gateway's http listener Accepted (admin has no
// entry), rep-team/agree Accepted with the one route that attaches,
// rep-team/differs api Conflicted where Accepted is predicted and docs 0
// attachedRoutes where a route attaches, rep-team/silent left at the
// CRD's default (Pending). `listeners --kubeconfig` marks each listener
// where the status differs or nothing was reported (table and JSON);
// `audit` reports LS017 and LS018 on the sets' listeners (text and
// JSON lines), as warnings: the exit code stays 0. From the same objects
// as manifests, listeners shows no status.
func TestReportedStatus(t *testing.T) {
	requireCluster(t)
	bin, err := testproc.PluginBinary()
	require.NoError(t, err, "building cmd/kubectl-listenerset")
	t.Cleanup(func() {
		kubectl(t, "", "delete", "httproutes.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io", "--all", "-n", "rep-team", "--ignore-not-found")
		kubectl(t, "", "delete", "gateways.gateway.networking.k8s.io", "gw", "-n", "rep-infra", "--ignore-not-found")
		kubectl(t, "", "delete", "gatewayclasses.gateway.networking.k8s.io", "rep-airlock", "--ignore-not-found")
	})
	r := kubectl(t, reportedFixture, "apply", "-f", "-")
	require.NoError(t, r.Err, r.Output())

	accepted := condition("Accepted", "True", "Accepted", "")
	if err := localcluster.AcceptClass(context.Background(), cluster.Client, "rep-airlock"); err != nil {
		t.Fatal(err)
	}
	writeStatus(t, "gateways.gateway.networking.k8s.io", "rep-infra", "gw", map[string]any{
		"conditions": []any{accepted},
		"listeners": []any{map[string]any{"name": "http", "attachedRoutes": 0, "supportedKinds": []any{map[string]any{"kind": "HTTPRoute"}},
			"conditions": []any{accepted, condition("Programmed", "True", "Programmed", "")}}},
	})
	writeStatus(t, "listenersets.gateway.networking.k8s.io", "rep-team", "agree", map[string]any{
		"conditions": []any{accepted},
		"listeners":  []any{map[string]any{"name": "web", "attachedRoutes": 1, "conditions": []any{accepted}}},
	})
	writeStatus(t, "listenersets.gateway.networking.k8s.io", "rep-team", "differs", map[string]any{
		"conditions": []any{accepted},
		"listeners": []any{
			map[string]any{"name": "api", "attachedRoutes": 0, "conditions": []any{accepted,
				condition("Conflicted", "True", "HostnameConflict", "port 8081 is taken")}},
			map[string]any{"name": "docs", "attachedRoutes": 0, "conditions": []any{accepted}},
		},
	})

	fromCluster := []string{"listeners", "--kubeconfig", cluster.KubeconfigPath, "--gateway", "rep-infra/gw"}
	t.Run("listeners marks each difference", func(t *testing.T) {
		got := runListeners(t, bin, fromCluster...)
		t.Logf("listeners --kubeconfig printed:\n%s", got)
		assert.Equal(t, strings.Join([]string{
			"GATEWAY        PRECEDENCE   SOURCE                         OWNER                LISTENER   PORT   PROTOCOL   HOSTNAME            STATE      REASON   CONDITIONS   ROUTES   REPORTED                      DIFFERENCE",
			"rep-infra/gw   1            Gateway/rep-infra/gw           platform             http       80     HTTP       <none>              Accepted   <none>   <none>       <none>   Accepted                      <none>",
			"rep-infra/gw   2            Gateway/rep-infra/gw           platform             admin      9000   HTTP       <none>              Accepted   <none>   <none>       <none>   <none>                        NotReported",
			"rep-infra/gw   3            ListenerSet/rep-team/agree     namespace/rep-team   web        8080   HTTP       agree.example.com   Accepted   <none>   <none>       1        Accepted                      <none>",
			"rep-infra/gw   4            ListenerSet/rep-team/differs   namespace/rep-team   api        8081   HTTP       <none>              Accepted   <none>   <none>       0        Conflicted/HostnameConflict   Differs",
			"rep-infra/gw   5            ListenerSet/rep-team/differs   namespace/rep-team   docs       8082   HTTP       <none>              Accepted   <none>   <none>       1        Accepted                      Differs",
			"rep-infra/gw   6            ListenerSet/rep-team/silent    namespace/rep-team   web        8083   HTTP       <none>              Accepted   <none>   <none>       0        Pending                       NotReported",
		}, "\n")+"\n", got)

		wide := runListeners(t, bin, append(fromCluster, "-o", "wide")...)
		t.Logf("listeners --kubeconfig -o wide printed:\n%s", wide)
		for _, want := range []string{
			"NotReported: nothing reported\n",
			"Differs: predicted Accepted, reported Conflicted (HostnameConflict): port 8081 is taken\n",
			"Differs: predicted 1 attached routes, reported 0\n",
			"NotReported: reported Pending (Pending): Waiting for controller\n",
		} {
			assert.Contains(t, wide, want)
		}

		type mark struct {
			Reported   string
			Routes     *int32
			Difference string
		}
		got2 := map[string]mark{}
		for _, row := range listenerRows(t, runListeners(t, bin, append(fromCluster, "-o", "json")...)) {
			require.NotNil(t, row.Reported, "%s %s", row.Source, row.Name)
			m := mark{Reported: string(row.Reported.State) + "/" + row.Reported.Reason, Routes: row.Reported.AttachedRoutes}
			if row.Difference != nil {
				m.Difference = string(row.Difference.Kind) + ": " + row.Difference.Detail
			}
			got2[row.Source.String()+" "+row.Name] = m
		}
		zero, one := int32(0), int32(1)
		assert.Equal(t, map[string]mark{
			"Gateway/rep-infra/gw http":         {Reported: "Accepted/Accepted", Routes: &zero},
			"Gateway/rep-infra/gw admin":        {Reported: "/", Difference: "NotReported: nothing reported"},
			"ListenerSet/rep-team/agree web":    {Reported: "Accepted/Accepted", Routes: &one},
			"ListenerSet/rep-team/differs api":  {Reported: "Conflicted/HostnameConflict", Routes: &zero, Difference: "Differs: predicted Accepted, reported Conflicted (HostnameConflict)"},
			"ListenerSet/rep-team/differs docs": {Reported: "Accepted/Accepted", Routes: &zero, Difference: "Differs: predicted 1 attached routes, reported 0"},
			"ListenerSet/rep-team/silent web":   {Reported: "Pending/Pending", Difference: "NotReported: reported Pending (Pending)"},
		}, got2)
	})

	t.Run("manifests carry no status to compare", func(t *testing.T) {
		dump := kubectl(t, "", "get", "namespaces,gatewayclasses.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io,httproutes.gateway.networking.k8s.io", "-A", "-o", "json")
		require.NoError(t, dump.Err, dump.Output())
		file := t.TempDir() + "/cluster.json"
		listenersWrite(t, file, dump.Stdout)
		var l listing.Listing
		require.NoError(t, json.Unmarshal([]byte(runListeners(t, bin, "listeners", "-f", file, "--gateway", "rep-infra/gw", "-o", "json")), &l))
		require.Len(t, l.Gateways, 1)
		for _, row := range l.Gateways[0].Listeners {
			assert.Nil(t, row.Reported, "%s %s", row.Source, row.Name)
			assert.Nil(t, row.Difference, "%s %s", row.Source, row.Name)
		}
	})

	audit := []string{"audit", "--kubeconfig", cluster.KubeconfigPath, "-n", "rep-team"}
	t.Run("audit reports LS017 and LS018", func(t *testing.T) {
		out, errOut := runAudit(t, bin, report.ExitValid, audit...)
		t.Logf("audit -n rep-team printed:\n%s%s", out, errOut)
		assert.Equal(t, "listenerset.gateway.networking.k8s.io/rep-team/agree valid\n"+
			"listenerset.gateway.networking.k8s.io/rep-team/differs valid\n"+
			"listenerset.gateway.networking.k8s.io/rep-team/silent valid\n", out)
		assert.Equal(t, `Warning: spec.listeners[0]: listener "api" status differs from the prediction: predicted Accepted, reported Conflicted (HostnameConflict): port 8081 is taken`+"\n"+
			`Warning: spec.listeners[1]: listener "docs" status differs from the prediction: predicted 1 attached routes, reported 0`+"\n"+
			`Warning: spec.listeners[0]: listener "web" status not reported: reported Pending (Pending): Waiting for controller`+"\n", errOut)

		out, _ = runAudit(t, bin, report.ExitValid, append(audit, "-o", "jsonl")...)
		t.Logf("audit -n rep-team -o jsonl printed:\n%s", out)
		assert.Equal(t, `{"type":"finding","namespace":"rep-team","name":"differs","code":"LS017","title":"Listener status differs from the prediction","severity":"warning","field":"spec.listeners[0]","message":"spec.listeners[0]: listener \"api\" status differs from the prediction: predicted Accepted, reported Conflicted (HostnameConflict): port 8081 is taken"}`+"\n"+
			`{"type":"finding","namespace":"rep-team","name":"differs","code":"LS017","title":"Listener status differs from the prediction","severity":"warning","field":"spec.listeners[1]","message":"spec.listeners[1]: listener \"docs\" status differs from the prediction: predicted 1 attached routes, reported 0"}`+"\n"+
			`{"type":"finding","namespace":"rep-team","name":"silent","code":"LS018","title":"Listener status not reported","severity":"warning","field":"spec.listeners[0]","message":"spec.listeners[0]: listener \"web\" status not reported: reported Pending (Pending): Waiting for controller"}`+"\n"+
			`{"type":"summary","valid":3,"invalid":0,"skipped":0,"inputErrors":0,"exitCode":0}`+"\n", out)

		// --strict makes conflicts errors, not status findings.
		runAudit(t, bin, report.ExitValid, append(audit, "--strict")...)
	})

	t.Run("a controller catching up clears the finding", func(t *testing.T) {
		writeStatus(t, "listenersets.gateway.networking.k8s.io", "rep-team", "silent", map[string]any{
			"conditions": []any{accepted},
			"listeners":  []any{map[string]any{"name": "web", "attachedRoutes": 0, "conditions": []any{accepted}}},
		})
		_, errOut := runAudit(t, bin, report.ExitValid, audit...)
		assert.Equal(t, `Warning: spec.listeners[0]: listener "api" status differs from the prediction: predicted Accepted, reported Conflicted (HostnameConflict): port 8081 is taken`+"\n"+
			`Warning: spec.listeners[1]: listener "docs" status differs from the prediction: predicted 1 attached routes, reported 0`+"\n", errOut,
			"silent's LS018 gone, differs' LS017 still there")
	})
}
