package object

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
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
// stored. Keys are visited in sorted order so the errors are stable. Options
// are a map, correlated by key: an option's errors ratchet by its value,
// the count by the whole map.
func validateOptions(i int, options map[gwv1.AnnotationKey]gwv1.AnnotationValue, protocol gwv1.ProtocolType, fldPath *field.Path, v *judging) {
	if len(options) > MaxOptions {
		v.Check(i, field.ErrorList{CodeTooManyOptions.Err(field.TooMany(fldPath, len(options), MaxOptions))}, optionsValue)
	}
	for _, key := range sortedKeys(options, make([]gwv1.AnnotationKey, 0, MaxOptions)) {
		if errs := validateOptionEntry(key, string(options[key]), fldPath.Key(string(key)), v.added, &v.Warnings); len(errs) > 0 {
			v.Check(i, errs, optionValue(key))
		}
	}
	validateVersionRange(i, options, protocol, fldPath, v)
}

// validateOptionEntry checks one option, its key and its value.
func validateOptionEntry(key gwv1.AnnotationKey, value string, keyPath *field.Path, added AddedNames, w *findings.WarningReport) field.ErrorList {
	// in characters, as the CRD's maxLength counts them (and the policy's
	// CEL size()): a value of 4 096 three-byte characters is the CRD's
	if len(value) > MaxOptionValueLen && utf8.RuneCountInString(value) > MaxOptionValueLen {
		return field.ErrorList{CodeOptionTooLong.Err(field.TooLong(keyPath, value, MaxOptionValueLen))}
	}
	switch ours := strings.HasPrefix(string(key), OptionPrefix); {
	case !strings.Contains(string(key), "/"):
		return field.ErrorList{CodeUnprefixedOption.Err(field.Invalid(keyPath, string(key), DetailUnprefixedOption))}
	case !ours:
		keyErrs := CodeOptionKey.Errs(validation.IsDomainPrefixedKey(keyPath, string(key)))
		if len(keyErrs) == 0 {
			warn(w, keyPath, KindForeignOption, WarnForeignOption)
		}
		return keyErrs
	default:
		return validateOption(key, value, keyPath, added)
	}
}

// validateOption checks the value of one of Airlock's options, as its row
// of AirlockOptions says; a list-valued one accepts its built-in names and
// those added.
func validateOption(key gwv1.AnnotationKey, value string, fldPath *field.Path, added AddedNames) field.ErrorList {
	opt := airlockOptions[key]
	switch {
	case opt == nil:
		return field.ErrorList{CodeUnknownOption.Err(field.NotSupported(fldPath, string(key), SupportedOptions))}
	case opt.List:
		return validateNameList(value, added.Names(key), fldPath, opt)
	case !slices.Contains(opt.Values, value):
		return field.ErrorList{opt.Code.Err(field.NotSupported(fldPath, value, opt.Values))}
	}
	return nil
}

// validateNameList checks a comma-separated list of names, the format of
// every list-valued Airlock TLS option: not empty, no empty or padded items,
// no repeats, each one of allowed. An item opt refuses (its Refused) gets
// opt's RefusedDetail rather than the list of supported values, and an
// unsupported one opt's Code.
//
// Each kind of mistake gets one error per item up to MaxShownItems items,
// and past that one error naming the first MaxShownItems and how many there
// are: a 4 KiB value of a thousand unknown names is one error, not a
// thousand, each with the list of supported names. An empty item is one
// error, whatever their number.
func validateNameList(value string, allowed []string, fldPath *field.Path, opt *AirlockOption) field.ErrorList {
	if value == "" {
		return field.ErrorList{CodeOptionListFormat.Err(field.Invalid(fldPath, value, DetailEmptyNameList))}
	}
	var (
		empty                         bool
		padded, repeated, unsupported badItems
		refused                       badItems
	)
	seen := newItemSet(value)
	defer seen.release()
	for item := range strings.SplitSeq(value, ",") {
		switch repeat := seen.has(item); {
		case item == "":
			empty = true
		case strings.TrimSpace(item) != item:
			padded.add(item)
		case repeat:
			repeated.add(item)
		case slices.Contains(allowed, item):
		case slices.Contains(opt.Refused, item):
			refused.add(item)
		default:
			unsupported.add(item)
		}
		seen.add(item)
	}
	var errs field.ErrorList
	if empty {
		errs = append(errs, CodeOptionListFormat.Err(field.Invalid(fldPath, value, DetailEmptyItem)))
	}
	errs = padded.errors(errs, func(v any) *field.Error { return CodeOptionListFormat.Err(field.Invalid(fldPath, v, DetailPaddedItem)) })
	errs = repeated.errors(errs, func(v any) *field.Error { return CodeDuplicateOptionItem.Err(field.Duplicate(fldPath, v)) })
	for _, item := range refused.items {
		errs = append(errs, opt.RefusedCode.Err(field.Invalid(fldPath, item, opt.RefusedDetail)))
	}
	return unsupported.errors(errs, func(v any) *field.Error {
		return opt.Code.Err(field.NotSupported(fldPath, v, allowed))
	})
}

// itemSet is the set of a list's items seen so far. A list of a few items
// (every usual one: Airlock's longest list has 22 names) is searched in
// place, without allocating; a longer one, up to the 2 048 items of a 4 KiB
// value, gets a map, so that finding repeats stays linear.
type itemSet struct {
	list   string // the whole list; before is the part seen
	before int
	items  map[string]struct{}
}

// smallList is the most items a list may have to be searched in place.
const smallList = 32

func newItemSet(list string) itemSet {
	s := itemSet{list: list}
	if strings.Count(list, ",")+1 > smallList {
		s.items = itemMaps.Get().(map[string]struct{})
	}
	return s
}

// itemMaps are the sets of long lists, kept for the next one: the worst
// object (validationtest.MostListErrors: 256 options of 1 024 items)
// allocated 24 MB of maps a verdict, a map each.
var itemMaps = sync.Pool{New: func() any { return make(map[string]struct{}, 2*smallList) }}

// release returns the set's map for the next long list.
func (s *itemSet) release() {
	if s.items != nil {
		clear(s.items)
		itemMaps.Put(s.items)
		s.items = nil
	}
}

func (s *itemSet) has(item string) bool {
	if s.items != nil {
		_, ok := s.items[item]
		return ok
	}
	for rest := s.list[:s.before]; rest != ""; {
		var first string
		first, rest, _ = strings.Cut(rest, ",")
		if first == item {
			return true
		}
	}
	return false
}

// add marks the next item of the list seen.
func (s *itemSet) add(item string) {
	if s.items != nil {
		s.items[item] = struct{}{}
	}
	s.before += len(item) + 1
}

// badItems are the items of a list with one kind of mistake: the first
// MaxShownItems, and how many there are.
type badItems struct {
	items []string
	n     int
}

func (b *badItems) add(item string) {
	if b.n++; len(b.items) < findings.MaxShownItems {
		b.items = append(b.items, item)
	}
}

// errors appends the errors newErr makes for the items: one per item, or,
// past MaxShownItems, one for the first few that says how many there are.
func (b *badItems) errors(errs field.ErrorList, newErr func(value any) *field.Error) field.ErrorList {
	if b.n <= findings.MaxShownItems {
		for _, item := range b.items {
			errs = append(errs, newErr(item))
		}
		return errs
	}
	shown := make([]string, len(b.items))
	for i, item := range b.items {
		shown[i] = findings.CutValue(item)
	}
	e := newErr(shown)
	e.Detail = strings.TrimSuffix(fmt.Sprintf(findings.DetailShownItems, b.n, len(shown))+"; "+e.Detail, "; ")
	return append(errs, e)
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
// QUIC, which needs TLS 1.3, so an http3 listener must allow it. Each error
// involves two values: both versions, or the protocol and maximumVersion.
func validateVersionRange(i int, options map[gwv1.AnnotationKey]gwv1.AnnotationValue, protocol gwv1.ProtocolType, fldPath *field.Path, v *judging) {
	minV, maxV := string(options[OptionMinimumVersion]), string(options[OptionMaximumVersion])
	lo, hi := slices.Index(TLSVersions, minV), slices.Index(TLSVersions, maxV)
	maxPath := fldPath.Key(string(OptionMaximumVersion))
	if lo >= 0 && hi >= 0 && lo > hi {
		v.Check(i, field.ErrorList{CodeVersionRange.Err(field.Invalid(maxPath, maxV, fmt.Sprintf(DetailVersionBelowMinimum, minV)))},
			optionValue(OptionMinimumVersion), optionValue(OptionMaximumVersion))
	}
	if protocol == ProtocolHTTP3 && hi >= 0 && maxV != TLSVersionHTTP3 {
		v.Check(i, field.ErrorList{CodeHTTP3NeedsTLS13.Err(field.Invalid(maxPath, maxV, DetailHTTP3NeedsTLS13))}, protocolValue, optionValue(OptionMaximumVersion))
	}
}
