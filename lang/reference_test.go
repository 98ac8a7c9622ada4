package lang

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// section is one heading of docs/language.md and the text under it, up
// to the next heading.
type section struct {
	title string
	body  string
}

func referenceSections(t *testing.T) map[string]section {
	t.Helper()
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]section{}
	title := ""
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			title = m[1]
			out[title] = section{title: title}
			continue
		}
		if title != "" {
			s := out[title]
			s.body += line
			out[title] = s
		}
	}
	return out
}

var (
	heading = regexp.MustCompile(`^#{2,3} (.+?)\s*$`)
	// An attribute table starts with a header whose first column is
	// "name" (or "block", at the top level); its rows name one
	// attribute or block each, in backquotes.
	tableHeader = regexp.MustCompile(`^\| (name|block) \|`)
	tableRow    = regexp.MustCompile("^\\| `([a-z_]+)` \\|")
)

// documented lists the names in the attribute tables of a section.
func documented(body string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(body, "\n") {
		switch {
		case tableHeader.MatchString(line):
			in = true
		case !strings.HasPrefix(line, "|"):
			in = false
		case in:
			if m := tableRow.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// TestLanguageReference keeps docs/language.md in step with the
// language: every schema has its section, whose table names exactly its
// attributes and blocks, and an example. A block or attribute added to
// lang without its documentation fails here, and so does documentation
// of one that no longer exists.
func TestLanguageReference(t *testing.T) {
	sections := referenceSections(t)
	for _, s := range allSchemas() {
		k := kindOf(s)
		if k == nil {
			continue // TestEverySchemaHasAKind reports it
		}
		sec, ok := sections[k.section]
		if !ok {
			t.Errorf("docs/language.md has no section %q (a heading \"## %s\" or \"### %s\")", k.section, k.section, k.section)
			continue
		}
		var want []string
		for _, a := range s.Attributes {
			want = append(want, a.Name)
		}
		for _, b := range s.Blocks {
			if !slices.Contains(want, b.Type) {
				want = append(want, b.Type)
			}
		}
		got := documented(sec.body)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("section %q does not document %q (a table row \"| `%s` | type | default | precedence | description |\")", k.section, w, w)
			}
		}
		for _, g := range got {
			// environment's arguments are open: its table documents the
			// ones platc reads by convention besides its blocks.
			if s != environmentSchema && !slices.Contains(want, g) {
				t.Errorf("section %q documents %q, which lang does not accept there", k.section, g)
			}
		}
		if !strings.Contains(sec.body, "```hcl ") {
			t.Errorf("section %q has no example (a ```hcl DIR/FILE.hcl block)", k.section)
		}
	}
	// The environment block's body is open; its section must still say
	// so and show one.
	if env, ok := sections["environment"]; !ok || !strings.Contains(env.body, "```hcl ") {
		t.Errorf("docs/language.md has no environment section with an example")
	}
}
