package validation

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/fixture"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
)

// written gives ls a managedFields entry of the main resource at fixture.T0 plus
// minutes, owning spec.parentRef when parentRef is set (as kubectl's apply
// or update leaves it), or only a label.
func written(ls *gwv1.ListenerSet, minutes int, parentRef bool) *gwv1.ListenerSet {
	fields := `{"f:metadata":{"f:labels":{"f:x":{}}}}`
	if parentRef {
		fields = `{"f:spec":{".":{},"f:listeners":{},"f:parentRef":{"f:name":{},"f:namespace":{}}}}`
	}
	at := metav1.NewTime(fixture.T0.Add(time.Duration(minutes) * time.Minute))
	ls.ManagedFields = append(ls.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate,
		Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)})
	return ls
}

// moved gives ls the managedFields entry `kubectl patch` of its parentRef
// alone leaves, at fixture.T0 plus minutes: the time of the move itself.
func moved(ls *gwv1.ListenerSet, minutes int) *gwv1.ListenerSet {
	at := metav1.NewTime(fixture.T0.Add(time.Duration(minutes) * time.Minute))
	ls.ManagedFields = append(ls.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl-patch", Operation: metav1.ManagedFieldsOperationUpdate,
		Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:parentRef":{"f:name":{}}}}`)})
	return ls
}

// parkedOn is ls with its parentRef naming Gateway namespace/name.
func parkedOn(ls *gwv1.ListenerSet, namespace, name string) *gwv1.ListenerSet {
	ls.Spec.ParentRef = gwv1.ParentGatewayReference{Name: gwv1.ObjectName(name), Namespace: ptr.To(gwv1.Namespace(namespace))}
	return ls
}

// TestAttachingIsClaiming: the hostile tenant's sequences of issue 49, each
// request judged as the story needs: a set that comes to a Gateway claims
// every hostname there anew, whatever its age, and nothing judged
// elsewhere (or never judged) is grandfathered.
func TestAttachingIsClaiming(t *testing.T) {
	hostPath := func(i int) string { return field.NewPath("spec", "listeners").Index(i).Child("hostname").String() }
	portal := func() *gwv1.ListenerSet {
		return written(fixture.Attached("team-a", "portal", 5, fixture.Entry("https", 443, "HTTP", "*.a.example.com")), 5, true)
	}
	heldByPortal := func(h string) string {
		return fmt.Sprintf(incluster.DetailHostnameClaimed, h, "*.a.example.com", `namespace "team-a"`, "team-a/portal listener https", 443)
	}
	shared := func(sets ...*gwv1.ListenerSet) *incluster.Objects {
		return &incluster.Objects{
			Gateways:   []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll)},
			Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", nil), fixture.Namespace("team-b", nil), declaring("team-c", "*.c.example.com", nil)},
			Sets:       append([]*gwv1.ListenerSet{portal()}, sets...),
		}
	}
	// team-b's squat, created at minute 1, before portal: older by the
	// spec's precedence
	squat := func(hostname string) *gwv1.ListenerSet {
		return written(fixture.Attached("team-b", "squat", 1, fixture.Entry("login", 8080, "HTTP", hostname)), 1, true)
	}
	deny := incluster.Tenancy{FirstClaim: incluster.ClaimDeny}
	for _, tc := range []struct {
		name          string
		ls, old       *gwv1.ListenerSet
		cluster       *incluster.Objects
		tenancy       incluster.Tenancy
		asStored      bool
		want          []string // errors, "path: detail"
		claimWarnings []string // LS316 warnings, "path: message"
	}{{
		name:    "parked on a missing Gateway, then moved here: denied, naming the holder",
		old:     parkedOn(squat("login.a.example.com"), "gateway-ns", "missing"),
		ls:      written(squat("login.a.example.com"), 30, true),
		cluster: shared(),
		tenancy: deny,
		want:    []string{hostPath(0) + ": " + heldByPortal("login.a.example.com")},
	}, {
		name:          "parked, then moved, under warn: warned",
		old:           parkedOn(squat("login.a.example.com"), "gateway-ns", "missing"),
		ls:            written(squat("login.a.example.com"), 30, true),
		cluster:       shared(),
		claimWarnings: []string{hostPath(0) + ": " + heldByPortal("login.a.example.com")},
	}, {
		name:    "parked with *.com, then moved: every later tenant's holder is named",
		old:     parkedOn(squat("*.com"), "gateway-ns", "missing"),
		ls:      written(squat("*.com"), 30, true),
		cluster: shared(),
		tenancy: deny,
		want:    []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameClaimed, "*.com", "*.a.example.com", `namespace "team-a"`, "team-a/portal listener https", 443)},
	}, {
		name:    "moved from another Airlock Gateway: a new claim here too",
		old:     parkedOn(squat("login.a.example.com"), "gateway-ns", "other"),
		ls:      written(squat("login.a.example.com"), 30, true),
		cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{fixture.Gateway(gwv1.NamespacesFromAll), parkedGateway("other")}, Namespaces: shared().Namespaces, Sets: shared().Sets},
		tenancy: deny,
		want:    []string{hostPath(0) + ": " + heldByPortal("login.a.example.com")},
	}, {
		name:    "staying on the Gateway with an unchanged hostname: ratcheted, as before",
		old:     moved(squat("login.a.example.com"), 40),
		ls:      moved(squat("login.a.example.com"), 40),
		cluster: shared(),
		tenancy: deny,
		// squat came at minute 40, after portal: told, not denied
		claimWarnings: []string{hostPath(0) + ": Forbidden: " + fmt.Sprintf(verdict.WarnRatcheted, heldByPortal("login.a.example.com"))},
	}, {
		name: "the decoy: moved from a deleted Gateway of another implementation, outside the declaration: denied, not ratcheted",
		old:  parkedOn(written(fixture.Attached("team-c", "c", 1, fixture.Entry("login", 8080, "HTTP", "login.z2.example.com")), 1, true), "team-c", "decoy"),
		ls:   written(fixture.Attached("team-c", "c", 1, fixture.Entry("login", 8080, "HTTP", "login.z2.example.com")), 30, true),
		// the decoy is deleted: the cluster has only the shared Gateway
		cluster: shared(),
		want: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.z2.example.com", "team-c",
			incluster.DefaultAllowedHostnamesAnnotation, `"*.c.example.com"`)},
	}, {
		name: "stored before its Gateway was created: nothing grandfathered",
		old:  written(fixture.Attached("team-c", "c", 1, fixture.Entry("login", 8080, "HTTP", "login.z2.example.com")), 1, true),
		ls:   written(fixture.Attached("team-c", "c", 1, fixture.Entry("login", 8080, "HTTP", "login.z2.example.com")), 1, true),
		cluster: func() *incluster.Objects {
			o := shared()
			o.Gateways[0].CreationTimestamp = metav1.NewTime(fixture.T0.Add(10 * time.Minute)) // re-created at minute 10
			return o
		}(),
		want: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameNotDeclared, "login.z2.example.com", "team-c",
			incluster.DefaultAllowedHostnamesAnnotation, `"*.c.example.com"`)},
	}, {
		name: "written after its Gateway was created: ratcheted",
		old:  written(fixture.Attached("team-c", "c", 1, fixture.Entry("login", 8080, "HTTP", "login.z2.example.com")), 20, true),
		ls:   written(fixture.Attached("team-c", "c", 1, fixture.Entry("login", 8080, "HTTP", "login.z2.example.com")), 20, true),
		cluster: func() *incluster.Objects {
			o := shared()
			o.Gateways[0].CreationTimestamp = metav1.NewTime(fixture.T0.Add(10 * time.Minute))
			return o
		}(),
	}, {
		name:          "parked sets claim by the Gateway's key: the second parked is told of the first",
		ls:            parkedOn(fixture.Attached("team-b", "later", 0, fixture.Entry("login", 8080, "HTTP", "login.a.example.com")), "gateway-ns", "missing"),
		cluster:       &incluster.Objects{Gateways: []*gwv1.Gateway{}, Namespaces: shared().Namespaces, Sets: []*gwv1.ListenerSet{parkedOn(portal(), "gateway-ns", "missing")}},
		claimWarnings: []string{hostPath(0) + ": " + heldByPortal("login.a.example.com")},
	}, {
		name:     "audit: the parked squat that came last is named, though older",
		ls:       moved(squat("login.a.example.com"), 30),
		cluster:  shared(moved(squat("login.a.example.com"), 30)),
		asStored: true,
		tenancy:  deny,
		want:     []string{hostPath(0) + ": " + heldByPortal("login.a.example.com")},
	}, {
		name:     "audit: the victim is not",
		ls:       portal(),
		cluster:  shared(moved(squat("login.a.example.com"), 30)),
		asStored: true,
		tenancy:  deny,
	}, {
		name: "audit: a set created and never moved keeps the spec's order",
		ls:   portal(),
		// squat never written after its creation: it came first
		cluster:  shared(squat("login.a.example.com")),
		asStored: true,
		tenancy:  deny,
		want: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameClaimed, "*.a.example.com", "login.a.example.com",
			`namespace "team-b"`, "team-b/squat listener login", 8080)},
	}, {
		name: "audit: when the stored objects cannot tell, both are named as a pair",
		ls:   portal(),
		// squat applied at minute 30 by the manager that owns all of it:
		// a move, or a change of anything else
		cluster:  shared(written(squat("login.a.example.com"), 30, true)),
		asStored: true,
		claimWarnings: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameContested, "*.a.example.com", "login.a.example.com",
			`namespace "team-b"`, "team-b/squat listener login", 8080)},
	}, {
		name:     "audit: the pair's other side",
		ls:       written(squat("login.a.example.com"), 30, true),
		cluster:  shared(written(squat("login.a.example.com"), 30, true)),
		asStored: true,
		claimWarnings: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameContested, "login.a.example.com", "*.a.example.com",
			`namespace "team-a"`, "team-a/portal listener https", 443)},
	}, {
		name: "audit: a set whose spec never changed (generation 1) came with its creation",
		ls:   portal(),
		cluster: shared(func() *gwv1.ListenerSet {
			ls := written(squat("login.a.example.com"), 30, true)
			ls.Generation = 1
			return ls
		}()),
		asStored: true,
		tenancy:  deny,
		want: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameClaimed, "*.a.example.com", "login.a.example.com",
			`namespace "team-b"`, "team-b/squat listener login", 8080)},
	}, {
		name: "audit: managedFields owning no parentRef cannot tell either",
		ls:   portal(),
		cluster: shared(written(func() *gwv1.ListenerSet {
			ls := squat("login.a.example.com")
			ls.ManagedFields = nil
			return ls
		}(), 30, false)),
		asStored: true,
		claimWarnings: []string{hostPath(0) + ": " + fmt.Sprintf(incluster.DetailHostnameContested, "*.a.example.com", "login.a.example.com",
			`namespace "team-b"`, "team-b/squat listener login", 8080)},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			errs, warnings := Validate(tc.ls, tc.old, Options{Cluster: tc.cluster, Tenancy: tc.tenancy, AsStored: tc.asStored})
			var got, claimWarnings []string
			for _, e := range coded(t, errs) {
				got = append(got, e.Field+": "+e.Detail)
			}
			for _, w := range codedWarnings(t, warnings) {
				if w.Code == incluster.CodeHostnameClaimed {
					claimWarnings = append(claimWarnings, w.Path+": "+w.Message)
				}
			}
			assert.Equal(t, tc.want, got, "errors")
			assert.Equal(t, tc.claimWarnings, claimWarnings, "first-claim warnings")
		})
	}
}

// parkedGateway is another Gateway of gateway-ns, of Airlock's class,
// admitting every namespace.
func parkedGateway(name string) *gwv1.Gateway {
	gw := fixture.Gateway(gwv1.NamespacesFromAll)
	gw.Name = name
	return gw
}

// TestMergedListenersClaimsByArrival: the listing's claims follow the
// order sets came to the Gateway, as the audit's verdict does: team-b's
// set, older but moved here by a patch of its parentRef after team-a's
// came, is held by team-a's, not the other way round; without the move
// it is the holder, by the spec's precedence.
func TestMergedListenersClaimsByArrival(t *testing.T) {
	gw := fixture.Gateway(gwv1.NamespacesFromAll)
	a := fixture.Attached("team-a", "a", 5, fixture.Entry("https", 443, "HTTP", "*.a.example.com"))
	o := &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{fixture.Namespace("team-a", nil), fixture.Namespace("team-b", nil)}}
	for _, tc := range []struct {
		name    string
		b       *gwv1.ListenerSet
		bHeld   bool
		verdict []string
	}{
		{"moved here later", moved(fixture.Attached("team-b", "b", 1, fixture.Entry("login", 8080, "HTTP", "login.a.example.com")), 30), true, []string{"team-b"}},
		{"created here first", fixture.Attached("team-b", "b", 1, fixture.Entry("login", 8080, "HTTP", "login.a.example.com")), false, []string{"team-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := incluster.MergedListeners(gw, []*gwv1.ListenerSet{a, tc.b}, incluster.MergeOptions{Cluster: o, Tenancy: &incluster.Tenancy{}})
			require.Len(t, rows, 2)
			// rows in precedence order: b (older) first
			assert.Equal(t, tc.bHeld, rows[0].HeldBy != nil, "b held: %+v", rows[0].HeldBy)
			assert.Equal(t, !tc.bHeld, rows[1].HeldBy != nil, "a held: %+v", rows[1].HeldBy)
			// the audit flags the same side
			var flagged []string
			for _, ls := range []*gwv1.ListenerSet{a, tc.b} {
				r := Judge(ls, nil, Options{Cluster: &incluster.Objects{Gateways: []*gwv1.Gateway{gw}, Sets: []*gwv1.ListenerSet{a, tc.b}, Namespaces: o.Namespaces}, AsStored: true})
				for _, w := range r.Warnings.List() {
					if w.Code == incluster.CodeHostnameClaimed {
						flagged = append(flagged, ls.Namespace)
					}
				}
			}
			assert.Equal(t, tc.verdict, flagged)
		})
	}
}

// TestTrimmedManagedFieldsKeepTheArrival: the cache's trimmed entries give
// ArrivalOf and the stored-before decision the full entries' answers.
func TestTrimmedManagedFieldsKeepTheArrival(t *testing.T) {
	gw := fixture.Gateway(gwv1.NamespacesFromAll)
	gw.CreationTimestamp = metav1.NewTime(fixture.T0.Add(10 * time.Minute))
	for _, ls := range []*gwv1.ListenerSet{
		fixture.Attached("a", "none", 1),
		written(fixture.Attached("a", "owned", 1), 20, true),
		written(written(fixture.Attached("a", "owned-then-label", 1), 5, true), 30, false),
		written(fixture.Attached("a", "label-only", 1), 30, false),
		written(fixture.Attached("a", "before-the-gateway", 1), 2, true),
		moved(written(fixture.Attached("a", "applied-then-patched", 1), 1, true), 20),
		written(moved(written(fixture.Attached("a", "patched-then-applied", 1), 1, true), 20), 25, true),
	} {
		trimmed := ls.DeepCopy()
		trimmed.ManagedFields = incluster.TrimmedManagedFields(ls)
		assert.Equal(t, incluster.ArrivalOf(ls), incluster.ArrivalOf(trimmed), ls.Name)
		assert.Equal(t, incluster.StoredBefore(ls, gw), incluster.StoredBefore(trimmed, gw), ls.Name)
		// a status entry changes nothing
		status := ls.DeepCopy()
		at := metav1.NewTime(fixture.T0.Add(time.Hour))
		status.ManagedFields = append(status.ManagedFields, metav1.ManagedFieldsEntry{Subresource: "status", Time: &at,
			FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:parentRef":{}}}`)})
		assert.Equal(t, incluster.ArrivalOf(ls), incluster.ArrivalOf(status), ls.Name+" with status")
	}
}
