package webhook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestOneParseAnswersAsControllerRuntime: oneParse's answers are byte for
// byte those of controller-runtime's own ServeHTTP, for well-formed reviews
// and for everything it hands over (what it refuses itself is in
// TestOneParseRefusesWhatKubeAPIServerNeverSends).
func TestOneParseAnswersAsControllerRuntime(t *testing.T) {
	logf.SetLogger(logr.Discard())
	obj := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`
	bad := strings.Replace(obj, `"HTTP"`, `"TCP"`, 1)
	review := func(version, op, object, old string) string {
		r := `{"apiVersion":"admission.k8s.io/` + version + `","kind":"AdmissionReview","request":{"uid":"u-1",` +
			`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
			`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
			`"namespace":"n","name":"a","operation":"` + op + `","userInfo":{"username":"me"}`
		if object != "" {
			r += `,"object":` + object
		}
		if old != "" {
			r += `,"oldObject":` + old
		}
		return r + `}}`
	}
	bodies := map[string]string{
		"valid create":       review("v1", "CREATE", obj, ""),
		"invalid create":     review("v1", "CREATE", bad, ""),
		"update":             review("v1", "UPDATE", bad, bad),
		"delete":             review("v1", "DELETE", "", obj),
		"v1beta1":            review("v1beta1", "CREATE", obj, ""),
		"no request":         `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		"object not decoded": review("v1", "CREATE", `{"spec":{"listeners":"x"}}`, ""),
		"empty":              "",
	}
	for _, path := range []string{MutatePath, ValidatePath} {
		plain := map[string]*admission.Webhook{MutatePath: NewMutatingWebhook(), ValidatePath: NewValidatingWebhook()}[path]
		for name, body := range bodies {
			for _, contentType := range []string{"application/json", "text/plain"} {
				answer := func(h http.Handler) (int, string) {
					req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader([]byte(body)))
					if body == "" {
						req.Body = http.NoBody
					}
					req.Header.Set("Content-Type", contentType)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					return rec.Code, rec.Body.String()
				}
				wantCode, want := answer(plain)
				for _, typed := range []bool{false, path == ValidatePath} { // the mutating handler needs the raw object
					gotCode, got := answer(oneParse{plain, typed})
					if gotCode != wantCode || normalized(t, got) != normalized(t, want) {
						t.Errorf("%s %s (%s, typed objects %v): got %d %s\nwant %d %s", path, name, contentType, typed, gotCode, got, wantCode, want)
					}
				}
			}
		}
	}
}

// normalized sorts the operations of a JSON patch in an answer: the
// patch's order follows map iteration and changes from call to call.
func normalized(t *testing.T, answer string) string {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal([]byte(answer), &review); err != nil || review.Response == nil || review.Response.Patch == nil {
		return answer
	}
	var ops []map[string]any
	if err := json.Unmarshal(review.Response.Patch, &ops); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ops, func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	review.Response.Patch, _ = json.Marshal(ops)
	b, _ := json.Marshal(review)
	return string(b)
}

// TestOneParseRefusesWhatKubeAPIServerNeverSends: regression tests for the
// answers test/reliability's hostile requests found wrong. controller-runtime
// allowed a review of any apiVersion or kind (it decodes into a v1 review
// whatever the body names), a YAML body, a PUT, a request without uid and an
// object of another kind, and judged the part of a body that arrived before
// the connection broke. Each now gets a 4xx; the handlers' own refusals
// (uid, object kind) hold for controller-runtime's ServeHTTP as well.
func TestOneParseRefusesWhatKubeAPIServerNeverSends(t *testing.T) {
	logf.SetLogger(logr.Discard())
	obj := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`
	review := func(version, uid, object string) string {
		return `{"apiVersion":"` + version + `","kind":"AdmissionReview","request":{"uid":"` + uid + `",` +
			`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
			`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
			`"namespace":"n","name":"a","operation":"CREATE","userInfo":{"username":"me"},"object":` + object + `}}`
	}
	const (
		notReview = `expected an AdmissionReview of admission.k8s.io/v1 or admission.k8s.io/v1beta1, got `
		notLS     = `expected a ListenerSet of gateway.networking.k8s.io/v1, got `
	)
	untyped := func(msg string) string {
		return `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":` + strconv.Quote(msg) + `,"code":400}}}`
	}
	typed := func(version, uid, msg string) string {
		return `{"kind":"AdmissionReview","apiVersion":"` + version + `","response":{"uid":"` + uid + `","allowed":false,` +
			`"status":{"metadata":{},"message":` + strconv.Quote(msg) + `,"code":400}}}`
	}
	gateway := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw"},"spec":{"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`
	cases := []struct {
		name, method, body string
		wantCode           int
		want               string
		alsoPlain          bool // controller-runtime's ServeHTTP with our handlers answers the same
	}{
		{"not JSON", "POST", `{"apiVersion":`, 200, untyped("the body is not a JSON object: unexpected end of JSON input"), false},
		{"YAML", "POST", "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  uid: u\n", 200,
			untyped("the body is not a JSON object: invalid character 'a' looking for beginning of value"), false},
		{"null", "POST", `null`, 200, untyped(notReview + `apiVersion "" kind ""`), false},
		{"v2", "POST", review("admission.k8s.io/v2", "u-1", obj), 200, untyped(notReview + `apiVersion "admission.k8s.io/v2" kind "AdmissionReview"`), false},
		{"a Pod", "POST", `{"apiVersion":"v1","kind":"Pod"}`, 200, untyped(notReview + `apiVersion "v1" kind "Pod"`), false},
		{"GET", "GET", "", 405, "method not allowed: an AdmissionReview is POSTed\n", false},
		{"PUT", "PUT", review("admission.k8s.io/v1", "u-1", obj), 405, "method not allowed: an AdmissionReview is POSTed\n", false},
		{"no uid", "POST", review("admission.k8s.io/v1", "", obj), 200, typed("admission.k8s.io/v1", "", "request.uid is required"), true},
		{"no uid, v1beta1", "POST", review("admission.k8s.io/v1beta1", "", obj), 200, typed("admission.k8s.io/v1beta1", "", "request.uid is required"), true},
		{"a Gateway", "POST", review("admission.k8s.io/v1", "u-1", gateway), 200,
			typed("admission.k8s.io/v1", "u-1", notLS+`apiVersion "gateway.networking.k8s.io/v1" kind "Gateway"`), true},
		{"a ListenerSet of v1beta1", "POST", review("admission.k8s.io/v1", "u-1", strings.Replace(obj, `/v1"`, `/v1beta1"`, 1)), 200,
			typed("admission.k8s.io/v1", "u-1", notLS+`apiVersion "gateway.networking.k8s.io/v1beta1" kind "ListenerSet"`), true},
	}
	for _, path := range []string{MutatePath, ValidatePath} {
		plain := map[string]*admission.Webhook{MutatePath: NewMutatingWebhook(), ValidatePath: NewValidatingWebhook()}[path]
		for _, c := range cases {
			answer := func(h http.Handler) (int, string) {
				req := httptest.NewRequest(c.method, path, strings.NewReader(c.body))
				if c.body == "" {
					req.Body = http.NoBody
				}
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec.Code, rec.Body.String()
			}
			handlers := []http.Handler{oneParse{plain, false}, oneParse{plain, path == ValidatePath}}
			if c.alsoPlain {
				handlers = append(handlers, plain)
			}
			for _, h := range handlers {
				code, got := answer(h)
				if code != c.wantCode || strings.TrimSpace(got) != strings.TrimSpace(c.want) {
					t.Errorf("%s %s (%T): got %d %s\nwant %d %s", path, c.name, h, code, got, c.wantCode, c.want)
				}
			}
		}
	}
}

// A body cut short (Content-Length promises more than arrives) is a 400,
// as controller-runtime answers it; before, oneParse handed the part that
// had arrived to controller-runtime, which read a clean end (net/http
// reports io.ErrUnexpectedEOF once, then io.EOF) and allowed it.
func TestOneParseRefusesATruncatedBody(t *testing.T) {
	logf.SetLogger(logr.Discard())
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",` +
		`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
		`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
		`"namespace":"n","name":"a","operation":"CREATE","userInfo":{"username":"me"},"object":` +
		`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}}}`
	for _, path := range []string{MutatePath, ValidatePath} {
		srv := httptest.NewServer(oneParse{map[string]*admission.Webhook{MutatePath: NewMutatingWebhook(), ValidatePath: NewValidatingWebhook()}[path], path == ValidatePath})
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(review)+10, review)
		_ = conn.(*net.TCPConn).CloseWrite()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		want := `{"response":{"uid":"","allowed":false,"status":{"metadata":{},"message":"unexpected EOF","code":400}}}`
		if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != want {
			t.Errorf("%s: got %d %s, want 200 %s", path, resp.StatusCode, body, want)
		}
		conn.Close()
		srv.Close()
	}
}

// A body over the cap closes the connection after the 413, as
// controller-runtime's own handler does. oneParse used to hand
// controller-runtime the request with its Body replaced, which hid the
// unread rest of the body from net/http: it kept the connection and read
// that rest as the next request (found by the hostile-request battery: the
// next request on the connection got 431, or whatever the body's tail said).
func TestOneParseClosesTheConnectionAfterABodyOverTheCap(t *testing.T) {
	logf.SetLogger(logr.Discard())
	for _, path := range []string{MutatePath, ValidatePath} {
		srv := httptest.NewServer(oneParse{map[string]*admission.Webhook{MutatePath: NewMutatingWebhook(), ValidatePath: NewValidatingWebhook()}[path], path == ValidatePath})
		body := bytes.Repeat([]byte{' '}, maxRequestSize+1<<20)
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !resp.Close || !strings.Contains(string(answer), `"code":413`) {
			t.Errorf("%s: got close=%v %s, want Connection: close and a 413 review", path, resp.Close, answer)
		}
		srv.Close()
	}
}

// Regression: the mutating webhook removed an unknown field that sat in an
// object the Go types omit whole. With "spec": {"x": 1} and no parentRef,
// the undefaulted object marshals without spec, so the old filter
// (controller-runtime's dropSchemeRemovals) knew the removal of /spec, not
// that of /spec/x, and let the patch remove x. Found while probing objects
// of another kind (a Pod's spec.containers was removed the same way).
// Defaults only add, so every removal is now dropped.
func TestMutateNeverRemovesAFieldInAnOmittedObject(t *testing.T) {
	logf.SetLogger(logr.Discard())
	for _, spec := range []string{
		`{"x":1}`,
		`{"x":{"y":[1]},"listeners":[{"name":"web","protocol":"HTTP","port":80,"hostname":"","z":1}]}`,
	} {
		obj := `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},"spec":` + spec + `}`
		body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",` +
			`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
			`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
			`"namespace":"n","name":"a","operation":"CREATE","userInfo":{"username":"me"},"object":` + obj + `}}`
		req := httptest.NewRequest(http.MethodPost, MutatePath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		oneParse{NewMutatingWebhook(), false}.ServeHTTP(rec, req)
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil || !review.Response.Allowed {
			t.Fatalf("spec %s: %s", spec, rec.Body.String())
		}
		var ops []struct{ Op, Path string }
		if err := json.Unmarshal(review.Response.Patch, &ops); err != nil {
			t.Fatal(err)
		}
		if len(ops) == 0 {
			t.Errorf("spec %s: no patch, want the parentRef defaults", spec)
		}
		for _, o := range ops {
			if o.Op == "remove" {
				t.Errorf("spec %s: the patch removes %s", spec, o.Path)
			}
		}
	}
}
