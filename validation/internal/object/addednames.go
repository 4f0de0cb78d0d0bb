package object

import (
	"fmt"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// AddedNames are names the list-valued options (ListOptions) accept besides
// the built-in ones, per option: the day an Airlock Microgateway upgrade
// accepts a new curve or cipher, a cluster adds it by a setting instead of
// waiting for a release of this webhook. Every engine takes the same
// setting (ParseAddedNames): the webhook's and the offline commands'
// --add-names flag, the policy generator's, and the chart's airlock.addNames.
type AddedNames map[gwv1.AnnotationKey][]string

// Bounds of a setting, so that the lists a rule walks stay short: at most
// MaxAddedNames names per option, each at most MaxAddedNameLen bytes of
// addedNameChars. The policy compares each item of a list with every
// accepted name and every other item: with 16 names added to each option,
// its costliest object takes 84.1 % of kube-apiserver's CEL budget and the
// largest valid one 21.7 % (TestAddedNamesCost); 64 would put the largest
// valid one over the per-expression limit.
const (
	MaxAddedNames   = 16
	MaxAddedNameLen = 64
	// addedNameChars are the characters of the built-in names (letters,
	// digits, "-", "_", ".", "/"), plus "+".
	addedNameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+"
)

// ParseAddedNames reads settings of the form "<option>=<name>[,<name>...]",
// where option is a list-valued option's key with or without its
// "microgateway.airlock.com/" prefix (ecdhCurves=X25519Kyber768Draft00). A
// setting may repeat an option; a name already accepted is accepted once.
func ParseAddedNames(settings []string) (AddedNames, error) {
	added := AddedNames{}
	for _, s := range settings {
		if err := added.Set(s); err != nil {
			return nil, err
		}
	}
	return added, nil
}

// Set adds the names of one setting (see ParseAddedNames), so that
// *AddedNames is the value of a repeatable command-line flag (flag.Value,
// pflag.verdict.Value) in every command that takes the setting.
func (a *AddedNames) Set(setting string) error {
	option, names, ok := strings.Cut(setting, "=")
	if !ok {
		return fmt.Errorf("%q: want <option>=<name>[,<name>...]", setting)
	}
	key := gwv1.AnnotationKey(option)
	if !strings.HasPrefix(option, OptionPrefix) {
		key = gwv1.AnnotationKey(OptionPrefix + option)
	}
	if !slices.Contains(ListOptions, key) {
		return fmt.Errorf("%q: %q is not a list-valued option; one of %s", setting, option, ListOptionNames())
	}
	add := slices.Clone((*a)[key])
	for name := range strings.SplitSeq(names, ",") {
		if err := checkAddedName(name); err != nil {
			return fmt.Errorf("%q: %w", setting, err)
		}
		if slices.Contains(BuiltinNames(key), name) || slices.Contains(add, name) {
			continue
		}
		if len(add) == MaxAddedNames {
			return fmt.Errorf("%q: more than %d names added to %s", setting, MaxAddedNames, option)
		}
		add = append(add, name)
	}
	if *a == nil {
		*a = AddedNames{}
	}
	(*a)[key] = add
	return nil
}

// String is a's settings, space-separated (flag.verdict.Value).
func (a *AddedNames) String() string {
	if a == nil {
		return ""
	}
	return strings.Join(a.Settings(), " ")
}

// Type names the flag's value in pflag's help.
func (*AddedNames) Type() string { return "option=names" }

func checkAddedName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty name")
	case len(name) > MaxAddedNameLen:
		return fmt.Errorf("name %q is longer than %d bytes", name, MaxAddedNameLen)
	case strings.Trim(name, addedNameChars) != "":
		return fmt.Errorf("name %q may only hold letters, digits and %q", name, "-_./+")
	}
	return nil
}

// ListOptionNames are the list-valued options as a setting names them
// (without their prefix), comma-separated.
func ListOptionNames() string {
	names := make([]string, len(ListOptions))
	for i, k := range ListOptions {
		names[i] = strings.TrimPrefix(string(k), OptionPrefix)
	}
	return strings.Join(names, ", ")
}

// Names is what the list-valued option key accepts: its built-in names, in
// the order a message lists them, then the added ones. It is the built-in
// list itself when a adds none.
func (a AddedNames) Names(key gwv1.AnnotationKey) []string {
	builtin := BuiltinNames(key)
	if len(a[key]) == 0 {
		return builtin
	}
	return slices.Concat(builtin, a[key])
}

// Settings is a as the settings ParseAddedNames reads, one per option in
// ListOptions' order: what one engine passes to another (the chart to the
// webhook's flags, a test to the policy generator).
func (a AddedNames) Settings() []string {
	var settings []string
	for _, key := range ListOptions {
		if names := a[key]; len(names) > 0 {
			settings = append(settings, strings.TrimPrefix(string(key), OptionPrefix)+"="+strings.Join(names, ","))
		}
	}
	return settings
}
