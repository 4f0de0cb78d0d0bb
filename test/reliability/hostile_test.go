package reliability

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

// The hostile-request battery: every input below goes to
// the real server binary over the network, against both webhook paths where
// a path applies. Each has one exact expected answer: a plain 4xx, a 200
// AdmissionReview that denies with a 4xx code (kube-apiserver reads the
// code from there, not from the HTTP status), the normal answer where the
// input is hostile only in form (unknown fields, v1beta1, padding), or a
// clean close for transport-level abuse. Never a 5xx, never a hang; after
// each input the server still answers valid requests correctly. (More at
// once than the in-flight limit holds, a request may get a 429, which
// kube-apiserver treats as a failed call: TestInFlightLimitUnderLargeRequests.)

// Timeouts of the server under test: the serve command's defaults.
// serving.DefaultReadHeaderTimeout bounds the TLS handshake and the request
// headers; serving.RequestTimeout bounds reading the whole request and
// writing the answer.
const (
	hostileReadHeaderTimeout = serving.DefaultReadHeaderTimeout
	hostileHandshakeTimeout  = serving.DefaultReadHeaderTimeout
	// hostileCloseSlack is how late after its timeout a close may come on a
	// busy shared machine.
	hostileCloseSlack = 4 * time.Second
	// hostileBodyDeadline is a request's deadline without a timeout
	// parameter: inflight.DefaultTimeout less its margin (a tenth, at most
	// a second), by which its body must have arrived.
	hostileBodyDeadline = inflight.DefaultTimeout - min(inflight.DefaultTimeout/10, time.Second)
)

// hostileMaxBody is controller-runtime's cap on an AdmissionReview
// (7 MiB); a body of exactly this size is already refused, as its reader
// cannot tell it from a longer one.
const hostileMaxBody = 7 << 20

// Objects and reviews. hostileObjOK needs no defaults and is valid, so
// both paths allow it without a patch; hostileObjDefaults needs defaults;
// hostileObjBad is invalid (protocol TCP).
const (
	hostileObjOK = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet",` +
		`"metadata":{"name":"ok","namespace":"n"},` +
		`"spec":{"parentRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw"},` +
		`"listeners":[{"name":"web","hostname":"a.example.com","protocol":"HTTP","port":80,` +
		`"allowedRoutes":{"namespaces":{"from":"Same"},"kinds":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute"}]}}]}}`
	hostileObjDefaults = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"d","namespace":"n"},` +
		`"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`
	hostileObjBad = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"bad","namespace":"n"},` +
		`"spec":{"parentRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw"},` +
		`"listeners":[{"name":"web","protocol":"TCP","port":80,"allowedRoutes":{"namespaces":{"from":"Same"}}}]}}`
	hostileObjGateway = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw","namespace":"n"},` +
		`"spec":{"gatewayClassName":"airlock","listeners":[{"name":"web","protocol":"HTTP","port":80}]}}`
	hostileObjPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n"},"spec":{"containers":[{"name":"c","image":"x"}]}}`
)

// hostileRequest is a request of an AdmissionReview: uid "" leaves it out,
// object "" leaves out object.
func hostileRequest(uid, op, object, extra string) string {
	r := `{"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet"},` +
		`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets"},` +
		`"namespace":"n","name":"x","operation":"` + op + `","userInfo":{"username":"hostile"}`
	if uid != "" {
		r += `,"uid":"` + uid + `"`
	}
	if object != "" {
		r += `,"object":` + object
	}
	return r + extra + `}`
}

// hostileReview wraps a request ("" leaves it out) in an AdmissionReview of
// apiVersion.
func hostileReview(apiVersion, request string) string {
	r := `{"apiVersion":"` + apiVersion + `","kind":"AdmissionReview"`
	if request != "" {
		r += `,"request":` + request
	}
	return r + `}`
}

func hostileReviewV1(uid, op, object string) string {
	return hostileReview("admission.k8s.io/v1", hostileRequest(uid, op, object, ""))
}

// hostileWant is the one answer a case must get.
type hostileWant struct {
	// status is the HTTP status; 0 means the connection must close without
	// an HTTP response, between minClose and maxClose after the case began
	// (maxClose 0: any time within the case's timeout).
	status             int
	minClose, maxClose time.Duration
	// For 200: the AdmissionReview's apiVersion ("" when the body was not
	// decoded as a review and the answer is untyped), the response's uid,
	// allowed, result.code (0: no result) and whether it carries a patch.
	apiVersion string
	uid        string
	allowed    bool
	code       int32
	patch      bool
	// msg must be contained in result.message (200) or in the body.
	msg string
}

// hostileTLSAlert marks a close that may come after one TLS alert record (the
// server refusing a handshake it cannot parse), which is still no answer.
const hostileTLSAlert = "\x15"

// hostileDenied is a 200 AdmissionReview that denies with code, as
// controller-runtime's admission.Errored writes it.
func hostileDenied(apiVersion, uid string, code int32, msg string) hostileWant {
	return hostileWant{status: http.StatusOK, apiVersion: apiVersion, uid: uid, code: code, msg: msg}
}

// hostileAllowed is a 200 AdmissionReview that allows (with a patch when
// patch); controller-runtime sets result.code 200 on every allowed answer.
func hostileAllowed(apiVersion, uid string, patch bool) hostileWant {
	return hostileWant{status: http.StatusOK, apiVersion: apiVersion, uid: uid, allowed: true, code: http.StatusOK, patch: patch}
}

// hostilePlain is an HTTP error that is not an AdmissionReview.
func hostilePlain(status int, msg string) hostileWant { return hostileWant{status: status, msg: msg} }

// hostileClosed is a connection closed without an HTTP response; no bytes come
// before the close, or with hostileTLSAlert as msg a single TLS alert record.
func hostileClosed(minClose, maxClose time.Duration, msg string) hostileWant {
	return hostileWant{minClose: minClose, maxClose: maxClose, msg: msg}
}

// hostileWithin adds a time window to w: the answer (or the close) must come
// between minClose and maxClose after the case began.
func hostileWithin(w hostileWant, minClose, maxClose time.Duration) hostileWant {
	w.minClose, w.maxClose = minClose, maxClose
	return w
}

const hostileV1 = "admission.k8s.io/v1"

// check compares a with w; it returns "" when they agree.
func (w hostileWant) check(a hostileAnswer) string {
	if a.status != w.status {
		return fmt.Sprintf("want HTTP %d, got %v", w.status, a)
	}
	if a.elapsed < w.minClose || (w.maxClose > 0 && a.elapsed > w.maxClose) {
		return fmt.Sprintf("want the answer or close between %v and %v, got %v", w.minClose, w.maxClose, a)
	}
	if w.status == 0 {
		switch {
		case len(a.raw) == 0:
		case w.msg == hostileTLSAlert && len(a.raw) == 7 && a.raw[0] == 0x15 && a.raw[3] == 0 && a.raw[4] == 2 && a.raw[5] == 2:
			// one fatal alert record: type 21, version, length 2, level 2
		default:
			return fmt.Sprintf("want a close without bytes, got %v", a)
		}
		return ""
	}
	if w.status != http.StatusOK {
		if !strings.Contains(string(a.body), w.msg) {
			return fmt.Sprintf("want HTTP %d with %q, got %v", w.status, w.msg, a)
		}
		return ""
	}
	if a.review == nil || a.review.Response == nil {
		return fmt.Sprintf("want an AdmissionReview response, got %v", a)
	}
	r := a.review.Response
	var code int32
	msg := ""
	if r.Result != nil {
		code, msg = r.Result.Code, r.Result.Message
	}
	if a.review.APIVersion != w.apiVersion || string(r.UID) != w.uid || r.Allowed != w.allowed ||
		code != w.code || (len(r.Patch) > 0) != w.patch || !strings.Contains(msg, w.msg) {
		return fmt.Sprintf("want apiVersion %q uid %q allowed %v code %d patch %v message containing %q, got %v",
			w.apiVersion, w.uid, w.allowed, w.code, w.patch, w.msg, a)
	}
	return ""
}

// hostileCase is one hostile input. send sends it to path (ignored by the
// transport-level cases) with c, or on connections of its own.
type hostileCase struct {
	name     string
	perPath  bool // run against MutatePath and ValidatePath
	send     func(s *hostileServer, c *http.Client, path string) hostileAnswer
	want     hostileWant
	validate *hostileWant // the validating path's answer, when it differs
	slow     bool         // waits for a server timeout; not in the leak mix
	weight   int          // share in the leak mix; 0 leaves it out
}

func (hc hostileCase) wantFor(path string) hostileWant {
	if path == admission.ValidatePath && hc.validate != nil {
		return *hc.validate
	}
	return hc.want
}

// hostilePost sends body with Content-Type application/json.
func hostilePost(body string) func(*hostileServer, *http.Client, string) hostileAnswer {
	return hostilePostAs(http.MethodPost, "application/json", body)
}

func hostilePostAs(method, contentType, body string) func(*hostileServer, *http.Client, string) hostileAnswer {
	return func(s *hostileServer, c *http.Client, path string) hostileAnswer {
		req, err := http.NewRequest(method, "https://"+s.addr+path, strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		if body == "" {
			req.Body = http.NoBody
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		return hostileDo(c, req)
	}
}

// hostilePostBytes sends a body built once, shared by every run of the
// case, on a connection of its own, written while the answer is read
// (hostileRaw): the server answers a body over its cap (413) and closes
// before the rest is written, and http.Client loses such an answer to the
// reset its writing on causes when the answer is read late (once in 10 000
// requests at load 12).
func hostilePostBytes(body []byte) func(*hostileServer, *http.Client, string) hostileAnswer {
	return func(s *hostileServer, _ *http.Client, path string) hostileAnswer {
		conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
		if err != nil {
			return hostileAnswer{status: -1, err: err}
		}
		defer conn.Close()
		head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, len(body))
		return hostileRaw(conn, append([]byte(head), body...), 20*time.Second)
	}
}

// hostileWithHeader posts a valid review with one header of n bytes, on a
// connection of its own.
func hostileWithHeader(n int) func(*hostileServer, *http.Client, string) hostileAnswer {
	value := strings.Repeat("h", n)
	return hostileRawTLS(func(path string) string {
		body := hostileReviewV1("u-hdr", "CREATE", hostileObjOK)
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nX-Hostile: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			path, value, len(body), body)
	})
}

// hostileRawTLS writes data on a new TLS connection and reads the answer
// (hostileRaw).
func hostileRawTLS(data func(path string) string) func(*hostileServer, *http.Client, string) hostileAnswer {
	return func(s *hostileServer, _ *http.Client, path string) hostileAnswer {
		conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
		if err != nil {
			return hostileAnswer{status: -1, err: err}
		}
		defer conn.Close()
		return hostileRaw(conn, []byte(data(path)), 20*time.Second)
	}
}

// hostileRawTCP writes data on a new TCP connection to the TLS port.
func hostileRawTCP(data func(path string) string) func(*hostileServer, *http.Client, string) hostileAnswer {
	return func(s *hostileServer, _ *http.Client, path string) hostileAnswer {
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			return hostileAnswer{status: -1, err: err}
		}
		defer conn.Close()
		return hostileRaw(conn, []byte(data(path)), 20*time.Second)
	}
}

// hostilePadded is a valid review of exactly n bytes (whitespace before the
// closing brace).
func hostilePadded(n int) []byte {
	r := hostileReviewV1("u-pad", "CREATE", hostileObjOK)
	b := make([]byte, 0, n)
	b = append(b, r[:len(r)-1]...)
	b = append(b, bytes.Repeat([]byte{' '}, n-len(r))...)
	return append(b, '}')
}

// hostileNested puts depth levels of open (and their closes) where %s is.
func hostileNested(format, opener, closer string, depth int) string {
	return fmt.Sprintf(format, strings.Repeat(opener, depth)+strings.Repeat(closer, depth))
}

// hostileUnknownEverywhere adds an unknown field to every object of a valid review.
var hostileUnknownEverywhere = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","zz":1,"request":{"uid":"u-unk","zz":{"a":[1]},` +
	`"kind":{"group":"gateway.networking.k8s.io","version":"v1","kind":"ListenerSet","zz":true},` +
	`"resource":{"group":"gateway.networking.k8s.io","version":"v1","resource":"listenersets","zz":null},` +
	`"namespace":"n","name":"x","operation":"CREATE","userInfo":{"username":"hostile","zz":"x"},` +
	`"object":{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","zz":1,` +
	`"metadata":{"name":"ok","namespace":"n","zz":2},` +
	`"spec":{"zz":3,"parentRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw","zz":4},` +
	`"listeners":[{"zz":5,"name":"web","hostname":"a.example.com","protocol":"HTTP","port":80,` +
	`"allowedRoutes":{"zz":6,"namespaces":{"from":"Same","zz":7},"kinds":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute","zz":8}]}}]},` +
	`"status":{"zz":9}}}}`

// Messages of the answers: the webhook's own (its guard in front of
// controller-runtime, webhook/admission/guard.go) and controller-runtime's.
const (
	hostileNotJSON   = "the body is not a JSON AdmissionReview: "
	hostileNotReview = "expected an AdmissionReview of admission.k8s.io/v1 or admission.k8s.io/v1beta1, got "
	hostileNotLS     = "request.object: expected a ListenerSet of gateway.networking.k8s.io/v1, got "
	hostileNoUID     = "request.uid is required"
	hostileNoContent = "there is no content to decode"
	hostileTooLarge  = "request entity is too large; limit is 7340032 bytes"
	hostileNotPOST   = "method not allowed: an AdmissionReview is POSTed"
)

// hostileCases is the table: input → the one expected answer.
func hostileCases() []hostileCase {
	big8 := bytes.Repeat([]byte{' '}, 8<<20)
	copy(big8, hostileReviewV1("u-8m", "CREATE", hostileObjOK))
	overCap := hostilePadded(hostileMaxBody + 1)
	atCap := hostilePadded(hostileMaxBody)
	underCap := hostilePadded(hostileMaxBody - 1)
	validate := func(w hostileWant) *hostileWant { return &w }
	return []hostileCase{
		// Not an AdmissionReview at all.
		{name: "not JSON", perPath: true, weight: 10, send: hostilePost("this is not JSON"),
			want: hostileDenied("", "", 400, hostileNotJSON+"invalid character 'h' in literal true")},
		{name: "truncated JSON", perPath: true, weight: 10, send: hostilePost(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":`),
			want: hostileDenied("", "", 400, hostileNotJSON+"unexpected end of JSON input")},
		{name: "JSON null", perPath: true, weight: 5, send: hostilePost(`null`),
			want: hostileDenied("", "", 400, hostileNotReview+`apiVersion "" kind ""`)},
		{name: "JSON array", perPath: true, weight: 5, send: hostilePost(`[{"apiVersion":"admission.k8s.io/v1"}]`),
			want: hostileDenied("", "", 400, hostileNotJSON+"json: cannot unmarshal array")},
		{name: "JSON string", perPath: true, weight: 5, send: hostilePost(`"AdmissionReview"`),
			want: hostileDenied("", "", 400, hostileNotJSON+"json: cannot unmarshal string")},
		{name: "empty body", perPath: true, weight: 5, send: hostilePost(""),
			want: hostileDenied("", "", 400, "request body is empty")},
		{name: "AdmissionReview as YAML", perPath: true, weight: 5,
			send: hostilePost("apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  uid: u-yaml\n  operation: CREATE\n  object: {}\n"),
			want: hostileDenied("", "", 400, hostileNotJSON+"invalid character 'a'")},
		{name: "a Pod instead of a review", perPath: true, weight: 5, send: hostilePost(hostileObjPod),
			want: hostileDenied("", "", 400, hostileNotReview+`apiVersion "v1" kind "Pod"`)},
		{name: "review of apiVersion admission.k8s.io/v2", perPath: true, weight: 5,
			send: hostilePost(hostileReview("admission.k8s.io/v2", hostileRequest("u-v2", "CREATE", hostileObjOK, ""))),
			want: hostileDenied("", "", 400, hostileNotReview+`apiVersion "admission.k8s.io/v2" kind "AdmissionReview"`)},
		{name: "review without apiVersion", perPath: true, weight: 5,
			send: hostilePost(`{"kind":"AdmissionReview","request":` + hostileRequest("u-noav", "CREATE", hostileObjOK, "") + `}`),
			want: hostileDenied("", "", 400, hostileNotReview+`apiVersion "" kind "AdmissionReview"`)},
		// v1beta1 has the same shape; controller-runtime answers it in kind,
		// as kube-apiserver needs with admissionReviewVersions v1beta1.
		{name: "review of apiVersion admission.k8s.io/v1beta1", perPath: true, weight: 5,
			send: hostilePost(hostileReview("admission.k8s.io/v1beta1", hostileRequest("u-beta", "CREATE", hostileObjOK, ""))),
			want: hostileAllowed("admission.k8s.io/v1beta1", "u-beta", false)},

		// An AdmissionReview missing what every real one has.
		{name: "review without request", perPath: true, weight: 10, send: hostilePost(hostileReview(hostileV1, "")),
			want: hostileDenied(hostileV1, "", 400, hostileNoUID)},
		{name: "review with request null", perPath: true, weight: 5, send: hostilePost(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}`),
			want: hostileDenied(hostileV1, "", 400, hostileNoUID)},
		{name: "request without uid", perPath: true, weight: 10, send: hostilePost(hostileReviewV1("", "CREATE", hostileObjOK)),
			want: hostileDenied(hostileV1, "", 400, hostileNoUID)},
		{name: "request without object", perPath: true, weight: 10, send: hostilePost(hostileReviewV1("u-noobj", "CREATE", "")),
			want: hostileDenied(hostileV1, "u-noobj", 400, hostileNoContent)},
		{name: "request with object null", perPath: true, weight: 5, send: hostilePost(hostileReviewV1("u-null", "CREATE", "null")),
			want: hostileDenied(hostileV1, "u-null", 400, hostileNoContent)},
		{name: "UPDATE without oldObject", perPath: true, weight: 5, send: hostilePost(hostileReviewV1("u-noold", "UPDATE", hostileObjOK)),
			want:     hostileAllowed(hostileV1, "u-noold", false), // the mutating webhook does not read oldObject
			validate: validate(hostileDenied(hostileV1, "u-noold", 400, hostileNoContent))},
		{name: "object is a string", perPath: true, weight: 5, send: hostilePost(hostileReviewV1("u-str", "CREATE", `"ListenerSet"`)),
			want: hostileDenied(hostileV1, "u-str", 400, "request.object is not a JSON object: json: cannot unmarshal string into Go value of type v1.TypeMeta")},
		{name: "object is an array", perPath: true, weight: 5, send: hostilePost(hostileReviewV1("u-arr", "CREATE", `[`+hostileObjOK+`]`)),
			want: hostileDenied(hostileV1, "u-arr", 400, "request.object is not a JSON object: json: cannot unmarshal array into Go value of type v1.TypeMeta")},

		// No review may block a deletion (DELETE is never registered, but
		// should one come): every DELETE is allowed, whatever its oldObject.
		// The first was denied with "json: cannot unmarshal string into Go
		// struct field ListenerSetSpec.spec.listeners".
		{name: "DELETE whose oldObject does not decode", perPath: true, weight: 5,
			send: hostilePost(hostileReview(hostileV1, hostileRequest("u-del", "DELETE", "",
				`,"oldObject":{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","metadata":{"name":"x","namespace":"n"},"spec":{"listeners":"x"}}`))),
			want: hostileAllowed(hostileV1, "u-del", false)},
		{name: "DELETE whose oldObject is a Pod", perPath: true, weight: 2,
			send: hostilePost(hostileReview(hostileV1, hostileRequest("u-delpod", "DELETE", "", `,"oldObject":`+hostileObjPod))),
			want: hostileAllowed(hostileV1, "u-delpod", false)},

		// A timeout parameter kube-apiserver could not have sent is
		// ignored: the default applies, and the answer is the normal one.
		{name: "timeout parameters not from kube-apiserver", perPath: true, weight: 3,
			send: func(s *hostileServer, c *http.Client, path string) hostileAnswer {
				return hostilePost(hostileReviewV1("u-tmo", "CREATE", hostileObjOK))(s, c, path+"?timeout=-1s&timeout=999h&timeout=%zz")
			},
			want: hostileAllowed(hostileV1, "u-tmo", false)},

		// An object of another kind inside a valid review.
		{name: "object is a Gateway", perPath: true, weight: 10, send: hostilePost(hostileReviewV1("u-gw", "CREATE", hostileObjGateway)),
			want: hostileDenied(hostileV1, "u-gw", 400, hostileNotLS+`apiVersion "gateway.networking.k8s.io/v1" kind "Gateway"`)},
		{name: "object is a Pod", perPath: true, weight: 10, send: hostilePost(hostileReviewV1("u-pod", "CREATE", hostileObjPod)),
			want: hostileDenied(hostileV1, "u-pod", 400, hostileNotLS+`apiVersion "v1" kind "Pod"`)},

		// Size: controller-runtime's cap.
		{name: "8 MiB body", perPath: true, weight: 1, send: hostilePostBytes(big8),
			want: hostileDenied("", "", 413, hostileTooLarge)},
		{name: "7 MiB + 1 byte body", perPath: true, send: hostilePostBytes(overCap),
			want: hostileDenied("", "", 413, hostileTooLarge)},
		{name: "7 MiB body", perPath: true, send: hostilePostBytes(atCap),
			want: hostileDenied("", "", 413, hostileTooLarge)},
		{name: "valid review of 7 MiB - 1 byte", perPath: true, send: hostilePostBytes(underCap),
			want: hostileAllowed(hostileV1, "u-pad", false)},

		// Depth: encoding/json gives up at 10 000 levels, before any stack
		// or memory trouble.
		{name: "100k [ at the top", perPath: true, weight: 3, send: hostilePost(hostileNested("%s", "[", "]", 100_000)),
			want: hostileDenied("", "", 400, hostileNotJSON+"invalid character '[' exceeded max depth")},
		{name: "100k { in the object", perPath: true, weight: 3,
			send: hostilePost(hostileReviewV1("u-deep", "CREATE", hostileNested(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet","x":%s}`, `{"x":`, `}`, 100_000))),
			want: hostileDenied("", "", 400, hostileNotJSON+"invalid character '{' exceeded max depth")},
		{name: "100k [ in an unknown field of the request", perPath: true, weight: 3,
			send: hostilePost(hostileReview(hostileV1, hostileRequest("u-deep2", "CREATE", hostileObjOK, hostileNested(`,"x":%s`, "[", "]", 100_000)))),
			want: hostileDenied("", "", 400, hostileNotJSON+"invalid character '[' exceeded max depth")},

		// Unknown fields are ignored (kube-apiserver has pruned what the CRD
		// does not know; a newer one may know more): the normal answer.
		{name: "unknown fields at every level", perPath: true, weight: 10, send: hostilePost(hostileUnknownEverywhere),
			want: hostileAllowed(hostileV1, "u-unk", false)},

		// Invalid UTF-8 becomes U+FFFD, as in encoding/json.
		{name: "invalid UTF-8 in a listener name", perPath: true, weight: 10,
			send:     hostilePost(hostileReviewV1("u-utf", "CREATE", strings.Replace(hostileObjOK, `"name":"web"`, "\"name\":\"w\xffeb\"", 1))),
			want:     hostileAllowed(hostileV1, "u-utf", false),
			validate: validate(hostileDenied(hostileV1, "u-utf", 422, "spec.listeners[0].name: Invalid value: \"w\uFFFDeb\"")),
		},
		{name: "invalid UTF-8 in a key", perPath: true, weight: 10,
			send:     hostilePost(hostileReviewV1("u-utfkey", "CREATE", strings.Replace(hostileObjOK, `"name":"web"`, "\"na\xffme\":\"web\"", 1))),
			want:     hostileAllowed(hostileV1, "u-utfkey", false),
			validate: validate(hostileDenied(hostileV1, "u-utfkey", 422, "spec.listeners[0].name: Required value")),
		},
		{name: "invalid UTF-8 in the uid", perPath: true, weight: 5,
			send: hostilePost(hostileReviewV1("u-\xff\xfe", "CREATE", hostileObjOK)),
			want: hostileAllowed(hostileV1, "u-\uFFFD\uFFFD", false)},
		{name: "invalid UTF-8 in the review's keys", perPath: true, weight: 5,
			send: hostilePost(strings.Replace(hostileReviewV1("u-utfrev", "CREATE", hostileObjOK), `"request"`, "\"requ\xffest\"", 1)),
			want: hostileDenied(hostileV1, "", 400, hostileNoUID)},

		// HTTP.
		{name: "Content-Type text/plain", perPath: true, weight: 5,
			send: hostilePostAs(http.MethodPost, "text/plain", hostileReviewV1("u-ct", "CREATE", hostileObjOK)),
			want: hostileDenied("", "", 400, "contentType=text/plain, expected application/json")},
		{name: "no Content-Type", perPath: true, weight: 5,
			send: hostilePostAs(http.MethodPost, "", hostileReviewV1("u-noct", "CREATE", hostileObjOK)),
			want: hostileDenied("", "", 400, "contentType=, expected application/json")},
		{name: "Content-Type with charset", perPath: true, weight: 2,
			send: hostilePostAs(http.MethodPost, "application/json; charset=utf-8", hostileReviewV1("u-cs", "CREATE", hostileObjOK)),
			want: hostileDenied("", "", 400, "contentType=application/json; charset=utf-8, expected application/json")},
		{name: "GET", perPath: true, weight: 5, send: hostilePostAs(http.MethodGet, "", ""),
			want: hostilePlain(http.StatusMethodNotAllowed, hostileNotPOST)},
		{name: "PUT of a valid review", perPath: true, weight: 5,
			send: hostilePostAs(http.MethodPut, "application/json", hostileReviewV1("u-put", "CREATE", hostileObjOK)),
			want: hostilePlain(http.StatusMethodNotAllowed, hostileNotPOST)},
		{name: "unknown path", weight: 5,
			send: func(s *hostileServer, c *http.Client, _ string) hostileAnswer {
				return hostilePost(hostileReviewV1("u-404", "CREATE", hostileObjOK))(s, c, "/validate-v1-pod")
			},
			want: hostilePlain(http.StatusNotFound, "404 page not found")},
		{name: "header of 100 KiB", perPath: true, weight: 3, send: hostileWithHeader(100 << 10),
			want: hostilePlain(http.StatusRequestHeaderFieldsTooLarge, "431 Request Header Fields Too Large")},
		{name: "header of 2 MiB", perPath: true, weight: 1, send: hostileWithHeader(2 << 20),
			want: hostilePlain(http.StatusRequestHeaderFieldsTooLarge, "431 Request Header Fields Too Large")},
		{name: "broken chunked encoding", perPath: true, weight: 5,
			send: hostileRawTLS(func(path string) string {
				return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
			}),
			want: hostileDenied("", "", 400, "invalid byte in chunk length")},
		{name: "body shorter than Content-Length", perPath: true, weight: 5,
			send: func(s *hostileServer, _ *http.Client, path string) hostileAnswer {
				conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
				if err != nil {
					return hostileAnswer{status: -1, err: err}
				}
				defer conn.Close()
				body := hostileReviewV1("u-short", "CREATE", hostileObjOK)
				req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body)+100, body)
				if _, err := conn.Write([]byte(req)); err != nil {
					return hostileAnswer{status: -1, err: err}
				}
				_ = conn.CloseWrite() // close_notify: the body ends early
				return hostileRaw(conn, nil, 20*time.Second)
			},
			want: hostileDenied("", "", 400, "unexpected EOF")},
		// Framing: a request must end where its headers say, never where a
		// smuggled second request could begin. With both Content-Length and
		// Transfer-Encoding, net/http reads the chunked body and drops the
		// Content-Length (RFC 9112 6.3); the connection stays open, which
		// only matters behind a proxy that trusted the Content-Length, and
		// kube-apiserver calls the webhook directly.
		{name: "Content-Length and Transfer-Encoding both", perPath: true, weight: 3,
			send: hostileRawTLS(func(path string) string {
				body := hostileReviewV1("u-clte", "CREATE", hostileObjOK)
				return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", path, len(body), body)
			}),
			want: hostileAllowed(hostileV1, "u-clte", false)},
		{name: "two different Content-Lengths", perPath: true, weight: 3,
			send: hostileRawTLS(func(path string) string {
				body := hostileReviewV1("u-2cl", "CREATE", hostileObjOK)
				return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nContent-Length: 4\r\n\r\n%s", path, len(body), body)
			}),
			want: hostilePlain(http.StatusBadRequest, "")},
		// Not in the leak mix: it waits a second for a second answer.
		{name: "a request smuggled after a body over the cap", perPath: true, send: hostileSmuggled,
			want: hostileDenied("", "", 413, hostileTooLarge)},
		{name: "HTTP/2 preface over HTTP/1.1", weight: 3,
			send: hostileRawTLS(func(string) string { return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" }),
			want: hostilePlain(http.StatusBadRequest, "")},

		// Transport.
		{name: "plain HTTP to the TLS port", perPath: true, weight: 10,
			send: hostileRawTCP(func(path string) string {
				return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
			}),
			want: hostilePlain(http.StatusBadRequest, "Client sent an HTTP request to an HTTPS server.")},
		{name: "TLS handshake garbage", weight: 10,
			send: hostileRawTCP(func(string) string { return "\x16\x03\x01\x00\x20" + strings.Repeat("\xde\xad\xbe\xef", 8) }),
			want: hostileClosed(0, 0, hostileTLSAlert)},
		{name: "random bytes instead of TLS", weight: 10,
			send: hostileRawTCP(func(string) string { return "\x00\xff" + strings.Repeat("garbage", 100) }),
			want: hostileClosed(0, 0, "")},
		{name: "connect and close", weight: 10,
			send: func(s *hostileServer, _ *http.Client, _ string) hostileAnswer {
				conn, err := net.Dial("tcp", s.addr)
				if err != nil {
					return hostileAnswer{status: -1, err: err}
				}
				return hostileAnswer{err: conn.Close()}
			},
			want: hostileClosed(0, 0, "")},
		{name: "TLS handshake, then close", weight: 10,
			send: func(s *hostileServer, _ *http.Client, _ string) hostileAnswer {
				conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
				if err != nil {
					return hostileAnswer{status: -1, err: err}
				}
				return hostileAnswer{err: conn.Close()}
			},
			want: hostileClosed(0, 0, "")},

		// Slow clients: the server hangs up on them. Headers: net/http
		// answers 400 when ReadHeaderTimeout cuts them off. Body: the
		// read is cut at the request's deadline (no timeout parameter:
		// the default timeout less its margin), and the limiter's 429
		// says so, as to a request kube-apiserver has stopped waiting for.
		{name: "slow-loris headers", perPath: true, slow: true, send: hostileSlowHeaders,
			want: hostileWithin(hostilePlain(http.StatusBadRequest, "400 Bad Request"), hostileReadHeaderTimeout-time.Second, hostileReadHeaderTimeout+hostileCloseSlack)},
		{name: "slow body", perPath: true, slow: true, send: hostileSlowBody,
			want: hostileWithin(hostilePlain(http.StatusTooManyRequests, "before its body had arrived"), hostileBodyDeadline-time.Second, hostileBodyDeadline+hostileCloseSlack)},
		{name: "slow TLS handshake", slow: true, send: hostileSlowHandshake,
			want: hostileClosed(hostileHandshakeTimeout-time.Second, hostileHandshakeTimeout+hostileCloseSlack, "")},
	}
}

// hostileSmuggled sends, on one connection, a body over the cap whose
// tail is a complete second request (a valid review to the validating
// path). The server must answer the first with 413 and never answer the
// second: the tail is body, not a request.
func hostileSmuggled(s *hostileServer, _ *http.Client, path string) hostileAnswer {
	inner := hostileReviewV1("u-smuggled", "CREATE", hostileObjOK)
	smuggled := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", admission.ValidatePath, len(inner), inner)
	// The server reads exactly the cap (7 MiB) before it answers 413, so the
	// smuggled request starts right where its reading stops; the padding
	// after it is more than net/http discards to keep a connection.
	body := bytes.Repeat([]byte{' '}, hostileMaxBody)
	body = append(body, smuggled...)
	body = append(body, bytes.Repeat([]byte{' '}, 300<<10)...)
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, len(body))
	conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
	if err != nil {
		return hostileAnswer{status: -1, err: err}
	}
	defer conn.Close()
	a := hostileRaw(conn, []byte(head+string(body)), 20*time.Second)
	// Whatever comes after the 413 (within a second) is an answer to the
	// smuggled request.
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	more, _ := io.ReadAll(conn)
	if len(more) > 0 || bytes.Contains(a.raw, []byte("u-smuggled")) {
		return hostileAnswer{status: -1, raw: append(a.raw, more...), err: fmt.Errorf("the smuggled request was answered")}
	}
	return a
}

// hostileTrickle writes data one byte per second on conn until the server closes
// it (or data runs out) and reports when the close came, measured from
// start. It reads concurrently: the close is seen when a read ends.
func hostileTrickle(conn net.Conn, data []byte, start time.Time) hostileAnswer {
	readDone := make(chan hostileAnswer, 1)
	go func() {
		_ = conn.SetReadDeadline(time.Now().Add(90 * time.Second))
		raw, err := io.ReadAll(conn)
		readDone <- hostileAnswer{raw: raw, err: err, elapsed: time.Since(start)}.parsed()
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for _, b := range data {
		select {
		case a := <-readDone:
			return a
		case <-tick.C:
		}
		if _, err := conn.Write([]byte{b}); err != nil {
			break
		}
	}
	return <-readDone
}

// hostileSlowHeaders sends a request's headers one byte per second, longer than
// any header timeout.
func hostileSlowHeaders(s *hostileServer, _ *http.Client, path string) hostileAnswer {
	conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
	if err != nil {
		return hostileAnswer{status: -1, err: err}
	}
	defer conn.Close()
	start := time.Now() // the header deadline starts after the handshake
	head := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + strings.Repeat("s", 120) + "\r\n\r\n"
	return hostileTrickle(conn, []byte(head), start)
}

// hostileSlowBody sends complete headers at once, then the body one byte per
// second.
func hostileSlowBody(s *hostileServer, _ *http.Client, path string) hostileAnswer {
	conn, err := tls.Dial("tcp", s.addr, s.tlsConfig)
	if err != nil {
		return hostileAnswer{status: -1, err: err}
	}
	defer conn.Close()
	body := hostileReviewV1("u-slow", "CREATE", hostileObjOK)
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, len(body))
	if _, err := conn.Write([]byte(head)); err != nil {
		return hostileAnswer{status: -1, err: err}
	}
	return hostileTrickle(conn, []byte(body), time.Now())
}

// hostileSlowHandshake sends a real ClientHello one byte per second.
func hostileSlowHandshake(s *hostileServer, _ *http.Client, _ string) hostileAnswer {
	hello := hostileClientHello(s.tlsConfig)
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		return hostileAnswer{status: -1, err: err}
	}
	defer conn.Close()
	return hostileTrickle(conn, hello, time.Now())
}

// hostileClientHello is the first TLS record a client with cfg sends.
func hostileClientHello(cfg *tls.Config) []byte {
	client, server := net.Pipe()
	go func() { _ = tls.Client(client, cfg).Handshake() }()
	defer client.Close()
	defer server.Close()
	head := make([]byte, 5)
	if _, err := io.ReadFull(server, head); err != nil {
		panic(err)
	}
	rec := make([]byte, int(head[3])<<8|int(head[4]))
	if _, err := io.ReadFull(server, rec); err != nil {
		panic(err)
	}
	return append(head, rec...)
}

// hostileCheckServing proves that the server still answers valid requests
// correctly: defaults patched, an invalid object denied with 422, a valid
// one allowed.
func hostileCheckServing(s *hostileServer, c *http.Client) string {
	checks := []struct {
		path string
		body string
		want hostileWant
	}{
		{admission.MutatePath, hostileReviewV1("u-check-m", "CREATE", hostileObjDefaults), hostileAllowed(hostileV1, "u-check-m", true)},
		{admission.ValidatePath, hostileReviewV1("u-check-bad", "CREATE", hostileObjBad), hostileDenied(hostileV1, "u-check-bad", 422, `spec.listeners[0].protocol: Unsupported value: "TCP"`)},
		{admission.ValidatePath, hostileReviewV1("u-check-ok", "CREATE", hostileObjOK), hostileAllowed(hostileV1, "u-check-ok", false)},
	}
	for _, ch := range checks {
		if d := ch.want.check(hostilePost(ch.body)(s, c, ch.path)); d != "" {
			return fmt.Sprintf("a valid request to %s after it: %s", ch.path, d)
		}
	}
	return ""
}

func hostileShortPath(path string) string {
	if path == admission.MutatePath {
		return "mutate"
	}
	if path == admission.ValidatePath {
		return "validate"
	}
	return "-"
}

// TestHostile runs the table of hostile inputs (hostileCases) against one
// server process and the leak measurement (hostileLeak) against another.
// With HOSTILE_OBSERVE=1 it logs each answer instead of checking it, which
// is how the table's expectations were first written down.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server binary and waits for its timeouts (about a minute)")
	}
	bin := webhookBinary(t)
	cases := hostileCases()
	paths := func(hc hostileCase) []string {
		if hc.perPath {
			return []string{admission.MutatePath, admission.ValidatePath}
		}
		return []string{""}
	}

	// The table and the leak measurement run side by side on two server
	// processes: the slow cases hold connections open for half a minute,
	// which the leak measurement must not count.
	t.Run("group", func(t *testing.T) {
		s := hostileStart(t, bin)
		t.Run("cases", func(t *testing.T) {
			t.Parallel()
			for _, hc := range cases {
				if hc.slow {
					continue
				}
				for _, path := range paths(hc) {
					t.Run(hc.name+"/"+hostileShortPath(path), func(t *testing.T) {
						hostileRunCase(t, s, hc, path)
					})
				}
			}
		})
		for _, hc := range cases {
			if !hc.slow {
				continue
			}
			for _, path := range paths(hc) {
				t.Run(hc.name+"/"+hostileShortPath(path), func(t *testing.T) {
					t.Parallel()
					hostileRunCase(t, s, hc, path)
				})
			}
		}
		t.Run("leak", func(t *testing.T) {
			t.Parallel()
			hostileLeak(t, bin, cases)
		})
	})
}

// hostileRunCase sends one case, then valid requests with the same client:
// where the server kept the connection open they reuse it, which is how a
// server that misreads where one request ends and the next begins shows.
func hostileRunCase(t *testing.T, s *hostileServer, hc hostileCase, path string) {
	c := s.client(true)
	defer c.CloseIdleConnections()
	a := hc.send(s, c, path)
	want := hc.wantFor(path)
	if os.Getenv("HOSTILE_OBSERVE") != "" {
		t.Logf("%s %s: %v", hc.name, hostileShortPath(path), a)
	} else if d := want.check(a); d != "" {
		t.Errorf("%s to %s: %s", hc.name, path, d)
	}
	if err := s.Ended(); err != nil {
		t.Fatalf("the server exited after %s: %v\n%s", hc.name, err, s.logTail())
	}
	if d := hostileCheckServing(s, c); d != "" {
		t.Errorf("%s to %s: %s", hc.name, path, d)
	}
}

// Leak measurement.
const (
	hostileLeakRequests    = 10_000
	hostileLeakConcurrency = 8
	// hostileGoroutineSlack allows for goroutines the runtime or a closing
	// connection may still hold when the count is read.
	hostileGoroutineSlack = 5
	// hostileHeapBound: see hostileLeak.
	hostileHeapBound = 8 << 20
)

// hostileLeak fires hostileLeakRequests hostile inputs, a weighted mix of the
// table's fast cases, at a fresh server and compares its goroutines and
// heap before and after.
//
// The heap bound: each figure is read right after garbage collections
// that valid requests drove once the load had stopped (hostileSettle), so
// it is the live heap plus little garbage; the readings are taken the same
// way, so their difference is what stayed alive. Retaining as little as
// 1 KiB per request (a buffer, a log entry, a map entry per uid) would keep
// about 10 MiB after 10 000 requests, so 8 MiB catches it, while readings
// taken this way moved by at most 1.5 MiB between the halves of a run in
// ours. A leaked goroutine shows in the goroutine count instead (its stack
// is not heap).
func hostileLeak(t *testing.T, bin string, cases []hostileCase) {
	s := hostileStart(t, bin)

	type mixEntry struct {
		hc   hostileCase
		path string
	}
	var mix []mixEntry
	for _, hc := range cases {
		if hc.weight == 0 || hc.slow {
			continue
		}
		ps := []string{""}
		if hc.perPath {
			ps = []string{admission.MutatePath, admission.ValidatePath}
		}
		for _, p := range ps {
			for range hc.weight {
				mix = append(mix, mixEntry{hc, p})
			}
		}
	}
	rng := rand.New(rand.NewPCG(6, 2))
	schedule := func(n int) []mixEntry {
		out := make([]mixEntry, n)
		for i := range out {
			out[i] = mix[rng.IntN(len(mix))]
		}
		return out
	}

	var (
		mu       sync.Mutex
		counts   = map[string]int{}
		failures []string
	)
	fire := func(reqs []mixEntry) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		var clients []*http.Client
		start := time.Now()
		for w := range hostileLeakConcurrency {
			// Half the workers keep their connections alive (reused), half
			// open one per request.
			c := s.client(w%2 == 0)
			clients = append(clients, c)
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= len(reqs) {
						return
					}
					e := reqs[i]
					a := e.hc.send(s, c, e.path)
					d := e.hc.wantFor(e.path).check(a)
					mu.Lock()
					counts[e.hc.name]++
					if d != "" && len(failures) < 20 {
						failures = append(failures, fmt.Sprintf("%s %s: %s", e.hc.name, hostileShortPath(e.path), d))
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		for _, c := range clients {
			c.CloseIdleConnections()
		}
		return elapsed
	}

	// Warm up: every path of the server once, then some more, so that
	// lazily built things (TLS session state, metric series, pools) exist
	// before the baseline.
	fire(schedule(500))
	counts, failures = map[string]int{}, nil
	before := hostileSettle(t, s, 0)
	// Two halves with a reading between them: a leak grows with every
	// request, so it shows in both; what the first requests of a kind build
	// once (metric series, pools) shows only in the first.
	elapsed := fire(schedule(hostileLeakRequests / 2))
	// The goroutines of closed connections end as the server notices the
	// close; wait for that (and at most 20s).
	half := hostileSettle(t, s, before.goroutines+hostileGoroutineSlack)
	elapsed += fire(schedule(hostileLeakRequests - hostileLeakRequests/2))
	after := hostileSettle(t, s, before.goroutines+hostileGoroutineSlack)

	names := make([]string, 0, len(counts))
	total := 0
	for name, n := range counts {
		names = append(names, name)
		total += n
	}
	slices.Sort(names)
	var perCase strings.Builder
	for _, name := range names {
		fmt.Fprintf(&perCase, " %q=%d", name, counts[name])
	}
	t.Logf("RESULT hostile: requests=%d concurrency=%d duration=%v rate=%.0f/s failures=%d",
		total, hostileLeakConcurrency, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), len(failures))
	t.Logf("RESULT hostile: per case:%s", perCase.String())
	t.Logf("RESULT hostile: goroutines before=%d half=%d after=%d (slack %d)", before.goroutines, half.goroutines, after.goroutines, hostileGoroutineSlack)
	t.Logf("RESULT hostile: heap in-use before=%.1f MiB half=%.1f MiB after=%.1f MiB growth=%+.1f MiB (first half %+.1f, second half %+.1f; bound %d MiB)",
		hostileMiB(before.heapInuse), hostileMiB(half.heapInuse), hostileMiB(after.heapInuse), hostileMiB(after.heapInuse-before.heapInuse),
		hostileMiB(half.heapInuse-before.heapInuse), hostileMiB(after.heapInuse-half.heapInuse), hostileHeapBound>>20)
	t.Logf("RESULT hostile: RSS before=%.1f MiB half=%.1f MiB after=%.1f MiB; GC cycles during the run %.0f; webhook panics %.0f",
		hostileMiB(before.rss), hostileMiB(half.rss), hostileMiB(after.rss), after.gcCycles-before.gcCycles, after.panics)

	if total != hostileLeakRequests {
		t.Errorf("sent %d requests, want %d", total, hostileLeakRequests)
	}
	for _, f := range failures {
		t.Errorf("wrong answer in the mix: %s", f)
	}
	if after.goroutines > before.goroutines+hostileGoroutineSlack {
		t.Errorf("goroutines: %d before, %d after the hostile requests: a leak", before.goroutines, after.goroutines)
	}
	if after.heapInuse-before.heapInuse > hostileHeapBound {
		t.Errorf("heap in-use grew by %.1f MiB over %d hostile requests (bound %d MiB): a leak", hostileMiB(after.heapInuse-before.heapInuse), total, hostileHeapBound>>20)
	}
	if after.panics != 0 {
		t.Errorf("controller_runtime_webhook_panics_total is %.0f", after.panics)
	}
	if d := hostileCheckServing(s, s.client(false)); d != "" {
		t.Error(d)
	}
}

func hostileMiB(b float64) float64 { return b / (1 << 20) }

// hostileReading is the server's state at one point.
type hostileReading struct {
	goroutines     int
	heapInuse, rss float64
	gcCycles       float64
	panics         float64 // handler panics controller-runtime recovered
}

// hostileSettle waits until the server has closed every connection (its
// clients have closed theirs: the goroutines serving them end with that),
// and then, when maxGoroutines is above 0, until it has no more than
// maxGoroutines goroutines (more 20s later is a leak, and fails), then reads
// the server's figures. Heap in-use is the smallest of four readings, each taken right
// after a garbage collection that valid 1 MiB requests drove (the first
// after two, so that one ran wholly after the load): in-use also counts
// garbage not yet collected, and the smallest reading carries the least.
func hostileSettle(t *testing.T, s *hostileServer, maxGoroutines int) hostileReading {
	t.Helper()
	s.awaitConnectionsClosed(t, 20*time.Second)
	for deadline := time.Now().Add(20 * time.Second); maxGoroutines > 0; time.Sleep(50 * time.Millisecond) {
		n := int(s.metrics(t)["go_goroutines"])
		if n <= maxGoroutines {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("goroutines: %d, more than %d 20s after every connection closed: a leak", n, maxGoroutines)
			break
		}
	}
	body := hostilePadded(1 << 20)
	c := s.client(true)
	gcs := s.metrics(t)["go_gc_duration_seconds_count"]
	heap := math.Inf(1)
	for sample := range 4 {
		want := gcs + 1
		if sample == 0 {
			want = gcs + 2
		}
		for i := 0; ; i++ {
			if i == 200 {
				t.Fatal("no garbage collection after 200 requests of 1 MiB")
			}
			if d := hostileAllowed(hostileV1, "u-pad", false).check(hostilePostBytes(body)(s, c, admission.ValidatePath)); d != "" {
				t.Fatalf("a valid padded request while settling: %s", d)
			}
			m := s.metrics(t)
			if gcs = m["go_gc_duration_seconds_count"]; gcs >= want {
				heap = min(heap, m["go_memstats_heap_inuse_bytes"])
				break
			}
		}
	}
	c.CloseIdleConnections()
	s.awaitConnectionsClosed(t, 20*time.Second) // the closed connection's goroutine ends with it
	m := s.metrics(t)
	return hostileReading{
		goroutines: int(m["go_goroutines"]),
		heapInuse:  heap,
		rss:        m["process_resident_memory_bytes"],
		gcCycles:   m["go_gc_duration_seconds_count"],
		panics:     m["controller_runtime_webhook_panics_total"],
	}
}
