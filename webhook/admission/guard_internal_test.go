package admission

import (
	"bufio"
	"bytes"
	"context"
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
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// guardObj is a valid ListenerSet that needs defaults.
const guardObj = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a","namespace":"n"},` +
	`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`

// guardReview is a review as kube-apiserver sends it; object and old ""
// leave them out.
func guardReview(version, uid, op, object, old string) string {
	r := `{"apiVersion":"` + version + `","kind":"AdmissionReview","request":{"uid":"` + uid + `",` +
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

// guarded are the mutating and the validating webhook as RegisterWith
// registers them, and as controller-runtime serves them alone.
func guarded() map[string]struct{ guard, plain http.Handler } {
	m, v := NewMutatingWebhook(), NewValidatingWebhook()
	return map[string]struct{ guard, plain http.Handler }{
		MutatePath:   {reviewGuard{next: m}, m},
		ValidatePath: {reviewGuard{next: v}, v},
	}
}

// TestGuardHandsOnWhatKubeAPIServerSends: for a review kube-apiserver could
// send, and for what controller-runtime refuses the same way (content type,
// empty body), the guarded webhook answers byte for byte as
// controller-runtime's own ServeHTTP does (up to the order of a patch's
// operations).
func TestGuardHandsOnWhatKubeAPIServerSends(t *testing.T) {
	logf.SetLogger(logr.Discard())
	bad := strings.Replace(guardObj, `"HTTP"`, `"TCP"`, 1)
	bodies := map[string]string{
		"valid create":       guardReview("admission.k8s.io/v1", "u-1", "CREATE", guardObj, ""),
		"invalid create":     guardReview("admission.k8s.io/v1", "u-1", "CREATE", bad, ""),
		"update":             guardReview("admission.k8s.io/v1", "u-1", "UPDATE", bad, bad),
		"delete":             guardReview("admission.k8s.io/v1", "u-1", "DELETE", "", guardObj),
		"v1beta1":            guardReview("admission.k8s.io/v1beta1", "u-1", "CREATE", guardObj, ""),
		"no apiVersion/kind": guardReview("admission.k8s.io/v1", "u-1", "CREATE", `{"metadata":{"name":"a"},"spec":{"listeners":[]}}`, ""),
		"object not decoded": guardReview("admission.k8s.io/v1", "u-1", "CREATE", `{"spec":{"listeners":"x"}}`, ""),
		"no object":          guardReview("admission.k8s.io/v1", "u-1", "CREATE", "", ""),
		"empty":              "",
	}
	for path, h := range guarded() {
		for name, body := range bodies {
			for _, contentType := range []string{"application/json", "text/plain"} {
				answer := func(h http.Handler) (int, string) {
					req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
					if body == "" {
						req.Body = http.NoBody
					}
					req.Header.Set("Content-Type", contentType)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					return rec.Code, rec.Body.String()
				}
				wantCode, want := answer(h.plain)
				gotCode, got := answer(h.guard)
				if gotCode != wantCode || normalized(t, got) != normalized(t, want) {
					t.Errorf("%s %s (%s): got %d %s\nwant %d %s", path, name, contentType, gotCode, got, wantCode, want)
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

// TestGuardRefusesWhatKubeAPIServerNeverSends: regression tests for the
// answers test/reliability's hostile requests found wrong. controller-runtime
// alone allows a review of any apiVersion or kind (it decodes into a v1
// review whatever the body names), a YAML body, a PUT and a request without
// uid; with "KIND" beside "kind" it answers as that other kind (found by
// FuzzAdmissionReview), and it judges a Pod that also says "KIND":
// "ListenerSet" as a ListenerSet. Each now gets a 4xx.
func TestGuardRefusesWhatKubeAPIServerNeverSends(t *testing.T) {
	logf.SetLogger(logr.Discard())
	review := func(version, uid, object string) string {
		return guardReview(version, uid, "CREATE", object, "")
	}
	const (
		notJSON   = `the body is not a JSON AdmissionReview: `
		notReview = `expected an AdmissionReview of admission.k8s.io/v1 or admission.k8s.io/v1beta1, got `
		notLS     = `expected a ListenerSet of gateway.networking.k8s.io/v1, got `
		ambiguous = `ambiguous apiVersion or kind: more than one field named so up to case`
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
		name, method, contentType, body string
		wantCode                        int
		want                            string
	}{
		{"not JSON", "POST", "", `{"apiVersion":`, 200, untyped(notJSON + "unexpected end of JSON input")},
		{"YAML", "POST", "", "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  uid: u\n", 200,
			untyped(notJSON + "invalid character 'a' looking for beginning of value")},
		{"YAML as application/yaml", "POST", "application/yaml", "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  uid: u\n", 200,
			untyped("contentType=application/yaml, expected application/json")},
		{"null", "POST", "", `null`, 200, untyped(notReview + `apiVersion "" kind ""`)},
		{"v2", "POST", "", review("admission.k8s.io/v2", "u-1", guardObj), 200, untyped(notReview + `apiVersion "admission.k8s.io/v2" kind "AdmissionReview"`)},
		{"a Pod", "POST", "", `{"apiVersion":"v1","kind":"Pod"}`, 200, untyped(notReview + `apiVersion "v1" kind "Pod"`)},
		{"KIND beside kind", "POST", "", strings.Replace(review("admission.k8s.io/v1beta1", "u-1", guardObj), `"kind":"AdmissionReview"`, `"kind":"AdmissionReview","KIND":"Foo"`, 1), 200,
			untyped(ambiguous)},
		{"GET", "GET", "", "", 405, "method not allowed: an AdmissionReview is POSTed\n"},
		{"PUT", "PUT", "", review("admission.k8s.io/v1", "u-1", guardObj), 405, "method not allowed: an AdmissionReview is POSTed\n"},
		{"no request", "POST", "", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, 200, typed("admission.k8s.io/v1", "", "request.uid is required")},
		{"no uid", "POST", "", review("admission.k8s.io/v1", "", guardObj), 200, typed("admission.k8s.io/v1", "", "request.uid is required")},
		{"no uid, v1beta1", "POST", "", review("admission.k8s.io/v1beta1", "", guardObj), 200, typed("admission.k8s.io/v1beta1", "", "request.uid is required")},
		{"a Gateway", "POST", "", review("admission.k8s.io/v1", "u-1", gateway), 200,
			typed("admission.k8s.io/v1", "u-1", "request.object: "+notLS+`apiVersion "gateway.networking.k8s.io/v1" kind "Gateway"`)},
		{"a ListenerSet of v1beta1", "POST", "", review("admission.k8s.io/v1", "u-1", strings.Replace(guardObj, `/v1"`, `/v1beta1"`, 1)), 200,
			typed("admission.k8s.io/v1", "u-1", "request.object: "+notLS+`apiVersion "gateway.networking.k8s.io/v1beta1" kind "ListenerSet"`)},
		{"a Pod with KIND ListenerSet beside its kind", "POST", "", review("admission.k8s.io/v1", "u-1",
			`{"apiVersion":"v1","kind":"Pod","APIVERSION":"gateway.networking.k8s.io/v1","KIND":"ListenerSet","metadata":{"name":"p"}}`), 200,
			typed("admission.k8s.io/v1", "u-1", "request.object: "+notLS+`apiVersion "v1" kind "Pod"`)},
		{"a kind without apiVersion", "POST", "", review("admission.k8s.io/v1", "u-1", `{"kind":"ListenerSet"}`), 200,
			typed("admission.k8s.io/v1", "u-1", "request.object: "+notLS+`apiVersion "" kind "ListenerSet"`)},
		// controller-runtime's decoder finds the object's kind
		// case-insensitively too, and refuses it.
		{"KIND beside kind in the object", "POST", "", review("admission.k8s.io/v1", "u-1", strings.Replace(guardObj, `"kind":"ListenerSet"`, `"kind":"ListenerSet","KIND":"Gateway"`, 1)), 200,
			typed("admission.k8s.io/v1", "u-1", "unable to decode gateway.networking.k8s.io/v1, Kind=Gateway into *v1.ListenerSet")},
		{"an oldObject of another kind", "POST", "", guardReview("admission.k8s.io/v1", "u-1", "UPDATE", guardObj, gateway), 200,
			typed("admission.k8s.io/v1", "u-1", "request.oldObject: "+notLS+`apiVersion "gateway.networking.k8s.io/v1" kind "Gateway"`)},
		{"an object that is a string", "POST", "", review("admission.k8s.io/v1", "u-1", `"ListenerSet"`), 200,
			typed("admission.k8s.io/v1", "u-1", "request.object is not a JSON object: json: cannot unmarshal string into Go value of type v1.TypeMeta")},
	}
	for path, h := range guarded() {
		for _, c := range cases {
			req := httptest.NewRequest(c.method, path, strings.NewReader(c.body))
			if c.body == "" {
				req.Body = http.NoBody
			}
			req.Header.Set("Content-Type", "application/json")
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			rec := httptest.NewRecorder()
			h.guard.ServeHTTP(rec, req)
			if rec.Code != c.wantCode || strings.TrimSpace(rec.Body.String()) != strings.TrimSpace(c.want) {
				t.Errorf("%s %s: got %d %s\nwant %d %s", path, c.name, rec.Code, rec.Body, c.wantCode, c.want)
			}
			if c.wantCode == http.StatusMethodNotAllowed && rec.Header().Get("Allow") != http.MethodPost {
				t.Errorf("%s %s: Allow %q, want POST", path, c.name, rec.Header().Get("Allow"))
			}
		}
	}
}

// A body cut short (Content-Length promises more than arrives) is a 400
// and the connection closes; a handler that reads the body again after
// net/http reported the break once would read a clean end (io.EOF) and
// judge the part that had arrived (which allowed it, before the guard read
// the body itself).
func TestGuardRefusesATruncatedBody(t *testing.T) {
	logf.SetLogger(logr.Discard())
	review := guardReview("admission.k8s.io/v1", "u-1", "CREATE", guardObj, "")
	for path, h := range guarded() {
		srv := httptest.NewServer(h.guard)
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
		if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != want || !resp.Close {
			t.Errorf("%s: got %d close=%v %s, want 200 Connection: close %s", path, resp.StatusCode, resp.Close, body, want)
		}
		conn.Close()
		srv.Close()
	}
}

// A body over the cap gets a 413 and closes the connection: its unread
// rest must not be read as the next request. (Handing on r with its Body
// replaced hid that rest from net/http, which decides by the request's own
// Body whether the connection can serve another request: it kept the
// connection and parsed the rest as a request; found by the hostile-request
// battery.) A review within the cap keeps the connection.
func TestGuardClosesTheConnectionAfterABodyOverTheCap(t *testing.T) {
	logf.SetLogger(logr.Discard())
	for path, h := range guarded() {
		srv := httptest.NewServer(h.guard)
		for _, size := range []int{maxRequestSize, maxRequestSize + 1<<20} {
			body := bytes.Repeat([]byte{' '}, size)
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
				t.Errorf("%s, %d bytes: got close=%v %s, want Connection: close and a 413 review", path, size, resp.Close, answer)
			}
		}
		resp, err := srv.Client().Post(srv.URL+path, "application/json", strings.NewReader(guardReview("admission.k8s.io/v1", "u-1", "CREATE", guardObj, "")))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Close || !strings.Contains(string(answer), `"uid":"u-1","allowed":true`) {
			t.Errorf("%s, a review: got close=%v %s, want the connection kept and an answer", path, resp.Close, answer)
		}
		srv.Close()
	}
}

// TestGuardAllowsEveryDeletion: no review may block a deletion. DELETE is
// not registered, but a review of one whose oldObject does not decode as a
// ListenerSet, or is not one at all, was denied (400) by the validating
// webhook, and by the guard's object checks on both paths. Each is now
// allowed on both paths, as controller-runtime answers an allowed DELETE.
func TestGuardAllowsEveryDeletion(t *testing.T) {
	logf.SetLogger(logr.Discard())
	olds := map[string]string{
		"listeners a string":          `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"a"},"spec":{"listeners":"x"}}`,
		"listeners a string, no kind": `{"spec":{"listeners":"x"}}`,
		"spec a number":               `{"spec":1}`,
		"a string":                    `"ListenerSet"`,
		"a Gateway":                   `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw"}}`,
		"an invalid object":           strings.Replace(guardObj, `"HTTP"`, `"TCP"`, 1),
		"none":                        "",
	}
	for path, h := range guarded() {
		for name, old := range olds {
			for _, version := range reviewVersions {
				body := guardReview(version, "u-del", "DELETE", "", old)
				req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.guard.ServeHTTP(rec, req)
				want := `{"kind":"AdmissionReview","apiVersion":"` + version + `","response":{"uid":"u-del","allowed":true,"status":{"metadata":{},"code":200}}}`
				if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
					t.Errorf("%s, oldObject %s, %s: got %d %s\nwant 200 %s", path, name, version, rec.Code, rec.Body, want)
				}
			}
		}
	}
}

// A review whose deadline (set by inflight.Limiter) has passed by the time
// its body is read is answered with the limiter's 429, which
// kube-apiserver treats as a failed call, and is not handed on to be
// judged.
func TestGuardRefusesAReviewPastItsDeadline(t *testing.T) {
	logf.SetLogger(logr.Discard())
	for path, h := range guarded() {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, path,
			strings.NewReader(guardReview("admission.k8s.io/v1", "u-1", "CREATE", guardObj, "")))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.guard.ServeHTTP(rec, req)
		cancel()
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), `"reason":"TooManyRequests"`) ||
			strings.Contains(rec.Body.String(), "AdmissionReview") {
			t.Errorf("%s: got %d %s, want a 429 Status", path, rec.Code, rec.Body)
		}
	}
}
