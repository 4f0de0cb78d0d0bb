package judge

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/crdcheck"
)

// withoutDefaults is the embedded CRD with every schema default removed, as
// an older or trimmed CRD may be.
func withoutDefaults(t *testing.T) *crdcheck.Checker {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(crdcheck.Embedded(), crd))
	var strip func(s *apiextensionsv1.JSONSchemaProps)
	strip = func(s *apiextensionsv1.JSONSchemaProps) {
		s.Default = nil
		for k, p := range s.Properties {
			strip(&p)
			s.Properties[k] = p
		}
		if s.Items != nil && s.Items.Schema != nil {
			strip(s.Items.Schema)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			strip(s.AdditionalProperties.Schema)
		}
	}
	for i := range crd.Spec.Versions {
		strip(crd.Spec.Versions[i].Schema.OpenAPIV3Schema)
	}
	c, err := crdcheck.New(crd, "no defaults")
	require.NoError(t, err)
	return c
}

// TestMutatingDefaultsReachTheCRD: where the CRD sets no defaults, the
// mutating webhook's patch does, and the CRD's rules judge the patched
// object, as kube-apiserver runs them after mutating admission.
func TestMutatingDefaultsReachTheCRD(t *testing.T) {
	c := withoutDefaults(t)
	raw, err := yaml.YAMLToJSON([]byte(`apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: web, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}]
`))
	require.NoError(t, err)

	d, err := c.DecodeCreate(raw)
	require.NoError(t, err)
	// Unpatched, the CRD's CEL rules read a tls.mode that is not there.
	unpatched, _ := c.ValidateCreate(context.Background(), d.Object)
	require.NotEmpty(t, unpatched)
	assert.Contains(t, unpatched.ToAggregate().Error(), "no such key: mode")

	view := asAPIServer(c, raw, UnknownFieldsError, "", nil)
	assert.Empty(t, view.errors)
	require.NotNil(t, view.ls)
	l := view.ls.Spec.Listeners[0]
	require.NotNil(t, l.TLS.Mode)
	assert.Equal(t, "Terminate", string(*l.TLS.Mode))
	require.NotNil(t, view.ls.Spec.ParentRef.Kind)
	assert.Equal(t, "Gateway", string(*view.ls.Spec.ParentRef.Kind))
}

// TestNoPatchForAnotherImplementation: a set the scope says is not
// Airlock's gets no patch from the mutating webhook, as the webhook admits
// it untouched: without the CRD's defaults, kube-apiserver's own rules then
// judge it as it is sent.
func TestNoPatchForAnotherImplementation(t *testing.T) {
	c := withoutDefaults(t)
	raw, err := yaml.YAMLToJSON([]byte(`apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: web, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}]
`))
	require.NoError(t, err)
	asked := 0
	view := asAPIServer(c, raw, UnknownFieldsError, "", func(ls *gwv1.ListenerSet) bool {
		asked++
		assert.Equal(t, "gw", string(ls.Spec.ParentRef.Name), "the scope decides by the set as sent")
		return false
	})
	assert.Equal(t, 1, asked)
	require.NotNil(t, view.ls)
	assert.Nil(t, view.ls.Spec.ParentRef.Kind, "no patch")
	assert.Nil(t, view.ls.Spec.Listeners[0].TLS.Mode, "no patch")
	require.NotEmpty(t, view.errors, "the CRD's rules read the unpatched object")
	assert.Contains(t, view.errors.ToAggregate().Error(), "no such key: mode")
}

// TestFieldPath: the unknown-field paths kube-apiserver prints read back
// into the same field.Path.
func TestFieldPath(t *testing.T) {
	for _, p := range []string{"extra", "metadata.labelz", "spec.listeners[0].foo", "spec.listeners[12].tls.options[a.b/c].x", "status.listeners[0].conditions[1].z"} {
		assert.Equal(t, p, fieldPath(p).String())
	}
}
