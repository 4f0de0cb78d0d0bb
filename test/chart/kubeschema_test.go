package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/airlock/listenerset-webhook/test/golden"
)

// schemaFile is the chart's values.schema.json: written by hand but for the
// Kubernetes objects the chart passes through, whose schemas are Kubernetes'
// own (kubeSchemas).
const schemaFile = chartPath + "/values.schema.json"

// kubeSchemas are the values the chart passes into a Kubernetes object as
// they are, and their Kubernetes type: values.schema.json checks each against
// that type's OpenAPI schema, closed (a field the type does not have is an
// error, not ignored). "[]" marks a list of them.
var kubeSchemas = []struct{ value, def string }{
	{"podSecurityContext", "io.k8s.api.core.v1.PodSecurityContext"},
	{"securityContext", "io.k8s.api.core.v1.SecurityContext"},
	{"resources", "io.k8s.api.core.v1.ResourceRequirements"},
	{"audit.resources", "io.k8s.api.core.v1.ResourceRequirements"},
	{"updateStrategy", "io.k8s.api.apps.v1.DeploymentStrategy"},
	{"affinity", "io.k8s.api.core.v1.Affinity"},
	{"tolerations[]", "io.k8s.api.core.v1.Toleration"},
	{"topologySpreadConstraints[]", "io.k8s.api.core.v1.TopologySpreadConstraint"},
	{"networkPolicy.webhookFrom[]", "io.k8s.api.networking.v1.NetworkPolicyPeer"},
	{"networkPolicy.metricsFrom[]", "io.k8s.api.networking.v1.NetworkPolicyPeer"},
	{"networkPolicy.egress[]", "io.k8s.api.networking.v1.NetworkPolicyEgressRule"},
}

// kubeSchemaPrefix marks the generated definitions in values.schema.json.
const kubeSchemaPrefix = "io.k8s."

// TestSchemaKubernetesDefinitionsAreGenerated: values.schema.json's
// definitions io.k8s.* are Kubernetes' OpenAPI v3 schemas of kubeSchemas'
// types and of every type they use, from k8s.io/kubernetes' api/openapi-spec
// at the version hack/tools/k8s builds (kube-apiserver's own), closed, with
// descriptions, formats and defaults left out; and each value of kubeSchemas
// refers to its type. `make generate` (this test with -update) rewrites them;
// the rest of the file is kept as written.
func TestSchemaKubernetesDefinitionsAreGenerated(t *testing.T) {
	specs, version := kubernetesOpenAPI(t)
	path := filepath.Join(root, schemaFile)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var schema orderedObject
	require.NoError(t, json.Unmarshal(data, &schema))

	defs := orderedObject{}
	if d, ok := schema.get("definitions").(*orderedObject); ok {
		for _, k := range d.keys {
			if !strings.HasPrefix(k, kubeSchemaPrefix) {
				defs.set(k, d.vals[k])
			}
		}
	}
	need := map[string]bool{}
	var queue []string
	for _, s := range kubeSchemas {
		queue = append(queue, s.def)
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if need[name] {
			continue
		}
		src, ok := specs[name]
		require.True(t, ok, "k8s.io/kubernetes %s has no OpenAPI schema %s", version, name)
		need[name] = true
		queue = append(queue, refsOf(src)...)
	}
	names := make([]string, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		defs.set(n, closeSchema(specs[n]))
	}
	schema.set("definitions", &defs)

	for _, s := range kubeSchemas {
		ref := &orderedObject{}
		ref.set("$ref", "#/definitions/"+s.def)
		value, list := strings.CutSuffix(s.value, "[]")
		var prop any = ref
		if list {
			arr := &orderedObject{}
			arr.set("type", "array")
			arr.set("items", ref)
			prop = arr
		}
		parent := &schema
		parts := strings.Split(value, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := parent.get("properties").(*orderedObject).get(p).(*orderedObject)
			require.True(t, ok, "values.schema.json has no object %s", value)
			parent = next
		}
		props, ok := parent.get("properties").(*orderedObject)
		require.True(t, ok, "values.schema.json: %s's parent has no properties", value)
		require.Contains(t, props.keys, parts[len(parts)-1], "values.schema.json has no %s", value)
		props.set(parts[len(parts)-1], prop)
	}

	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(&schema))
	golden.Generated(t, path, out.Bytes(), *update,
		"`make generate` (go test ./test/chart -run TestSchemaKubernetesDefinitionsAreGenerated -update)")
	t.Logf("%d Kubernetes definitions from k8s.io/kubernetes %s", len(names), version)
}

// kubernetesOpenAPI reads every OpenAPI v3 schema of k8s.io/kubernetes'
// api/openapi-spec at the version hack/tools/k8s builds, from the module
// cache (make k8s-binaries puts it there); GOPROXY=off: a test downloads
// nothing, and skips without it.
func kubernetesOpenAPI(t *testing.T) (map[string]map[string]any, string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes")
	cmd.Dir = filepath.Join(root, "hack", "tools", "k8s")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("k8s.io/kubernetes' module is not in the module cache (make k8s-binaries puts it there): %v", err)
	}
	var mod struct{ Dir, Version, Error string }
	require.NoError(t, json.Unmarshal(out, &mod))
	if mod.Dir == "" {
		t.Skipf("k8s.io/kubernetes' module is not in the module cache (make k8s-binaries puts it there): %s", mod.Error)
	}
	files, err := filepath.Glob(filepath.Join(mod.Dir, "api", "openapi-spec", "v3", "*_openapi.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	specs := map[string]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var doc struct {
			Components struct {
				Schemas map[string]map[string]any `json:"schemas"`
			} `json:"components"`
		}
		require.NoError(t, json.Unmarshal(data, &doc), f)
		for k, v := range doc.Components.Schemas {
			specs[k] = v
		}
	}
	return specs, mod.Version
}

// refsOf lists the schemas s refers to.
func refsOf(s any) []string {
	var refs []string
	switch v := s.(type) {
	case map[string]any:
		for k, x := range v {
			if r, ok := x.(string); ok && k == "$ref" {
				refs = append(refs, strings.TrimPrefix(r, "#/components/schemas/"))
			} else {
				refs = append(refs, refsOf(x)...)
			}
		}
	case []any:
		for _, x := range v {
			refs = append(refs, refsOf(x)...)
		}
	}
	return refs
}

// closeSchema is an OpenAPI schema as a values.schema.json definition: the
// keywords that validate (type, properties, items, additionalProperties,
// required, enum, oneOf, $ref, pointing into definitions), an object with
// properties closed to others; descriptions, formats, defaults and the
// x-kubernetes extensions left out. allOf of one $ref (how OpenAPI v3
// attaches a description to a reference) is that $ref.
func closeSchema(s any) any {
	switch v := s.(type) {
	case map[string]any:
		if all, ok := v["allOf"].([]any); ok && len(all) == 1 {
			return closeSchema(all[0])
		}
		o := &orderedObject{}
		for _, k := range []string{"$ref", "type", "enum", "oneOf", "required", "properties", "items", "additionalProperties"} {
			x, ok := v[k]
			if !ok {
				continue
			}
			switch k {
			case "$ref":
				o.set(k, "#/definitions/"+strings.TrimPrefix(x.(string), "#/components/schemas/"))
			case "properties":
				props := &orderedObject{}
				names := make([]string, 0, len(x.(map[string]any)))
				for n := range x.(map[string]any) {
					names = append(names, n)
				}
				slices.Sort(names)
				for _, n := range names {
					props.set(n, closeSchema(x.(map[string]any)[n]))
				}
				o.set(k, props)
			case "required":
				req := slices.Clone(x.([]any))
				slices.SortFunc(req, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
				o.set(k, req)
			default:
				o.set(k, closeSchema(x))
			}
		}
		if _, ok := v["properties"]; ok {
			if _, open := v["additionalProperties"]; !open {
				o.set("additionalProperties", false)
			}
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = closeSchema(x)
		}
		return out
	}
	return s
}

// orderedObject is a JSON object that keeps its keys' order, so that the
// hand-written part of values.schema.json stays as written.
type orderedObject struct {
	keys []string
	vals map[string]any
}

func (o *orderedObject) get(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

func (o *orderedObject) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.vals[k]); err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(bytes.TrimSpace(vb.Bytes()))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o *orderedObject) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return err
	}
	obj, ok := v.(*orderedObject)
	if !ok {
		return fmt.Errorf("not a JSON object")
	}
	*o = *obj
	return nil
}

// decodeOrdered reads one JSON value, objects as *orderedObject.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &orderedObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// TestSchemaAcceptsKubernetesObjects: the objects kubeSchemas names render
// when they are what Kubernetes takes (TestSchemaRejectsBadValues has
// misspelt ones, which fail helm install with their path).
func TestSchemaAcceptsKubernetesObjects(t *testing.T) {
	objs := render(t, "--set", "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team=monitoring",
		"--set", "networkPolicy.egress[0].ports[0].port=6443", "--set", "resources.limits.cpu=2",
		"--set", "tolerations[0].operator=Exists", "--set", "podSecurityContext.seccompProfile.type=Localhost",
		"--set", "podSecurityContext.seccompProfile.localhostProfile=p.json")
	pod := typed[appsv1.Deployment](t, objs.get(t, "Deployment", fullname)).Spec.Template.Spec
	require.Len(t, pod.Tolerations, 1)
	assert.Equal(t, corev1.TolerationOpExists, pod.Tolerations[0].Operator)
	assert.Equal(t, "2", pod.Containers[0].Resources.Limits.Cpu().String())
	assert.Equal(t, "p.json", *pod.SecurityContext.SeccompProfile.LocalhostProfile)
	np := typed[networkingv1.NetworkPolicy](t, objs.get(t, "NetworkPolicy", fullname))
	require.Len(t, np.Spec.Egress, 1)
	assert.Equal(t, int32(6443), np.Spec.Egress[0].Ports[0].Port.IntVal)
}
