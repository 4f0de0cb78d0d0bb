package validation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// validListenerSet is the base every table row mutates: valid, defaulted as
// kube-apiserver stores it, and using every protocol and TLS option.
func validListenerSet() *gwv1.ListenerSet {
	routes := func() *gwv1.AllowedRoutes {
		return &gwv1.AllowedRoutes{
			Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromSame)},
			Kinds:      []gwv1.RouteGroupKind{{Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: "HTTPRoute"}},
		}
	}
	tls := func(name string) *gwv1.ListenerTLSConfig {
		return &gwv1.ListenerTLSConfig{
			Mode: ptr.To(gwv1.TLSModeTerminate),
			CertificateRefs: []gwv1.SecretObjectReference{{
				Group: ptr.To[gwv1.Group](""), Kind: ptr.To[gwv1.Kind]("Secret"), Name: gwv1.ObjectName(name),
			}},
		}
	}
	quic := tls("quic-cert")
	// every Airlock option, each set to its example (AirlockOptions)
	quic.Options = object.ExampleOptions()
	return &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ls"},
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{
				Group: ptr.To[gwv1.Group](gwv1.GroupName), Kind: ptr.To[gwv1.Kind]("Gateway"),
				Name: "gw", Namespace: ptr.To[gwv1.Namespace]("gateway-ns"),
			},
			Listeners: []gwv1.ListenerEntry{
				{Name: "web", Port: 80, Protocol: "HTTP", Hostname: ptr.To[gwv1.Hostname]("example.com"), AllowedRoutes: routes()},
				{Name: "secure", Port: 443, Protocol: "HTTPS", Hostname: ptr.To[gwv1.Hostname]("*.example.com"), TLS: tls("cert"), AllowedRoutes: routes()},
				{Name: "quic.v3", Port: 8443, Protocol: object.ProtocolHTTP3, TLS: quic, AllowedRoutes: routes()},
			},
		},
	}
}

// foreignPastLimit is how many options of another domain take the base's
// http3 listener, which has every Airlock option, one past MaxOptions.
var foreignPastLimit = object.MaxOptions + 1 - len(object.AirlockOptions)

var (
	spec      = field.NewPath("spec")
	listeners = spec.Child("listeners")
	parentRef = spec.Child("parentRef")
)

func listenerPath(i int) *field.Path { return listeners.Index(i) }
func tlsPath(i int) *field.Path      { return listenerPath(i).Child("tls") }
func optionPath(i int, key gwv1.AnnotationKey) *field.Path {
	return tlsPath(i).Child("options").Key(string(key))
}

// withDetail is e with its detail replaced, for the errors a rule words
// past a constructor's own detail.
func withDetail(e *field.Error, detail string) *field.Error {
	e.Detail = detail
	return e
}

// quotedList is field.NotSupported's "supported values" list.
func quotedList(values []string) string {
	return strings.TrimPrefix(field.NotSupported(nil, "", values).Detail, "supported values: ")
}

func setOption(ls *gwv1.ListenerSet, i int, key gwv1.AnnotationKey, value string) {
	if ls.Spec.Listeners[i].TLS.Options == nil {
		ls.Spec.Listeners[i].TLS.Options = map[gwv1.AnnotationKey]gwv1.AnnotationValue{}
	}
	ls.Spec.Listeners[i].TLS.Options[key] = gwv1.AnnotationValue(value)
}

func TestValidateListenerSet(t *testing.T) {
	dns1123 := "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	tls13 := "TLS 1.3 cipher suites are not configurable; this option applies to TLS 1.0-1.2 only"

	tests := []struct {
		rule     string
		mutate   func(*gwv1.ListenerSet)
		want     field.ErrorList
		warnings []string
	}{
		{rule: "base object is valid", mutate: func(*gwv1.ListenerSet) {}},

		// 1. listeners: count, names, uniqueness
		{
			rule:   "listeners: at least one",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = nil },
			want:   field.ErrorList{field.Required(listeners, "at least one listener is required")},
		},
		{
			rule: "listeners: at most 64",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners = nil
				for i := range 65 {
					ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{
						Name: gwv1.SectionName(fmt.Sprintf("l%d", i)), Port: 80, Protocol: "HTTP",
						Hostname: ptr.To(gwv1.Hostname(fmt.Sprintf("h%d.example.com", i))),
					})
				}
			},
			want: field.ErrorList{field.TooMany(listeners, 65, 64)},
		},
		{
			rule: "listeners: past 64, only the first 64 are judged (the set rules are quadratic)",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners = manyListeners(200)
				ls.Spec.Listeners[63].Port = 0
				for i := 64; i < 200; i++ {
					ls.Spec.Listeners[i] = ls.Spec.Listeners[0]
				}
			},
			want: field.ErrorList{
				field.TooMany(listeners, 200, 64),
				field.Invalid(listenerPath(63).Child("port"), int32(0), "must be between 1 and 65535, inclusive"),
			},
		},
		{
			rule:   "listeners: exactly 64 is fine",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = manyListeners(64) },
		},
		{
			rule:   "name: required",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].Name = "" },
			want:   field.ErrorList{field.Required(listenerPath(1).Child("name"), "")},
		},
		{
			rule:   "name: DNS subdomain, lowercase",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Name = "Web_1" },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("name"), "Web_1", dns1123)},
		},
		{
			rule:   "name: at most 253 characters",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Name = gwv1.SectionName(strings.Repeat("a", 254)) },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("name"), strings.Repeat("a", 254), "must be no more than 253 characters")},
		},
		{
			rule:   "name: unique, Duplicate on the later entry",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].Name = "web" },
			want:   field.ErrorList{field.Duplicate(listenerPath(2).Child("name"), "web")},
		},

		// 2. port
		{
			rule:   "port: not 0",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 0 },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("port"), int32(0), "must be between 1 and 65535, inclusive")},
		},
		{
			rule:   "port: not above 65535",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 65536 },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("port"), int32(65536), "must be between 1 and 65535, inclusive")},
		},
		{
			rule:   "port: 65535 is fine",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 65535 },
		},

		// 3. protocol
		{
			rule: "protocol: only HTTP, HTTPS and http3",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].Protocol = "TCP"
			},
			want: field.ErrorList{field.NotSupported(listenerPath(0).Child("protocol"), "TCP", object.SupportedProtocols)},
		},
		{
			rule:   "protocol: exact spelling",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].Protocol = "https" },
			want:   field.ErrorList{field.NotSupported(listenerPath(1).Child("protocol"), "https", object.SupportedProtocols)},
		},
		{
			rule:   "protocol: required",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Protocol = "" },
			want:   field.ErrorList{field.Required(listenerPath(0).Child("protocol"), "")},
		},

		// 4. tls presence and mode
		{
			rule:   "tls: required for HTTPS",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].TLS = nil },
			want:   field.ErrorList{field.Required(tlsPath(1), "required for protocol HTTPS")},
		},
		{
			rule:   "tls: required for http3",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].TLS = nil },
			want:   field.ErrorList{field.Required(tlsPath(2), "required for protocol microgateway.airlock.com/http3")},
		},
		{
			rule: "tls: forbidden for HTTP",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].TLS = ls.Spec.Listeners[1].TLS
			},
			want: field.ErrorList{field.Forbidden(tlsPath(0), "must not be set for protocol HTTP")},
		},
		{
			rule:   "tls.mode: Passthrough rejected",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].TLS.Mode = ptr.To(gwv1.TLSModePassthrough) },
			want:   field.ErrorList{field.NotSupported(tlsPath(1).Child("mode"), "Passthrough", []string{"Terminate"})},
		},
		{
			rule:   "tls.mode: anything else rejected",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].TLS.Mode = ptr.To[gwv1.TLSModeType]("terminate") },
			want:   field.ErrorList{field.NotSupported(tlsPath(2).Child("mode"), "terminate", []string{"Terminate"})},
		},
		{
			rule:   "tls.mode: unset means Terminate",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].TLS.Mode = nil },
		},

		// 5. certificateRefs
		{
			rule: "certificateRefs: zero is Required even with options",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[2].TLS.CertificateRefs = nil
			},
			want: field.ErrorList{field.Required(tlsPath(2).Child("certificateRefs"), "exactly one certificateRef is required when mode is Terminate")},
		},
		{
			rule: "certificateRefs: more than one is TooMany",
			mutate: func(ls *gwv1.ListenerSet) {
				refs := &ls.Spec.Listeners[1].TLS.CertificateRefs
				*refs = append(*refs, gwv1.SecretObjectReference{Name: "other"})
			},
			want: field.ErrorList{field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1)},
		},
		{
			rule: "certificateRefs: kind Secret, group core",
			mutate: func(ls *gwv1.ListenerSet) {
				ref := &ls.Spec.Listeners[1].TLS.CertificateRefs[0]
				ref.Kind, ref.Group = ptr.To[gwv1.Kind]("ConfigMap"), ptr.To[gwv1.Group]("v1")
			},
			want: field.ErrorList{
				field.NotSupported(tlsPath(1).Child("certificateRefs").Index(0).Child("group"), "v1", []string{""}),
				field.NotSupported(tlsPath(1).Child("certificateRefs").Index(0).Child("kind"), "ConfigMap", []string{"Secret"}),
			},
		},
		{
			rule:   "certificateRefs: name required",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].TLS.CertificateRefs[0].Name = "" },
			want:   field.ErrorList{field.Required(tlsPath(1).Child("certificateRefs").Index(0).Child("name"), "")},
		},
		{
			rule: "certificateRefs: another namespace earns a ReferenceGrant warning",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Namespace = ptr.To[gwv1.Namespace]("certs")
			},
			warnings: []string{`spec.listeners[1].tls.certificateRefs[0].namespace: cross-namespace reference: needs a ReferenceGrant in namespace "certs"`},
		},
		{
			rule: "certificateRefs: a namespace must be a DNS label",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Namespace = ptr.To[gwv1.Namespace]("Certs")
			},
			want: field.ErrorList{field.Invalid(tlsPath(1).Child("certificateRefs").Index(0).Child("namespace"), "Certs", utilvalidation.IsDNS1123Label("Certs")[0])},
		},
		{
			rule: "certificateRefs: own namespace spelled out is fine",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Namespace = ptr.To[gwv1.Namespace]("team-a")
			},
		},

		// 6. tls.options
		{
			rule: "options: at most 16 keys",
			mutate: func(ls *gwv1.ListenerSet) {
				for i := range foreignPastLimit {
					setOption(ls, 2, gwv1.AnnotationKey(fmt.Sprintf("example.com/o%02d", i)), "x")
				}
			},
			want:     field.ErrorList{field.TooMany(tlsPath(2).Child("options"), 17, 16)},
			warnings: foreignOptionWarnings(2, foreignPastLimit),
		},
		{
			rule:   "options: values at most 4096 bytes",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 1, "example.com/big", strings.Repeat("x", 4097)) },
			want:   field.ErrorList{field.TooLong(optionPath(1, "example.com/big"), "", 4096)},
		},
		{
			rule:   "options: un-prefixed keys are reserved",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 1, "minimumVersion", "TLSv1_2") },
			want: field.ErrorList{field.Invalid(optionPath(1, "minimumVersion"), "minimumVersion",
				"un-prefixed option names are reserved by Gateway API; use microgateway.airlock.com/<name>")},
		},
		{
			rule:   "options: unknown Airlock key names the supported ones",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 1, "microgateway.airlock.com/cipher", "AES128-SHA") },
			want: field.ErrorList{field.NotSupported(optionPath(1, "microgateway.airlock.com/cipher"),
				"microgateway.airlock.com/cipher", object.SupportedOptions)},
		},
		{
			rule:     "options: another domain's key is allowed with a warning",
			mutate:   func(ls *gwv1.ListenerSet) { setOption(ls, 1, "example.com/foo", "bar") },
			warnings: []string{"spec.listeners[1].tls.options[example.com/foo]: not an Airlock Microgateway option; Airlock ignores it"},
		},
		{
			rule:   "options: a malformed domain prefix is rejected",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 1, "Example.com/foo", "bar") },
			want: field.ErrorList{field.Invalid(optionPath(1, "Example.com/foo"), "Example.com/foo",
				"prefix part "+dns1123)},
		},
		{
			rule:   "alpn-protocols: not empty",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "") },
			want: field.ErrorList{field.Invalid(optionPath(2, object.OptionALPNProtocols), "",
				"must be a comma-separated list of names, not empty")},
		},
		{
			rule:   "alpn-protocols: no empty items",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "h2,,http/1.1") },
			want: field.ErrorList{field.Invalid(optionPath(2, object.OptionALPNProtocols), "h2,,http/1.1",
				"must not contain empty items")},
		},
		{
			rule:   "alpn-protocols: no duplicates",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "h2,http/1.1,h2") },
			want:   field.ErrorList{field.Duplicate(optionPath(2, object.OptionALPNProtocols), "h2")},
		},
		{
			rule:   "alpn-protocols: only h2 and http/1.1, every bad item reported",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "h3,http/1.1,spdy/3") },
			want: field.ErrorList{
				field.NotSupported(optionPath(2, object.OptionALPNProtocols), "h3", object.ALPNProtocols),
				field.NotSupported(optionPath(2, object.OptionALPNProtocols), "spdy/3", object.ALPNProtocols),
			},
		},
		{
			rule: "name lists: past MaxShownItems bad items of a kind, one error names the first few and their number",
			mutate: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionCiphers, "AES128-SHA,x1,x2,AES128-SHA,x3,x4,x5")
			},
			want: field.ErrorList{
				field.Duplicate(optionPath(1, object.OptionCiphers), "AES128-SHA"),
				withDetail(field.NotSupported(optionPath(1, object.OptionCiphers), []string{"x1", "x2", "x3"}, object.Ciphers),
					"5 items, the first 3 shown; supported values: "+quotedList(object.Ciphers)),
			},
		},
		{
			rule: "name lists: a long list (a map, not a scan) still finds every repeat, and cuts long items",
			mutate: func(ls *gwv1.ListenerSet) {
				long := strings.Repeat("z", 300)
				setOption(ls, 1, object.OptionECDHCurves, strings.Repeat("X25519,", 40)+long+",a,b,c,d")
			},
			want: field.ErrorList{
				withDetail(field.Duplicate(optionPath(1, object.OptionECDHCurves), []string{"X25519", "X25519", "X25519"}), "39 items, the first 3 shown"),
				withDetail(field.NotSupported(optionPath(1, object.OptionECDHCurves),
					[]string{strings.Repeat("z", findings.MaxValueRunes-len("... (300 bytes)")) + "... (300 bytes)", "a", "b"}, object.ECDHCurves),
					"5 items, the first 3 shown; supported values: "+quotedList(object.ECDHCurves)),
			},
		},
		{
			rule:   "name lists: every empty item is one error",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "h2,,,,http/1.1,") },
			want: field.ErrorList{field.Invalid(optionPath(2, object.OptionALPNProtocols), "h2,,,,http/1.1,",
				"must not contain empty items")},
		},
		{
			rule:   "alpn-protocols: no padding around items",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "h2, http/1.1") },
			want: field.ErrorList{field.Invalid(optionPath(2, object.OptionALPNProtocols), " http/1.1",
				"items must not have surrounding spaces")},
		},
		{
			rule:   "alpn-protocols: a single protocol is fine",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionALPNProtocols, "http/1.1") },
		},
		{
			rule: "ciphers: BoringSSL names only",
			mutate: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionCiphers, "ECDHE-RSA-AES128-GCM-SHA256,TLS_RSA_WITH_AES_128_GCM_SHA256")
			},
			want: field.ErrorList{field.NotSupported(optionPath(1, object.OptionCiphers), "TLS_RSA_WITH_AES_128_GCM_SHA256", object.Ciphers)},
		},
		{
			rule: "ciphers: TLS 1.3 suites are not configurable",
			mutate: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionCiphers, "TLS_AES_128_GCM_SHA256,AES128-SHA")
			},
			want: field.ErrorList{field.Invalid(optionPath(1, object.OptionCiphers), "TLS_AES_128_GCM_SHA256", tls13)},
		},
		{
			rule:   "ciphers: every listed suite is accepted",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 1, object.OptionCiphers, strings.Join(object.Ciphers, ",")) },
		},
		{
			rule:   "ecdhCurves: known curves only",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionECDHCurves, "X25519,secp256r1") },
			want:   field.ErrorList{field.NotSupported(optionPath(2, object.OptionECDHCurves), "secp256r1", object.ECDHCurves)},
		},
		{
			rule:   "ecdhCurves: names are case sensitive",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionECDHCurves, "x25519") },
			want:   field.ErrorList{field.NotSupported(optionPath(2, object.OptionECDHCurves), "x25519", object.ECDHCurves)},
		},
		{
			rule:   "signatureAlgorithms: BoringSSL names only",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionSignatureAlgorithms, "ed25519,ECDSA+SHA256") },
			want:   field.ErrorList{field.NotSupported(optionPath(2, object.OptionSignatureAlgorithms), "ECDSA+SHA256", object.SignatureAlgorithms)},
		},
		{
			rule: "minimumVersion/maximumVersion: Airlock spelling",
			mutate: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionMinimumVersion, "TLS1.2")
				setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_4")
			},
			want: field.ErrorList{
				field.NotSupported(optionPath(1, object.OptionMaximumVersion), "TLSv1_4", object.TLSVersions),
				field.NotSupported(optionPath(1, object.OptionMinimumVersion), "TLS1.2", object.TLSVersions),
			},
		},
		{
			rule: "minimumVersion <= maximumVersion",
			mutate: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionMinimumVersion, "TLSv1_3")
				setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_2")
			},
			want: field.ErrorList{field.Invalid(optionPath(1, object.OptionMaximumVersion), "TLSv1_2", "must not be lower than minimumVersion (TLSv1_3)")},
		},
		{
			rule: "minimumVersion == maximumVersion is fine",
			mutate: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionMinimumVersion, "TLSv1_2")
				setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_2")
			},
		},
		{
			rule:   "http3: maximumVersion must allow TLS 1.3",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionMaximumVersion, "TLSv1_2") },
			want: field.ErrorList{field.Invalid(optionPath(2, object.OptionMaximumVersion), "TLSv1_2",
				"must be TLSv1_3 for protocol microgateway.airlock.com/http3: HTTP/3 runs over QUIC, which requires TLS 1.3")},
		},
		{
			rule:   "http3: minimumVersion below 1.3 stays allowed for the TCP fallback",
			mutate: func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionMinimumVersion, "TLSv1_0") },
		},

		// 7. hostname
		{
			rule:   "hostname: lowercase",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("Example.com") },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "Example.com", dns1123)},
		},
		{
			rule:   "hostname: no IPv4 address",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("10.0.0.1") },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "10.0.0.1", "must be a DNS name, not an IP address")},
		},
		{
			rule:   "hostname: no IPv6 address",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("[::1]") },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "[::1]", "must be a DNS name, not an IP address")},
		},
		{
			rule:   "hostname: no port",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("example.com:80") },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "example.com:80", "must not include a port")},
		},
		{
			rule:   "hostname: wildcard only as the whole first label",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("*.*.example.com") },
			want: field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "*.*.example.com",
				"after the leading '*.': "+dns1123)},
		},
		{
			rule:   "hostname: at most 253 characters",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To(gwv1.Hostname(longHostname(254))) },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), longHostname(254), "must be no more than 253 characters")},
		},
		{
			rule: "hostname: a wildcard at most 253 characters",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].Hostname = ptr.To(gwv1.Hostname("*." + longHostname(252)))
			},
			want: field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "*."+longHostname(252), "must be no more than 253 characters")},
		},
		{
			rule:   "hostname: a wildcard needs a name after it",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("*") },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "*", dns1123)},
		},
		{
			rule: "hostname: a label of more than 63 characters earns a warning (no SNI or Host can match it)",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].Hostname = ptr.To(gwv1.Hostname("shop." + strings.Repeat("x", 64) + ".example.com"))
			},
			warnings: []string{`spec.listeners[0].hostname: label "xxxxxxxxxxxxxxxxxxxx..." has 64 characters, more than RFC 1123's 63: no client's SNI or Host header can match it`},
		},
		{
			rule: "hostname: a label of 63 characters is fine, after a wildcard too",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].Hostname = ptr.To(gwv1.Hostname("*." + strings.Repeat("x", 63) + ".example.com"))
			},
		},
		{
			rule:   "hostname: not empty when set",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Hostname = ptr.To[gwv1.Hostname]("") },
			want:   field.ErrorList{field.Invalid(listenerPath(0).Child("hostname"), "", "must not be empty; omit the field to match every hostname")},
		},

		// 8. conflicts within the set
		{
			rule: "conflict: same port, protocol and hostname",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[2].Protocol, ls.Spec.Listeners[2].Port = "HTTPS", 443
				ls.Spec.Listeners[2].Hostname = ptr.To[gwv1.Hostname]("*.example.com")
			},
			want: field.ErrorList{field.Invalid(listenerPath(2).Child("hostname"), "*.example.com",
				fmt.Sprintf(object.DetailHostnameConflict, "team-a/ls listener secure"))},
		},
		{
			rule: "conflict: two listeners without hostname on one port",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners = append(ls.Spec.Listeners, ls.Spec.Listeners[0])
				ls.Spec.Listeners[0].Hostname, ls.Spec.Listeners[3].Hostname = nil, nil
				ls.Spec.Listeners[3].Name = "web2"
			},
			want: field.ErrorList{field.Invalid(listenerPath(3).Child("hostname"), "",
				fmt.Sprintf(object.DetailHostnameConflict, "team-a/ls listener web"))},
		},
		{
			rule: "conflict: same port and protocol, other hostname is fine",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[2].Protocol, ls.Spec.Listeners[2].Port = "HTTPS", 443
				ls.Spec.Listeners[2].Hostname = ptr.To[gwv1.Hostname]("other.example.org")
				ls.Spec.Listeners[2].TLS.Options = nil
			},
		},
		{
			rule:   "conflict: two protocols on one port, reported on the later listener",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].Port = 443 },
			want: field.ErrorList{field.Invalid(listenerPath(2).Child("protocol"), string(object.ProtocolHTTP3),
				fmt.Sprintf(object.DetailProtocolConflict, 443, "HTTPS", "team-a/ls listener secure"))},
		},

		// 9. allowedRoutes
		{
			rule: "allowedRoutes.kinds: HTTPRoute only",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].AllowedRoutes.Kinds = append(ls.Spec.Listeners[0].AllowedRoutes.Kinds,
					gwv1.RouteGroupKind{Kind: "GRPCRoute"}, gwv1.RouteGroupKind{Group: ptr.To[gwv1.Group]("example.com"), Kind: "HTTPRoute"})
			},
			want: field.ErrorList{
				field.NotSupported(listenerPath(0).Child("allowedRoutes", "kinds").Index(1).Child("kind"), "GRPCRoute", []string{"HTTPRoute"}),
				field.NotSupported(listenerPath(0).Child("allowedRoutes", "kinds").Index(2).Child("group"), "example.com", []string{gwv1.GroupName}),
			},
		},
		{
			rule:   "allowedRoutes.kinds: kind required",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].AllowedRoutes.Kinds[0].Kind = "" },
			want:   field.ErrorList{field.Required(listenerPath(0).Child("allowedRoutes", "kinds").Index(0).Child("kind"), "")},
		},
		{
			rule: "allowedRoutes.namespaces.from: All, Same or Selector",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].AllowedRoutes.Namespaces.From = ptr.To(gwv1.NamespacesFromNone)
			},
			want: field.ErrorList{field.NotSupported(listenerPath(0).Child("allowedRoutes", "namespaces", "from"), "None",
				[]string{"All", "Same", "Selector"})},
		},
		{
			rule: "allowedRoutes.namespaces: Selector requires a selector",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].AllowedRoutes.Namespaces.From = ptr.To(gwv1.NamespacesFromSelector)
			},
			want: field.ErrorList{field.Required(listenerPath(0).Child("allowedRoutes", "namespaces", "selector"), "required when from is Selector")},
		},
		{
			rule: "allowedRoutes.namespaces: Selector must be valid",
			mutate: func(ls *gwv1.ListenerSet) {
				ns := ls.Spec.Listeners[0].AllowedRoutes.Namespaces
				ns.From = ptr.To(gwv1.NamespacesFromSelector)
				ns.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "In"}}}
			},
			want: field.ErrorList{field.Required(listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchExpressions").Index(0).Child("values"),
				"must be specified when `operator` is 'In' or 'NotIn'")},
		},
		{
			rule: "allowedRoutes.namespaces: a selector's lists are bounded, items of a list over its bound not judged",
			mutate: func(ls *gwv1.ListenerSet) {
				ns := ls.Spec.Listeners[0].AllowedRoutes.Namespaces
				ns.From = ptr.To(gwv1.NamespacesFromSelector)
				ns.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}}
				for j := range object.MaxSelectorItems + 1 {
					ns.Selector.MatchLabels[fmt.Sprintf("-%d", j)] = "-"
				}
				bad := metav1.LabelSelectorRequirement{Key: "-", Operator: "In"}
				for range object.MaxSelectorItems + 1 {
					bad.Values = append(bad.Values, "-")
				}
				ns.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "team", Operator: "In", Values: []string{"-"}}, bad}
			},
			want: append(field.ErrorList{field.TooMany(listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchLabels"), object.MaxSelectorItems+1, object.MaxSelectorItems)},
				append(metav1validation.ValidateLabelSelectorRequirement(metav1.LabelSelectorRequirement{Key: "team", Operator: "In", Values: []string{"-"}},
					metav1validation.LabelSelectorValidationOptions{}, listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchExpressions").Index(0)).WithOrigin(""),
					field.TooMany(listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchExpressions").Index(1).Child("values"), object.MaxSelectorItems+1, object.MaxSelectorItems))...),
		},
		{
			rule: "allowedRoutes.namespaces: matchExpressions over the bound",
			mutate: func(ls *gwv1.ListenerSet) {
				ns := ls.Spec.Listeners[0].AllowedRoutes.Namespaces
				ns.From = ptr.To(gwv1.NamespacesFromSelector)
				ns.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"-": "a"}}
				for range object.MaxSelectorItems + 1 {
					ns.Selector.MatchExpressions = append(ns.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: "-", Operator: "Bad"})
				}
			},
			want: append(metav1validation.ValidateLabels(map[string]string{"-": "a"}, listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchLabels")).WithOrigin(""),
				field.TooMany(listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchExpressions"), object.MaxSelectorItems+1, object.MaxSelectorItems)),
		},
		{
			rule: "allowedRoutes.namespaces: a selector at its bounds is fine",
			mutate: func(ls *gwv1.ListenerSet) {
				ns := ls.Spec.Listeners[0].AllowedRoutes.Namespaces
				ns.From = ptr.To(gwv1.NamespacesFromSelector)
				ns.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{}}
				for j := range object.MaxSelectorItems {
					ns.Selector.MatchLabels[fmt.Sprintf("k%d", j)] = "v"
					e := metav1.LabelSelectorRequirement{Key: fmt.Sprintf("e%d", j), Operator: "NotIn"}
					for m := range object.MaxSelectorItems {
						e.Values = append(e.Values, fmt.Sprintf("v%d", m))
					}
					ns.Selector.MatchExpressions = append(ns.Selector.MatchExpressions, e)
				}
			},
		},
		{
			rule: "allowedRoutes.namespaces: a valid Selector is fine",
			mutate: func(ls *gwv1.ListenerSet) {
				ns := ls.Spec.Listeners[0].AllowedRoutes.Namespaces
				ns.From = ptr.To(gwv1.NamespacesFromSelector)
				ns.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
			},
		},
		{
			rule: "allowedRoutes.namespaces: selector ignored unless Selector warns",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].AllowedRoutes.Namespaces.Selector = &metav1.LabelSelector{}
			},
			warnings: []string{`spec.listeners[0].allowedRoutes.namespaces.selector: ignored because from is "Same", not "Selector"`},
		},

		// 10. parentRef
		{
			rule: "parentRef: kind Gateway, group gateway.networking.k8s.io",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.ParentRef.Kind, ls.Spec.ParentRef.Group = ptr.To[gwv1.Kind]("Service"), ptr.To[gwv1.Group]("")
			},
			want: field.ErrorList{
				field.NotSupported(parentRef.Child("group"), "", []string{gwv1.GroupName}),
				field.NotSupported(parentRef.Child("kind"), "Service", []string{"Gateway"}),
			},
		},
		{
			rule:   "parentRef: name required",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Name = "" },
			want:   field.ErrorList{field.Required(parentRef.Child("name"), "")},
		},
		{
			rule:   "parentRef: a namespace must be a DNS label",
			mutate: func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Namespace = ptr.To[gwv1.Namespace]("gateway_ns") },
			want:   field.ErrorList{field.Invalid(parentRef.Child("namespace"), "gateway_ns", utilvalidation.IsDNS1123Label("gateway_ns")[0])},
		},
		{
			rule: "parentRef: group and kind unset mean Gateway",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.ParentRef.Kind, ls.Spec.ParentRef.Group = nil, nil
			},
		},

		// every error at once
		{
			rule: "all errors are reported at once, each with its own path",
			mutate: func(ls *gwv1.ListenerSet) {
				ls.Spec.ParentRef.Name = ""
				ls.Spec.Listeners[0].Port = 0
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Kind = ptr.To[gwv1.Kind]("ConfigMap")
				setOption(ls, 2, object.OptionCiphers, "TLS_AES_256_GCM_SHA384")
				ls.Spec.Listeners[2].Port = 443
				ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: "web", Port: 80, Protocol: "HTTP"})
			},
			// in manifest order: each listener's own errors, then its clashes with earlier ones
			want: field.ErrorList{
				field.Required(parentRef.Child("name"), ""),
				field.Invalid(listenerPath(0).Child("port"), int32(0), "must be between 1 and 65535, inclusive"),
				field.NotSupported(tlsPath(1).Child("certificateRefs").Index(0).Child("kind"), "ConfigMap", []string{"Secret"}),
				field.Invalid(optionPath(2, object.OptionCiphers), "TLS_AES_256_GCM_SHA384", tls13),
				field.Invalid(listenerPath(2).Child("protocol"), string(object.ProtocolHTTP3), fmt.Sprintf(object.DetailProtocolConflict, 443, "HTTPS", "team-a/ls listener secure")),
				field.Duplicate(listenerPath(3).Child("name"), "web"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			ls := validListenerSet()
			tc.mutate(ls)
			errs, warnings := Validate(ls, nil, Options{})
			assert.Equal(t, tc.want, coded(t, errs))
			assert.Equal(t, tc.warnings, codedWarnings(t, warnings).Strings())
		})
	}
}

func manyListeners(n int) []gwv1.ListenerEntry {
	var ls []gwv1.ListenerEntry
	for i := range n {
		ls = append(ls, gwv1.ListenerEntry{
			Name: gwv1.SectionName(fmt.Sprintf("l%d", i)), Port: 80, Protocol: "HTTP",
			Hostname: ptr.To(gwv1.Hostname(fmt.Sprintf("h%d.example.com", i))),
		})
	}
	return ls
}

func foreignOptionWarnings(listener, n int) []string {
	var w []string
	for i := range n {
		w = append(w, fmt.Sprintf("spec.listeners[%d].tls.options[example.com/o%02d]: %s", listener, i, object.WarnForeignOption))
	}
	return w
}

// longHostname builds a syntactically fine hostname of n characters.
func longHostname(n int) string {
	s := strings.Repeat("a.", (n-1)/2)
	return s + strings.Repeat("a", n-len(s))
}

func TestErrorPathsReadLikeTheIssue(t *testing.T) {
	ls := validListenerSet()
	ls.Spec.Listeners[1].TLS.CertificateRefs[0].Kind = ptr.To[gwv1.Kind]("ConfigMap")
	setOption(ls, 2, object.OptionCiphers, "nope")
	errs, _ := Validate(ls, nil, Options{})
	require.Len(t, errs, 2)
	assert.Equal(t, "spec.listeners[1].tls.certificateRefs[0].kind", errs[0].Field)
	assert.Equal(t, "spec.listeners[2].tls.options[microgateway.airlock.com/ciphers]", errs[1].Field)
}
