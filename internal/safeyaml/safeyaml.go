// Package safeyaml is the one YAML decoder platc uses for YAML it did not
// write: scanned manifests and what kustomizations list, hook manifests
// named in HCL, Helm values and manifests read by platc import, health
// test objects and the executor's environment file.
//
// It decodes into yaml.v3 nodes, which keep an alias as a pointer to its
// anchor's node, so decoding itself never expands anything. But every
// reader that walks the nodes follows aliases, and a kilobyte of aliases
// of aliases (a "billion laughs" document) stands for 10^9 nodes or
// more; an anchor may even hold an alias to itself, which no walk ends.
// So each document's expanded size is computed first (linear: each
// anchored node is measured once) and a document is refused when its
// aliases add more than MaxAliasNodes nodes, or as many as the document
// has itself, whichever is more, or when an alias is inside its own
// anchor. Whatever passes can be walked with aliases followed in time
// linear in the file.
package safeyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxAliasNodes is how many nodes aliases may add to a small document
// when expanded. A larger document may add as many as it has written:
// aliases may at most double it.
const MaxAliasNodes = 10_000

// An Error is a document platc refuses to read, at the line (1-based)
// and column (1-based, 0 when unknown) of the problem.
type Error struct {
	Line, Column int
	// Msg says what is wrong, without the "yaml: " prefix.
	Msg string
	// Alias is set when the YAML is valid but its aliases were refused.
	Alias bool
}

func (e *Error) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Pos is where err, from Documents or Check, places the problem, for a
// diagnostic: its line and column, 1 for what it does not know (an error
// of another kind, a syntax error's column).
func Pos(err error) (line, column int) {
	var e *Error
	if !errors.As(err, &e) {
		return 1, 1
	}
	return max(e.Line, 1), max(e.Column, 1)
}

// Documents parses every YAML document of b. On an error it returns the
// documents before it and an *Error.
func Documents(b []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	// Anchors stay defined from one document of a stream to the next.
	ac := newAliasCheck()
	var docs []*yaml.Node
	for {
		n := new(yaml.Node)
		err := dec.Decode(n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, syntaxError(err)
		}
		if err := ac.document(n); err != nil {
			return docs, err
		}
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			docs = append(docs, n.Content[0])
		}
	}
}

// Check parses b, every document, and reports the first problem: what
// callers that decode with another library (sigs.k8s.io/yaml expands
// aliases as it goes) run first.
func Check(b []byte) error {
	_, err := Documents(b)
	return err
}

var errLine = regexp.MustCompile(`line (\d+)`)

// parserProblems are the problems yaml.v3's parser (not its scanner)
// reports (parserc.go); it numbers their lines from 0, and those of
// scanner errors from 1 (decode.go, fail).
var parserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"found undefined tag handle", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document", "found duplicate %TAG directive",
}

func syntaxError(err error) *Error {
	msg := err.Error()
	line := 1
	if m := errLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		if slices.ContainsFunc(parserProblems, func(p string) bool { return strings.HasSuffix(msg, p) }) {
			line++
		}
	}
	return &Error{Line: max(line, 1), Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// CheckAliases refuses a node tree whose aliases expand it by more than
// the bound, or that holds an alias inside its own anchor.
func CheckAliases(root *yaml.Node) error {
	return newAliasCheck().document(root)
}

// aliasCheck measures the expanded size of every node of a stream once.
// An alias names an anchor defined before it in the stream: a node whose
// walk is complete (measured), or one still being walked, an ancestor of
// the alias (a cycle). So one post-order walk of the nodes as written
// measures everything, as deep as the document's nesting and no deeper.
type aliasCheck struct {
	size map[*yaml.Node]int64
	open map[*yaml.Node]bool
}

func newAliasCheck() *aliasCheck {
	return &aliasCheck{size: map[*yaml.Node]int64{}, open: map[*yaml.Node]bool{}}
}

func (c *aliasCheck) document(root *yaml.Node) error {
	written, aliases := 0, 0
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		written++
		if n.Kind == yaml.AliasNode {
			aliases++
		}
		for _, k := range n.Content {
			count(k)
		}
	}
	count(root)
	if aliases == 0 {
		// Later documents may alias this one's anchors: measure those.
		return c.anchors(root)
	}
	limit := int64(max(MaxAliasNodes, written))
	// Sizes saturate above anything the limit could compare with.
	ceiling := limit + int64(written) + 1
	var added int64
	var walk func(n *yaml.Node) (int64, error)
	walk = func(n *yaml.Node) (int64, error) {
		if n.Kind == yaml.AliasNode {
			t := n.Alias
			s, ok := c.size[t]
			switch {
			case t == nil:
				return 0, &Error{Line: n.Line, Column: n.Column, Alias: true, Msg: fmt.Sprintf("unknown anchor %q", n.Value)}
			case c.open[t]:
				return 0, &Error{Line: n.Line, Column: n.Column, Alias: true, Msg: fmt.Sprintf("the alias *%s is inside its own anchor &%s, so the document never ends", n.Value, n.Value)}
			case !ok:
				// An anchor outside the tree given to CheckAliases: a
				// finished tree, measured as one.
				var err error
				if s, err = c.outside(t, ceiling); err != nil {
					return 0, err
				}
			}
			if added = min(added+s, ceiling); added > limit {
				return 0, &Error{Line: n.Line, Column: n.Column, Alias: true, Msg: fmt.Sprintf(
					"with the alias *%s, aliases expand this document by more than %d nodes (it has %d as written); platc follows aliases only that far, so that a few lines of aliases of aliases cannot stand for millions of nodes",
					n.Value, limit, written)}
			}
			// In its parent the alias stands for itself and its anchor.
			return min(s+1, ceiling), nil
		}
		// Only anchored nodes can be aliased: only they are remembered.
		if n.Anchor != "" {
			c.open[n] = true
		}
		s := int64(1)
		for _, k := range n.Content {
			ks, err := walk(k)
			if err != nil {
				return 0, err
			}
			s = min(s+ks, ceiling)
		}
		if n.Anchor != "" {
			delete(c.open, n)
			c.size[n] = s
		}
		return s, nil
	}
	_, err := walk(root)
	return err
}

// anchors records the sizes of the anchored nodes of a document without
// aliases, for the documents after it: each is its written size.
func (c *aliasCheck) anchors(n *yaml.Node) error {
	var walk func(n *yaml.Node) int64
	walk = func(n *yaml.Node) int64 {
		s := int64(1)
		for _, k := range n.Content {
			s += walk(k)
		}
		if n.Anchor != "" {
			c.size[n] = s
		}
		return s
	}
	walk(n)
	return nil
}

// outside measures an anchored tree the walk has not seen, with a check
// of its own (its aliases count against it, not against the document).
func (c *aliasCheck) outside(t *yaml.Node, ceiling int64) (int64, error) {
	if err := c.document(t); err != nil {
		return 0, err
	}
	return min(c.size[t], ceiling), nil
}
