package validation

import gwv1 "sigs.k8s.io/gateway-api/apis/v1"

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

// SupportedOptions lists Airlock Microgateway's TLS option keys, sorted.
var SupportedOptions = []gwv1.AnnotationKey{
	OptionALPNProtocols, OptionCiphers, OptionECDHCurves,
	OptionMaximumVersion, OptionMinimumVersion, OptionSignatureAlgorithms,
}

// ListOptions are the list-valued options (a comma-separated list of
// names), sorted: the ones AddedNames may add names to.
var ListOptions = []gwv1.AnnotationKey{OptionALPNProtocols, OptionCiphers, OptionECDHCurves, OptionSignatureAlgorithms}

// builtinNames are the names each list-valued option accepts.
var builtinNames = map[gwv1.AnnotationKey][]string{
	OptionALPNProtocols:       ALPNProtocols,
	OptionCiphers:             Ciphers,
	OptionECDHCurves:          ECDHCurves,
	OptionSignatureAlgorithms: SignatureAlgorithms,
}

// BuiltinNames are the names the list-valued option key accepts in this
// build, in the order a message lists them (nil for another key).
func BuiltinNames(key gwv1.AnnotationKey) []string { return builtinNames[key] }

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

// TLS13Ciphers are BoringSSL's TLS 1.3 suites. They are not configurable, so
// naming one in the ciphers option is a mistake worth its own message.
var TLS13Ciphers = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

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
