package crdcheck_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/crdcheck"
)

// TestEmbeddedIsTheModulesCRD: the embedded CRD is byte for byte the
// module's file, of the gateway-api version go.mod requires.
func TestEmbeddedIsTheModulesCRD(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	require.NoError(t, err)
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	require.True(t, ok && dir != "", "go list gave %q; is the module downloaded (go mod download)?", out)
	want, err := os.ReadFile(filepath.Join(dir, "config", "crd", "standard", crdcheck.EmbeddedFile))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, crdcheck.Embedded()),
		"crds/%s differs from %s's; copy it again", crdcheck.EmbeddedFile, version)
	assert.Contains(t, crdcheck.EmbeddedSource, version+" standard")
	assert.Contains(t, string(crdcheck.Embedded()), "bundle-version: "+version+"\n")
}

var checker = func() *crdcheck.Checker {
	c, err := crdcheck.Default()
	if err != nil {
		panic(err)
	}
	return c
}()

const base = `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: web
  namespace: team-a
spec:
  parentRef:
    name: gw
  listeners:
  - name: http
    protocol: HTTP
    port: 80
`

// object is base with edit applied to its generic form.
func object(t *testing.T, edit func(obj map[string]any)) []byte {
	t.Helper()
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(base), &obj))
	if edit != nil {
		edit(obj)
	}
	data, err := yaml.Marshal(obj)
	require.NoError(t, err)
	raw, err := yaml.YAMLToJSON(data)
	require.NoError(t, err)
	return raw
}

func meta(obj map[string]any) map[string]any { return obj["metadata"].(map[string]any) }
func listener0(obj map[string]any) map[string]any {
	return obj["spec"].(map[string]any)["listeners"].([]any)[0].(map[string]any)
}

// want is an expected error: its path and type (the CRD's and
// kube-apiserver's wording is theirs to choose).
type want struct {
	field string
	typ   field.ErrorType
}

func got(errs field.ErrorList) []want {
	var out []want
	for _, e := range errs {
		out = append(out, want{e.Field, e.Type})
	}
	return out
}

// blocked is kube-apiserver's note that CEL rules were skipped.
var blocked = want{"<nil>", field.ErrorTypeInvalid}

func TestValidateCreate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(obj map[string]any)
		unknown []string
		errs    []want
	}{
		{name: "valid", edit: nil},
		{name: "name not a DNS subdomain", edit: func(o map[string]any) { meta(o)["name"] = "Foo" },
			errs: []want{{"metadata.name", field.ErrorTypeInvalid}}},
		{name: "no name", edit: func(o map[string]any) { delete(meta(o), "name") },
			errs: []want{{"metadata.name", field.ErrorTypeRequired}, blocked}},
		{name: "generateName instead", edit: func(o map[string]any) { delete(meta(o), "name"); meta(o)["generateName"] = "web-" }},
		{name: "generateName not a DNS subdomain", edit: func(o map[string]any) { delete(meta(o), "name"); meta(o)["generateName"] = "Web-" },
			errs: []want{{"metadata.generateName", field.ErrorTypeInvalid}, {"metadata.name", field.ErrorTypeInvalid}}},
		{name: "no namespace: kubectl's default", edit: func(o map[string]any) { delete(meta(o), "namespace") }},
		{name: "namespace not a DNS label", edit: func(o map[string]any) { meta(o)["namespace"] = "team.a" },
			errs: []want{{"metadata.namespace", field.ErrorTypeInvalid}}},
		{name: "label key", edit: func(o map[string]any) { meta(o)["labels"] = map[string]any{"a b": "c"} },
			errs: []want{{"metadata.labels", field.ErrorTypeInvalid}}},
		{name: "9 route kinds, the CRD allows 8", edit: func(o map[string]any) {
			var kinds []any
			for range 9 {
				kinds = append(kinds, map[string]any{"kind": "HTTPRoute"})
			}
			listener0(o)["allowedRoutes"] = map[string]any{"kinds": kinds}
		}, errs: []want{{"spec.listeners[0].allowedRoutes.kinds", field.ErrorTypeTooMany}, blocked}},
		{name: "unknown fields are pruned and named", edit: func(o map[string]any) {
			listener0(o)["foo"] = 1
			meta(o)["bar"] = 2
		}, unknown: []string{"metadata.bar", "spec.listeners[0].foo"}},
		{name: "status is dropped on create", edit: func(o map[string]any) {
			o["status"] = map[string]any{"listeners": "not a list"}
		}},
		{name: "wrong type", edit: func(o map[string]any) { listener0(o)["port"] = "80" },
			errs: []want{{"spec.listeners[0].port", field.ErrorTypeTypeInvalid}, blocked}},
		{name: "port out of range", edit: func(o map[string]any) { listener0(o)["port"] = 70000 },
			errs: []want{{"spec.listeners[0].port", field.ErrorTypeInvalid}}},
		{name: "a CEL rule: no tls on HTTP", edit: func(o map[string]any) {
			listener0(o)["tls"] = map[string]any{"certificateRefs": []any{map[string]any{"name": "c"}}}
		}, errs: []want{{"spec.listeners", field.ErrorTypeInvalid}}},
		{name: "duplicate listener names: list-map key and CEL rule", edit: func(o map[string]any) {
			ls := o["spec"].(map[string]any)["listeners"].([]any)
			o["spec"].(map[string]any)["listeners"] = append(ls, map[string]any{"name": "http", "protocol": "HTTP", "port": 81})
		}, errs: []want{{"spec.listeners[1]", field.ErrorTypeDuplicate}, {"spec.listeners", field.ErrorTypeInvalid}}},
		{name: "65 listeners, the CRD allows 64", edit: func(o map[string]any) {
			var ls []any
			for i := range 65 {
				ls = append(ls, map[string]any{"name": "l" + strings.Repeat("x", i), "protocol": "HTTP", "port": 1000 + i})
			}
			o["spec"].(map[string]any)["listeners"] = ls
		}, errs: []want{{"spec.listeners", field.ErrorTypeTooMany}, blocked}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := checker.DecodeCreate(object(t, tt.edit))
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.unknown, d.UnknownFields)
			errs, _ := checker.ValidateCreate(context.Background(), d.Object)
			assert.Equal(t, tt.errs, got(errs), "%v", errs)
		})
	}
}

func TestDecodeCreate(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		d, err := checker.DecodeCreate(object(t, nil))
		require.NoError(t, err)
		group, _, _ := unstructured.NestedString(d.Object.Object, "spec", "parentRef", "group")
		kind, _, _ := unstructured.NestedString(d.Object.Object, "spec", "parentRef", "kind")
		assert.Equal(t, "gateway.networking.k8s.io", group)
		assert.Equal(t, "Gateway", kind)
		from, _, _ := unstructured.NestedString(listener0(d.Object.Object), "allowedRoutes", "namespaces", "from")
		assert.Equal(t, "Same", from)
	})
	t.Run("duplicate JSON fields", func(t *testing.T) {
		raw := []byte(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","name":"b"},` +
			`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80,"port":8080}]}}`)
		d, err := checker.DecodeCreate(raw)
		require.NoError(t, err)
		var msgs []string
		for _, e := range d.DuplicateFields {
			msgs = append(msgs, e.Error())
		}
		assert.Equal(t, []string{`duplicate field "metadata.name"`, `duplicate field "spec.listeners[0].port"`}, msgs)
		assert.Equal(t, "b", d.Object.GetName(), "the last value wins")
	})
	t.Run("metadata of the wrong type", func(t *testing.T) {
		_, err := checker.DecodeCreate([]byte(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":5}}`))
		assert.ErrorContains(t, err, "cannot unmarshal number")
	})
	t.Run("not a JSON object", func(t *testing.T) {
		_, err := checker.DecodeCreate([]byte(`[1]`))
		assert.Error(t, err)
	})
	t.Run("no kind", func(t *testing.T) {
		_, err := checker.DecodeCreate([]byte(`{"apiVersion":"gateway.networking.k8s.io/v1","metadata":{"name":"x"}}`))
		assert.ErrorContains(t, err, "Object 'Kind' is missing")
	})
	// Numbers as Unstructured.UnmarshalJSON reads them, which the schema's
	// integer checks depend on.
	t.Run("numbers", func(t *testing.T) {
		d, err := checker.DecodeCreate(object(t, func(o map[string]any) {
			listener0(o)["port"] = 8080
			o["spec"].(map[string]any)["x"] = 1.5
		}))
		require.NoError(t, err)
		assert.Equal(t, int64(8080), listener0(d.Object.Object)["port"])
		assert.Equal(t, []string{"spec.x"}, d.UnknownFields)
	})
}

func TestFinalizerWarning(t *testing.T) {
	d, err := checker.DecodeCreate(object(t, func(o map[string]any) { meta(o)["finalizers"] = []any{"cleanup"} }))
	require.NoError(t, err)
	errs, warnings := checker.ValidateCreate(context.Background(), d.Object)
	assert.Empty(t, errs)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], `metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name`)
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	other := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: x\n"
	// A directory of CRDs with other documents, as config/crd/<channel> is.
	write("a-policy.yaml", other)
	write("b-listenersets.yaml", other+"---\n"+string(crdcheck.Embedded()))
	write("notes.txt", "not read")
	c, err := crdcheck.Load([]string{dir})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "b-listenersets.yaml"), c.Source)
	assert.True(t, c.NamespaceScoped())

	_, err = crdcheck.Load([]string{filepath.Join(dir, "a-policy.yaml")})
	assert.ErrorContains(t, err, "no CustomResourceDefinition of gateway.networking.k8s.io ListenerSet")

	_, err = crdcheck.Load([]string{dir, filepath.Join(dir, "b-listenersets.yaml")})
	assert.ErrorContains(t, err, "two ListenerSet CRDs")

	// kube-apiserver refuses this CRD (names.plural must match the name).
	broken := write("broken.yaml", strings.Replace(string(crdcheck.Embedded()), "plural: listenersets", "plural: listenerset", 1))
	_, err = crdcheck.Load([]string{broken})
	assert.ErrorContains(t, err, "the CRD is invalid")

	notServed := write("not-served.yaml", strings.Replace(string(crdcheck.Embedded()), "    served: true\n", "    served: false\n", 1))
	_, err = crdcheck.Load([]string{notServed})
	assert.ErrorContains(t, err, "does not serve gateway.networking.k8s.io/v1")

	_, err = crdcheck.Load([]string{filepath.Join(dir, "missing.yaml")})
	assert.Error(t, err)
}

// BenchmarkDefault is a run's fixed cost: reading and compiling the
// embedded CRD (schema validator, CEL programs).
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		if _, err := crdcheck.Default(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is the cost per object: decode, prune, default, validate.
func BenchmarkCheck(b *testing.B) {
	raw, err := yaml.YAMLToJSON([]byte(base))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		d, err := checker.DecodeCreate(raw)
		if err != nil {
			b.Fatal(err)
		}
		if errs, _ := checker.ValidateCreate(context.Background(), d.Object); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
