package validation

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Details of the option rules' errors, shared with the policy package's CEL.
const (
	// DetailUnprefixedOption: Gateway API reserves un-prefixed option names.
	DetailUnprefixedOption = "un-prefixed option names are reserved by Gateway API; use " + OptionPrefix + "<name>"
	// DetailTLS13Cipher: a TLS 1.3 suite named in the ciphers option.
	DetailTLS13Cipher = "TLS 1.3 cipher suites are not configurable; this option applies to TLS 1.0-1.2 only"
	// DetailEmptyNameList: a list-valued option set to "".
	DetailEmptyNameList = "must be a comma-separated list of names, not empty"
	// DetailEmptyItem: a list-valued option with an empty item ("a,,b").
	DetailEmptyItem = "must not contain empty items"
	// DetailPaddedItem: a list item with spaces around it ("a, b").
	DetailPaddedItem = "items must not have surrounding spaces"
	// DetailVersionBelowMinimum: maximumVersion below minimumVersion (%s).
	DetailVersionBelowMinimum = "must not be lower than minimumVersion (%s)"
	// DetailHTTP3NeedsTLS13: an http3 listener's maximumVersion below 1.3.
	DetailHTTP3NeedsTLS13 = "must be " + TLSVersionHTTP3 + " for protocol " + string(ProtocolHTTP3) + ": HTTP/3 runs over QUIC, which requires TLS 1.3"
)

// validateOptions checks tls.options: Gateway API reserves un-prefixed keys,
// Airlock owns the microgateway.airlock.com/ prefix, and Envoy refuses a whole
// listener over one bad name, so every value is checked here, before it is
// stored. Keys are visited in sorted order so the errors are stable.
func validateOptions(options map[gwv1.AnnotationKey]gwv1.AnnotationValue, protocol gwv1.ProtocolType, fldPath *field.Path, w *Warnings) field.ErrorList {
	var errs field.ErrorList
	if len(options) > MaxOptions {
		errs = append(errs, field.TooMany(fldPath, len(options), MaxOptions))
	}
	for _, key := range sortedKeys(options, make([]gwv1.AnnotationKey, 0, MaxOptions)) {
		value, keyPath := string(options[key]), fldPath.Key(string(key))
		if len(value) > MaxOptionValueLen {
			errs = append(errs, field.TooLong(keyPath, value, MaxOptionValueLen))
			continue
		}
		switch ours := strings.HasPrefix(string(key), OptionPrefix); {
		case !strings.Contains(string(key), "/"):
			errs = append(errs, field.Invalid(keyPath, string(key),
				DetailUnprefixedOption))
		case !ours:
			keyErrs := validation.IsDomainPrefixedKey(keyPath, string(key))
			errs = append(errs, keyErrs...)
			if len(keyErrs) == 0 {
				w.add(keyPath, KindForeignOption, WarnForeignOption)
			}
		default:
			errs = append(errs, validateOption(key, value, keyPath)...)
		}
	}
	return append(errs, validateVersionRange(options, protocol, fldPath)...)
}

func validateOption(key gwv1.AnnotationKey, value string, fldPath *field.Path) field.ErrorList {
	switch key {
	case OptionALPNProtocols:
		return validateNameList(value, ALPNProtocols, fldPath, nil)
	case OptionCiphers:
		return validateNameList(value, Ciphers, fldPath, tls13Cipher)
	case OptionECDHCurves:
		return validateNameList(value, ECDHCurves, fldPath, nil)
	case OptionSignatureAlgorithms:
		return validateNameList(value, SignatureAlgorithms, fldPath, nil)
	case OptionMinimumVersion, OptionMaximumVersion:
		if !slices.Contains(TLSVersions, value) {
			return field.ErrorList{field.NotSupported(fldPath, value, TLSVersions)}
		}
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, string(key), SupportedOptions)}
}

// tls13Cipher explains why a TLS 1.3 suite, a real name, is still wrong here.
func tls13Cipher(item string) string {
	if slices.Contains(TLS13Ciphers, item) {
		return DetailTLS13Cipher
	}
	return ""
}

// validateNameList checks a comma-separated list of names, the format of
// every list-valued Airlock TLS option: not empty, no empty or padded items,
// no repeats, each one of allowed. explain, when set, may return a better
// message for an unsupported item than the list of supported values.
func validateNameList(value string, allowed []string, fldPath *field.Path, explain func(string) string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Invalid(fldPath, value, DetailEmptyNameList)}
	}
	var errs field.ErrorList
	// The items are visited in place (no split, no set: the lists are short).
	for rest, before := value, 0; ; {
		item, after, more := strings.Cut(rest, ",")
		switch {
		case item == "":
			errs = append(errs, field.Invalid(fldPath, value, DetailEmptyItem))
		case strings.TrimSpace(item) != item:
			errs = append(errs, field.Invalid(fldPath, item, DetailPaddedItem))
		case listContains(value[:before], item):
			errs = append(errs, field.Duplicate(fldPath, item))
		case slices.Contains(allowed, item):
		case explain != nil && explain(item) != "":
			errs = append(errs, field.Invalid(fldPath, item, explain(item)))
		default:
			errs = append(errs, field.NotSupported(fldPath, item, allowed))
		}
		if !more {
			return errs
		}
		before += len(item) + 1
		rest = after
	}
}

// listContains reports whether the comma-separated list has item.
func listContains(list, item string) bool {
	for list != "" {
		var first string
		first, list, _ = strings.Cut(list, ",")
		if first == item {
			return true
		}
	}
	return false
}

// sortedKeys appends the keys of options to buf, sorted, so errors come in a
// stable order. With buf's room for MaxOptions keys on the stack, the usual
// map costs no allocation.
func sortedKeys(options map[gwv1.AnnotationKey]gwv1.AnnotationValue, buf []gwv1.AnnotationKey) []gwv1.AnnotationKey {
	for key := range options {
		buf = append(buf, key)
	}
	slices.Sort(buf)
	return buf
}

// validateVersionRange: the versions must form a range, and HTTP/3 runs over
// QUIC, which needs TLS 1.3, so an http3 listener must allow it.
func validateVersionRange(options map[gwv1.AnnotationKey]gwv1.AnnotationValue, protocol gwv1.ProtocolType, fldPath *field.Path) field.ErrorList {
	minV, maxV := string(options[OptionMinimumVersion]), string(options[OptionMaximumVersion])
	lo, hi := slices.Index(TLSVersions, minV), slices.Index(TLSVersions, maxV)
	maxPath := fldPath.Key(string(OptionMaximumVersion))
	var errs field.ErrorList
	if lo >= 0 && hi >= 0 && lo > hi {
		errs = append(errs, field.Invalid(maxPath, maxV, fmt.Sprintf(DetailVersionBelowMinimum, minV)))
	}
	if protocol == ProtocolHTTP3 && hi >= 0 && maxV != TLSVersionHTTP3 {
		errs = append(errs, field.Invalid(maxPath, maxV, DetailHTTP3NeedsTLS13))
	}
	return errs
}
