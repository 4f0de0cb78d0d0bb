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
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/position"
	"github.com/airlock/listenerset-webhook/validation"
)

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
	// raw is the object's JSON, which the verdict decodes as kube-apiserver.
	raw []byte
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
	v.report.files = append(v.report.files, name)
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
//
// Positions come from a token scan of each object (position.ParseJSON), with
// the lines of the file.
func (v *run) jsonStream(name string, data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := position.NewLines(data)
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
			ie := InputError{File: name, Document: doc, Message: err.Error()}
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				p := lines.At(int(syntax.Offset))
				ie.Line, ie.Column = p.Line, p.Column
			}
			v.inputError(ie)
			return true
		}
		// RawMessage holds the value's bytes exactly, so it ends where the
		// decoder stands.
		tree := position.ParseJSON(data, int(dec.InputOffset())-len(raw), lines)
		v.document(Location{File: name, Document: doc}, raw, nil, tree)
	}
}

// yamlStream converts each YAML document to JSON. Duplicate keys, which YAML
// to JSON conversion would silently resolve to the last value, become
// warnings; line numbers in messages are counted from the top of the file.
// Each document is also parsed into a node tree for the findings' positions;
// a document that converts but does not parse as a tree (the two parsers
// differ in corner cases) has its findings at its first line.
func (v *run) yamlStream(name string, data []byte) {
	for i, d := range splitYAML(data) {
		doc := i + 1
		raw, err := yaml.YAMLToJSONStrict(d.data)
		var warnings []Warning
		if err != nil {
			lenient, lerr := yaml.YAMLToJSON(d.data)
			if lerr != nil {
				msg := fileLines(lerr.Error(), d.line)
				ie := InputError{File: name, Document: doc, Message: msg}
				if m := lineRef.FindStringSubmatch(msg); m != nil {
					ie.Line, _ = strconv.Atoi(m[1])
				}
				v.inputError(ie)
				return
			}
			raw, warnings = lenient, duplicateKeyWarnings(err, d.line)
		}
		tree, terr := position.ParseYAML(d.data, d.line)
		if terr != nil {
			tree = nil
		}
		v.document(Location{File: name, Document: doc, Line: d.line}, raw, warnings, tree)
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
// The warnings carry the line; locate finds the key's column on it.
func duplicateKeyWarnings(err error, start int) []Warning {
	var warnings []Warning
	for _, m := range duplicateKey.FindAllStringSubmatch(err.Error(), -1) {
		n, _ := strconv.Atoi(m[1])
		warnings = append(warnings, Warning{Kind: KindDuplicateField, Line: n + start - 1,
			Message: fileLines("line "+m[1], start) + ": duplicate field " + m[2]})
	}
	if len(warnings) == 0 {
		warnings = append(warnings, Warning{Kind: KindStrictDecoding, Line: start, Message: fileLines(err.Error(), start)})
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
// told apart by item and are dropped with the list. tree locates the
// document's fields (nil: unknown); a List item gets its item's subtree.
func (v *run) document(loc Location, raw json.RawMessage, docWarnings []Warning, tree *position.Node) {
	if tree != nil {
		loc.Line = tree.Pos.Line
	}
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
		items := tree.Child(position.Segment{Key: "items", Index: -1})
		for i, item := range h.Items {
			v.document(Location{File: loc.File, Document: loc.Document, Item: i + 1, Line: loc.Line}, item, nil,
				items.Child(position.Segment{Key: fmt.Sprint(i), Index: i}))
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
		p := decode(loc, h, raw, docWarnings)
		p.res.tree = tree
		v.pending = append(v.pending, p)
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

// Input is what Read found: the ListenerSets that decode, in input order,
// and the related objects (Gateways, ReferenceGrants, Namespaces, Secrets).
type Input struct {
	// Sets are the decoded and defaulted v1 ListenerSets.
	Sets []*gwv1.ListenerSet
	// Objects holds the related objects; Objects.Sets is left empty.
	Objects validation.Objects
	// InputErrors are the files or documents that could not be read.
	InputErrors []InputError
}

// Read reads paths as Validate does (files, directories, "-" for stdin,
// lists expanded) without judging anything: for commands that need the
// objects, not a verdict.
func Read(paths []string, stdin io.Reader) *Input {
	v := &run{opts: Options{Format: JSON, Stdin: stdin}}
	for _, p := range paths {
		v.path(p)
	}
	in := &Input{Objects: v.objects, InputErrors: v.report.InputErrors}
	for _, p := range v.pending {
		if p.ls != nil {
			in.Sets = append(in.Sets, p.ls)
		}
	}
	return in
}
