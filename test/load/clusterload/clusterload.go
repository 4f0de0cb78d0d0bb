// Package clusterload is what the load tool's -cluster-load mode (test/load,
// cluster.go) sends through a cluster's kube-apiserver, and the result it
// writes: shared with the tests that run the mode as a process and read its
// result (test/chart), and that send the same pair themselves to see whether
// the webhook answers.
package clusterload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// ListenerSet is fixtures.Smallest (valid) or fixtures.WrongProtocol in ns,
// as an unstructured object, so that any client sends it, with or without
// the Gateway API's types in its scheme.
func ListenerSet(ns, name string, valid bool) *unstructured.Unstructured {
	ls := fixtures.WrongProtocol(ns, name)
	if valid {
		ls = fixtures.Smallest(ns, name)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ls)
	if err != nil {
		panic(err) // a fixture that does not convert is a bug here
	}
	u := &unstructured.Unstructured{Object: obj}
	// What a user would not write: an empty status, a null creation time.
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

// Denied starts the error kube-apiserver returns when the validating
// webhook denies a write.
var Denied = fmt.Sprintf("admission webhook %q denied the request", admission.ValidatingWebhookName)

// Pair sends one request pair through kube-apiserver, as server-side dry
// runs (nothing is stored): a valid ListenerSet, which must be admitted
// (every webhook that matched answered), and an invalid one, which the
// validating webhook must deny naming fixtures.WrongProtocolField. A pair
// that passes proves the webhook answered, in deny mode; the error says what
// went wrong otherwise. i names the objects (ok-i, bad-i).
func Pair(ctx context.Context, c client.Client, ns string, i int) error {
	err := c.Create(ctx, ListenerSet(ns, fmt.Sprintf("ok-%d", i), true), client.DryRunAll)
	if err != nil {
		return fmt.Errorf("valid ListenerSet: %w", err)
	}
	err = c.Create(ctx, ListenerSet(ns, fmt.Sprintf("bad-%d", i), false), client.DryRunAll)
	switch {
	case err == nil:
		return errors.New("invalid ListenerSet admitted")
	case !strings.Contains(err.Error(), Denied) || !strings.Contains(err.Error(), fixtures.WrongProtocolField):
		return fmt.Errorf("invalid ListenerSet: %w", err)
	}
	return nil
}

// ResultFile is the name of the result the mode writes in its -out
// directory: while it runs, about five times a second, with Running true
// and the counts so far (a test waits on them); when it ends, complete.
const ResultFile = "cluster-load.json"

// Result is what the mode writes.
type Result struct {
	// Running is true in the progress the mode writes while it runs.
	Running   bool   `json:"running"`
	Namespace string `json:"namespace"`
	Workers   int    `json:"workers"`
	// Burst pairs sent at once every BurstEverySeconds, besides the workers'.
	Burst             int     `json:"burst,omitempty"`
	BurstEverySeconds float64 `json:"burstEverySeconds,omitempty"`
	StartedAt         string  `json:"startedAt"`
	FinishedAt        string  `json:"finishedAt,omitempty"`
	Seconds           float64 `json:"seconds"`
	// Pairs answered, passed or failed; a pair the end interrupted is not
	// counted.
	Pairs  int64 `json:"pairs"`
	Passed int64 `json:"passed"`
	Failed int64 `json:"failed"`
	// Failures are the first MaxFailures failed pairs.
	Failures []Failure `json:"failures"`
	// The latency of a pair (two dry-run creates, one after the other),
	// passed or failed; set when the mode ends.
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
	MaxMs float64 `json:"maxMs"`
}

// MaxFailures bounds Result.Failures: a webhook down for a minute fails
// thousands of pairs, each as the first did.
const MaxFailures = 100

// Failure is one failed pair.
type Failure struct {
	// At is when it failed (RFC 3339, milliseconds).
	At string `json:"at"`
	// Error is the first line of what went wrong.
	Error string `json:"error"`
}

// String is the failure as one line.
func (f Failure) String() string { return f.At + " " + f.Error }

// ReadResult reads the mode's result file.
func ReadResult(path string) (Result, error) {
	var r Result
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
