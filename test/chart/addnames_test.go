package chart

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/policy/policytest"
	"github.com/airlock/listenerset-webhook/validation"
)

// TestRenderAddNames: admission.addNames reaches both engines of mode both
// alike: the webhook as --add-names flags, the policy as its accepted_*
// variables. The rendered policy, evaluated as kube-apiserver evaluates it,
// admits the added curve and still denies an unknown one, with the message
// validation gives for the same setting.
func TestRenderAddNames(t *testing.T) {
	objs := renderMode(t, "both", "--set", "admission.addNames.ecdhCurves={X448},admission.addNames.alpn-protocols={h3,h2c}")
	args := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args
	var settings []string
	for _, a := range args {
		if s, ok := strings.CutPrefix(a, "--add-names="); ok {
			settings = append(settings, s)
		}
	}
	assert.Equal(t, []string{"alpn-protocols=h3,h2c", "ecdhCurves=X448"}, settings, "the webhook's --add-names")
	added, err := validation.ParseAddedNames(settings)
	require.NoError(t, err, "the webhook would refuse its flags")

	e := renderedPolicies(t, objs)
	for _, tc := range []struct {
		curves, alpn string
		accepted     bool
	}{
		{"X448,X25519", "h3,h2", true},
		{"X448,X449", "h2c", false}, // an unknown curve
		{"X25519", "h2,h3,http/1.1,h2c", true},
		{"X25519", "h3,h3", false}, // an added name twice
	} {
		ls := &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"},
			Listeners: []gwv1.ListenerEntry{{Name: "tls", Port: 8443, Protocol: validation.ProtocolHTTPS,
				TLS: &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: "cert"}}, Options: map[gwv1.AnnotationKey]gwv1.AnnotationValue{
					validation.OptionECDHCurves: gwv1.AnnotationValue(tc.curves), validation.OptionALPNProtocols: gwv1.AnnotationValue(tc.alpn)}},
				AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSame)}}}}}}
		ls.Namespace, ls.Name = "team-a", "curves"
		defaults.ListenerSet(ls)
		errs, _ := validation.Validate(ls, nil, validation.Options{AddedNames: added})
		require.Equal(t, tc.accepted, len(errs) == 0, "%+v: validation %v", tc, errs)
		data, err := json.Marshal(ls)
		require.NoError(t, err)
		var obj map[string]any
		require.NoError(t, utiljson.Unmarshal(data, &obj))
		got := e.Evaluate(obj, nil, 0)
		require.False(t, got.Error, "%s: %s", tc.curves, got.Message)
		if assert.Equal(t, len(errs) == 0, got.Allowed, "%+v: validation %v, policy %q", tc, errs, got.Message) && !got.Allowed {
			assert.Equal(t, policytest.ErrorEntries(errs), policytest.SortedEntries(got.Message), "%+v: the policy's message is validation's", tc)
		}
	}

	// An option the chart does not know is refused by the schema.
	out, err := runHelm(t.Context(), t, "", "template", "x", chartPath, "--kube-version", renderKubeVersion, "--set", "admission.addNames.curves={X448}")
	require.Error(t, err)
	assert.Contains(t, out, "additional properties 'curves' not allowed")
	out, err = runHelm(t.Context(), t, "", "template", "x", chartPath, "--kube-version", renderKubeVersion, "--set", "admission.addNames.ciphers={a b}")
	require.Error(t, err)
	assert.Contains(t, out, "addNames/ciphers/0")
}

// TestRenderPolicyDeclarationKey: tenancy.allowedHostnamesAnnotation reaches
// both engines of mode both alike: the webhook as
// --allowed-hostnames-annotation, the policy as its variable
// allowedHostnamesAnnotation. The rendered policies, evaluated as
// kube-apiserver evaluates it in a Namespace declaring under that key,
// denies an undeclared hostname as validation does with the same setting,
// and ignores a declaration under the default key.
func TestRenderPolicyDeclarationKey(t *testing.T) {
	const key = "example.com/hosts"
	objs := renderMode(t, "both", "--set", "tenancy.allowedHostnamesAnnotation="+key)
	args := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec.Containers[0].Args
	assert.Contains(t, args, "--allowed-hostnames-annotation="+key, "the webhook's flag")
	// both policies: the rules' fast path skips this usual set, the
	// declarations' judges it
	e := renderedPolicies(t, objs)

	ls := &gwv1.ListenerSet{Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "gw"},
		Listeners: []gwv1.ListenerEntry{{Name: "web", Port: 8080, Protocol: validation.ProtocolHTTP, Hostname: ptr.To[gwv1.Hostname]("login.a.example.com"),
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSame)}}}}}}
	ls.Namespace, ls.Name = "team-b", "login"
	defaults.ListenerSet(ls)
	data, err := json.Marshal(ls)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, utiljson.Unmarshal(data, &obj))
	for _, annotationKey := range []string{key, validation.DefaultAllowedHostnamesAnnotation} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Annotations: map[string]string{annotationKey: "*.b.example.com"}}}
		meta := &metav1.PartialObjectMetadata{ObjectMeta: ns.ObjectMeta}
		errs, _ := validation.Validate(ls, nil, validation.Options{Cluster: &validation.Objects{Namespaces: []*metav1.PartialObjectMetadata{meta}},
			Tenancy: validation.Tenancy{AllowedHostnamesAnnotation: key}})
		got := e.EvaluateIn(ns, obj, nil, 0)
		require.False(t, got.Error, "%s: %s", annotationKey, got.Message)
		assert.Equal(t, annotationKey != key, len(errs) == 0, "validation, declared under %s: %v", annotationKey, errs)
		if assert.Equal(t, len(errs) == 0, got.Allowed, "declared under %s: validation %v, policy %q", annotationKey, errs, got.Message) && !got.Allowed {
			assert.Equal(t, policytest.ErrorEntries(errs), policytest.SortedEntries(got.Message), "the policy's message is validation's")
		}
	}
}

// renderedPolicies are the release's two policies as rendered (the rules'
// and the declarations'), compiled to be evaluated together as
// kube-apiserver evaluates them.
func renderedPolicies(t *testing.T, objs objects) *policytest.Evaluator {
	t.Helper()
	var vaps []*admissionv1.ValidatingAdmissionPolicy
	for _, name := range []string{fullname, policy.DeclarationsPrefix + fullname} {
		vaps = append(vaps, typed[admissionv1.ValidatingAdmissionPolicy](t, objs.get(t, "ValidatingAdmissionPolicy", name)))
	}
	e, err := policytest.CompileAll(vaps, utilversion.MustParseGeneric("1.29"))
	require.NoError(t, err)
	return e
}
