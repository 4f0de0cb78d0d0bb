package listing_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

const exampleGateway = "../examples/gateway.yaml"

// compared counts the sets agree looked at.
type compared struct {
	// valid and invalid are the sets in a merged list, by validate's verdict.
	valid, invalid int
	// unattached are in no merged list (no Gateway of the input is their parent).
	unattached int
}

// agree runs validate -o json and listeners on the same paths and checks
// that every ListenerSet validate finds invalid is Invalid in the merged
// list, and every valid one is not.
func agree(t *testing.T, paths []string) compared {
	t.Helper()
	var stdout, stderr bytes.Buffer
	offline.Validate(paths, offline.Options{Format: report.JSON, Stdout: &stdout, Stderr: &stderr})
	var r report.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), stderr.String())
	valid := map[string]bool{}
	for _, res := range r.Results {
		valid[read.Name(res.Namespace, res.Name)] = res.Valid
	}
	in, errs := listing.FromManifests(paths, nil, nil, validation.Scope{}, validation.Tenancy{})
	require.Empty(t, errs)
	l, _ := listing.Build(in, "")
	seen := map[string]bool{}
	for _, gw := range l.Gateways {
		for _, row := range gw.Listeners {
			if row.Source.Kind != "ListenerSet" {
				continue
			}
			name := read.Name(row.Source.Namespace, row.Source.Name)
			ok, found := valid[name]
			require.True(t, found, "listeners shows %s, validate has no result for it", name)
			assert.Equal(t, !ok, row.State == "Invalid", "%s listener %s: validate says valid=%v, listeners %s %s %v",
				name, row.Name, ok, row.State, row.Reason, row.Messages)
			seen[name] = true
		}
	}
	var c compared
	for name := range seen {
		if valid[name] {
			c.valid++
		} else {
			c.invalid++
		}
	}
	c.unattached = len(l.Unattached)
	return c
}

// TestListenersAgreeWithValidate: on every example, listeners and validate
// judge each ListenerSet alike (both read and judge through offline/read
// and offline/judge).
func TestListenersAgreeWithValidateOnExamples(t *testing.T) {
	examples, err := validationtest.Examples("..")
	require.NoError(t, err)
	require.NotEmpty(t, examples)
	for _, ex := range examples {
		t.Run(filepath.Base(filepath.Dir(ex.Path))+"/"+filepath.Base(ex.Path), func(t *testing.T) {
			c := agree(t, []string{exampleGateway, ex.Path})
			assert.Equal(t, 1, c.valid+c.invalid+c.unattached, "the example is listed")
		})
	}
}

// TestListenersAgreeWithValidateOnFuzz: the same on objects of the fuzz
// generator, attached to the examples' Gateway. Most pass the CRD
// (BiasedFuzzBytes), some fail only its schema or CEL rules, some the
// webhook's.
func TestListenersAgreeWithValidateOnFuzz(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 6))
	var docs bytes.Buffer
	const n = 300
	for i := range n {
		ls := validationtest.FuzzListenerSet(validationtest.BiasedFuzzBytes(rng))
		ls.APIVersion, ls.Kind = gwv1.GroupVersion.String(), "ListenerSet"
		ls.Name = fmt.Sprintf("fuzz-%03d", i)
		ns := gwv1.Namespace("listenerset-demo")
		ls.Namespace = string(ns)
		ls.Spec.ParentRef = gwv1.ParentGatewayReference{Name: "demo-gateway", Namespace: &ns}
		data, err := yaml.Marshal(ls)
		require.NoError(t, err)
		docs.WriteString("---\n")
		docs.Write(data)
	}
	path := filepath.Join(t.TempDir(), "fuzz.yaml")
	require.NoError(t, os.WriteFile(path, docs.Bytes(), 0o644))
	c := agree(t, []string{exampleGateway, path})
	t.Logf("%+v", c)
	assert.Greater(t, c.valid, 10, "valid fuzz sets in the merged list")
	assert.Greater(t, c.invalid, 10, "invalid fuzz sets in the merged list")
}

// TestListenersAgreeWithValidateWhereOnlyKubeAPIServerRefuses: sets the
// webhook's own rules pass but kube-apiserver refuses (a field the CRD does
// not know, under kubectl's strict field validation; a name that is no DNS
// subdomain) are Invalid in the merged list, as validate finds them.
func TestListenersAgreeWithValidateWhereOnlyKubeAPIServerRefuses(t *testing.T) {
	const set = `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  name: %s
  namespace: listenerset-demo
spec:
  parentRef:
    name: demo-gateway
  listeners:
  - name: web
    port: %d
    protocol: HTTP
%s`
	docs := fmt.Sprintf(set, "plain", 8080, "") + "---\n" +
		fmt.Sprintf(set, "unknown-field", 8081, "    colour: blue\n") + "---\n" +
		fmt.Sprintf(set, "Not_A_DNS_Name", 8082, "")
	path := filepath.Join(t.TempDir(), "sets.yaml")
	require.NoError(t, os.WriteFile(path, []byte(docs), 0o644))
	assert.Equal(t, compared{valid: 1, invalid: 2}, agree(t, []string{exampleGateway, path}))
}
