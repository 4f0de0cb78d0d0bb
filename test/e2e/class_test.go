package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/validation"
)

// The class status test's objects: a GatewayClass of Airlock's controller,
// which no controller takes here, and a Gateway of it in the examples'
// namespace.
const (
	statusClass   = "e2e-class-status"
	statusGateway = "class-status-gw"
)

var classStatusFixtures = strings.NewReplacer("$CLASS", statusClass, "$GW", statusGateway, "$NS", namespace,
	"$AIRLOCK", string(validation.AirlockControllerName)).Replace(`
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: $CLASS}
spec: {controllerName: $AIRLOCK}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: $GW, namespace: $NS}
spec:
  gatewayClassName: $CLASS
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`)

// classStatusSet is a valid ListenerSet under statusGateway, its listener
// on port (each set its own, so that none conflicts with another).
func classStatusSet(name string, port int) map[string]any {
	ls := listenerSet(name, httpListener("web", port))
	spec(ls)["parentRef"] = map[string]any{"name": statusGateway}
	return ls
}

// TestClassStatusWarnings: with the scope and the cluster checks on, kubectl
// shows, when a ListenerSet is applied, that its Gateway's GatewayClass is
// stored as kube-apiserver stores it (the CRD's default, Accepted Unknown,
// Pending: no controller has taken it); that its controller refused it,
// with the reason and message; that its controller, once it accepted the
// class, does not list ListenerSet support in status.supportedFeatures;
// and nothing once it does. The class's status is written through the
// status subresource, as a controller writes it.
func TestClassStatusWarnings(t *testing.T) {
	requireCluster(t)
	ctx := context.Background()
	if r := kubectl(t, classStatusFixtures, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	t.Cleanup(func() {
		for _, name := range []string{"class-pending", "class-refused", "class-no-feature", "class-accepted"} {
			deleteLS(t, name)
		}
		kubectl(t, "", "delete", "gateway", statusGateway, "-n", namespace, "--ignore-not-found")
		kubectl(t, "", "delete", "gatewayclass", statusClass, "--ignore-not-found")
	})
	stored := kubectl(t, "", "get", "gatewayclass", statusClass, "-o",
		`jsonpath={range .status.conditions[*]}{.type} {.status} {.reason} {.message}{end}`)
	if got, want := stored.Stdout, "Accepted Unknown Pending Waiting for controller"; got != want {
		t.Fatalf("the stored class's conditions are %q (%v), want the CRD's default %q", got, stored.Err, want)
	}
	restartWebhook(t, webhookSettings{enabled: true, scope: []gwv1.GatewayController{validation.AirlockControllerName}})
	consequence := "the ListenerSet stays Pending and unprogrammed"

	// Pending, as stored: no controller has taken the class.
	pending := fmt.Sprintf(`spec.parentRef: GatewayClass %q is not accepted by its controller %s (Accepted is Unknown, reason Pending): %s`,
		statusClass, validation.AirlockControllerName, consequence)
	showWarnings(t, classStatusSet("class-pending", 8081), pending)

	// Refused: the controller's reason and message.
	refusal := `{"status":{"conditions":[{"type":"Accepted","status":"False","reason":"InvalidParameters",` +
		`"message":"parametersRef: GatewayClassParameters \"gw-params\" not found","observedGeneration":1,` +
		`"lastTransitionTime":"` + time.Now().UTC().Format(time.RFC3339) + `"}]}}`
	if r := kubectl(t, "", "patch", "gatewayclass", statusClass, "--subresource=status", "--type=merge", "-p", refusal); r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}
	showWarnings(t, classStatusSet("class-refused", 8082), fmt.Sprintf(`spec.parentRef: GatewayClass %q refused by its controller %s: %s; `+
		`InvalidParameters: parametersRef: GatewayClassParameters "gw-params" not found`, statusClass, validation.AirlockControllerName, consequence))

	// Accepted, by a controller without ListenerSet support.
	if err := localcluster.AcceptClass(ctx, cluster.Client, statusClass, features.SupportGateway, features.SupportHTTPRoute); err != nil {
		t.Fatal(err)
	}
	showWarnings(t, classStatusSet("class-no-feature", 8083), fmt.Sprintf(`spec.parentRef: GatewayClass %q: its controller %s does not list %s `+
		`in status.supportedFeatures: %s`, statusClass, validation.AirlockControllerName, features.SupportListenerSet, consequence))

	// Accepted, ListenerSet support listed: nothing to say.
	if err := localcluster.AcceptClass(ctx, cluster.Client, statusClass, localcluster.ControllerFeatures...); err != nil {
		t.Fatal(err)
	}
	showWarnings(t, classStatusSet("class-accepted", 8084))
}

// showWarnings waits until a dry run of obj gives exactly want (the view
// follows the class a moment behind the write), then creates it and checks
// that kubectl printed exactly want, and logs what it printed.
func showWarnings(t *testing.T, obj map[string]any, want ...string) {
	t.Helper()
	eventuallyWarns(t, obj, want...)
	r := mustApply(t, obj)
	requireExactWarnings(t, r, want...)
	t.Logf("kubectl apply printed:\n%s", r.Output())
}
