package object

import (
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
)

// The names Airlock Microgateway accepts in its TLS options, in one place.
//
// Taken for Airlock Microgateway 5.1 (5.1.0, 2026-07-01, the first release
// that serves ListenerSets; checked against 5.1.5, 2026-08-20): its reference
// page for ListenerSet v1 (Gateway API v1.6.0) lists the option keys, the
// ALPN names and the version spellings. Airlock passes the options to Envoy,
// whose TLS stack is BoringSSL; Envoy's TlsParameters documentation (api-v3
// extensions/transport_sockets/tls/v3/common.proto) defers to BoringSSL for
// the names, which were read from BoringSSL's ssl/ssl_cipher.cc (cipher
// suites), ssl/ssl_key_share.cc (curves) and ssl/ssl_privkey.cc (signature
// algorithms). docs/rules.md says the same with the sources, and how a
// cluster adds a name a newer Airlock accepts before this build knows it
// (AddedNames).

// Protocols Airlock Microgateway serves on a ListenerSet listener.
const (
	// ProtocolHTTP is cleartext HTTP/1.1 or h2c.
	ProtocolHTTP = gwv1.HTTPProtocolType
	// ProtocolHTTPS is HTTP/1.1 or HTTP/2 over TLS.
	ProtocolHTTPS = gwv1.HTTPSProtocolType
	// ProtocolHTTP3 is HTTP/3 over QUIC plus HTTP/1.1 and HTTP/2 over TLS on
	// the same port.
	ProtocolHTTP3 gwv1.ProtocolType = "microgateway.airlock.com/http3"
)

// SupportedProtocols lists the listener protocols in the order error messages
// name them.
var SupportedProtocols = []gwv1.ProtocolType{ProtocolHTTP, ProtocolHTTPS, ProtocolHTTP3}

// OptionPrefix is the domain prefix of Airlock Microgateway's TLS options.
const OptionPrefix = "microgateway.airlock.com/"

// Airlock Microgateway's TLS option keys.
const (
	OptionALPNProtocols       gwv1.AnnotationKey = OptionPrefix + "alpn-protocols"
	OptionCiphers             gwv1.AnnotationKey = OptionPrefix + "ciphers"
	OptionECDHCurves          gwv1.AnnotationKey = OptionPrefix + "ecdhCurves"
	OptionMaximumVersion      gwv1.AnnotationKey = OptionPrefix + "maximumVersion"
	OptionMinimumVersion      gwv1.AnnotationKey = OptionPrefix + "minimumVersion"
	OptionSignatureAlgorithms gwv1.AnnotationKey = OptionPrefix + "signatureAlgorithms"
)

// AirlockOptions are Airlock Microgateway's TLS options: the one definition
// of each option's key and the values it accepts. The webhook's rules
// (options.go) interpret it; the policy's CEL and its match condition
// (package policy), the code catalog (codes.go), the option rows of
// docs/rules.md and docs/codes.md, and the test fixtures are derived from
// it. Adding an option is one row here (and its code's entry in Doc when it
// needs a code of its own); docs/development.md walks through it.
//
// The order is the one the option rows of docs/rules.md follow, the
// list-valued options first.
var AirlockOptions = []AirlockOption{
	{Key: OptionALPNProtocols, List: true, Values: ALPNProtocols, Code: CodeUnsupportedOptionItem, Example: "h2,http/1.1"},
	{Key: OptionCiphers, List: true, Values: Ciphers, Code: CodeUnsupportedOptionItem,
		Refused: tLS13Ciphers, RefusedCode: CodeTLS13Cipher, RefusedDetail: DetailTLS13Cipher,
		Example: "ECDHE-ECDSA-AES128-GCM-SHA256,ECDHE-RSA-AES128-GCM-SHA256",
		Rule:    "comma-separated TLS 1.0–1.2 suite names BoringSSL accepts (e.g. `ECDHE-ECDSA-AES128-GCM-SHA256`); TLS 1.3 suites are rejected as not configurable"},
	{Key: OptionECDHCurves, List: true, Values: ECDHCurves, Code: CodeUnsupportedOptionItem, Example: "X25519MLKEM768,X25519,P-256"},
	{Key: OptionSignatureAlgorithms, List: true, Values: SignatureAlgorithms, Code: CodeUnsupportedOptionItem,
		Example: "ecdsa_secp256r1_sha256,rsa_pss_rsae_sha256,ed25519",
		Rule:    "comma-separated BoringSSL names (e.g. `ecdsa_secp256r1_sha256`, `rsa_pss_rsae_sha256`, `ed25519`)"},
	{Key: OptionMinimumVersion, Values: TLSVersions, Code: CodeTLSVersion, Example: "TLSv1_2", Rule: versionsRule, Errors: versionsErrors},
	{Key: OptionMaximumVersion, Values: TLSVersions, Code: CodeTLSVersion, Example: TLSVersionHTTP3, Rule: versionsRule, Errors: versionsErrors},
}

// The versions' row of docs/rules.md: their order, and the rules between
// the two options and the protocol (validateVersionRange), are code.
const (
	versionsRule   = "`TLSv1_0`..`TLSv1_3`; minimum ≤ maximum; an http3 listener's maximum, when set, is `TLSv1_3` (QUIC needs TLS 1.3)"
	versionsErrors = "Unsupported value / Invalid"
)

// AirlockOption is one of Airlock Microgateway's TLS options, a row of
// AirlockOptions.
type AirlockOption struct {
	Key gwv1.AnnotationKey
	// List: the value is a comma-separated list of names, each one of
	// Values (or a name a setting adds, AddedNames), each at most once.
	// Otherwise the value is exactly one of Values.
	List bool
	// Values are the names (or values) accepted, in the order a message
	// lists them; for TLS versions, oldest first.
	Values []string
	// Code is the code of a value, or an item of a list, outside Values.
	Code findings.Code
	// Doc, for an option whose Code is its own, is that code's entry of
	// the catalog (Title, Cause, Fix; its code, kind and path are the
	// option's): Code.Doc of a row describes the code once.
	Doc *findings.CodeDoc
	// Refused are names Airlock knows but does not take in this option,
	// each an error of RefusedCode with RefusedDetail rather than an
	// unsupported value (a list-valued option only).
	Refused       []string
	RefusedCode   findings.Code
	RefusedDetail string
	// Example is a valid value, valid for an http3 listener too, with the
	// other options' examples: the fixtures' value (Values[0] when empty).
	Example string
	// Rule and Errors are the option's row of docs/rules.md (derived from
	// Values when empty).
	Rule, Errors string
}

// ExampleValue is o's valid value for fixtures.
func (o AirlockOption) ExampleValue() string {
	if o.Example != "" {
		return o.Example
	}
	return o.Values[0]
}

// ExampleOptions sets every Airlock TLS option to its example: valid
// together, on an HTTPS or an http3 listener.
func ExampleOptions() map[gwv1.AnnotationKey]gwv1.AnnotationValue {
	m := make(map[gwv1.AnnotationKey]gwv1.AnnotationValue, len(AirlockOptions))
	for _, o := range AirlockOptions {
		m[o.Key] = gwv1.AnnotationValue(o.ExampleValue())
	}
	return m
}

// airlockOptions finds a row by its key.
var airlockOptions = func() map[gwv1.AnnotationKey]*AirlockOption {
	m := make(map[gwv1.AnnotationKey]*AirlockOption, len(AirlockOptions))
	for i := range AirlockOptions {
		m[AirlockOptions[i].Key] = &AirlockOptions[i]
	}
	return m
}()

// LookupOption is the row of the Airlock option key; false for another key.
func LookupOption(key gwv1.AnnotationKey) (AirlockOption, bool) {
	o, ok := airlockOptions[key]
	if !ok {
		return AirlockOption{}, false
	}
	return *o, true
}

// optionKeys are the keys of the rows keep takes, sorted.
func optionKeys(keep func(AirlockOption) bool) []gwv1.AnnotationKey {
	var keys []gwv1.AnnotationKey
	for _, o := range AirlockOptions {
		if keep(o) {
			keys = append(keys, o.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// SupportedOptions lists Airlock Microgateway's TLS option keys, sorted.
var SupportedOptions = optionKeys(func(AirlockOption) bool { return true })

// ListOptions are the list-valued options (a comma-separated list of
// names), sorted: the ones AddedNames may add names to.
var ListOptions = optionKeys(func(o AirlockOption) bool { return o.List })

// BuiltinNames are the names the list-valued option key accepts in this
// build, in the order a message lists them (nil for another key).
func BuiltinNames(key gwv1.AnnotationKey) []string {
	if o := airlockOptions[key]; o != nil && o.List {
		return o.Values
	}
	return nil
}

// ALPNProtocols are the application protocols a listener may advertise.
var ALPNProtocols = []string{"h2", "http/1.1"}

// Ciphers are the TLS 1.0–1.2 cipher suites BoringSSL accepts by name.
var Ciphers = []string{
	"DES-CBC3-SHA", "AES128-SHA", "AES256-SHA", "AES128-GCM-SHA256", "AES256-GCM-SHA384",
	"PSK-AES128-CBC-SHA", "PSK-AES256-CBC-SHA", "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA",
	"ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA", "ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256",
	"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES128-GCM-SHA256",
	"ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-PSK-AES128-CBC-SHA", "ECDHE-PSK-AES256-CBC-SHA",
	"ECDHE-RSA-CHACHA20-POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-PSK-CHACHA20-POLY1305",
}

// tLS13Ciphers are BoringSSL's TLS 1.3 suites. They are not configurable, so
// naming one in the ciphers option is a mistake worth its own message.
var tLS13Ciphers = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// ECDHCurves are the key-exchange groups BoringSSL accepts by name.
var ECDHCurves = []string{"X25519MLKEM768", "X25519", "P-256", "P-384", "P-521"}

// SignatureAlgorithms are the signature schemes BoringSSL accepts by name.
var SignatureAlgorithms = []string{
	"rsa_pkcs1_md5_sha1", "rsa_pkcs1_sha1", "rsa_pkcs1_sha256", "rsa_pkcs1_sha384", "rsa_pkcs1_sha512",
	"ecdsa_sha1", "ecdsa_secp256r1_sha256", "ecdsa_secp384r1_sha384", "ecdsa_secp521r1_sha512",
	"rsa_pss_rsae_sha256", "rsa_pss_rsae_sha384", "rsa_pss_rsae_sha512", "ed25519",
}

// TLSVersions are Airlock's spellings of the TLS versions, oldest first: the
// order is what minimumVersion ≤ maximumVersion compares.
var TLSVersions = []string{"TLSv1_0", "TLSv1_1", "TLSv1_2", "TLSv1_3"}

// TLSVersionHTTP3 is the version HTTP/3 needs: QUIC runs on TLS 1.3 only.
const TLSVersionHTTP3 = "TLSv1_3"

// Limits the upstream CRD schema sets; repeated because the webhook must not
// assume the schema ran first.
const (
	MaxListeners      = 64
	MaxOptions        = 16
	MaxOptionValueLen = 4096
)
