package admission

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// Bounds of what the validating webhook writes, whatever text the object
// holds.
const (
	// maxResponse is the most one answer may hold.
	maxResponse = 64 << 10
	// maxLogLine is the longest log line.
	maxLogLine = 16 << 10
	// maxWarningRunes is kube-apiserver's budget of warnings per response
	// (k8s.io/apiserver/pkg/endpoints/filters/warning.go): past it, it
	// cuts every warning.
	maxWarningRunes = 4096
)

// textServer is the validating webhook behind its guard, as RegisterWith
// serves it, for each enforcement, logging with the server's JSON logger
// into a buffer, one line per entry, with the fields controller-runtime
// adds (DefaultLogConstructor).
type textServer struct {
	mu       sync.Mutex
	logs     bytes.Buffer
	handlers map[Enforcement]http.Handler
}

func newTextServer() *textServer {
	s := &textServer{handlers: map[Enforcement]http.Handler{}}
	log := zap.New(zap.WriteTo(lockedWriter{s}), zap.UseDevMode(false))
	for _, e := range Enforcements {
		wh := NewValidatingWebhookFor(Validator{Enforcement: e})
		wh.LogConstructor = func(_ logr.Logger, req *cradmission.Request) logr.Logger {
			return cradmission.DefaultLogConstructor(log, req)
		}
		s.handlers[e] = reviewGuard{next: wh}
	}
	return s
}

type lockedWriter struct{ s *textServer }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.logs.Write(p)
}

// check posts review under enforcement e and holds its answer and the log
// lines it wrote to every bound, as t's errors naming what.
func (s *textServer) check(t *testing.T, what string, e Enforcement, review []byte) {
	t.Helper()
	s.mu.Lock()
	s.logs.Reset()
	s.mu.Unlock()
	req := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(review))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.handlers[e].ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	if len(body) > maxResponse {
		t.Errorf("%s (%s): a response of %d bytes, more than %d", what, e, len(body), maxResponse)
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &got); err != nil || got.Response == nil {
		t.Fatalf("%s (%s): no review (%v): %.500s", what, e, err, body)
	}
	if r := got.Response.Result; r != nil && r.Code != 0 && r.Code != http.StatusOK && r.Code != http.StatusUnprocessableEntity {
		t.Errorf("%s (%s): answered %d: %.300s", what, e, r.Code, r.Message)
	}
	runes := 0
	for _, w := range got.Response.Warnings {
		runes += utf8.RuneCountInString(w)
		if _, err := utilnet.NewWarningHeader(299, "-", w); err != nil {
			t.Errorf("%s (%s): kube-apiserver drops warning %.300q: %v", what, e, w, err)
		}
	}
	if runes > maxWarningRunes {
		t.Errorf("%s (%s): %d runes of warnings, more than kube-apiserver's %d", what, e, runes, maxWarningRunes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := bufio.NewScanner(bytes.NewReader(s.logs.Bytes()))
	lines.Buffer(nil, 64<<20)
	for lines.Scan() {
		if n := len(lines.Bytes()); n > maxLogLine {
			t.Errorf("%s (%s): a log line of %d bytes, more than %d: %.300s", what, e, n, maxLogLine, lines.Bytes())
		}
		if !utf8.Valid(lines.Bytes()) {
			t.Errorf("%s (%s): a log line that is not UTF-8", what, e)
		}
	}
}

// review is the AdmissionReview of s with n listeners, as kube-apiserver
// sends it.
func textReview(s validationtest.Shape, n int) []byte {
	ls := fixtures.Defaulted(s.Build(n))
	if s.Update == nil {
		return fixtures.Review("1", admissionv1.Create, ls, nil)
	}
	return fixtures.Review("1", admissionv1.Update, ls, fixtures.Defaulted(s.Update(n)))
}

// TestWorstTextIsBounded: the worst objects, of counts and of text, at one
// listener (one key as long as a request allows) and at every listener the
// CRD allows, get answers within every bound under either enforcement:
// the response within 64 KiB with its causes and warnings, every warning
// one kube-apiserver keeps, within its budget, and every log line within
// 16 KiB.
func TestWorstTextIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("verdicts on 3 MB objects")
	}
	s := newTextServer()
	for _, shape := range append(validationtest.TextShapes, validationtest.WorstShapes...) {
		for _, n := range []int{1, validation.MaxListeners} {
			review := textReview(shape, n)
			for _, e := range Enforcements {
				s.check(t, fmt.Sprintf("%s at %d listeners", shape.Name, n), e, review)
			}
		}
	}
}

// TestRandomTextIsBounded is the property: ListenerSets of random text
// (HostileRunes at every length, around every budget's edge) in option
// keys and values, Secret names and namespaces, as creates and as updates
// that ratchet their errors into warnings, under either enforcement, get
// answers within every bound of TestWorstTextIsBounded.
func TestRandomTextIsBounded(t *testing.T) {
	s := newTextServer()
	rng := rand.New(rand.NewPCG(33, 33))
	cases := 300
	if testing.Short() {
		cases = 40
	}
	for i := range cases {
		ls := randomTextObject(rng)
		review := fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(ls), nil)
		if i%2 == 1 {
			review = fixtures.Review("1", admissionv1.Update, fixtures.Defaulted(ls), fixtures.Defaulted(ls))
		}
		for _, e := range Enforcements {
			s.check(t, fmt.Sprintf("random object %d", i), e, review)
		}
		if t.Failed() {
			return
		}
	}
}

// randomText is text of HostileRunes and plain letters, of a length drawn
// around the budgets' edges (a share, a warning, a path), or long.
func randomText(rng *rand.Rand) string {
	lengths := []int{1, 60, 126, 127, 128, 129, 250, 256, 257}
	if rng.IntN(5) == 0 {
		lengths = []int{511, 512, 513, 1024, 4096, 20000}
	}
	n := lengths[rng.IntN(len(lengths))] + rng.IntN(3) - 1
	var b strings.Builder
	for b.Len() < n {
		if rng.IntN(3) == 0 {
			b.WriteString(validationtest.HostileRunes[rng.IntN(len(validationtest.HostileRunes))])
		} else {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
	}
	return b.String()
}

// randomTextObject is a ListenerSet of 1 to 8 HTTPS listeners, or 64, (with every
// warning a listener earns, validationtest.MostWarnings) with random text
// where a user may write any: option keys and values, Secret names and
// namespaces (some of it more than the CRD admits: the webhook must not
// assume the CRD ran first).
func randomTextObject(rng *rand.Rand) *gwv1.ListenerSet {
	n := 1 + rng.IntN(8)
	if rng.IntN(10) == 0 {
		n = validation.MaxListeners
	}
	ls := validationtest.MostWarnings(n)
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		l.TLS.Options = map[gwv1.AnnotationKey]gwv1.AnnotationValue{}
		for range rng.IntN(validation.MaxOptions + 1) {
			key := randomText(rng)
			if rng.IntN(2) == 0 {
				key = "example.com/" + key
			}
			l.TLS.Options[gwv1.AnnotationKey(key)] = gwv1.AnnotationValue(randomText(rng))
		}
		l.TLS.CertificateRefs[0].Name = gwv1.ObjectName(randomText(rng))
		if rng.IntN(2) == 0 {
			l.TLS.CertificateRefs[0].Namespace = ptr.To(gwv1.Namespace(randomText(rng)))
		}
	}
	return ls
}
