package listing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/validation"
)

// TestRouteClaimsInCLAIM: team-b's HTTPRoute attached to its listener
// without a hostname claims login.a.example.com, under team-a's older
// *.a.example.com: the listener's row has the finding (routeClaims), which
// the CLAIM column shows; team-a's rows say nothing of it.
func TestRouteClaimsInCLAIM(t *testing.T) {
	const manifests = `
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: shared, namespace: infra}
spec:
  gatewayClassName: airlock
  allowedListeners: {namespaces: {from: All}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: portal, namespace: team-a, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  parentRef: {name: shared, namespace: infra}
  listeners: [{name: http, protocol: HTTP, port: 8080, hostname: "*.a.example.com"}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: side, namespace: team-b, creationTimestamp: "2026-01-01T00:01:00Z"}
spec:
  parentRef: {name: shared, namespace: infra}
  listeners: [{name: open, protocol: HTTP, port: 9090}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: steal, namespace: team-b, creationTimestamp: "2026-01-01T00:02:00Z"}
spec:
  parentRefs: [{kind: ListenerSet, name: side}]
  hostnames: [login.a.example.com]
`
	in, errs := FromManifests([]string{"-"}, strings.NewReader(manifests), nil, validation.Scope{}, validation.Tenancy{})
	require.Empty(t, errs)
	l, found := Build(in, "")
	require.True(t, found)
	require.Len(t, l.Gateways, 1)
	var side, portal *Listener
	for i, r := range l.Gateways[0].Listeners {
		switch r.Name {
		case "open":
			side = &l.Gateways[0].Listeners[i]
		case "http":
			if r.Port == 8080 {
				portal = &l.Gateways[0].Listeners[i]
			}
		}
	}
	require.NotNil(t, side)
	require.NotNil(t, portal)
	assert.Equal(t, []string{`HTTPRoute team-b/steal: hostname "login.a.example.com" overlaps "*.a.example.com", which namespace "team-a" holds (team-a/portal listener http, port 8080): the first claim keeps it`}, side.RouteClaims)
	assert.Empty(t, portal.RouteClaims)
	assert.Contains(t, claimCell(*side), "HTTPRoute team-b/steal: ")
}
