package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestValidateMatchesAPIServer: `validate` gives kube-apiserver's verdict.
// Every ListenerSet of the examples, of the offline command's test inputs
// (cmd/kubectl-listenerset/testdata/input), of testdata/apiserver (cases
// of object metadata, the CRD's schema and CEL rules, unknown and duplicate
// fields) and of validation/testdata's fuzz corpus (built by the fuzz
// generator) is sent, each alone, to a real kube-apiserver by the real kubectl
// (`kubectl apply --dry-run=server`; `kubectl create --dry-run=server` for an
// object without a name, which apply refuses before asking the server) and
// judged offline, and the two verdicts must agree, object by object; so are
// the worst objects the CRD admits (validationtest.WorstShapes, by kubectl
// create):
//
//   - "CRD": with the webhook unregistered, kube-apiserver's verdict is the
//     CRD's and object metadata's alone; offline that is crdcheck (decode
//     with strict field validation, then the registry's create validation).
//   - "webhook": with the webhook registered (no cluster-aware checks, as the
//     suite runs it), the whole verdict; offline that is offline.Validate,
//     what `validate -f` runs, on the object alone (no Gateway in the input:
//     no cluster-aware checks either).
//
// Under E2E_CRDS (another CRD set) the offline side is given the cluster's
// CRD directory, as `validate --crd DIR`. The comparison takes about half
// a minute (two kubectl runs per object).
func TestValidateMatchesAPIServer(t *testing.T) {
	requireCluster(t)
	ctx := context.Background()
	objects := apiserverCases(t)
	if len(objects) < 70 {
		t.Fatalf("found %d ListenerSets to compare, want the examples, the test inputs, testdata/apiserver and the fuzz corpus (70 or more)", len(objects))
	}
	ensureNamespaces(t, objects)

	var crds []string
	if cluster.CRDs != localcluster.CRDsV163Standard {
		crds = []string{cluster.CRDDir} // else the embedded CRD, which is the same
	}
	var checker *crdcheck.Checker
	var err error
	if crds == nil {
		checker, err = crdcheck.Default()
	} else {
		checker, err = crdcheck.Load(crds)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("comparing %d ListenerSets against kube-apiserver with the Gateway API %s CRDs", len(objects), cluster.CRDs)

	t.Run("CRD", func(t *testing.T) {
		if err := cluster.UnregisterWebhooks(ctx, namespace); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cluster.RegisterWebhooks(ctx, endpoint, namespace); err != nil {
				t.Fatalf("re-registering the webhook: %v", err) // later tests need it
			}
		})
		compareVerdicts(t, objects, func(o apiserverCase) (bool, string) {
			return crdVerdict(checker, o.JSON)
		})
	})
	t.Run("webhook", func(t *testing.T) {
		compareVerdicts(t, objects, func(o apiserverCase) (bool, string) {
			return offlineVerdict(t, o, crds)
		})
	})
}

// compareVerdicts runs each object through kube-apiserver and offline.
func compareVerdicts(t *testing.T, objects []apiserverCase, offlineSays func(apiserverCase) (bool, string)) {
	valid, invalid := 0, 0
	for _, o := range objects {
		t.Run(o.Name, func(t *testing.T) {
			serverValid, serverSays := serverVerdict(t, o)
			offlineValid, says := offlineSays(o)
			if serverValid != offlineValid {
				t.Errorf("%s: kube-apiserver says valid=%v, offline says valid=%v\n--- kubectl:\n%s\n--- offline:\n%s\n--- object:\n%s",
					o.Source, serverValid, offlineValid, serverSays, says, o.Text)
			}
			if serverValid {
				valid++
			} else {
				invalid++
			}
		})
	}
	t.Logf("%d ListenerSets: %d valid, %d invalid, by both", len(objects), valid, invalid)
	if valid == 0 || invalid == 0 {
		t.Errorf("the cases must include valid and invalid objects (%d valid, %d invalid)", valid, invalid)
	}
}

// serverVerdict is kube-apiserver's answer to a dry-run create of o.
func serverVerdict(t *testing.T, o apiserverCase) (bool, string) {
	t.Helper()
	verb := "apply"
	if !o.Named || o.Create {
		verb = "create"
	}
	r := kubectl(t, o.Text, verb, "--dry-run=server", "-f", "-")
	if r.Err == nil {
		// A stored object of the same name would make apply an update.
		if !strings.Contains(r.Stdout, " created (server dry run)") {
			t.Fatalf("kubectl %s did not create %s:\n%s", verb, o.Name, r.Output())
		}
		return true, r.Output()
	}
	// A 422 prints as "The ListenerSet ... is invalid", a 400 (strict
	// field validation) as "Error from server (BadRequest)".
	if strings.Contains(r.Stderr, "failed calling webhook") ||
		!strings.Contains(r.Stderr, " is invalid") && !strings.Contains(r.Stderr, "Error from server (BadRequest)") {
		t.Fatalf("kubectl %s failed, but not with the server's verdict:\n%s", verb, r.Output())
	}
	return false, r.Output()
}

// crdVerdict is crdcheck's: kube-apiserver's decoding with strict field
// validation, then its create validation.
func crdVerdict(c *crdcheck.Checker, raw []byte) (bool, string) {
	d, err := c.DecodeCreate(raw)
	if err != nil {
		return false, "decoding: " + err.Error()
	}
	if len(d.UnknownFields) > 0 {
		return false, fmt.Sprintf("unknown fields %q", d.UnknownFields)
	}
	errs, warnings := c.ValidateCreate(context.Background(), d.Object)
	if len(errs) > 0 {
		return false, errs.ToAggregate().Error()
	}
	return true, fmt.Sprintf("valid; warnings %q", warnings)
}

// offlineVerdict runs offline.Validate, as `validate -f - [--crd DIR]` does,
// on o alone.
func offlineVerdict(t *testing.T, o apiserverCase, crds []string) (bool, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := offline.Validate([]string{read.StdinPath}, offline.Options{
		Format: report.JSON, Stdin: strings.NewReader(o.Text), Stdout: &stdout, Stderr: &stderr, Judge: judge.Options{CRDs: crds},
	})
	var r report.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("validate: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if len(r.Results) != 1 || code == report.ExitInputError {
		t.Fatalf("validate gave %d results, exit %d, for one ListenerSet:\n%s", len(r.Results), code, stdout.String())
	}
	return r.Results[0].Valid, stdout.String()
}

// apiserverCase is one ListenerSet to compare.
type apiserverCase struct {
	// Name names the subtest: file, document and object name.
	Name string
	// Source is where the object is, for messages.
	Source string
	// Text is what kubectl and offline read: the document as written (YAML
	// or JSON, duplicate keys and all), or a List item's JSON.
	Text string
	// JSON is Text as JSON (a duplicate YAML key resolved as kubectl
	// resolves it: the last one wins).
	JSON []byte
	// Namespace and Named are metadata.namespace and whether metadata.name
	// is set.
	Namespace string
	Named     bool
	// Create sends it with kubectl create even when it is named.
	Create bool
}

// apiserverCases reads every ListenerSet of the comparison's files.
func apiserverCases(t *testing.T) []apiserverCase {
	t.Helper()
	var files []string
	for _, dir := range []string{
		filepath.Join(root, "examples"),
		filepath.Join(root, "cmd", "kubectl-listenerset", "testdata", "input"),
		filepath.Join(root, "test", "e2e", "testdata", "apiserver"),
	} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []apiserverCase
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for i, doc := range documents(data) {
			sets, list := listenerSetsIn(doc)
			for j, o := range sets {
				o.Source = fmt.Sprintf("%s document %d", rel, i+1)
				name := fmt.Sprintf("%s/%d", rel, i+1)
				if list {
					o.Source += fmt.Sprintf(" item %d", j+1)
					name += fmt.Sprintf(".%d", j+1)
				}
				if seen[name] {
					t.Fatalf("two cases named %s", name)
				}
				seen[name] = true
				o.Name = name
				out = append(out, o)
			}
		}
	}
	return append(append(out, fuzzCorpusCases(t)...), worstCases(t)...)
}

// worstCases are the worst objects the CRD admits
// (validationtest.WorstShapes at validation.MaxListeners listeners, each
// shape once: an Update shape's object is another's create), sent with
// kubectl create: apply's last-applied-configuration annotation would hold
// the whole object, over kube-apiserver's 256 KiB of annotations.
func worstCases(t *testing.T) []apiserverCase {
	t.Helper()
	var out []apiserverCase
	for _, s := range validationtest.WorstShapes {
		if s.Update != nil {
			continue
		}
		c := objectCase(t, "worst/"+s.Name, s.Build(validation.MaxListeners))
		c.Create = true
		out = append(out, c)
	}
	return out
}

// objectCase is the case of a named object built in Go, as YAML.
func objectCase(t *testing.T, name string, ls *gwv1.ListenerSet) apiserverCase {
	t.Helper()
	text, err := yaml.Marshal(ls)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := yaml.YAMLToJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	return apiserverCase{Name: name, Source: name, Text: string(text), JSON: raw, Namespace: ls.Namespace, Named: true}
}

// fuzzCorpusCases are validation/testdata's fuzz corpus entries, built by
// the fuzz generator (validationtest.FuzzListenerSet), which fills only the
// namespace and the spec: each gets the kind and a name from its file.
func fuzzCorpusCases(t *testing.T) []apiserverCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "validation", "testdata", "fuzz", "*", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fuzz corpus in validation/testdata/fuzz: %v", err)
	}
	var out []apiserverCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// "go test fuzz v1" and one []byte("...") line.
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			t.Fatalf("%s: not a one-value []byte fuzz corpus file", f)
		}
		arg, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ls := validationtest.FuzzListenerSet([]byte(arg))
		ls.APIVersion, ls.Kind = "gateway.networking.k8s.io/v1", "ListenerSet"
		ls.Name = "fuzz-" + strings.ToLower(filepath.Base(f))
		rel, _ := filepath.Rel(root, f)
		out = append(out, objectCase(t, rel, ls))
	}
	return out
}

var separator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// documents splits a YAML stream at "---" lines, or a stream of JSON
// objects into the objects; a document that does not parse is left out
// (an input error offline, refused by kubectl before the server).
func documents(data []byte) []string {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(data))
		var docs []string
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) || len(docs) > 0 {
					return docs
				}
				break // YAML that starts with a flow mapping
			}
			docs = append(docs, string(raw))
		}
	}
	return separator.Split(string(data), -1)
}

// listenerSetsIn returns the v1 ListenerSets of one document: itself, or
// the items of a List (list true).
func listenerSetsIn(doc string) (sets []apiserverCase, list bool) {
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return nil, false
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
		Metadata   struct {
			Name      any `json:"name"`
			Namespace any `json:"namespace"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return nil, false
	}
	if head.Kind == "List" || head.Kind == "ListenerSetList" {
		for _, item := range head.Items {
			s, _ := listenerSetsIn(string(item))
			sets = append(sets, s...)
		}
		return sets, true
	}
	if head.APIVersion != "gateway.networking.k8s.io/v1" || head.Kind != "ListenerSet" {
		return nil, false
	}
	ns, _ := head.Metadata.Namespace.(string)
	name, _ := head.Metadata.Name.(string)
	return []apiserverCase{{Text: doc, JSON: raw, Namespace: ns, Named: name != ""}}, false
}

// ensureNamespaces creates the namespaces the objects name (NamespaceLifecycle
// refuses a create into one that does not exist, which is no verdict on the
// object). Names that are no namespace name are left alone: the server
// refuses those objects either way.
func ensureNamespaces(t *testing.T, objects []apiserverCase) {
	t.Helper()
	var names []string
	for _, o := range objects {
		if o.Namespace != "" && len(k8svalidation.IsDNS1123Label(o.Namespace)) == 0 && !slices.Contains(names, o.Namespace) {
			names = append(names, o.Namespace)
		}
	}
	for _, ns := range names {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r := cluster.Kubectl(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+"\n", "apply", "-f", "-")
		cancel()
		if r.Err != nil {
			t.Fatalf("creating namespace %s: %v\n%s", ns, r.Err, r.Output())
		}
	}
}
