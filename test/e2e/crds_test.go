package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// matrixSets are the CRD sets TestCRDMatrix runs matrixTests against, besides
// the set of the whole suite (v1.6.3 standard): Airlock Microgateway 5.2.3
// moved to Gateway API v1.7.0, whose experimental channel adds a field the
// product's v1.6.3 Go types do not have; v1.5.1 is the oldest release with
// ListenerSet in its standard channel, which clusters installed then still run.
var matrixSets = []localcluster.CRDSet{localcluster.CRDsV151Standard, localcluster.CRDsV170Standard, localcluster.CRDsV170Experimental}

// matrixTests are what depends on the CRDs: every example's verdict (stored
// with the defaults and updated; rejected at create, dry run and update
// with the messages its header lists, by whom its header says), the
// mutation against the CRD's own defaulting, and the fields the Go types do
// not know. The rest of the suite (warnings, ratcheting, a stopped webhook,
// the cluster-aware checks) is about the webhook's own behaviour and runs
// once, against the default set.
var matrixTests = []string{
	"TestValidExamples", "TestInvalidExamples", "TestInvalidExamplesRejectedBy",
	"TestMutationMatchesCRD", "TestUnknownFields",
}

// TestCRDMatrix reports matrixTests against each of matrixSets: this test
// binary run again with E2E_CRDS set, so that each set gets a control plane
// and a webhook of its own, started as this process started its own (the
// CRDs are not swapped under a running cluster: Gateway API's own upgrade
// policy forbids experimental CRDs over standard ones). TestMain starts both
// as soon as this process's control plane is up, so that they run while the
// rest of the suite does; this test waits for them, after the rest.
func TestCRDMatrix(t *testing.T) {
	requireCluster(t)
	if set := os.Getenv(crdsEnv); set != "" {
		t.Skipf("%s=%s: this process runs the suite against that set only", crdsEnv, set)
	}
	if len(matrix) == 0 {
		t.Fatal("TestMain started no matrix run (it starts them when -test.run selects TestCRDMatrix)")
	}
	// Only to wait: a parallel top-level test resumes once every other one
	// has ended, so the children overlap the whole rest of the suite.
	t.Parallel()
	for _, run := range matrix {
		t.Run(string(run.set), func(t *testing.T) {
			<-run.done
			results := topLevelResults(string(run.out))
			t.Logf("%s=%s go test -run '%s' ./test/e2e/: %s in %s", crdsEnv, run.set, matrixRunFlag(),
				map[bool]string{true: "ok", false: "FAILED"}[run.err == nil], run.took.Round(100*time.Millisecond))
			for _, line := range results.lines {
				t.Log(line)
			}
			if run.err != nil {
				t.Fatalf("%v; its output:\n%s", run.err, run.out)
			}
			for _, name := range matrixTests {
				if r := results.of[name]; r != "PASS" {
					t.Errorf("%s did not pass against %s (%q); its output:\n%s", name, run.set, r, run.out)
				}
			}
		})
	}
}

// matrixRun is one child process of the matrix.
type matrixRun struct {
	set  localcluster.CRDSet
	done chan struct{} // closed when the child has exited; then:
	out  []byte        // its output (go test -v)
	err  error
	took time.Duration
}

// matrix holds the runs startMatrix started; stopMatrix ends them.
var (
	matrix       []*matrixRun
	cancelMatrix context.CancelFunc = func() {}
)

func matrixRunFlag() string { return "^(" + strings.Join(matrixTests, "|") + ")$" }

// startMatrix starts a child for each of matrixSets, unless -test.run or
// -test.skip leave TestCRDMatrix out (top-level pattern only, as go test
// matches top-level tests) or this process is itself one set's run.
func startMatrix() error {
	if os.Getenv(crdsEnv) != "" || testing.Short() || !selected("TestCRDMatrix") {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"-test.run=" + matrixRunFlag(), "-test.v"}
	ctx := context.Background()
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 0 {
			// The children time out first, so that their panic (which
			// names the test that hung) is what TestCRDMatrix prints.
			args = append(args, "-test.timeout="+(d*9/10).String())
		}
	}
	ctx, cancelMatrix = context.WithCancel(ctx)
	for _, set := range matrixSets {
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Env = append(os.Environ(), crdsEnv+"="+string(set))
		// A child stops its control plane on SIGTERM (runWithCluster).
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 30 * time.Second
		run := &matrixRun{set: set, done: make(chan struct{})}
		matrix = append(matrix, run)
		start := time.Now()
		go func() {
			defer close(run.done)
			run.out, run.err = cmd.CombinedOutput()
			run.took = time.Since(start)
		}()
	}
	return nil
}

// stopMatrix ends the children that are still running (this process is
// ending: TestCRDMatrix did not run or did not wait for them) and waits
// for them to stop their control planes.
func stopMatrix() {
	cancelMatrix()
	for _, run := range matrix {
		select {
		case <-run.done:
		case <-time.After(45 * time.Second):
		}
	}
}

// selected approximates go test's choice of a top-level test: the first
// element of -test.run matches it, and -test.skip, unless it names subtests
// only, does not.
func selected(name string) bool {
	matches := func(pattern string) bool {
		re, err := regexp.Compile(pattern)
		return err == nil && re.MatchString(name)
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		if top, _, _ := strings.Cut(f.Value.String(), "/"); !matches(top) {
			return false
		}
	}
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" && !strings.Contains(f.Value.String(), "/") {
		return !matches(f.Value.String())
	}
	return true
}

var (
	topLevelRun    = regexp.MustCompile(`^=== RUN   (Test\w+)$`)
	topLevelResult = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (Test\w+) \(`)
	logLine        = regexp.MustCompile(`^\s+\w+\.go:\d+: `)
)

type childResults struct {
	of    map[string]string // test name to PASS, FAIL or SKIP
	lines []string          // the lines worth repeating
}

// topLevelResults reads a `go test -v` output: the results of the top-level
// tests, and the lines worth repeating: the e2e: lines, each result, and
// the logs of the tests that skipped and of TestUnknownFields (which say
// what they found).
func topLevelResults(out string) childResults {
	r := childResults{of: map[string]string{}}
	s := bufio.NewScanner(strings.NewReader(out))
	s.Buffer(nil, 1<<20)
	var logs []string // of the running top-level test
	for s.Scan() {
		line := s.Text()
		switch m := topLevelResult.FindStringSubmatch(line); {
		case m != nil:
			r.of[m[2]] = m[1]
			if m[1] == "SKIP" || m[2] == "TestUnknownFields" {
				r.lines = append(r.lines, logs...)
			}
			r.lines = append(r.lines, line)
		case topLevelRun.MatchString(line):
			logs = nil
		case logLine.MatchString(line):
			logs = append(logs, "  "+strings.TrimSpace(line))
		case strings.HasPrefix(line, "e2e: "):
			r.lines = append(r.lines, line)
		}
	}
	return r
}

// unknownFieldSamples holds, for each field of a listener that a CRD set of
// the matrix has and the Go types do not, a value the CRD accepts.
var unknownFieldSamples = map[string]any{
	// v1.7.0 experimental (GEP "listener filters"): pre-routing filters.
	// The ExternalAuth backendRef leaves group and kind to the CRD's defaults
	// ("" and Service), which must survive as well.
	"spec.listeners[*].filters": map[string]any{"requests": []any{
		map[string]any{"type": "ExtensionRef", "extensionRef": map[string]any{
			"group": "example.com", "kind": "BodyRouter", "name": "by-body"}},
		map[string]any{"type": "ExternalAuth", "externalAuth": map[string]any{
			"protocol": "HTTP", "http": map[string]any{"path": "/check", "allowedHeaders": []any{"x-team"}},
			"backendRef": map[string]any{"name": "authz", "port": 9000}}},
	}},
}

// TestUnknownFields: every field of the installed ListenerSet CRD that the
// product's Go types (sigs.k8s.io/gateway-api v1.6.3) do not have survives
// admission through kube-apiserver with both webhooks registered, also when
// the mutating webhook patches the object. The Go types drop such a field
// when they decode the object, so a patch computed from them alone would
// remove it (defaults.Patch drops every removal, defaults.WithoutRemovals). The fields are found by walking the CRD's
// schema along the Go types, so a CRD that adds another fails here until it
// has a sample in unknownFieldSamples. A standard channel's CRD may have no
// such field (the suite's own v1.6.3 set, the types' version, has none):
// then there is nothing to test and the test passes saying so; an
// experimental one must have one (else no set of the matrix tests this).
//
// With the CRD as published, kube-apiserver has set every default before it
// evaluates the mutating webhook's matchConditions, so it never calls the
// webhook (the first subtest counts its calls), and a call would change
// nothing and answer without a patch. The webhook's patch is for CRDs that
// leave the defaults to it; the second subtest installs such a CRD, the
// same one without the defaults the webhook sets, and shows the call (its
// request count), the patch (the defaults are stored) and the unknown
// fields stored as sent, at create and at update, and the whole spec as the
// published CRD alone stores the same object.
func TestUnknownFields(t *testing.T) {
	requireCluster(t)
	ctx := context.Background()
	crd, schema := installedListenerSetCRD(t)
	specSchema := schema.Properties["spec"]
	unknown := unknownFields(&specSchema, reflect.TypeFor[gwv1.ListenerSetSpec](), "spec")
	t.Logf("the %s ListenerSet CRD has %d field(s) the Go types do not know: %v", cluster.CRDs, len(unknown), unknown)
	var fields []string // of a listener
	for _, path := range unknown {
		field, ok := strings.CutPrefix(path, "spec.listeners[*].")
		if _, sampled := unknownFieldSamples[path]; !ok || !sampled || strings.ContainsAny(field, ".[") {
			t.Errorf("%s is in the %s CRD and not in the Go types: add a sample of it to unknownFieldSamples "+
				"(listener fields only so far), so that its survival is tested", path, cluster.CRDs)
			continue
		}
		fields = append(fields, field)
	}
	if len(unknown) == 0 {
		// A fact of the CRD set, not of this machine: no skip, which make
		// test's FAIL_ON_SKIP=1 (CI) would count as a test that did not run.
		if cluster.CRDs.Channel() != "standard" {
			t.Fatalf("the %s ListenerSet CRD has no field the Go types do not know: the matrix tests no unknown field", cluster.CRDs)
		}
		t.Logf("the Go types know every field of the %s ListenerSet CRD: nothing to test; the matrix's %s run tests unknown ones",
			cluster.CRDs, localcluster.CRDsV170Experimental)
		return
	}
	if t.Failed() {
		t.FailNow()
	}

	// Both listeners set every unknown field and leave every default unset
	// (parentRef group and kind, allowedRoutes, tls mode, the
	// certificateRef's group and kind).
	object := func(name string) map[string]any {
		obj := listenerSet(name, httpListener("web", 8080), httpsListener("tls", 8443, "cert"))
		for _, l := range listeners(obj) {
			for _, f := range fields {
				l.(map[string]any)[f] = clone(map[string]any{"v": unknownFieldSamples["spec.listeners[*]."+f]})["v"]
			}
		}
		return obj
	}
	// Not vacuous: the Go types drop each of them.
	var typed gwv1.ListenerSet
	if err := json.Unmarshal([]byte(mustJSON(object("roundtrip"))), &typed); err != nil {
		t.Fatal(err)
	}
	var roundtrip map[string]any
	if err := json.Unmarshal([]byte(mustJSON(typed)), &roundtrip); err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if _, kept := listener(roundtrip, 0)[f]; kept {
			t.Errorf("the Go types keep spec.listeners[*].%s: it is not unknown to them", f)
		}
	}
	// requireSurvived: every listener of the stored object has each sample
	// as sent (what the CRD defaults inside it may be added).
	requireSurvived := func(t *testing.T, name string) map[string]any {
		t.Helper()
		_, raw, ok := get(t, name)
		if !ok {
			t.Fatalf("%s not stored", name)
		}
		for i := range listeners(raw) {
			for _, f := range fields {
				if got, want := listener(raw, i)[f], unknownFieldSamples["spec.listeners[*]."+f]; !contains(got, want) {
					t.Errorf("%s: stored spec.listeners[%d].%s is %s, want %s (and the CRD's defaults)", name, i, f, mustJSON(got), mustJSON(want))
				}
			}
		}
		return raw
	}
	// lean is an object that needs every default and has no unknown field.
	lean := listenerSet("e2e-unknown-probe", httpsListener("tls", 8443, "cert"))

	t.Run("published CRD", func(t *testing.T) {
		const name = "e2e-unknown-published"
		cleanupLS(t, name)
		before := mutateCalls(t)
		mustApply(t, object(name))
		requireSurvived(t, name)
		t.Logf("the mutating webhook was called %v time(s) for an object that sets no default (the CRD sets them all first)", mutateCalls(t)-before)
	})

	t.Run("CRD without defaults, webhook patches", func(t *testing.T) {
		const name, crdOnly = "e2e-unknown-patched", "e2e-unknown-crd"
		cleanupLS(t, name)
		cleanupLS(t, crdOnly)
		stripped := crd.DeepCopy()
		for i, v := range stripped.Spec.Versions {
			if v.Name == gwv1.GroupVersion.Version {
				spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
				if n := stripDefaults(&spec, reflect.TypeFor[gwv1.ListenerSetSpec]()); n == 0 {
					t.Fatal("the CRD has no default the webhook sets")
				}
				stripped.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
			}
		}
		replaceCRD(t, stripped)
		t.Cleanup(func() { replaceCRD(t, crd); waitForMutateCalls(t, lean, false) })
		// Until kube-apiserver serves the CRD without defaults, the lean
		// object has its defaults when the matchConditions are evaluated.
		waitForMutateCalls(t, lean, true)

		before := mutateCalls(t)
		obj := object(name)
		if r := mustApply(t, obj); !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/"+name+" created") {
			t.Errorf("not created:\n%s", r.Output())
		}
		created := requireSurvived(t, name)
		stored, _, _ := get(t, name)
		checkDefaults(t, obj, stored) // only the webhook's patch can have set them
		// An update by PUT of the manifest, which lacks the defaults again
		// (kubectl apply would keep the stored ones, and the matchConditions
		// would skip the webhook).
		updated := clone(obj)
		updated["metadata"].(map[string]any)["labels"] = map[string]any{"e2e": "updated"}
		listener(updated, 0)["port"] = 8081
		if r := kubectl(t, toYAML(t, updated), "replace", "-f", "-"); r.Err != nil || !strings.Contains(r.Stdout, "replaced") {
			t.Errorf("not updated: %v\n%s", r.Err, r.Output())
		}
		if raw := requireSurvived(t, name); listener(raw, 0)["port"] != float64(8081) {
			t.Errorf("the update did not take: %s", mustJSON(spec(raw)))
		}
		if calls := mutateCalls(t) - before; calls < 2 {
			t.Errorf("the mutating webhook was called %v time(s) for a create and an update, want 2 or more", calls)
		} else if !t.Failed() {
			t.Logf("the mutating webhook was called %v time(s) for a create and an update; its patches set the defaults and kept %v", calls, fields)
		}

		// The same object stored by the published CRD alone.
		replaceCRD(t, crd)
		waitForMutateCalls(t, lean, false)
		if err := cluster.UnregisterWebhooks(ctx, namespace); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cluster.RegisterWebhooks(ctx, endpoint, namespace); err != nil {
				t.Fatalf("re-registering the webhook: %v", err) // later tests need it
			}
		})
		alone := clone(obj)
		alone["metadata"].(map[string]any)["name"] = crdOnly
		mustApply(t, alone)
		_, raw, _ := get(t, crdOnly)
		if !reflect.DeepEqual(spec(created), spec(raw)) {
			t.Errorf("the spec the webhook's patch gave differs from the published CRD's defaulting\nwebhook: %s\nCRD:     %s",
				mustJSON(spec(created)), mustJSON(spec(raw)))
		}
	})
}

// installedListenerSetCRD reads the ListenerSet CRD from the cluster, and
// the schema of its version v1.
func installedListenerSetCRD(t *testing.T) (*apiextensionsv1.CustomResourceDefinition, *apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.Client.Get(context.Background(), client.ObjectKey{Name: "listenersets.gateway.networking.k8s.io"}, crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == gwv1.GroupVersion.Version && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			return crd, v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatalf("the installed ListenerSet CRD serves no %s", gwv1.GroupVersion.Version)
	return nil, nil
}

// replaceCRD makes the installed ListenerSet CRD's spec want's.
func replaceCRD(t *testing.T, want *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ctx := context.Background()
	current := &apiextensionsv1.CustomResourceDefinition{}
	if err := cluster.Client.Get(ctx, client.ObjectKeyFromObject(want), current); err != nil {
		t.Fatal(err)
	}
	current.Spec = *want.Spec.DeepCopy()
	if err := cluster.Client.Update(ctx, current); err != nil {
		t.Fatal(err)
	}
}

// waitForMutateCalls dry-runs obj until kube-apiserver calls the mutating
// webhook for it (called) or no longer does (!called): the CRD in effect
// has, or has not, set obj's defaults before the matchConditions.
func waitForMutateCalls(t *testing.T, obj map[string]any, called bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		before := mutateCalls(t)
		mustApply(t, obj, "--dry-run=server")
		if (mutateCalls(t) > before) == called {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30s after the CRD changed, the mutating webhook is still (not) called: want called=%v", called)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stripDefaults removes the defaults of schema, a CRD's structural schema,
// on the fields the Go type typ knows (not inside the others), and returns
// how many it removed.
func stripDefaults(schema *apiextensionsv1.JSONSchemaProps, typ reflect.Type) int {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	n := 0
	if schema.Default != nil {
		schema.Default = nil
		n++
	}
	switch {
	case schema.Items != nil && schema.Items.Schema != nil && (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array):
		n += stripDefaults(schema.Items.Schema, typ.Elem())
	case len(schema.Properties) > 0 && typ.Kind() == reflect.Struct:
		for name, sub := range schema.Properties {
			if field, ok := jsonField(typ, name); ok {
				n += stripDefaults(&sub, field)
				schema.Properties[name] = sub
			}
		}
	case schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil && typ.Kind() == reflect.Map:
		n += stripDefaults(schema.AdditionalProperties.Schema, typ.Elem())
	}
	return n
}

// unknownFields lists the properties of schema, a CRD's structural schema
// at path, that the Go type typ has no JSON field for, as paths with [*]
// for list items and map values. It does not descend into them.
func unknownFields(schema *apiextensionsv1.JSONSchemaProps, typ reflect.Type, path string) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch {
	case schema.Items != nil && schema.Items.Schema != nil:
		if typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array {
			return unknownFields(schema.Items.Schema, typ.Elem(), path+"[*]")
		}
	case len(schema.Properties) > 0:
		if typ.Kind() != reflect.Struct {
			return nil
		}
		var out []string
		names := make([]string, 0, len(schema.Properties))
		for name := range schema.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			sub := schema.Properties[name]
			field, ok := jsonField(typ, name)
			if !ok {
				out = append(out, path+"."+name)
				continue
			}
			out = append(out, unknownFields(&sub, field, path+"."+name)...)
		}
		return out
	case schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
		if typ.Kind() == reflect.Map {
			return unknownFields(schema.AdditionalProperties.Schema, typ.Elem(), path+"[*]")
		}
	}
	return nil
}

// jsonField is the type of typ's field that encoding/json names name,
// looking into embedded structs as encoding/json does.
func jsonField(typ reflect.Type, name string) (reflect.Type, bool) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
		case tag == "" && f.Anonymous:
			embedded := f.Type
			for embedded.Kind() == reflect.Pointer {
				embedded = embedded.Elem()
			}
			if embedded.Kind() == reflect.Struct {
				if ft, ok := jsonField(embedded, name); ok {
					return ft, true
				}
			}
		case tag == name || tag == "" && f.Name == name:
			return f.Type, true
		}
	}
	return nil, false
}

// contains tells whether got has everything want has: the same scalars,
// lists of the same length whose items contain want's, and maps with at
// least want's keys (whose values contain want's).
func contains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if gv, ok := g[k]; !ok || !contains(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !contains(g[i], w[i]) {
				return false
			}
		}
		return true
	case int:
		return got == float64(w)
	default:
		return reflect.DeepEqual(got, want)
	}
}

// seriesValue is the value of one series of the webhook's /metrics, given
// as its name and labels exactly as the page writes them
// (`name{label="value"}`); 0 when the page has no such series.
func seriesValue(t *testing.T, series string) float64 {
	t.Helper()
	var n float64
	for line := range strings.Lines(webhookMetrics(t)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatal(err)
			}
		}
	}
	return n
}

// mutateCalls is how many requests the webhook's mutating handler has
// answered (controller_runtime_webhook_requests_total, any code).
func mutateCalls(t *testing.T) float64 {
	t.Helper()
	var n float64
	label := fmt.Sprintf("webhook=%q", admission.MutatePath)
	for _, line := range strings.Split(webhookMetrics(t), "\n") {
		if !strings.HasPrefix(line, "controller_runtime_webhook_requests_total{") || !strings.Contains(line, label) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		n += v
	}
	return n
}

// webhookMetrics is the webhook's /metrics, as text.
func webhookMetrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(hook.MetricsURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
