package clusterview

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// fullMeta sets every field of ObjectMeta, so that whatever the transform
// does not keep is there to be dropped.
func fullMeta(namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: "x", GenerateName: "x-", Namespace: namespace, UID: "u", ResourceVersion: "7", Generation: 3,
		CreationTimestamp:          metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		DeletionTimestamp:          ptr.To(metav1.NewTime(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))),
		DeletionGracePeriodSeconds: ptr.To[int64](30),
		Labels:                     map[string]string{"team": "a"},
		Annotations:                map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"tls.key":"c2VjcmV0"}}`, "note": "n"},
		OwnerReferences:            []metav1.OwnerReference{{Name: "owner"}},
		Finalizers:                 []string{"f"},
		ManagedFields:              []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}
}

// requireAllSet fails unless every field of the struct v but skip is set:
// a fixture that misses a field (one a later Gateway API version adds, say)
// could not show that the transform drops it.
func requireAllSet(t *testing.T, v any, skip ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if slices.Contains(skip, rv.Type().Field(i).Name) {
			continue
		}
		require.False(t, rv.Field(i).IsZero(), "the fixture's %s.%s is not set", rv.Type().Name(), rv.Type().Field(i).Name)
	}
}

var (
	hostname  = ptr.To[gwv1.Hostname]("a.example.com")
	tlsConfig = &gwv1.ListenerTLSConfig{
		Mode:            ptr.To(gwv1.TLSModeTerminate),
		CertificateRefs: []gwv1.SecretObjectReference{{Name: "cert"}},
		Options:         map[gwv1.AnnotationKey]gwv1.AnnotationValue{"k": "v"},
	}
	allowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}}
	conditions    = []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue}}
)

// fullGateway is a Gateway with every part set; the rules read its
// listeners' name, hostname, port and protocol and its allowedListeners.
func fullGateway() *gwv1.Gateway {
	gw := &gwv1.Gateway{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway"},
		ObjectMeta: fullMeta("gw-ns"),
		Spec: gwv1.GatewaySpec{
			GatewayClassName: "airlock",
			Listeners: []gwv1.Listener{{
				Name: "https", Hostname: hostname, Port: 443, Protocol: gwv1.HTTPSProtocolType, TLS: tlsConfig, AllowedRoutes: allowedRoutes,
			}},
			Addresses:        []gwv1.GatewaySpecAddress{{Value: "10.0.0.1"}},
			Infrastructure:   &gwv1.GatewayInfrastructure{Labels: map[gwv1.LabelKey]gwv1.LabelValue{"k": "v"}},
			AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromSame)}},
			TLS:              &gwv1.GatewayTLSConfig{Backend: &gwv1.GatewayBackendTLS{}},
			DefaultScope:     "All",
		},
		Status: gwv1.GatewayStatus{
			Addresses:            []gwv1.GatewayStatusAddress{{Value: "10.0.0.1"}},
			Conditions:           conditions,
			Listeners:            []gwv1.ListenerStatus{{Name: "https", Conditions: conditions}},
			AttachedListenerSets: ptr.To[int32](1),
		},
	}
	return gw
}

// fullListenerSet is a ListenerSet with every part set; the rules read its
// creation time, parentRef and listeners' name, hostname, port and protocol.
func fullListenerSet() *gwv1.ListenerSet {
	return &gwv1.ListenerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ListenerSet"},
		ObjectMeta: fullMeta("team-a"),
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{
				Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("Gateway"), Name: "gw", Namespace: ptr.To[gwv1.Namespace]("gw-ns"),
			},
			Listeners: []gwv1.ListenerEntry{{
				Name: "web", Hostname: hostname, Port: 443, Protocol: gwv1.HTTPSProtocolType, TLS: tlsConfig, AllowedRoutes: allowedRoutes,
			}},
		},
		Status: gwv1.ListenerSetStatus{
			Conditions: conditions,
			Listeners:  []gwv1.ListenerEntryStatus{{Name: "web", Conditions: conditions}},
		},
	}
}

// fullGrant is a ReferenceGrant; the rules read its from and to.
func fullGrant() *gwv1.ReferenceGrant {
	return &gwv1.ReferenceGrant{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ReferenceGrant"},
		ObjectMeta: fullMeta("certs"),
		Spec: gwv1.ReferenceGrantSpec{
			From: []gwv1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "ListenerSet", Namespace: "team-a"}},
			To:   []gwv1.ReferenceGrantTo{{Kind: "Secret", Name: ptr.To[gwv1.ObjectName]("cert")}},
		},
	}
}

// fullRoute is an HTTPRoute with every part of its spec set; attachment
// reads its parentRefs and hostnames.
func fullRoute() *gwv1.HTTPRoute {
	return &gwv1.HTTPRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute"},
		ObjectMeta: fullMeta("team-a"),
		Spec: gwv1.HTTPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{
				Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("ListenerSet"), Name: "ls", SectionName: ptr.To[gwv1.SectionName]("web"),
			}}},
			Hostnames: []gwv1.Hostname{"a.example.com"},
			Rules:     []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "svc"}}}}}},
		},
		Status: gwv1.HTTPRouteStatus{RouteStatus: gwv1.RouteStatus{Parents: []gwv1.RouteParentStatus{{ControllerName: "c", Conditions: conditions}}}},
	}
}

// TestRouteIndexIsTheRulesRouteKeys: routeIndex files an HTTPRoute, as the
// cache holds it, under the ListenerSets its parentRefs name.
func TestRouteIndexIsTheRulesRouteKeys(t *testing.T) {
	out, err := Watch{}.transform(fullRoute())
	require.NoError(t, err)
	keys, err := routeKeys(out)
	require.NoError(t, err)
	assert.Equal(t, []string{validation.ListenerSetKey("team-a", "ls")}, keys)
	keys, _ = routeKeys(fullListenerSet())
	assert.Empty(t, keys)
	keys, err = routeClaimKeys(out)
	require.NoError(t, err)
	assert.Equal(t, validation.RouteClaimKeys(fullRoute()), keys, "the route claims' index")
	assert.NotEmpty(t, keys)
}

// TestTransformKeepsOnlyWhatTheRulesRead: every kind keeps its identity
// (namespace, name, UID, and the resourceVersion the informer needs) and
// what the rules read, and loses everything else: managedFields (but a
// ListenerSet's and an HTTPRoute's arrival, validation.TrimmedManagedFields,
// TrimmedRouteManagedFields), all
// annotations (kubectl's last-applied one holds a Secret's data), labels but
// a Namespace's, status, and the spec the rules never read. The fixtures set
// every field, so a part the transform kept by mistake would show.
func TestTransformKeepsOnlyWhatTheRulesRead(t *testing.T) {
	id := func(namespace string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: namespace, Name: "x", UID: "u", ResourceVersion: "7"}
	}
	requireAllSet(t, fullMeta("ns"), "SelfLink") // deprecated, never set by the API server
	gw, ls, grant := fullGateway(), fullListenerSet(), fullGrant()
	for _, v := range []any{gw.Spec, gw.Spec.Listeners[0], gw.Status, ls.Spec, ls.Spec.ParentRef, ls.Spec.Listeners[0], ls.Status, grant.Spec} {
		requireAllSet(t, v)
	}

	wantGateway := &gwv1.Gateway{TypeMeta: gw.TypeMeta, ObjectMeta: id("gw-ns"), Spec: gwv1.GatewaySpec{
		GatewayClassName: "airlock",
		Listeners:        []gwv1.Listener{{Name: "https", Hostname: hostname, Port: 443, Protocol: gwv1.HTTPSProtocolType}},
		AllowedListeners: fullGateway().Spec.AllowedListeners,
	}}
	wantGateway.CreationTimestamp = gw.CreationTimestamp
	wantListenerSet := &gwv1.ListenerSet{TypeMeta: ls.TypeMeta, ObjectMeta: id("team-a"), Spec: gwv1.ListenerSetSpec{
		ParentRef: fullListenerSet().Spec.ParentRef,
		// allowedRoutes: which routes attach, and claim names (routes are claims)
		Listeners: []gwv1.ListenerEntry{{Name: "web", Hostname: hostname, Port: 443, Protocol: gwv1.HTTPSProtocolType,
			AllowedRoutes: fullListenerSet().Spec.Listeners[0].AllowedRoutes}},
	}}
	wantListenerSet.CreationTimestamp = ls.CreationTimestamp
	// when it came to its Gateway, what the first-claim rule orders by
	wantListenerSet.ManagedFields = validation.TrimmedManagedFields(ls)
	wantListenerSet.Generation = ls.Generation
	require.Len(t, wantListenerSet.ManagedFields, 1)
	class := &gwv1.GatewayClass{TypeMeta: metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GatewayClass"}, ObjectMeta: fullMeta(""),
		Spec: gwv1.GatewayClassSpec{ControllerName: validation.AirlockControllerName, Description: ptr.To("d"),
			ParametersRef: &gwv1.ParametersReference{Group: "g", Kind: "k", Name: "n"}},
		Status: gwv1.GatewayClassStatus{Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionFalse, ObservedGeneration: 3,
			LastTransitionTime: metav1.Now(), Reason: "InvalidParameters", Message: "m"}},
			SupportedFeatures: []gwv1.SupportedFeature{{Name: "Gateway"}}}}
	requireAllSet(t, class.Spec)
	requireAllSet(t, class.Status)
	requireAllSet(t, class.Status.Conditions[0])
	// The class warnings read the conditions (not when they last changed)
	// and the supported features.
	wantClass := &gwv1.GatewayClass{TypeMeta: class.TypeMeta, ObjectMeta: id(""), Spec: gwv1.GatewayClassSpec{ControllerName: validation.AirlockControllerName},
		Status: gwv1.GatewayClassStatus{Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionFalse, ObservedGeneration: 3,
			Reason: "InvalidParameters", Message: "m"}}, SupportedFeatures: []gwv1.SupportedFeature{{Name: "Gateway"}}}}
	route := fullRoute()
	requireAllSet(t, route.Spec)
	wantRoute := &gwv1.HTTPRoute{TypeMeta: route.TypeMeta, ObjectMeta: id("team-a"), Spec: gwv1.HTTPRouteSpec{
		CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: fullRoute().Spec.ParentRefs}, Hostnames: fullRoute().Spec.Hostnames}}
	// when it came to its Gateways: routes are claims there
	wantRoute.CreationTimestamp = route.CreationTimestamp
	wantRoute.ManagedFields = validation.TrimmedRouteManagedFields(route)
	wantGrant := &gwv1.ReferenceGrant{TypeMeta: grant.TypeMeta, ObjectMeta: id("certs"), Spec: fullGrant().Spec}
	secret := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: fullMeta("certs")}
	wantSecret := &metav1.PartialObjectMetadata{TypeMeta: secret.TypeMeta, ObjectMeta: id("certs")}
	ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: fullMeta("")}
	wantNamespace := &metav1.PartialObjectMetadata{TypeMeta: ns.TypeMeta, ObjectMeta: id("")}
	wantNamespace.Labels = map[string]string{"team": "a"}

	for _, tc := range []struct {
		kind     string
		in, want client.Object
	}{
		{"Gateway", gw, wantGateway},
		{"GatewayClass", class, wantClass},
		{"ListenerSet", ls, wantListenerSet},
		{"ReferenceGrant", grant, wantGrant},
		{"HTTPRoute", route, wantRoute},
		{"Secret", secret, wantSecret},
		{"Namespace", ns, wantNamespace},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			out, err := Watch{}.transform(tc.in)
			require.NoError(t, err)
			got := out.(client.Object)
			// What is dropped, part by part (the comparison below covers the
			// rest, down to the last field).
			if tc.kind != "ListenerSet" && tc.kind != "HTTPRoute" { // their arrival is kept
				assert.Empty(t, got.GetManagedFields(), "managedFields")
			}
			assert.Empty(t, got.GetAnnotations(), "annotations, all of them")
			assert.Empty(t, got.GetFinalizers(), "finalizers")
			assert.Empty(t, got.GetOwnerReferences(), "ownerReferences")
			if tc.kind != "ListenerSet" {
				assert.Zero(t, got.GetGeneration(), "generation")
			}
			assert.Nil(t, got.GetDeletionTimestamp(), "deletionTimestamp")
			if tc.kind != "Namespace" {
				assert.Empty(t, got.GetLabels(), "labels")
			}
			switch o := got.(type) {
			case *gwv1.Gateway:
				assert.Zero(t, o.Status, "status")
				assert.Empty(t, o.Spec.Addresses, "addresses")
				assert.Nil(t, o.Spec.Infrastructure, "infrastructure")
				assert.Nil(t, o.Spec.TLS, "tls")
				assert.Empty(t, o.Spec.DefaultScope, "defaultScope")
				assert.Nil(t, o.Spec.Listeners[0].TLS, "listeners[].tls")
				assert.Nil(t, o.Spec.Listeners[0].AllowedRoutes, "listeners[].allowedRoutes")
			case *gwv1.HTTPRoute:
				assert.Zero(t, o.Status, "status")
				assert.Empty(t, o.Spec.Rules, "rules")
			case *gwv1.ListenerSet:
				assert.Zero(t, o.Status, "status")
				assert.Nil(t, o.Spec.Listeners[0].TLS, "listeners[].tls")
			}
			// What is kept, and that it is all there is.
			assert.Equal(t, tc.want, got)
			again, err := Watch{}.transform(got)
			require.NoError(t, err)
			assert.Equal(t, tc.want, again, "idempotent")
		})
	}
}

// TestTransformKeepsTheDeclaration: a Namespace keeps the annotations the
// view is told to keep, the hostname declaration, and no other.
func TestTransformKeepsTheDeclaration(t *testing.T) {
	ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: fullMeta("")}
	ns.Annotations = map[string]string{validation.DefaultAllowedHostnamesAnnotation: "*.a.example.com", "other": "x",
		"kubectl.kubernetes.io/last-applied-configuration": "{}"}
	out, err := Watch{NamespaceAnnotations: []string{validation.DefaultAllowedHostnamesAnnotation, "absent"}}.transform(ns)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{validation.DefaultAllowedHostnamesAnnotation: "*.a.example.com"}, out.(client.Object).GetAnnotations())
}

// TestTransformKeepsTheVerdict: the rules judge a ListenerSet against
// trimmed objects exactly as against the whole ones: a conflict with the
// Gateway's listener, one with an older ListenerSet, a grant that permits a
// reference and one that does not.
func TestTransformKeepsTheVerdict(t *testing.T) {
	gw := fullGateway()
	gw.Name = "gw"
	gw.Spec.AllowedListeners.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	gw.Spec.AllowedListeners.Namespaces.From = ptr.To(gwv1.NamespacesFromSelector)
	rival := fullListenerSet()
	rival.Name = "rival"
	rival.Spec.Listeners[0].Port, rival.Spec.Listeners[0].Protocol = 8080, gwv1.HTTPProtocolType
	ns := &metav1.PartialObjectMetadata{ObjectMeta: fullMeta("")}
	ns.Name = "team-a"
	grant := fullGrant()

	ls := fullListenerSet()
	ls.Name, ls.CreationTimestamp = "new", metav1.Time{}
	ls.Spec.Listeners = []gwv1.ListenerEntry{
		{Name: "a", Port: 443, Protocol: gwv1.HTTPProtocolType},
		{Name: "b", Port: 8080, Protocol: gwv1.HTTPProtocolType, Hostname: hostname},
		{Name: "c", Port: 8443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To[gwv1.Hostname]("c.example.com"), TLS: &gwv1.ListenerTLSConfig{
			CertificateRefs: []gwv1.SecretObjectReference{{Name: "cert", Namespace: ptr.To[gwv1.Namespace]("certs")}},
		}},
		{Name: "d", Port: 8443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To[gwv1.Hostname]("d.example.com"), TLS: &gwv1.ListenerTLSConfig{
			CertificateRefs: []gwv1.SecretObjectReference{{Name: "other", Namespace: ptr.To[gwv1.Namespace]("certs")}},
		}},
	}

	trim := func(o client.Object) client.Object {
		out, err := Watch{}.transform(o)
		require.NoError(t, err)
		return out.(client.Object)
	}
	whole := &validation.Objects{
		Gateways: []*gwv1.Gateway{gw}, Sets: []*gwv1.ListenerSet{rival},
		Namespaces: []*metav1.PartialObjectMetadata{ns}, Grants: []*gwv1.ReferenceGrant{grant},
	}
	trimmed := &validation.Objects{
		Gateways: []*gwv1.Gateway{trim(gw.DeepCopy()).(*gwv1.Gateway)}, Sets: []*gwv1.ListenerSet{trim(rival.DeepCopy()).(*gwv1.ListenerSet)},
		Namespaces: []*metav1.PartialObjectMetadata{trim(ns.DeepCopy()).(*metav1.PartialObjectMetadata)},
		Grants:     []*gwv1.ReferenceGrant{trim(grant.DeepCopy()).(*gwv1.ReferenceGrant)},
	}
	wantErrs, wantWarnings := validation.Validate(ls, nil, validation.Options{Cluster: whole, Strict: true})
	require.Len(t, wantErrs, 3, "the scenario finds a protocol conflict, a hostname conflict and a reference not permitted: %v", wantErrs)
	errs, warnings := validation.Validate(ls, nil, validation.Options{Cluster: trimmed, Strict: true})
	assert.Equal(t, wantErrs, errs)
	assert.Equal(t, wantWarnings, warnings)
}

// TestEveryKindHasATransform: the view caches no kind untrimmed (transform
// refuses a type it has no trim for, which would keep that kind from ever
// syncing).
func TestEveryKindHasATransform(t *testing.T) {
	v, err := New(&rest.Config{Host: "http://127.0.0.1:1"}, Watch{Scope: true, Cluster: true, Secrets: true}, logr.Discard())
	require.NoError(t, err)
	require.Len(t, v.kinds, 7)
	for _, k := range v.kinds {
		_, err := Watch{}.transform(k.obj.DeepCopyObject())
		assert.NoError(t, err, k.name)
	}
	_, err = Watch{}.transform(&corev1.ConfigMap{})
	assert.Error(t, err)
}

// TestParentIndexIsTheRulesParentKey: the byParent index files a
// ListenerSet under validation.ParentKey, computed on the trimmed object
// the cache holds, and files one whose parentRef names no Gateway nowhere.
// (validation's TestParentKeyIsTheGatewayTheRulesJudgeBy holds ParentKey to
// the Gateway the rules judge by, for every shape of parentRef.)
func TestParentIndexIsTheRulesParentKey(t *testing.T) {
	ls := fullListenerSet()
	out, err := Watch{}.transform(ls.DeepCopy())
	require.NoError(t, err)
	assert.Equal(t, []string{validation.GatewayKey("gw-ns", "gw")}, parentKeys(out.(*gwv1.ListenerSet)))

	ls.Spec.ParentRef.Namespace = nil
	assert.Equal(t, []string{validation.GatewayKey("team-a", "gw")}, parentKeys(ls))
	ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("ListenerSet")
	assert.Empty(t, parentKeys(ls))
	assert.Empty(t, parentKeys(fullGateway()))
}

// TestWatchErrorsThatMatter: a watch that ends or expires is routine (debug
// level at most); a forbidden list, as with missing RBAC, is an error.
func TestWatchErrorsThatMatter(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 0})
	gone := apierrors.NewResourceExpired("too old resource version")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("RBAC: no list"))
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, gone} {
		watchError(log, "*v1.PartialObjectMetadata", err)
	}
	assert.Empty(t, lines, "routine watch ends are not logged at the default level")
	watchError(log, "*v1.PartialObjectMetadata", forbidden)
	if assert.Len(t, lines, 1) {
		assert.Contains(t, lines[0], "forbidden")
		assert.Contains(t, lines[0], `"type"="*v1.PartialObjectMetadata"`)
	}
}

// indexedCluster is a validation.Objects whose ListenerSetsAt reads a
// client-go indexer with the view's rivalIndex, as View.ListenerSetsAt does.
type indexedCluster struct {
	*validation.Objects
	indexer toolscache.Indexer
}

func (c indexedCluster) ListenerSetsAt(key string) ([]*gwv1.ListenerSet, bool) {
	return rivalsAt(c.indexer, key, logr.Discard())
}

// TestRivalIndexKeepsTheVerdict: with the rivals found through the view's
// rivalIndex over trimmed objects, the verdict is the one the plain objects
// give: on a port many rivals share with their own hostnames, a hostname
// conflict names the oldest rival there, and on a port where an admitted
// rival has another protocol, the oldest listener on the port wins.
func TestRivalIndexKeepsTheVerdict(t *testing.T) {
	gw := fullGateway()
	gw.Name, gw.Spec.Listeners = "gw", nil
	gw.Spec.AllowedListeners.Namespaces.From = ptr.To(gwv1.NamespacesFromAll)
	rival := func(i int, port gwv1.PortNumber, protocol gwv1.ProtocolType, host string) *gwv1.ListenerSet {
		ls := fullListenerSet()
		ls.Name = fmt.Sprintf("rival-%03d", i)
		ls.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i%7) * time.Minute))
		ls.Spec.Listeners[0].Port, ls.Spec.Listeners[0].Protocol = port, protocol
		ls.Spec.Listeners[0].Hostname = ptr.To(gwv1.Hostname(host))
		return ls
	}
	var sets []*gwv1.ListenerSet
	for i := range 200 {
		sets = append(sets, rival(i, 443, gwv1.HTTPSProtocolType, fmt.Sprintf("h%d.example.com", i%150)))
	}
	sets = append(sets, rival(200, 8443, gwv1.HTTPSProtocolType, "x.example.com"), rival(201, 8443, gwv1.HTTPProtocolType, "y.example.com"))
	indexer := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, rivalIndexers)
	var trimmed []*gwv1.ListenerSet
	for _, ls := range sets {
		out, err := Watch{}.transform(ls.DeepCopy())
		require.NoError(t, err)
		require.NoError(t, indexer.Add(out))
		trimmed = append(trimmed, out.(*gwv1.ListenerSet))
	}
	ls := fullListenerSet()
	ls.Name, ls.CreationTimestamp = "new", metav1.Time{}
	tls := &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: "cert"}}}
	ls.Spec.Listeners = []gwv1.ListenerEntry{
		{Name: "taken", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To[gwv1.Hostname]("h3.example.com"), TLS: tls},
		{Name: "free", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To[gwv1.Hostname]("free.example.com"), TLS: tls},
		{Name: "mixed", Port: 8443, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To[gwv1.Hostname]("z.example.com")},
	}
	whole := &validation.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: sets}
	wantErrs, wantWarnings := validation.Validate(ls, nil, validation.Options{Cluster: whole, Strict: true})
	require.Len(t, wantErrs, 2, "a hostname conflict at 443 and a protocol conflict at 8443: %v", wantErrs)
	view := indexedCluster{Objects: &validation.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: trimmed}, indexer: indexer}
	errs, warnings := validation.Validate(ls, nil, validation.Options{Cluster: view, Strict: true})
	assert.Equal(t, wantErrs, errs)
	assert.Equal(t, wantWarnings, warnings)

	// The index files a trimmed ListenerSet under validation.RivalKeys.
	keys, err := rivalKeys(trimmed[0])
	require.NoError(t, err)
	assert.Equal(t, validation.RivalKeys(sets[0]), keys)
	assert.NotEmpty(t, keys)
}
