package admission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
)

// referenceReview is what readReview stands for, read the long way: the
// review decoded as controller-runtime's admission.Webhook.ServeHTTP
// decodes it (sigs.k8s.io/json into a v1 AdmissionReview whose request is
// its Request), its apiVersion and kind as controller-runtime finds them
// (encoding/json, case-insensitively), and each object's apiVersion and
// kind decoded from its raw bytes. Each was a pass over the whole body.
func referenceReview(body []byte) (tm metav1.TypeMeta, req cradmission.Request, objects [2]objectType, err error) {
	ar := admissionv1.AdmissionReview{Request: &req.AdmissionRequest}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &ar); err != nil {
		return metav1.TypeMeta{}, cradmission.Request{}, objects, fmt.Errorf("the body is not a JSON AdmissionReview: %w", err)
	}
	var found metav1.TypeMeta
	if err := json.Unmarshal(body, &found); err != nil || found != ar.TypeMeta {
		return metav1.TypeMeta{}, cradmission.Request{}, objects, errAmbiguousType
	}
	for i, raw := range [][]byte{req.Object.Raw, req.OldObject.Raw} {
		if len(raw) > 0 {
			objects[i].err = kjson.UnmarshalCaseSensitivePreserveInts(raw, &objects[i].tm)
		}
	}
	return ar.TypeMeta, req, objects, nil
}

// FuzzReadReview: readReview's one pass reads every body as referenceReview
// does: the same error, or the same type, request and object types.
func FuzzReadReview(f *testing.F) {
	for _, seed := range readReviewSeeds() {
		f.Add([]byte(seed))
	}
	if entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzAdmissionReview")); err == nil {
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzAdmissionReview", e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			_, quoted, _ := strings.Cut(string(data), "[]byte(")
			if body, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(quoted), ")")); err == nil {
				f.Add([]byte(body))
			}
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkReadReview(t, body)
	})
}

// TestReadReview is FuzzReadReview's seeds, named.
func TestReadReview(t *testing.T) {
	for _, seed := range readReviewSeeds() {
		checkReadReview(t, []byte(seed))
	}
}

func checkReadReview(t *testing.T, body []byte) {
	t.Helper()
	gotTM, gotReq, gotObjects, gotErr := readReview(body)
	wantTM, wantReq, wantObjects, wantErr := referenceReview(body)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q:\nerror %v\nwant  %v", body, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if gotTM != wantTM || !reflect.DeepEqual(gotReq, wantReq) {
		t.Fatalf("%q:\ngot  %+v %+v\nwant %+v %+v", body, gotTM, gotReq, wantTM, wantReq)
	}
	for i := range gotObjects {
		if gotObjects[i].tm != wantObjects[i].tm || fmt.Sprint(gotObjects[i].err) != fmt.Sprint(wantObjects[i].err) {
			t.Fatalf("%q: object %d: got %+v, want %+v", body, i, gotObjects[i], wantObjects[i])
		}
	}
}

// readReviewSeeds are bodies that take each branch of the walk.
func readReviewSeeds() []string {
	obj := guardObj
	review := func(rest string) string {
		return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","operation":"CREATE"` + rest + `}}`
	}
	return []string{
		guardReview("admission.k8s.io/v1", "u-1", "CREATE", obj, ""),
		guardReview("admission.k8s.io/v1beta1", "u-1", "UPDATE", obj, obj),
		guardReview("admission.k8s.io/v1", "u-1", "DELETE", "", `"x"`),
		" \n\t" + guardReview("admission.k8s.io/v1", "u-1", "CREATE", obj, "") + " \n",
		`{ "apiVersion" : "admission.k8s.io/v1" , "kind" : "AdmissionReview" , "request" : { "uid" : "u" , "object" : ` + obj + ` , "oldObject" : null } }`,
		"", " ", "null", " null ", "null x", "{}", "{} ", "{}{}", "{} x", "[]", `"AdmissionReview"`, "1", "true", "{", `{"a"`, `{"a":`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1,}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","KIND":"Foo","request":{"uid":"u-9","operation":"CREATE"}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Kind":null}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Kind":1}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Kind":1,"x":}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":1}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":null,"kind":"AdmissionReview"}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","kind":null}`,
		`{"apiVersion":"admission.k8s.io/v1","\u212aind":"AdmissionReview","kind":"AdmissionReview"}`,
		`{"apiVer\u017fion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","\u006bind":"AdmissionReview"}`,
		`{"APIVERSION":"admission.k8s.io/v1","apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null,"request":{"uid":"u"}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"},"request":null}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"},"request":{"name":"n"}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":"x"}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[{"uid":"u"}]}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Request":{"uid":"u"}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u"}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":1}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","zz":[1,{"a":null}],"request":{"uid":"u","zz":{"a":[1]},"UID":"v"}}`,
		review(`,"uid":5`),
		review(`,"userInfo":{"username":1}`),
		review(`,"dryRun":true,"dryRun":null,"options":{"a":1},"kind":{"group":"g","version":"v","kind":"k"}`),
		review(`,"object":` + obj + `,"object":{"metadata":{"name":"b"}}`),
		review(`,"object":` + obj + `,"object":null`),
		review(`,"object":"ListenerSet"`),
		review(`,"object":[` + obj + `]`),
		review(`,"object":1`),
		review(`,"object":{"kind":1}`),
		review(`,"object":{"kind":"ListenerSet","KIND":"Gateway","apiVersion":"gateway.networking.k8s.io/v1"}`),
		review(`,"object":{"kind":"ListenerSet","kind":null}`),
		review(`,"object":{"kind":"Pod"},"object":{"apiVersion":"v1"}`),
		review(`,"object":{"apiVersion":"v1","kind":"Pod"},"oldObject":{"a":[{"kind":"x"}]}`),
		review(`,"object": 	{"a":1}	 ,"oldObject"	:	[1]`),
		review(`,"object":{"a":`),
		review(`,"object":{"a":1}}`),
		review(`,"object":{"a":1},"request":{}`),
		strings.Replace(duplicateRequestObject, "X", obj, 1),
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":` + obj + `},` +
			`"request":null,"request":{"uid":"v"},"request":{"object":{"kind":"Pod"}}}`,
	}
}

// duplicateRequestObject gives request twice, each with an object.
const duplicateRequestObject = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":X},"request":{"object":{"kind":"Pod"}}}`

// BenchmarkReadReview is what the guard and controller-runtime spend on a
// worst object's review (validationtest.WorstShapes) before the object is
// decoded: "one-pass" is readReview; "before" is what they did until it
// came, referenceReview in the guard and then admission.Webhook.ServeHTTP's
// own decoding of the body (apimachinery's JSON serializer: the kind with
// encoding/json, then the review with sigs.k8s.io/json).
func BenchmarkReadReview(b *testing.B) {
	scheme := runtime.NewScheme()
	if err := admissionv1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	if err := admissionv1beta1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	deserializer := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	// unregistered, as controller-runtime's unversionedAdmissionReview
	type unversionedReview struct{ admissionv1.AdmissionReview }
	for _, s := range validationtest.WorstShapes {
		body := reviewtest.Worst(s)
		b.Run(s.Name+"/one-pass", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, _, _, err := readReview(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.Name+"/before", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, _, _, err := referenceReview(body); err != nil {
					b.Fatal(err)
				}
				var req cradmission.Request
				ar := unversionedReview{admissionv1.AdmissionReview{Request: &req.AdmissionRequest}}
				ar.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
				if _, _, err := deserializer.Decode(body, nil, &ar); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
