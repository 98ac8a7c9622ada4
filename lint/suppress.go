package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/diag"
)

// Directive is the word that starts a suppression comment:
//
//	# platc:ignore RULE[,RULE...] -- reason
const Directive = "platc:ignore"

// A Suppression is one platc:ignore comment.
type Suppression struct {
	// Rules are the rule names as written, and RuleRanges where each is
	// written.
	Rules      []string
	RuleRanges []hcl.Range
	Reason     string
	// Comment is the range of the whole comment.
	Comment hcl.Range
	// Line is the line the suppression applies to: its own line for a
	// comment after code, otherwise the next line that holds code.
	Line int
	// Malformed says what is wrong with the comment's syntax; a malformed
	// suppression suppresses nothing.
	Malformed string

	// Filled in by the runner.
	Unknown []string        // names that are no registered rule
	Ran     map[string]bool // names of rules that ran in this lint
	Matched map[string]int  // findings suppressed, per rule name
}

// applies reports whether s suppresses a finding of rule on line.
func (s *Suppression) applies(rule string, file string, line int) bool {
	return s.Malformed == "" && s.Comment.Filename == file && s.Line == line && slices.Contains(s.Rules, rule)
}

// directive matches the text of a comment after its marker.
var directive = regexp.MustCompile(`^\s*` + regexp.QuoteMeta(Directive) + `(\s.*)?$`)

// parseDirective reads the text after the comment marker. text starts at
// byte offset off of the comment; ok is false when the comment is not a
// suppression at all.
func parseDirective(text string) (rules []string, ruleOffsets []int, reason, malformed string, ok bool) {
	m := directive.FindStringSubmatchIndex(text)
	if m == nil {
		return nil, nil, "", "", false
	}
	restStart := len(text)
	if m[2] >= 0 {
		restStart = m[2]
	}
	rest := text[restStart:]
	names, why, hasReason := strings.Cut(rest, "--")
	pos := restStart
	for _, part := range strings.Split(names, ",") {
		name := strings.TrimSpace(part)
		lead := len(part) - len(strings.TrimLeft(part, " \t"))
		if name != "" {
			rules = append(rules, name)
			ruleOffsets = append(ruleOffsets, pos+lead)
		}
		pos += len(part) + 1
	}
	reason = strings.TrimSpace(why)
	switch {
	case len(rules) == 0:
		malformed = "names no rule"
	case slices.ContainsFunc(rules, func(r string) bool { return strings.ContainsAny(r, " \t") }):
		malformed = "separates rule names with spaces; use commas, and put the reason after \" -- \""
	case !hasReason || reason == "":
		malformed = "gives no reason"
	}
	return rules, ruleOffsets, reason, malformed, true
}

// advance returns the position off bytes after p in src, counting
// columns in characters as HCL does.
func advance(src []byte, p hcl.Pos, off int) hcl.Pos {
	end := min(p.Byte+off, len(src))
	for b := p.Byte; b < end; {
		_, size := utf8.DecodeRune(src[b:])
		b += size
		p.Column++
	}
	p.Byte = end
	return p
}

// HCLSuppressions finds the platc:ignore comments of one HCL file, using
// HCL's own lexer so that text inside strings and heredocs is never taken
// for a comment.
func HCLSuppressions(filename string, src []byte) []*Suppression {
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	code := map[int]bool{} // lines that hold something other than comments
	var comments []hclsyntax.Token
	for _, t := range tokens {
		switch t.Type {
		case hclsyntax.TokenComment:
			comments = append(comments, t)
		case hclsyntax.TokenNewline, hclsyntax.TokenEOF:
		default:
			code[t.Range.Start.Line] = true
		}
	}
	lastLine := strings.Count(string(src), "\n") + 1
	var out []*Suppression
	for _, t := range comments {
		text := strings.TrimRight(string(t.Bytes), "\r\n")
		var marker int
		switch {
		case strings.HasPrefix(text, "#"):
			marker = 1
		case strings.HasPrefix(text, "//"):
			marker = 2
		case strings.HasPrefix(text, "/*"):
			marker = 2
			text = strings.TrimSuffix(text, "*/")
		}
		rules, offs, reason, malformed, ok := parseDirective(text[marker:])
		if !ok {
			continue
		}
		start := t.Range.Start
		s := &Suppression{
			Rules:     rules,
			Reason:    reason,
			Malformed: malformed,
			Comment:   hcl.Range{Filename: filename, Start: start, End: advance(src, start, len(text))},
		}
		for i, o := range offs {
			a := advance(src, start, marker+o)
			s.RuleRanges = append(s.RuleRanges, hcl.Range{Filename: filename, Start: a, End: advance(src, a, len(rules[i]))})
		}
		s.Line = start.Line
		if !code[start.Line] {
			s.Line = nextCodeLine(start.Line, lastLine, func(l int) bool { return code[l] })
		}
		out = append(out, s)
	}
	return out
}

// nextCodeLine is the first line after line that holds code, or 0.
func nextCodeLine(line, last int, isCode func(int) bool) int {
	for l := line + 1; l <= last; l++ {
		if isCode(l) {
			return l
		}
	}
	return 0
}

// yamlComment finds a comment in one YAML line: a '#' at the start of the
// line or after a space. Quoted '#'s are not told apart; a directive
// inside a quoted string is implausible enough not to matter.
var yamlComment = regexp.MustCompile(`(^|[ \t])#`)

// YAMLSuppressions finds the platc:ignore comments of one YAML file.
func YAMLSuppressions(filename string, src []byte) []*Suppression {
	lines := strings.Split(string(src), "\n")
	starts := make([]int, len(lines))
	for i, off := 1, 0; i < len(lines); i++ {
		off += len(lines[i-1]) + 1
		starts[i] = off
	}
	isCode := func(l int) bool {
		t := strings.TrimSpace(lines[l-1])
		return t != "" && !strings.HasPrefix(t, "#") && t != "---"
	}
	var out []*Suppression
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		m := yamlComment.FindStringIndex(line)
		if m == nil {
			continue
		}
		hash := m[1] - 1
		rules, offs, reason, malformed, ok := parseDirective(line[hash+1:])
		if !ok {
			continue
		}
		n := i + 1
		lineStart := hcl.Pos{Line: n, Column: 1, Byte: starts[i]}
		start := advance(src, lineStart, hash)
		s := &Suppression{
			Rules:     rules,
			Reason:    reason,
			Malformed: malformed,
			Comment:   hcl.Range{Filename: filename, Start: start, End: advance(src, start, len(line)-hash)},
		}
		for k, o := range offs {
			a := advance(src, start, 1+o)
			s.RuleRanges = append(s.RuleRanges, hcl.Range{Filename: filename, Start: a, End: advance(src, a, len(rules[k]))})
		}
		s.Line = n
		if strings.TrimSpace(line[:hash]) == "" {
			s.Line = nextCodeLine(n, len(lines), isCode)
		}
		out = append(out, s)
	}
	return out
}

// InvalidSuppression reports suppression comments that are malformed,
// name no rule platc has, or matched no finding. It is part of the
// framework rather than lint/rules because only the runner knows what
// every other rule found; its own findings cannot be suppressed.
var InvalidSuppression = &Rule{
	Name: "invalid-suppression",
	Doc: `platc:ignore comment that is malformed or suppresses nothing

A suppression is a promise that someone looked at a finding and decided
to keep the code as it is. It must say which rule it silences and why:

    # platc:ignore redundant-dependency -- the registry's volumes need storage classes directly

A comment without a reason, naming a rule platc does not have, or
matching no finding (because the code changed, or the comment sits on
the wrong line) silently hides nothing and misleads the next reader.

Add the reason after " -- ", fix the rule name, move the comment onto the
line of the finding or the line above it, or delete it.`,
	Severity: Warning,
	Default:  true,
	Run: func(p *Pass) error {
		for _, s := range p.Suppressions {
			if s.Malformed != "" {
				p.Report(Issue{
					Message: fmt.Sprintf("suppression %s", s.Malformed),
					Detail:  "A suppression reads `# platc:ignore RULE -- reason`: one or more rule names separated by commas, then \" -- \" and why the finding is acceptable here. Until it has that shape it suppresses nothing.",
					Subject: s.Comment,
				})
				continue
			}
			for i, name := range s.Rules {
				switch {
				case slices.Contains(s.Unknown, name):
					detail := "Run `platc rules` for the list of rules."
					if sug := diag.Suggest(name, p.known); sug != "" {
						detail = fmt.Sprintf("Did you mean %q? Run `platc rules` for the list of rules.", sug)
					}
					p.Report(Issue{Message: fmt.Sprintf("suppression names unknown rule %q", name), Detail: detail, Subject: s.RuleRanges[i]})
				case s.Ran[name] && s.Matched[name] == 0:
					where := "on this line"
					if s.Line != s.Comment.Start.Line {
						where = fmt.Sprintf("on line %d, the line it applies to", s.Line)
					}
					p.Report(Issue{
						Message: fmt.Sprintf("suppression of %q matched no finding", name),
						Detail:  fmt.Sprintf("No %s finding is reported %s. If the problem was fixed, delete the comment; otherwise move it onto the line of the finding or the line above it.", name, where),
						Subject: s.RuleRanges[i],
					})
				}
			}
		}
		return nil
	},
}
