package admission_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// FuzzAdmissionReview posts the input as the body of an AdmissionReview to
// the mutating and the validating webhook as RegisterWith registers them on
// controller-runtime's webhook server (the handler stack kube-apiserver
// reaches, metrics included). Whatever the bytes, neither panics, and each answers with a 4xx,
// or with a 200 whose body is an admission.k8s.io AdmissionReview with a
// response that is not a server error (a recovered panic is one), echoing
// the request's uid and apiVersion when the body is a review.
func FuzzAdmissionReview(f *testing.F) {
	mux := http.NewServeMux()
	admission.RegisterWith(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}), admission.Validator{})
	f.Add([]byte{}) // the committed corpus (testdata/fuzz) has reviews built from the examples
	f.Fuzz(func(t *testing.T, body []byte) {
		review, isReview := asReview(body)
		for _, path := range []string{admission.MutatePath, admission.ValidatePath} {
			code, answer := serve(mux, path, body)
			checkAnswer(t, path, code, answer, review, isReview)
		}
	})
}

// reviewVersions are the AdmissionReview versions kube-apiserver sends.
var reviewVersions = []string{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"}

// asReview reads body as kube-apiserver writes a review: JSON with
// case-sensitive field names. ok is false for anything that is not an
// AdmissionReview of reviewVersions, and for a body whose apiVersion and kind
// read otherwise case-insensitively ("KIND" besides "kind"): that is how
// controller-runtime finds them (apimachinery's SimpleMetaFactory, with
// encoding/json) before it decodes the rest case-sensitively, and it then
// answers as that other kind; kube-apiserver never sends such a body.
func asReview(body []byte) (review admissionv1.AdmissionReview, ok bool) {
	if kjson.UnmarshalCaseSensitivePreserveInts(body, &review) != nil {
		var tm metav1.TypeMeta // fields of the wrong type further down: still a review
		if kjson.UnmarshalCaseSensitivePreserveInts(body, &tm) != nil {
			return review, false
		}
		review = admissionv1.AdmissionReview{TypeMeta: tm}
	}
	if review.Kind != "AdmissionReview" || !slices.Contains(reviewVersions, review.APIVersion) {
		return review, false
	}
	var insensitive metav1.TypeMeta
	return review, json.Unmarshal(body, &insensitive) == nil && insensitive == review.TypeMeta
}

// serve posts body to h as kube-apiserver does. The request is built by
// hand: httptest.NewRequest parses a URL and a request line each time, which
// was a tenth of an execution.
func serve(h http.Handler, path string, body []byte) (int, []byte) {
	req := &http.Request{
		Method: http.MethodPost, URL: &url.URL{Path: path}, RequestURI: path,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "webhook",
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// checkAnswer holds for every answer, whatever the body.
func checkAnswer(t *testing.T, path string, code int, answer []byte, review admissionv1.AdmissionReview, isReview bool) {
	t.Helper()
	if code >= 400 && code < 500 {
		return
	}
	if code != http.StatusOK {
		t.Fatalf("%s: status %d, neither 200 nor 4xx: %s", path, code, answer)
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(answer, &got); err != nil || got.Response == nil {
		t.Fatalf("%s: the answer is no AdmissionReview with a response (%v): %s", path, err, answer)
	}
	if got.Kind != "" && (got.Kind != "AdmissionReview" || !slices.Contains(reviewVersions, got.APIVersion)) {
		t.Fatalf("%s: answered as %s %s: %s", path, got.APIVersion, got.Kind, answer)
	}
	if got.Response.Result != nil && got.Response.Result.Code >= 500 {
		t.Fatalf("%s: a server error: %s", path, answer)
	}
	if isReview && review.Request != nil && review.Request.UID != "" && got.Response.UID != review.Request.UID {
		t.Fatalf("%s: request uid %q, response uid %q: %s", path, review.Request.UID, got.Response.UID, answer)
	}
	if got.Response.UID != "" && got.TypeMeta != review.TypeMeta {
		t.Fatalf("%s: a review of %s answered as %s %s: %s", path, review.APIVersion, got.APIVersion, got.Kind, answer)
	}
}

// fuzzSeeds are the committed seeds of FuzzAdmissionReview: reviews as
// kube-apiserver sends them, of the examples, and the near misses that take
// other branches.
func fuzzSeeds(t *testing.T) map[string][]byte {
	object := func(example string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", example))
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		return string(j)
	}
	review := func(version, uid, op, obj, old string) []byte {
		r := `{"apiVersion":"admission.k8s.io/` + version + `","kind":"AdmissionReview","request":{"uid":"` + uid + `",` +
			`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
			`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
			`"namespace":"listenerset-demo","name":"x","operation":"` + op + `","userInfo":{"username":"me"}`
		if obj != "" {
			r += `,"object":` + obj
		}
		if old != "" {
			r += `,"oldObject":` + old
		}
		return []byte(r + `}}`)
	}
	withUnknownField := strings.Replace(object("valid/minimal.yaml"), `"spec":{`, `"spec":{"future":{"a":[1,2]},`, 1)
	return map[string][]byte{
		"create-valid-https":        review("v1", "u-1", "CREATE", object("valid/https.yaml"), ""),
		"create-undefaulted":        review("v1", "u-2", "CREATE", object("valid/minimal.yaml"), ""),
		"create-many-errors":        review("v1", "u-3", "CREATE", object("invalid/many-errors.yaml"), ""),
		"update-protocol-conflict":  review("v1", "u-4", "UPDATE", object("invalid/protocol-conflict.yaml"), object("valid/http.yaml")),
		"delete-without-old-object": review("v1", "u-5", "DELETE", "", ""),
		"v1beta1-warnings":          review("v1beta1", "u-6", "CREATE", object("valid/warnings.yaml"), ""),
		"create-without-uid":        review("v1", "", "CREATE", object("valid/http3.yaml"), ""),
		"create-gateway":            review("v1", "u-7", "CREATE", object("gateway.yaml"), ""),
		"create-unknown-field":      review("v1", "u-8", "CREATE", withUnknownField, ""),
		// found by FuzzAdmissionReview (TestCaseVariantKindIsRefused)
		"regression-case-variant-kind": []byte(caseVariantKind),
		// TestDuplicateObjectKeepsTheLaterOne
		"regression-duplicate-object": []byte(duplicateObject),
	}
}

// TestFuzzSeedsAreCurrent: the committed seeds are the reviews fuzzSeeds
// builds from the examples today. UPDATE_FUZZ_SEEDS=1 rewrites them.
func TestFuzzSeedsAreCurrent(t *testing.T) {
	for name, seed := range fuzzSeeds(t) {
		file := filepath.Join("testdata", "fuzz", "FuzzAdmissionReview", name)
		entry := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(seed)))
		if os.Getenv("UPDATE_FUZZ_SEEDS") != "" {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(entry), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if committed, err := os.ReadFile(file); err != nil || string(committed) != entry {
			t.Errorf("seed %s is missing or stale (UPDATE_FUZZ_SEEDS=1 rewrites it): %v", file, err)
		}
	}
}

// caseVariantKind is a v1beta1 review that also has a "KIND" field.
// controller-runtime finds apiVersion and kind case-insensitively and
// answered it as an AdmissionReview of kind "Foo".
const caseVariantKind = `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","KIND":"Foo","request":{"uid":"u-9","operation":"CREATE"}}`

// TestCaseVariantKindIsRefused is the regression test of
// testdata/fuzz/FuzzAdmissionReview/regression-case-variant-kind: the
// answer is a 400 in an AdmissionReview, not a review of another kind.
func TestCaseVariantKindIsRefused(t *testing.T) {
	mux := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}))
	for _, path := range []string{admission.MutatePath, admission.ValidatePath} {
		code, answer := serve(mux, path, []byte(caseVariantKind))
		var got admissionv1.AdmissionReview
		if err := json.Unmarshal(answer, &got); code != http.StatusOK || err != nil || got.Response == nil {
			t.Fatalf("%s: %d %s", path, code, answer)
		}
		if got.Kind != "" || got.Response.Allowed || got.Response.Result == nil || got.Response.Result.Code != http.StatusBadRequest {
			t.Errorf("%s: want an untyped 400 AdmissionReview, got %s", path, answer)
		}
	}
}

// TestObjectCaseVariantKindIsRefused: the guard reads an object's kind with
// exact case, controller-runtime's decoder case-insensitively. An object that
// the guard takes for a ListenerSet but whose case variant names another
// registered kind (of any version) must be refused by the decoder, not
// decoded into an empty ListenerSet and judged.
func TestObjectCaseVariantKindIsRefused(t *testing.T) {
	mux := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}))
	for _, variant := range []string{
		`"KIND":"Gateway"`,
		`"KIND":"HTTPRoute","APIVERSION":"gateway.networking.k8s.io/v1beta1"`,
	} {
		body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-11","operation":"CREATE",` +
			`"object":{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet",` + variant + `,` +
			`"metadata":{"name":"x"},"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"a","port":80,"protocol":"HTTP"}]}}}}`
		for _, path := range []string{admission.MutatePath, admission.ValidatePath} {
			code, answer := serve(mux, path, []byte(body))
			var got admissionv1.AdmissionReview
			if err := json.Unmarshal(answer, &got); code != http.StatusOK || err != nil || got.Response == nil {
				t.Fatalf("%s %s: %d %s", variant, path, code, answer)
			}
			if r := got.Response.Result; got.Response.Allowed || r == nil || r.Code != http.StatusBadRequest {
				t.Errorf("%s %s: want a 400 denial, got %s", variant, path, answer)
			}
		}
	}
}

// duplicateObject gives request.object twice, and oldObject a second time
// as null: as in controller-runtime's RawExtension, the later object counts
// and null keeps what was there. A single pass that decoded both objects into
// one ListenerSet merged them, and the denial named the ListenerSet "first"
// instead of "".
const duplicateObject = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-10","operation":"CREATE",` +
	`"object":{"metadata":{"name":"first"}},"object":{"spec":{"listeners":[{"name":"x","port":80,"protocol":"TCP"}]}},` +
	`"oldObject":{"metadata":{"name":"old"}},"oldObject":null}}`

// TestDuplicateObjectKeepsTheLaterOne is the regression test of
// testdata/fuzz/FuzzAdmissionReview/regression-duplicate-object: the guard
// hands the review on, and the denial names the later object.
func TestDuplicateObjectKeepsTheLaterOne(t *testing.T) {
	mux := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}))
	for _, op := range []string{"CREATE", "UPDATE"} {
		code, answer := serve(mux, admission.ValidatePath, []byte(strings.Replace(duplicateObject, "CREATE", op, 1)))
		var got admissionv1.AdmissionReview
		if err := json.Unmarshal(answer, &got); code != http.StatusOK || err != nil || got.Response == nil {
			t.Fatalf("%s: %d %s", op, code, answer)
		}
		r := got.Response.Result
		if got.Response.Allowed || r == nil || r.Code != http.StatusUnprocessableEntity || r.Details == nil || r.Details.Name != "" {
			t.Errorf("%s: want a 422 denial of the ListenerSet \"\" (the later object), got %s", op, answer)
		}
	}
}
