package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	kjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
)

// reviewGuard stands in front of a controller-runtime admission.Webhook and
// refuses what kube-apiserver never sends but controller-runtime alone would
// answer as if it were a review (the hostile-request battery in
// test/reliability found each of these). In order, as controller-runtime
// checks what it checks too, so that those answers stay its own:
//
//   - a method other than POST: 405 with Allow: POST;
//   - a body that cannot be read to its end (net/http reports a body cut
//     short once and then io.EOF, so a second reader would judge the part
//     that arrived), or that reaches maxRequestSize: 400 or 413, and the
//     connection closes, since the rest of the body was not read and must
//     not be taken for the next request; an empty body;
//   - a Content-Type other than application/json (controller-runtime's
//     decoder also reads YAML);
//   - anything but an admission.k8s.io/v1 or v1beta1 AdmissionReview in JSON
//     with a request.uid: controller-runtime decodes any apiVersion and kind
//     into a v1 review, finds apiVersion and kind case-insensitively (so a
//     "KIND" beside "kind" is refused), and answers a review without uid,
//     whose answer kube-apiserver would discard anyway;
//   - a DELETE: allowed at once, neither object decoded, by the mutating
//     and validating webhooks, where DELETE is not registered, but should a
//     configuration send one, no review may block a deletion:
//     controller-runtime's validating webhook decodes oldObject for
//     Validator.ValidateDelete and denied a deletion whose stored object did
//     not decode ("json: cannot unmarshal string into Go struct field
//     ListenerSetSpec.spec.listeners"), and the object checks below would
//     deny one whose oldObject is not a ListenerSet. The deletion webhook
//     (deletions) gets it, unchecked, and answers every one allowed;
//   - a request.object or request.oldObject that is not a JSON object, or
//     that names another apiVersion or kind than a gateway.networking.k8s.io/v1
//     ListenerSet. controller-runtime's decoder refuses most of these by its
//     scheme, but it reads the kind case-insensitively: a Pod with a "KIND":
//     "ListenerSet" field was judged as a ListenerSet, its own fields ignored.
//     An object that names neither is accepted, as controller-runtime's
//     decoder accepts it (kubernetes/kubernetes#74373).
//
// Refusals other than the 405 are AdmissionReviews that deny with that code,
// as controller-runtime writes its own: typed and with the uid once the body
// is known to be a review, untyped before. A review whose deadline
// (inflight.Limiter) leaves too little time to decode and judge it, or
// passes before a core is free for it (inflight.Begin), gets the limiter's
// 429 instead, and is not decoded further; so does one whose deadline
// passes while it is judged (inflight.Late): kube-apiserver has stopped
// waiting for its verdict, and its failurePolicy decides.
//
// Everything else goes to the webhook's Handle as the review the guard
// decoded (readReview), and Handle's answer is written as
// admission.Webhook.ServeHTTP writes it: every other answer to a
// well-formed review is controller-runtime's, its handlers decode the
// objects with its decoder (TestGuardHandsOnWhatKubeAPIServerSends holds
// the answers equal to ServeHTTP's byte for byte, FuzzReadReview the review
// equal to the one ServeHTTP decodes). The guard decodes the review instead
// of handing the body to ServeHTTP for what that cost on a large object:
// the guard's three passes over the body (a case-sensitive head, the
// case-insensitive kind, each object's kind) and ServeHTTP's two (its
// case-insensitive kind, then the review) took 105 ms of a 2.85 MB review,
// readReview's one 25 ms (BenchmarkReadReview, largest-valid), and a worst
// request may take 100 ms in all (docs/performance.md, "Worst
// objects the CRD admits").
type reviewGuard struct {
	next *cradmission.Webhook
	// deletions hands DELETE reviews on to next (the deletion webhook,
	// which answers every one allowed) instead of allowing them here.
	deletions bool
	// object is the kind request.object and oldObject may name; the zero
	// value is a ListenerSet (listenerSetTypeMeta), the HTTPRoute
	// webhook's httpRouteTypeMeta.
	object metav1.TypeMeta
}

// httpRouteTypeMeta is what the HTTPRoute webhook's objects may name.
var httpRouteTypeMeta = metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: httpRouteGK.Kind}

// maxRequestSize is controller-runtime's limit on an AdmissionReview's size
// (admission.Webhook.ServeHTTP reads no more). A body of exactly this size is
// refused too, as a reader capped there cannot tell it from a longer one.
const maxRequestSize = 7 << 20

// reviewVersions are the AdmissionReview versions kube-apiserver may send
// (admissionReviewVersions); controller-runtime answers in the version it got.
var reviewVersions = []string{admissionv1.SchemeGroupVersion.String(), "admission.k8s.io/v1beta1"}

// listenerSetTypeMeta is what request.object and request.oldObject may name.
var listenerSetTypeMeta = metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: listenerSetGK.Kind}

func (g reviewGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: an AdmissionReview is POSTed", http.StatusMethodNotAllowed)
		return
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = readBody(r)
		if err != nil && inflight.BodyLate(w, r, err) {
			return
		}
		if err != nil {
			logf.FromContext(r.Context()).Error(err, "unable to read the body from the incoming request")
			w.Header().Set("Connection", "close")
			refuse(w, r, metav1.TypeMeta{}, "", http.StatusBadRequest, err)
			return
		}
	}
	if len(body) >= maxRequestSize {
		w.Header().Set("Connection", "close")
		refuse(w, r, metav1.TypeMeta{}, "", http.StatusRequestEntityTooLarge,
			fmt.Errorf("request entity is too large; limit is %d bytes", maxRequestSize))
		return
	}
	if len(body) == 0 {
		refuse(w, r, metav1.TypeMeta{}, "", http.StatusBadRequest, errors.New("request body is empty"))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		refuse(w, r, metav1.TypeMeta{}, "", http.StatusBadRequest, fmt.Errorf("contentType=%s, expected application/json", ct))
		return
	}
	done, ok := inflight.Begin(w, r, len(body))
	if !ok {
		return
	}
	handedOn := false
	defer func() {
		if !handedOn {
			done()
		}
	}()
	want := g.object
	if want == (metav1.TypeMeta{}) {
		want = listenerSetTypeMeta
	}
	tm, req, deletion, err := checkReview(body, want)
	if err != nil {
		refuse(w, r, tm, req.UID, http.StatusBadRequest, err)
		return
	}
	if deletion && !g.deletions {
		answer(w, r, tm, req.UID, cradmission.Allowed("").AdmissionResponse)
		return
	}
	// What admission.Webhook.ServeHTTP does once it has decoded the review.
	ctx := r.Context()
	if g.next.WithContextFunc != nil {
		ctx = g.next.WithContextFunc(ctx, r)
	}
	// The verdict is worked out aside, so that the deadline, not the work,
	// decides when the answer goes: a verdict not ready by then is answered
	// with the limiter's 429 (inflight.Late), which kube-apiserver's
	// failurePolicy decides, before kube-apiserver stops waiting. The work
	// keeps its core until it ends (done), so that no other large request
	// starts on that core meanwhile, and ends early: once the deadline has
	// passed, the verdict and the patch are not worked out (Validator.respond,
	// defaulting.Handle); only a decode under way finishes.
	handedOn = true
	verdict := make(chan admissionv1.AdmissionResponse, 1)
	go func() {
		defer done()
		verdict <- g.next.Handle(ctx, req).AdmissionResponse
	}()
	select {
	case resp := <-verdict:
		if !inflight.Late(w, r) {
			answer(w, r, tm, req.UID, resp)
		}
	case <-r.Context().Done():
		inflight.Late(w, r)
	}
}

// readBody reads r's body, at most maxRequestSize bytes, into a buffer of
// the size its Content-Length announces (kube-apiserver sends one; the
// in-flight limit has already weighed the request by it): io.ReadAll grows
// its buffer step by step, which for a body of 2.85 MB allocated 3.9 MB
// more and copied it as often (BenchmarkHandlerWorst, largest-valid). A
// body that announces the cap or more will be refused once read up to it,
// and gets no buffer of that size in advance. (With one, the hostile
// battery's 8 MiB body lost its 413 to a connection reset in 4 runs of 5:
// read that much faster, the answer and the close came while the client
// still wrote; the slower read hid that race, test/reliability's
// TestHostile.)
func readBody(r *http.Request) ([]byte, error) {
	size := int64(bytes.MinRead)
	if r.ContentLength > 0 && r.ContentLength < maxRequestSize {
		// MinRead more, so that the read ends at io.EOF without growing.
		size = r.ContentLength + bytes.MinRead
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(r.Body, maxRequestSize))
	return buf.Bytes(), err
}

// checkReview decodes body (readReview) and returns why it is not a review
// the guard hands on, with the review's type to answer with when it is a
// review; nil when it can be handed on as req. deletion says the review is
// of a DELETE, whose objects it does not look at; want is the kind its
// objects may name.
func checkReview(body []byte, want metav1.TypeMeta) (tm metav1.TypeMeta, req cradmission.Request, deletion bool, err error) {
	tm, req, objects, err := readReview(body)
	if err != nil {
		return metav1.TypeMeta{}, cradmission.Request{}, false, err
	}
	if tm.Kind != "AdmissionReview" || !slices.Contains(reviewVersions, tm.APIVersion) {
		return metav1.TypeMeta{}, cradmission.Request{}, false, fmt.Errorf("expected an AdmissionReview of %s, got apiVersion %q kind %q",
			strings.Join(reviewVersions, " or "), tm.APIVersion, tm.Kind)
	}
	if req.UID == "" {
		// kube-apiserver always sends a uid and discards an answer whose
		// uid does not match, so a request without one is not from it.
		return tm, cradmission.Request{}, false, errors.New("request.uid is required")
	}
	if req.Operation == admissionv1.Delete {
		return tm, req, true, nil
	}
	for i, field := range []string{"object", "oldObject"} {
		// Exact case, as the object is decoded. Case variants need no second
		// look here: controller-runtime's decoder finds the kind
		// case-insensitively too, and the scheme it decodes with turns
		// anything it then finds but a ListenerSet into a 400. Absent or
		// null, it is controller-runtime's decoder that answers if it needs
		// the object.
		o := objects[i]
		if o.err != nil {
			return tm, req, false, fmt.Errorf("request.%s is not a JSON object: %w", field, o.err)
		}
		if o.tm != (metav1.TypeMeta{}) && o.tm != want {
			return tm, req, false, fmt.Errorf("request.%s: expected a %s of %s, got apiVersion %q kind %q",
				field, want.Kind, want.APIVersion, o.tm.APIVersion, o.tm.Kind)
		}
	}
	return tm, req, false, nil
}

// errAmbiguousType refuses a review whose apiVersion or kind read otherwise
// case-insensitively. controller-runtime finds them so (apimachinery's
// SimpleMetaFactory uses encoding/json) and answers in the kind it found: a
// review with a "KIND": "Foo" field beside "kind" was answered as one of
// kind Foo (found by FuzzAdmissionReview).
var errAmbiguousType = errors.New("ambiguous apiVersion or kind: more than one field named so up to case")

// objectType is what readReview found of request.object or oldObject: its
// apiVersion and kind with exact case, or why they do not decode (it is no
// JSON object).
type objectType struct {
	tm  metav1.TypeMeta
	err error
}

// readReview decodes body as admission.Webhook.ServeHTTP decodes a review
// (apimachinery's JSON serializer: sigs.k8s.io/json, case-sensitive, into
// a v1 AdmissionReview whose request is controller-runtime's Request), in
// one pass that also reads what the guard checks: tm, the review's
// apiVersion and kind with exact case, refused when they read otherwise
// case-insensitively (errAmbiguousType), and objects, the type each of
// request.object and request.oldObject names.
//
// It walks the review by tokens rather than Unmarshal it, so that each key
// is seen as written and each object's place in body is known: the objects
// are subslices of body, whose apiVersion and kind are read as the object
// is scanned (their other fields are skipped). Everything else is decoded
// into req's fields as Unmarshal decodes them. Given twice, a key is read
// as Unmarshal reads it: the request's fields merge, the later object
// counts and null keeps what was there (runtime.RawExtension), and a
// request after a null one goes elsewhere (AdmissionReview.Request, which
// controller-runtime points at its Request, is then nil).
//
// A body that is not such a review, with the values at the types of an
// AdmissionReview, is an error in the words of sigs.k8s.io/json's
// Unmarshal, which controller-runtime's decoder would have given
// ("unexpected end of JSON input" where a Decoder says "unexpected EOF"):
// only then is body read a second time.
func readReview(body []byte) (tm metav1.TypeMeta, req cradmission.Request, objects [2]objectType, err error) {
	w := reviewWalk{dec: kjson.NewDecoderCaseSensitivePreserveInts(bytes.NewReader(body)), body: body}
	if err := w.review(&tm, &req.AdmissionRequest, &objects); err != nil {
		if uerr := kjson.UnmarshalCaseSensitivePreserveInts(body, &admissionv1.AdmissionReview{}); uerr != nil {
			err = uerr
		}
		return metav1.TypeMeta{}, cradmission.Request{}, objects, fmt.Errorf("the body is not a JSON AdmissionReview: %w", err)
	}
	if w.ambiguous || w.folded != tm {
		return metav1.TypeMeta{}, cradmission.Request{}, objects, errAmbiguousType
	}
	return tm, req, objects, nil
}

// reviewWalk is readReview's one pass over body.
type reviewWalk struct {
	dec  kjson.Decoder
	body []byte
	// err is the first value of a type the AdmissionReview's field does
	// not take; the walk goes on, as Unmarshal does.
	err error
	// folded is apiVersion and kind as encoding/json reads them: the
	// value of the last key equal to "apiVersion" or "kind" up to Unicode
	// case folding, null leaving it unchanged. ambiguous says such a key
	// (not of exact case) had a value that is not a string, which
	// encoding/json refuses.
	folded    metav1.TypeMeta
	ambiguous bool
}

// review walks the AdmissionReview: its apiVersion and kind into tm, its
// request into *req (objects: the types its objects name). It returns the
// first syntax error, else the first value of the wrong type.
func (w *reviewWalk) review(tm *metav1.TypeMeta, req *admissionv1.AdmissionRequest, objects *[2]objectType) error {
	first, err := w.dec.Token()
	if err != nil {
		return err
	}
	if first == nil { // null: an empty review, as Unmarshal leaves it
		return w.end()
	}
	if first != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	// request is where the next "request" goes (see readReview), types
	// where the types of its objects go.
	request, types := req, objects
	for w.dec.More() {
		key, err := w.key()
		if err != nil {
			return err
		}
		switch {
		case key == "request" && w.next() == '{':
			if request == nil {
				request, types = new(admissionv1.AdmissionRequest), new([2]objectType)
			}
			err = w.request(request, types)
		case key == "request":
			err = w.value(&request)
		case key == "response":
			err = w.value(new(*admissionv1.AdmissionResponse))
		case strings.EqualFold(key, "apiVersion"), strings.EqualFold(key, "kind"):
			err = w.typeField(key, tm)
		default:
			err = w.value(&skipValue{})
		}
		if err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // the closing brace
		return err
	}
	if err := w.end(); err != nil {
		return err
	}
	return w.err
}

// typeField reads the review's field key, one that is "apiVersion" or
// "kind" up to case, into tm (exact case) and w.folded.
func (w *reviewWalk) typeField(key string, tm *metav1.TypeMeta) error {
	exact, folded := &tm.Kind, &w.folded.Kind
	if strings.EqualFold(key, "apiVersion") {
		exact, folded = &tm.APIVersion, &w.folded.APIVersion
	}
	if key != "apiVersion" && key != "kind" {
		exact = nil // a case variant: encoding/json reads it, sigs.k8s.io/json does not
	}
	var v *string
	if err := w.dec.Decode(&v); err != nil {
		if fatal(err) {
			return err
		}
		if exact == nil {
			w.ambiguous = true
		} else {
			w.keep(err)
		}
		return nil
	}
	if v != nil {
		*folded = *v
		if exact != nil {
			*exact = *v
		}
	}
	return nil
}

// request walks a request object into req, its objects' types into types.
func (w *reviewWalk) request(req *admissionv1.AdmissionRequest, types *[2]objectType) error {
	if _, err := w.dec.Token(); err != nil { // the opening brace
		return err
	}
	fields := reflect.ValueOf(req).Elem()
	for w.dec.More() {
		key, err := w.key()
		if err != nil {
			return err
		}
		switch key {
		case "object":
			err = w.object(&req.Object, &types[0])
		case "oldObject":
			err = w.object(&req.OldObject, &types[1])
		default:
			if i, ok := requestFields[key]; ok {
				err = w.value(fields.Field(i).Addr().Interface())
			} else {
				err = w.value(&skipValue{})
			}
		}
		if err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // the closing brace
	return err
}

// object reads an object's value: its place in body into raw, as
// runtime.RawExtension keeps it (null keeps what was there), and the
// apiVersion and kind it names into t, as Unmarshal into a TypeMeta reads
// them, while the decoder reads past it.
func (w *reviewWalk) object(raw *runtime.RawExtension, t *objectType) error {
	start := w.dec.InputOffset()
	var tm metav1.TypeMeta
	err := w.dec.Decode(&tm)
	if err != nil && fatal(err) {
		return err
	}
	value := bytes.TrimLeft(w.body[start:w.dec.InputOffset()], " \t\r\n:")
	if string(value) == "null" {
		return nil
	}
	raw.Raw = value
	*t = objectType{tm: tm, err: err}
	return nil
}

// key reads an object's next key.
func (w *reviewWalk) key() (string, error) {
	t, err := w.dec.Token()
	if err != nil {
		return "", err
	}
	key, _ := t.(string) // the decoder returns nothing else where a key must be
	return key, nil
}

// next is the first byte of the value after the key just read ('{' for an
// object), 0 when body ends first.
func (w *reviewWalk) next() byte {
	rest := bytes.TrimLeft(w.body[w.dec.InputOffset():], " \t\r\n:")
	if len(rest) == 0 {
		return 0
	}
	return rest[0]
}

// value decodes the next value into v; a value of the wrong type is kept
// in w.err, and the walk goes on.
func (w *reviewWalk) value(v any) error {
	if err := w.dec.Decode(v); err != nil {
		if fatal(err) {
			return err
		}
		w.keep(err)
	}
	return nil
}

func (w *reviewWalk) keep(err error) {
	if w.err == nil {
		w.err = err
	}
}

// end is nil when body ends after its one value, as Unmarshal requires.
func (w *reviewWalk) end() error {
	_, err := w.dec.Token()
	if err == io.EOF {
		return nil
	}
	if err == nil {
		return errors.New("more than one value")
	}
	return err
}

// fatal says err ends the walk: the input is no JSON, so the decoder reads
// no further. Any other error is a value of the wrong type, after which the
// decoder goes on.
func fatal(err error) bool {
	syntax, _ := kjson.SyntaxErrorOffset(err)
	return syntax || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// requestFields are the fields of an AdmissionRequest by their JSON names,
// as sigs.k8s.io/json matches them case-sensitively.
var requestFields = func() map[string]int {
	t := reflect.TypeFor[admissionv1.AdmissionRequest]()
	fields := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			fields[name] = i
		}
	}
	return fields
}()

// skipValue is where the walk decodes a value an AdmissionReview has no
// field for: the decoder checks its syntax, nothing is kept.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// refuse answers as controller-runtime's admission.Errored does: a 200 whose
// AdmissionReview denies with code and err. tm is the review's type ("" when
// the body is not known to be a review), uid its request's.
func refuse(w http.ResponseWriter, r *http.Request, tm metav1.TypeMeta, uid types.UID, code int32, err error) {
	answer(w, r, tm, uid, cradmission.Errored(code, err).AdmissionResponse)
}

// maxRefusalBytes bounds the message of an answer that is not a verdict
// (a refusal, or a decoding error of controller-runtime's): such messages
// quote what the request holds (a Content-Type, an apiVersion, a field
// name), which may be megabytes. A verdict's 422 is bounded by the report.
const maxRefusalBytes = 4 << 10

// answer writes resp for the review of type tm and uid uid as
// controller-runtime's admission.Webhook writes its answers, with a
// message that is not a verdict's cut to maxRefusalBytes.
func answer(w http.ResponseWriter, r *http.Request, tm metav1.TypeMeta, uid types.UID, resp admissionv1.AdmissionResponse) {
	resp.UID = uid
	if s := resp.Result; s != nil && s.Details == nil {
		s.Message = findings.Cut(s.Message, maxRefusalBytes, findings.CutSuffix)
	}
	if err := json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: tm, Response: &resp}); err != nil {
		logf.FromContext(r.Context()).Error(err, "unable to encode and write the response")
	}
}
