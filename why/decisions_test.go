package why

import (
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The decisions on plain objects (validation.Objects), without a reader:
// what is unknown stays unknown and is never a problem; what is known to be
// wrong is one.

func class() *gwv1.GatewayClass {
	gc := &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "airlock"}, Spec: gwv1.GatewayClassSpec{ControllerName: validation.AirlockControllerName}}
	gc.Status.Conditions = []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}}
	return gc
}

func gateway(from gwv1.FromNamespaces) *gwv1.Gateway {
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gwv1.GatewaySpec{GatewayClassName: "airlock"}}
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(from)}}
	if from == gwv1.NamespacesFromSelector {
		gw.Spec.AllowedListeners.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"gateway-access": "yes"}}
	}
	return gw
}

func set(listeners ...gwv1.ListenerEntry) *gwv1.ListenerSet {
	return &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop"},
		Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw", Namespace: ptr.To(gwv1.Namespace("infra"))}, Listeners: listeners}}
}

func httpsTo(ns, name string) gwv1.ListenerEntry {
	ref := gwv1.SecretObjectReference{Name: gwv1.ObjectName(name)}
	if ns != "" {
		ref.Namespace = ptr.To(gwv1.Namespace(ns))
	}
	return gwv1.ListenerEntry{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType,
		TLS: &gwv1.ListenerTLSConfig{Mode: ptr.To(gwv1.TLSModeTerminate), CertificateRefs: []gwv1.SecretObjectReference{ref}}}
}

// snapshot is a Snapshot of ls under gw, with namespaces known as given.
func snapshot(gw *gwv1.Gateway, ls *gwv1.ListenerSet, namespaces ...*metav1.PartialObjectMetadata) *Snapshot {
	gc := class()
	return &Snapshot{Set: ls, Gateway: gw, GatewayKnown: true, Class: gc, ClassKnown: true,
		Objects: &validation.Objects{Gateways: []*gwv1.Gateway{gw}, Classes: []*gwv1.GatewayClass{gc}, Sets: []*gwv1.ListenerSet{ls},
			Namespaces: append([]*metav1.PartialObjectMetadata{}, namespaces...)},
		Grants: map[string][]*gwv1.ReferenceGrant{}, Secrets: map[string]Secret{}}
}

func ns(name string, labels map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestAdmissionUnknownWithoutTheNamespace(t *testing.T) {
	e := Explain(snapshot(gateway(gwv1.NamespacesFromSelector), set(gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType})), Options{})
	require.NotNil(t, e.Admission)
	assert.Equal(t, "unknown", e.Admission.Admitted)
	assert.Nil(t, e.Admission.NamespaceLabels)
	assert.Equal(t, string(validation.ListenerUnknown), e.Listeners[0].State)
	assert.Nil(t, e.Listeners[0].Difference, "an unknown prediction is compared with nothing")
	assert.Empty(t, e.Problems)
}

func TestAdmissionBySelector(t *testing.T) {
	for labels, want := range map[string]string{"yes": "yes", "no": "no"} {
		s := snapshot(gateway(gwv1.NamespacesFromSelector), set(gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType}),
			ns("team-a", map[string]string{"gateway-access": labels}))
		e := Explain(s, Options{})
		assert.Equal(t, want, e.Admission.Admitted, labels)
		assert.Equal(t, map[string]string{"gateway-access": labels}, e.Admission.NamespaceLabels)
	}
	e := Explain(snapshot(gateway(gwv1.NamespacesFromNone), set(gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType})), Options{})
	assert.Equal(t, "no", e.Admission.Admitted)
	assert.Equal(t, "allowedListeners.namespaces.from: None", e.Admission.Reason)
	assert.Contains(t, e.Problems, "listener web is predicted NotAllowed (allowedListeners.namespaces.from: None)")
}

func TestCertificates(t *testing.T) {
	grant := &gwv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: "certs", Name: "allow"}, Spec: gwv1.ReferenceGrantSpec{
		From: []gwv1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "ListenerSet", Namespace: "team-a"}},
		To:   []gwv1.ReferenceGrantTo{{Group: "", Kind: "Secret"}}}}
	tests := []struct {
		name      string
		ref       gwv1.ListenerEntry
		secret    Secret
		grants    []*gwv1.ReferenceGrant // nil: not read
		want      Certificate
		wantWrong bool
	}{
		{"same namespace, TLS", httpsTo("", "c"), Secret{Known: true, Exists: true, Type: corev1.SecretTypeTLS}, nil,
			Certificate{Namespace: "team-a", Name: "c", Secret: FoundYes, Type: "kubernetes.io/tls"}, false},
		{"not found", httpsTo("", "c"), Secret{Known: true}, nil,
			Certificate{Namespace: "team-a", Name: "c", Secret: FoundNo}, true},
		{"wrong type", httpsTo("", "c"), Secret{Known: true, Exists: true, Type: corev1.SecretTypeOpaque}, nil,
			Certificate{Namespace: "team-a", Name: "c", Secret: FoundYes, Type: "Opaque"}, true},
		{"forbidden: unknown, not wrong", httpsTo("", "c"), Secret{Reason: "forbidden"}, nil,
			Certificate{Namespace: "team-a", Name: "c", Secret: FoundUnknown, Reason: "forbidden"}, false},
		{"permitted", httpsTo("certs", "c"), Secret{Known: true, Exists: true, Type: corev1.SecretTypeTLS}, []*gwv1.ReferenceGrant{grant},
			Certificate{Namespace: "certs", Name: "c", Secret: FoundYes, Type: "kubernetes.io/tls", CrossNamespace: true, Permitted: "yes", ReferenceGrant: "allow"}, false},
		{"not permitted", httpsTo("certs", "c"), Secret{Known: true, Exists: true, Type: corev1.SecretTypeTLS}, []*gwv1.ReferenceGrant{},
			Certificate{Namespace: "certs", Name: "c", Secret: FoundYes, Type: "kubernetes.io/tls", CrossNamespace: true, Permitted: "no"}, true},
		{"grants unread", httpsTo("certs", "c"), Secret{Known: true, Exists: true, Type: corev1.SecretTypeTLS}, nil,
			Certificate{Namespace: "certs", Name: "c", Secret: FoundYes, Type: "kubernetes.io/tls", CrossNamespace: true, Permitted: "unknown"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := snapshot(gateway(gwv1.NamespacesFromAll), set(tt.ref))
			s.Secrets[tt.want.Namespace+"/c"] = tt.secret
			if tt.grants != nil {
				s.Grants["certs"] = tt.grants
			}
			e := Explain(s, Options{})
			require.Len(t, e.Listeners[0].Certificates, 1)
			assert.Equal(t, tt.want, e.Listeners[0].Certificates[0])
			wrong := false
			for _, p := range e.Problems {
				if p != "listener https: nothing reported" {
					wrong = true
				}
			}
			assert.Equal(t, tt.wantWrong, wrong, "%q", e.Problems)
		})
	}
}

func TestRouteAttachmentUnknownIsNoProblem(t *testing.T) {
	l := gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: &gwv1.AllowedRoutes{
		Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}}
	s := snapshot(gateway(gwv1.NamespacesFromAll), set(l))
	s.Objects.Routes = []*gwv1.HTTPRoute{{ObjectMeta: metav1.ObjectMeta{Namespace: "elsewhere", Name: "r"}, Spec: gwv1.HTTPRouteSpec{
		CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Kind: ptr.To(gwv1.Kind("ListenerSet")), Name: "shop", Namespace: ptr.To(gwv1.Namespace("team-a"))}}}}}}
	e := Explain(s, Options{})
	require.Len(t, e.UnattachedRoutes, 1)
	assert.Equal(t, "", e.UnattachedRoutes[0].Reason)
	assert.Equal(t, []string{"listener web: nothing reported"}, e.Problems)

	// With the Namespace's labels known, the refusal is a problem.
	s.Objects.Namespaces = append(s.Objects.Namespaces, ns("elsewhere", nil))
	e = Explain(s, Options{})
	require.Len(t, e.UnattachedRoutes, 1)
	assert.Equal(t, "NotAllowedByListeners", e.UnattachedRoutes[0].Reason)
	assert.Len(t, e.Problems, 2)
}

func TestPartialSetsLeaveAcceptedUnknown(t *testing.T) {
	s := snapshot(gateway(gwv1.NamespacesFromAll), set(gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType}))
	s.SetsPartial = true
	e := Explain(s, Options{})
	assert.Equal(t, string(validation.ListenerUnknown), e.Listeners[0].State)
	assert.Zero(t, e.Listeners[0].Precedence)
	assert.Empty(t, e.Problems)
}
