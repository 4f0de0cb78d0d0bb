package why

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/golden"
)

// fixture is testdata/cluster.yaml's objects.
func fixture(t *testing.T) []client.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cluster.yaml"))
	require.NoError(t, err)
	dec := serializer.NewCodecFactory(Scheme()).UniversalDeserializer()
	var objs []client.Object
	for _, doc := range strings.Split(string(data), "\n---\n") {
		obj, _, err := dec.Decode([]byte(doc), nil, nil)
		require.NoError(t, err, doc)
		objs = append(objs, obj.(client.Object))
	}
	return objs
}

// clusterOf is a fake client of the fixture; funcs, when set, intercept
// its calls (a user's refusals).
func clusterOf(t *testing.T, funcs *interceptor.Funcs) client.Reader {
	t.Helper()
	b := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(fixture(t)...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

// airlockScope is the command's default scope.
var airlockScope = validation.Scope{ControllerNames: []gwv1.GatewayController{validation.AirlockControllerName}}

// forbidden refuses, as kube-apiserver's RBAC does, a cluster-wide list of
// HTTPRoutes and ListenerSets, every get of a Namespace but team-b, and the
// list of ReferenceGrants: a user who may read their own namespace only.
var forbidden = interceptor.Funcs{
	List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		o := (&client.ListOptions{}).ApplyOptions(opts)
		switch list.(type) {
		case *gwv1.HTTPRouteList, *gwv1.ListenerSetList:
			if o.Namespace == "" {
				return refuse("list", list)
			}
		case *gwv1.ReferenceGrantList:
			return refuse("list", list)
		}
		return c.List(ctx, list, opts...)
	},
	Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind == "Namespace" && key.Name != "team-b" {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, key.Name, fmt.Errorf("denied"))
		}
		return c.Get(ctx, key, obj, opts...)
	},
}

func refuse(verb string, list client.ObjectList) error {
	return apierrors.NewForbidden(schema.GroupResource{Group: gwv1.GroupName, Resource: fmt.Sprintf("%T", list)}, "", fmt.Errorf("%s denied", verb))
}

// The golden files hold the exit code, stdout and stderr of one run.
func TestWhyGolden(t *testing.T) {
	tests := []struct {
		golden, namespace, name string
		format                  Format
		funcs                   *interceptor.Funcs
		scope                   validation.Scope
		exit                    int
	}{
		// A conflict (agreeing with the status), a difference, nothing
		// reported, a Secret of the wrong type, a grant that permits and
		// none that does, a route that attaches and one that does not.
		{"shop", "team-b", "shop", Text, nil, airlockScope, ExitWrong},
		{"shop-json", "team-b", "shop", JSON, nil, airlockScope, ExitWrong},
		// The first set on the Gateway: nothing wrong, nothing reported.
		{"first", "team-a", "first", Text, nil, airlockScope, ExitWrong},
		// Not admitted by the Gateway's selector.
		{"guest", "outside", "guest", Text, nil, airlockScope, ExitWrong},
		// A user who may read team-b only.
		{"partial", "team-b", "shop", Text, &forbidden, airlockScope, ExitWrong},
		{"partial-json", "team-b", "shop", JSON, &forbidden, airlockScope, ExitWrong},
		// Another implementation's set: its status, nothing judged.
		{"other", "team-a", "other", Text, nil, airlockScope, ExitOK},
		// A class no controller has accepted, without ListenerSet support.
		{"pending", "team-a", "waiting", Text, nil, airlockScope, ExitWrong},
		// The parent Gateway does not exist.
		{"lost", "team-a", "lost", Text, nil, airlockScope, ExitWrong},
		// The Gateway's class does not exist; a parentRef naming no
		// Gateway.
		{"class-not-found", "team-a", "orphan", Text, nil, airlockScope, ExitWrong},
		{"no-gateway", "team-a", "stray", Text, nil, airlockScope, ExitWrong},
		// Another implementation's set with every set judged.
		{"other-scope-all", "team-a", "other", Text, nil, validation.Scope{}, ExitWrong},
		// No such ListenerSet.
		{"not-found", "team-a", "nope", Text, nil, airlockScope, ExitCannotRun},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), RunOptions{Options: Options{Scope: tt.scope}, Namespace: tt.namespace, Name: tt.name,
				Client: clusterOf(t, tt.funcs), Format: tt.format, Stdout: &stdout, Stderr: &stderr})
			got := fmt.Sprintf("listenerset: %s/%s\nformat: %q\nexit: %d\n--- stdout\n%s--- stderr\n%s",
				tt.namespace, tt.name, tt.format, code, stdout.String(), stderr.String())
			golden.Assert(t, filepath.Join("testdata", "golden", tt.golden+".txt"), got)
			assert.Equal(t, tt.exit, code, "exit code")
			if tt.format == JSON {
				var e Explanation
				require.NoError(t, json.Unmarshal(stdout.Bytes(), &e), "stdout is one JSON document")
			}
		})
	}
}

// TestSecretDataNeverShown: the certificates' Secrets hold data; none of it
// reaches any output.
func TestSecretDataNeverShown(t *testing.T) {
	for _, f := range []Format{Text, JSON} {
		var stdout, stderr bytes.Buffer
		Run(context.Background(), RunOptions{Options: Options{Scope: airlockScope}, Namespace: "team-b", Name: "shop",
			Client: clusterOf(t, nil), Format: f, Stdout: &stdout, Stderr: &stderr})
		assert.NotContains(t, stdout.String()+stderr.String(), "c2VjcmV0")
		assert.NotContains(t, stdout.String()+stderr.String(), "secret\n")
	}
}

var _ runtime.Object = (*gwv1.ListenerSet)(nil)
