package read

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/airlock/listenerset-webhook/offline/position"
)

// StdinPath is the PATH that means standard input; StdinName is how it is
// shown (kubectl's spelling).
const (
	StdinPath = "-"
	StdinName = "STDIN"
)

// Warning kinds reading finds (the verdict adds its own).
const (
	// KindDuplicateField: a key given twice; the last one wins.
	KindDuplicateField = "DuplicateField"
	// KindStrictDecoding: any other strict YAML decoding complaint.
	KindStrictDecoding = "StrictDecoding"
)

// Location says where an object came from.
type Location struct {
	// File is the path as found (or "STDIN").
	File string `json:"file"`
	// Document is the YAML document or JSON object in File, from 1.
	Document int `json:"document"`
	// Item is the position in a List's items, from 1; 0 (omitted) outside lists.
	Item int `json:"item,omitempty"`
	// Line is the line of File the object starts on (0, omitted, if unknown).
	Line int `json:"line,omitempty"`
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
	// Code is its diagnostic code (docs/codes.md), given by offline/judge.
	Code string `json:"code"`
	// Line and Column are where parsing failed, when the parser says
	// (0, omitted, otherwise).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"` // see Line
}

// Warning is one warning about an object: it is admitted.
type Warning struct {
	// Field is the path the warning is about; empty when it has none (a
	// duplicate YAML key is known by its line).
	Field string `json:"field,omitempty"`
	// Kind names the rule: a findings.WarningKind, KindDuplicateField,
	// or the verdict's own kinds.
	Kind string `json:"kind"`
	// Message is the whole warning as kubectl prints it after "Warning: ".
	Message string `json:"message"`
	// Code is its diagnostic code (docs/codes.md): validation's for the
	// rules' warnings, offline/judge's by kind for the others.
	Code string `json:"code"`
	// Line and Column are where Field stands in the file (from 1).
	Line   int `json:"line"`
	Column int `json:"column"` // see Line
	// Baseline is how the warning stands against a live cluster's
	// findings, judge.Baseline's values; empty when not compared.
	Baseline string `json:"baseline,omitempty"`
}

// Head is what tells an object's kind and name.
type Head struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
}

// Object is one object read: a document, or an item of a List.
type Object struct {
	Location
	Head
	// Raw is the object's JSON, trimmed; a document that is no JSON object
	// (a scalar, a sequence) has Raw that does not start with "{" and no Head.
	Raw []byte
	// Pos places the fields of the object.
	Pos *position.Document
	// Warnings are its duplicate YAML keys.
	Warnings []Warning
}

// Entry is one thing found, in input order: an object or an input error.
type Entry struct {
	Object *Object
	Error  *InputError
}

// Input is what Paths found.
type Input struct {
	// Files are the inputs opened, in order (read or not).
	Files []string
	// Entries are the objects and input errors, in input order.
	Entries []Entry
}

// Name is an object's name as kubectl prints it: "namespace/name", or
// "name" without a namespace.
func Name(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Paths reads paths: files (any name), directories (searched recursively for
// *.yaml, *.yml and *.json, skipping hidden directories), or StdinPath for
// stdin.
func Paths(paths []string, stdin io.Reader) *Input {
	var found []input
	for _, p := range paths {
		found = appendPath(found, p, stdin)
	}
	convertAll(found)
	in := &Input{}
	for i := range found {
		found[i].entries(in)
	}
	return in
}

// input is one file or stream, or an error met while looking for them
// (err, and not opened).
type input struct {
	name string
	data []byte
	// opened: name was opened (read or not), so it is one of Input.Files.
	opened bool
	err    *InputError
	// docs are its documents, converted by convertAll.
	docs []document
}

func appendPath(found []input, p string, stdin io.Reader) []input {
	if p == StdinPath {
		return append(found, stream(StdinName, stdin))
	}
	info, err := os.Stat(p)
	if err != nil {
		return append(found, unreadable(p, err))
	}
	if !info.IsDir() {
		return append(found, file(p))
	}
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			found = append(found, unreadable(path, err))
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
			found = append(found, file(path))
		}
		return nil
	})
	if err != nil {
		found = append(found, unreadable(p, err))
	}
	return found
}

// unreadable is a path that cannot be opened or walked, reported in its
// place among the inputs.
func unreadable(path string, err error) input {
	return input{err: &InputError{File: path, Message: err.Error()}}
}

func file(path string) input {
	f, err := os.Open(path)
	if err != nil {
		return unreadable(path, err)
	}
	defer f.Close()
	return stream(path, f)
}

// stream reads one input whole; convertAll converts it.
func stream(name string, r io.Reader) input {
	if r == nil {
		r = strings.NewReader("")
	}
	data, err := io.ReadAll(r)
	in := input{name: name, data: data, opened: true}
	if err != nil {
		in.err = &InputError{File: name, Message: err.Error()}
	}
	return in
}

// convertAll cuts every input into its documents and converts them, on
// every core (the YAML to JSON conversion is most of reading).
func convertAll(found []input) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range found {
		in := &found[i]
		if in.err != nil {
			continue
		}
		in.docs = split(in.name, in.data)
		in.data = nil
		for j := range in.docs {
			g.Go(func() error {
				in.docs[j].convert()
				return nil
			})
		}
	}
	_ = g.Wait() // the workers return no error
}

// entries adds the input's objects and errors to out, in order; a document
// that does not parse ends its input.
func (in *input) entries(out *Input) {
	if in.opened {
		out.Files = append(out.Files, in.name)
	}
	if in.err != nil {
		out.Entries = append(out.Entries, Entry{Error: in.err})
		return
	}
	for _, d := range in.docs {
		if d.syntaxErr != nil {
			d.err = d.syntaxError(d.syntaxErr)
		}
		if d.err != nil {
			out.Entries = append(out.Entries, Entry{Error: d.err})
			return
		}
		out.Entries = d.objects(out.Entries)
	}
}
