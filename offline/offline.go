package offline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/validation"
)

// Format selects the output.
type Format string

// Output formats.
const (
	// Text is kubectl's style: results on stdout, notes on stderr.
	Text Format = "text"
	// JSON is one Report on stdout.
	JSON Format = "json"
)

// Exit codes of Validate.
const (
	// ExitValid: every ListenerSet found is valid (or there was none).
	ExitValid = 0
	// ExitInvalid: at least one ListenerSet is invalid.
	ExitInvalid = 1
	// ExitInputError: some input could not be read or parsed.
	ExitInputError = 2
)

// StdinPath is the PATH that means standard input; StdinName is how it is
// shown (kubectl's spelling).
const (
	StdinPath = "-"
	StdinName = "STDIN"
)

// Options say where input comes from and output goes.
type Options struct {
	// Format is Text when empty.
	Format Format
	// Stdin is read for the PATH "-".
	Stdin io.Reader
	// Stdout receives results (Text) or the Report (JSON).
	Stdout io.Writer
	// Stderr receives warnings and notes (Text only).
	Stderr io.Writer
	// Strict makes listener conflicts and certificate references that no
	// ReferenceGrant permits errors instead of warnings, as the webhook's
	// --strict does.
	Strict bool
}

// Report is the JSON output: every ListenerSet's result, every skipped
// object and every input error, in input order, and a summary.
type Report struct {
	// Results has one entry per ListenerSet validated.
	Results []Result `json:"results"`
	// Skipped has one entry per object that is not a v1 ListenerSet.
	Skipped []Skipped `json:"skipped"`
	// InputErrors has one entry per file or document that could not be read.
	InputErrors []InputError `json:"inputErrors"`
	// Summary counts the above.
	Summary Summary `json:"summary"`
}

// Location says where an object came from.
type Location struct {
	// File is the path as found (or "STDIN").
	File string `json:"file"`
	// Document is the YAML document or JSON object in File, from 1.
	Document int `json:"document"`
	// Item is the position in a List's items, from 1; 0 (omitted) outside lists.
	Item int `json:"item,omitempty"`
}

// Result is the verdict on one ListenerSet.
type Result struct {
	Location
	// Namespace is metadata.namespace (omitted when unset).
	Namespace string `json:"namespace,omitempty"`
	// Name is metadata.name.
	Name string `json:"name"`
	// Valid is true when Errors is empty: the webhook would admit the object.
	Valid bool `json:"valid"`
	// Errors are the validation errors, as the webhook's 422 would list them.
	Errors []FieldError `json:"errors"`
	// Warnings are the admission warnings, plus unknown or duplicate fields.
	Warnings []string `json:"warnings"`
}

// FieldError is one field.Error.
type FieldError struct {
	// Field is the path, e.g. spec.listeners[1].name; empty when the
	// document could not be decoded.
	Field string `json:"field"`
	// Type is the field.ErrorType, e.g. FieldValueDuplicate
	// (FieldValueTypeInvalid for a document that could not be decoded).
	Type string `json:"type"`
	// Value is the offending value, where the message shows one.
	Value any `json:"value,omitempty"`
	// Detail is the rule's explanation, if any.
	Detail string `json:"detail,omitempty"`
	// Message is the whole error as kubectl prints it.
	Message string `json:"message"`
}

// Skipped is an object that is not a gateway.networking.k8s.io/v1 ListenerSet.
type Skipped struct {
	Location
	// APIVersion, Kind, Namespace and Name identify the object, as far as
	// it has them.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`      // see APIVersion
	Namespace  string `json:"namespace,omitempty"` // see APIVersion
	Name       string `json:"name,omitempty"`      // see APIVersion
	// Reason says why it was not validated, e.g. "not a ListenerSet".
	Reason string `json:"reason"`
}

// InputError is a file or document that could not be read or parsed.
type InputError struct {
	// File is the path as given or found (or "STDIN").
	File string `json:"file"`
	// Document is the document that failed, from 1; 0 (omitted) when the
	// file itself could not be read.
	Document int `json:"document,omitempty"`
	// Message is the reader's or parser's error.
	Message string `json:"message"`
}

// Summary counts the report's entries and gives the exit code.
type Summary struct {
	// Valid and Invalid count Results by verdict.
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"` // see Valid
	// Skipped and InputErrors count those lists.
	Skipped     int `json:"skipped"`
	InputErrors int `json:"inputErrors"` // see Skipped
	// ExitCode is what Validate returns.
	ExitCode int `json:"exitCode"`
}

// Reasons for skipping.
const (
	reasonNotObject      = "not a Kubernetes object (no apiVersion and kind)"
	reasonNotListenerSet = "not a ListenerSet"
	reasonOtherVersion   = "only " + gwv1.GroupName + "/v1 ListenerSets are validated"
	reasonContext        = "; used for the cluster-aware checks"
)

var listenerSetAPIVersion = gwv1.GroupVersion.String()

// Validate validates every ListenerSet in paths, writes the results as
// opts.Format says and returns the exit code (ExitValid, ExitInvalid or
// ExitInputError).
func Validate(paths []string, opts Options) int {
	if opts.Format == "" {
		opts.Format = Text
	}
	v := &run{opts: opts, report: Report{
		Results: []Result{}, Skipped: []Skipped{}, InputErrors: []InputError{},
	}}
	if opts.Format != Text && opts.Format != JSON {
		fmt.Fprintf(opts.Stderr, "error: output format %q: must be text or json\n", opts.Format)
		return ExitInputError
	}
	for _, p := range paths {
		v.path(p)
	}
	v.validatePending()
	r := &v.report
	r.Summary.ExitCode = ExitValid
	switch {
	case r.Summary.InputErrors > 0:
		r.Summary.ExitCode = ExitInputError
	case r.Summary.Invalid > 0:
		r.Summary.ExitCode = ExitInvalid
	}
	if opts.Format == JSON {
		enc := json.NewEncoder(opts.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintf(opts.Stderr, "error: writing the report: %v\n", err)
			return ExitInputError
		}
	} else if len(r.Results) == 0 && r.Summary.InputErrors == 0 {
		fmt.Fprintln(opts.Stderr, "no ListenerSet found")
	}
	return r.Summary.ExitCode
}

// run is one Validate call. Text output is written as entries come, so that
// each warning line stands just before its result.
type run struct {
	opts   Options
	report Report
	// pending are the ListenerSets read so far. They are validated once all
	// input is read, so that every one of them is judged against all the
	// related objects (objects) of the input, wherever those stand.
	pending []pending
	objects validation.Objects
}

// pending is a ListenerSet read and decoded, not yet validated; ls is nil
// when it could not be decoded (res then holds the error).
type pending struct {
	res Result
	ls  *gwv1.ListenerSet
}

func (v *run) path(p string) {
	if p == StdinPath {
		v.stream(StdinName, v.opts.Stdin)
		return
	}
	info, err := os.Stat(p)
	if err != nil {
		v.inputError(InputError{File: p, Message: err.Error()})
		return
	}
	if !info.IsDir() {
		v.file(p)
		return
	}
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			v.inputError(InputError{File: path, Message: err.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != p && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			v.file(path)
		}
		return nil
	})
	if err != nil {
		v.inputError(InputError{File: p, Message: err.Error()})
	}
}

func (v *run) file(path string) {
	f, err := os.Open(path)
	if err != nil {
		v.inputError(InputError{File: path, Message: err.Error()})
		return
	}
	defer f.Close()
	v.stream(path, f)
}

// stream reads every document of one input. A stream of JSON objects is
// read as such; anything else is split into YAML documents at "---" lines.
// After a document that does not parse, the rest of the input is not read.
func (v *run) stream(name string, r io.Reader) {
	if r == nil {
		r = strings.NewReader("")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		v.inputError(InputError{File: name, Message: err.Error()})
		return
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' && v.jsonStream(name, data) {
		return
	}
	v.yamlStream(name, data)
}

// jsonStream reads concatenated JSON objects. Keeping each object's raw bytes
// lets the strict decode see duplicate fields. It returns false, having
// reported nothing, when the very first object does not parse: the input may
// be YAML that starts with a flow mapping.
func (v *run) jsonStream(name string, data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			if doc == 1 {
				return false
			}
			v.inputError(InputError{File: name, Document: doc, Message: err.Error()})
			return true
		}
		v.document(Location{File: name, Document: doc}, raw, nil)
	}
}

// yamlStream converts each YAML document to JSON. Duplicate keys, which YAML
// to JSON conversion would silently resolve to the last value, become
// warnings; line numbers in messages are counted from the top of the file.
func (v *run) yamlStream(name string, data []byte) {
	for i, d := range splitYAML(data) {
		doc := i + 1
		raw, err := yaml.YAMLToJSONStrict(d.data)
		var warnings []string
		if err != nil {
			lenient, lerr := yaml.YAMLToJSON(d.data)
			if lerr != nil {
				v.inputError(InputError{File: name, Document: doc, Message: fileLines(lerr.Error(), d.line)})
				return
			}
			raw, warnings = lenient, duplicateKeyWarnings(err, d.line)
		}
		v.document(Location{File: name, Document: doc}, raw, warnings)
	}
}

// yamlDoc is one YAML document and the line of the file it starts on.
type yamlDoc struct {
	data []byte
	line int
}

// splitYAML splits at separator lines ("---", optionally followed by spaces
// or a comment) as kubectl does. Nothing between two separators is no
// document; a document of only comments is one (and decodes to null).
func splitYAML(data []byte) []yamlDoc {
	var docs []yamlDoc
	var cur []byte
	start, line := 1, 0
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i+1], data[i+1:]
		} else {
			l, data = data, nil
		}
		line++
		if isSeparator(l) {
			if len(cur) > 0 {
				docs = append(docs, yamlDoc{data: cur, line: start})
			}
			cur, start = nil, line+1
			continue
		}
		cur = append(cur, l...)
	}
	if len(cur) > 0 {
		docs = append(docs, yamlDoc{data: cur, line: start})
	}
	return docs
}

func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

var (
	lineRef      = regexp.MustCompile(`\bline (\d+)`)
	duplicateKey = regexp.MustCompile(`line (\d+): key (".*") already set in map`)
)

// fileLines turns the document-relative "line N" of YAML errors into lines of
// the file, for the document that starts on line start.
func fileLines(msg string, start int) string {
	return lineRef.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return fmt.Sprintf("line %d", n+start-1)
	})
}

// duplicateKeyWarnings phrases strict YAML errors like the JSON decoder's
// (and kubectl's) "duplicate field" warnings, with the line in the file.
func duplicateKeyWarnings(err error, start int) []string {
	var warnings []string
	for _, m := range duplicateKey.FindAllStringSubmatch(err.Error(), -1) {
		warnings = append(warnings, fileLines("line "+m[1], start)+": duplicate field "+m[2])
	}
	if len(warnings) == 0 {
		warnings = append(warnings, fileLines(err.Error(), start))
	}
	return warnings
}

// head is what is needed to tell an object's kind and name.
type head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// document handles one decoded document. docWarnings (duplicate YAML keys)
// belong to the ListenerSet in it, if it is one; for a List they cannot be
// told apart by item and are dropped with the list.
func (v *run) document(loc Location, raw json.RawMessage, docWarnings []string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return // an empty document: only comments, or "---" twice
	}
	var h head
	if raw[0] != '{' {
		v.skip(Skipped{Location: loc, Reason: reasonNotObject})
		return
	}
	// Wrong types further down (a numeric name, say) leave the rest filled
	// in; the ListenerSet decode below reports them properly.
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(raw, &h); err != nil && !errors.As(err, &typeErr) {
		v.inputError(InputError{File: loc.File, Document: loc.Document, Message: err.Error()})
		return
	}
	if loc.Item == 0 && isList(h) {
		for i, item := range h.Items {
			v.document(Location{File: loc.File, Document: loc.Document, Item: i + 1}, item, nil)
		}
		return
	}
	skipped := Skipped{Location: loc, APIVersion: h.APIVersion, Kind: h.Kind,
		Namespace: h.Metadata.Namespace, Name: h.Metadata.Name}
	switch {
	case h.APIVersion == "" || h.Kind == "":
		skipped.Reason = reasonNotObject
	case h.Kind != "ListenerSet":
		skipped.Reason = reasonNotListenerSet
	case h.APIVersion != listenerSetAPIVersion:
		skipped.Reason = reasonOtherVersion
	default:
		v.pending = append(v.pending, decode(loc, h, raw, docWarnings))
		return
	}
	if v.collect(h, raw) {
		skipped.Reason += reasonContext
	}
	v.skip(skipped)
}

// collect keeps the objects the cluster-aware rules look at: Gateways,
// ReferenceGrants, Namespaces and Secrets (metadata only; their data is never
// kept). It reports whether the object is one of them.
func (v *run) collect(h head, raw []byte) bool {
	o := &v.objects
	switch {
	case h.APIVersion == listenerSetAPIVersion && h.Kind == "Gateway":
		gw := &gwv1.Gateway{}
		if json.Unmarshal(raw, gw) != nil {
			return false
		}
		o.Gateways = append(o.Gateways, gw)
	case (h.APIVersion == listenerSetAPIVersion || h.APIVersion == gwv1.GroupName+"/v1beta1") && h.Kind == "ReferenceGrant":
		// v1beta1 and v1 ReferenceGrants have the same fields.
		g := &gwv1.ReferenceGrant{}
		if json.Unmarshal(raw, g) != nil {
			return false
		}
		o.Grants = append(o.Grants, g)
	case h.APIVersion == "v1" && (h.Kind == "Namespace" || h.Kind == "Secret"):
		m := &metav1.PartialObjectMetadata{}
		if json.Unmarshal(raw, m) != nil {
			return false
		}
		if h.Kind == "Namespace" {
			o.Namespaces = append(o.Namespaces, m)
		} else {
			o.Secrets = append(o.Secrets, m)
		}
	default:
		return false
	}
	return true
}

// isList: kubectl's v1 List (what `kubectl get -o yaml` prints) and the
// typed ListenerSetList.
func isList(h head) bool {
	return (h.APIVersion == "v1" && h.Kind == "List") ||
		(h.APIVersion == listenerSetAPIVersion && h.Kind == "ListenerSetList")
}

// decode decodes one ListenerSet like kube-apiserver (case-sensitive,
// unknown and duplicate fields noticed) and defaults it like the webhook.
func decode(loc Location, h head, raw []byte, docWarnings []string) pending {
	res := Result{Location: loc, Namespace: h.Metadata.Namespace, Name: h.Metadata.Name,
		Errors: []FieldError{}, Warnings: append([]string{}, docWarnings...)}
	ls := &gwv1.ListenerSet{}
	strictErrs, err := sigsjson.UnmarshalStrict(raw, ls)
	if err != nil {
		where := loc.File + ", document " + fmt.Sprint(loc.Document)
		if loc.Item > 0 {
			where += ", item " + fmt.Sprint(loc.Item)
		}
		res.Errors = append(res.Errors, FieldError{
			Type:    string(field.ErrorTypeTypeInvalid),
			Message: fmt.Sprintf("cannot decode (%s): %v", where, err),
		})
		return pending{res: res}
	}
	for _, e := range strictErrs {
		res.Warnings = append(res.Warnings, e.Error())
	}
	defaults.ListenerSet(ls)
	return pending{res: res, ls: ls}
}

// validatePending gives each decoded ListenerSet the webhook's verdict
// (validation.Validate) with the other objects of the input as its cluster:
// the ListenerSets that pass their own rules (the webhook would never have
// stored the others), and whichever Gateways, ReferenceGrants, Namespaces and
// Secrets it holds. A kind the input holds none of is unknown, and its rules
// are skipped.
func (v *run) validatePending() {
	v.objects.Sets = []*gwv1.ListenerSet{}
	for _, p := range v.pending {
		if p.ls == nil {
			continue
		}
		if errs, _ := validation.Validate(p.ls, nil, validation.Options{}); len(errs) == 0 {
			v.objects.Sets = append(v.objects.Sets, p.ls)
		}
	}
	for _, p := range v.pending {
		res := p.res
		if p.ls != nil {
			errs, warnings := validation.Validate(p.ls, nil, validation.Options{Cluster: &v.objects, Strict: v.opts.Strict})
			res.Warnings = append(res.Warnings, warnings.Strings()...)
			for _, e := range errs {
				res.Errors = append(res.Errors, fieldError(e))
			}
			res.Valid = len(res.Errors) == 0
		}
		v.result(res)
	}
}

func fieldError(e *field.Error) FieldError {
	fe := FieldError{Field: e.Field, Type: string(e.Type), Detail: e.Detail, Message: e.Error()}
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong,
		field.ErrorTypeTooShort, field.ErrorTypeInternal:
		// The message shows no value for these types; neither does the JSON.
	default:
		if _, omit := e.BadValue.(field.OmitValueType); !omit {
			fe.Value = jsonValue(e.BadValue)
		}
	}
	return fe
}

// jsonValue keeps values that encode as JSON and falls back to their text.
func jsonValue(v any) any {
	if _, err := json.Marshal(v); err != nil {
		return fmt.Sprint(v)
	}
	return v
}

func (v *run) result(r Result) {
	v.report.Results = append(v.report.Results, r)
	if r.Valid {
		v.report.Summary.Valid++
	} else {
		v.report.Summary.Invalid++
	}
	if v.opts.Format != Text {
		return
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(v.opts.Stderr, "Warning: %s\n", w)
	}
	name := displayName(r.Namespace, r.Name)
	switch len(r.Errors) {
	case 0:
		fmt.Fprintf(v.opts.Stdout, "listenerset.%s/%s valid\n", gwv1.GroupName, name)
	case 1:
		fmt.Fprintf(v.opts.Stdout, "The ListenerSet %q is invalid: %s\n", name, r.Errors[0].Message)
	default:
		fmt.Fprintf(v.opts.Stdout, "The ListenerSet %q is invalid:\n", name)
		for _, e := range r.Errors {
			fmt.Fprintf(v.opts.Stdout, "* %s\n", e.Message)
		}
	}
}

func (v *run) skip(s Skipped) {
	v.report.Skipped = append(v.report.Skipped, s)
	v.report.Summary.Skipped++
	if v.opts.Format != Text {
		return
	}
	// "Gateway "ns/gw" (gateway.networking.k8s.io/v1) in FILE"; an object
	// without a name is told by its document number instead.
	what, in := s.Kind, s.File
	if what == "" {
		what = where("document", s.Location)
	} else if s.Name == "" {
		in = where(in+" document", s.Location)
	}
	if s.Name != "" {
		what += fmt.Sprintf(" %q", displayName(s.Namespace, s.Name))
	}
	if s.APIVersion != "" {
		what += " (" + s.APIVersion + ")"
	}
	fmt.Fprintf(v.opts.Stderr, "skipped %s in %s: %s\n", what, in, s.Reason)
}

func (v *run) inputError(e InputError) {
	v.report.InputErrors = append(v.report.InputErrors, e)
	v.report.Summary.InputErrors++
	if v.opts.Format != Text {
		return
	}
	if e.Document > 0 {
		fmt.Fprintf(v.opts.Stderr, "error: %s: document %d: %s\n", e.File, e.Document, e.Message)
	} else {
		fmt.Fprintf(v.opts.Stderr, "error: %s: %s\n", e.File, e.Message)
	}
}

// where appends the document number, and the item number in a list, to prefix.
func where(prefix string, l Location) string {
	s := fmt.Sprintf("%s %d", prefix, l.Document)
	if l.Item > 0 {
		s += fmt.Sprintf(" item %d", l.Item)
	}
	return s
}

// displayName is "namespace/name", or "name" without a namespace.
func displayName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
