package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// The story docs/tenancy-capsule.md tells, on the node: tenant alpha's
// namespaces team-a and team-b and tenant beta's team-c, labelled as
// Capsule labels them, on one Gateway of Airlock's class that admits all
// three; team-a's portal holds *.a.example.com (first on 443).
var capsuleFixtures = strings.NewReplacer("$CONTROLLER", string(validation.AirlockControllerName)).Replace(`
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: lsw-node-capsule}
spec: {controllerName: $CONTROLLER}
---
apiVersion: v1
kind: Namespace
metadata: {name: lsw-node-capsule-infra}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {capsule.clastix.io/tenant: alpha, shared-gateway: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {capsule.clastix.io/tenant: alpha, shared-gateway: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-c, labels: {capsule.clastix.io/tenant: beta, shared-gateway: "yes"}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: shared, namespace: lsw-node-capsule-infra}
spec:
  gatewayClassName: lsw-node-capsule
  allowedListeners:
    namespaces: {from: Selector, selector: {matchLabels: {shared-gateway: "yes"}}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: portal, namespace: team-a}
spec:
  parentRef: {name: shared, namespace: lsw-node-capsule-infra}
  listeners:
  - {name: https, protocol: HTTPS, port: 443, hostname: "*.a.example.com", tls: {certificateRefs: [{name: a-wildcard}]}}
  - {name: http, protocol: HTTP, port: 8080, hostname: "*.a.example.com"}
`)

// capsuleHeld is what the webhook and the audit say of a claim under
// portal's wildcard from another tenant: the holder, named.
const capsuleHeld = `overlaps "*.a.example.com", which tenant "alpha" holds (team-a/portal listener https, port 443): the first claim keeps it`

// capsuleClaim is a ListenerSet in ns claiming hostname on shared.
func capsuleClaim(ns, name, hostname string) *unstructured.Unstructured {
	ls := listenerSet(ns, name, true)
	spec := ls.Object["spec"].(map[string]any)
	spec["parentRef"] = map[string]any{"name": "shared", "namespace": "lsw-node-capsule-infra"}
	spec["listeners"].([]any)[0].(map[string]any)["hostname"] = hostname
	return ls
}

// storeCapsuleStory creates the fixtures (deleted when the test ends), and
// then tenant beta's squatter team-c/login, claiming login.a.example.com
// under portal's wildcard, stored while the release has no cluster checks:
// what the page's audit is to find. It is created in a later second than
// portal, so that the stored objects tell which came first.
func storeCapsuleStory(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	objs, err := decodeObjects(capsuleFixtures)
	require.NoError(t, err)
	squatter := capsuleClaim("team-c", "login", "login.a.example.com")
	objs = append(objs, squatter)
	t.Cleanup(func() {
		for i := len(objs) - 1; i >= 0; i-- {
			_ = c.Delete(context.Background(), objs[i].DeepCopy())
		}
	})
	for _, u := range objs[:len(objs)-1] {
		// Retried: a new namespace's first writes may race its creation.
		eventually(t, 30*time.Second, "created "+u.GetKind()+" "+u.GetName(), func() error { return c.Create(ctx, u.DeepCopy()) })
	}
	require.NoError(t, localcluster.AcceptClass(ctx, c, "lsw-node-capsule"))
	portal := objs.get(t, "ListenerSet", "portal").DeepCopy()
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(portal), portal))
	created := portal.GetCreationTimestamp()
	eventually(t, 5*time.Second, "a second later than portal's creation", func() error {
		if !time.Now().Truncate(time.Second).After(created.Time) {
			return errors.New("still portal's second")
		}
		return nil
	})
	require.NoError(t, c.Create(ctx, squatter.DeepCopy()), "the squatter, before the cluster checks")
}

// capsuleDenied is a check that a dry-run create of obj is denied with the
// holder named.
func capsuleDenied(ctx context.Context, c client.Client, obj *unstructured.Unstructured) func() error {
	return func() error {
		err := c.Create(ctx, obj.DeepCopy(), client.DryRunAll)
		if err == nil {
			return errors.New("admitted")
		}
		if !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), `Forbidden: hostname "`+
			obj.Object["spec"].(map[string]any)["listeners"].([]any)[0].(map[string]any)["hostname"].(string)+`" `+capsuleHeld) {
			return fmt.Errorf("denied otherwise: %w", err)
		}
		return nil
	}
}

// helmRevision is the release's current revision.
func helmRevision(ctx context.Context, t *testing.T, rel *helmRelease) int {
	t.Helper()
	var s struct {
		Version int `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(rel.helm(ctx, t, "status", rel.name, "-o", "json")), &s))
	require.Positive(t, s.Version)
	return s.Version
}
