package lint

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/manifest"
)

// Config is one lint run. Compiler errors are not findings, so no
// suppression applies to them; when the platform did not compile,
// Programs is empty and only the rules that need no program (Syntax)
// run.
type Config struct {
	Module   *lang.Module
	Programs []*ir.Program
	// Manifests is the --scan result, or nil; Scan rules run only with it.
	Manifests *manifest.Set
	// Rules are the enabled rules. InvalidSuppression, if among them,
	// runs last, whatever its position.
	Rules []*Rule
	// Known lists every registered rule name, sorted, so a suppression
	// naming a disabled rule is not taken for a typo. Empty means the
	// names of Rules.
	Known []string
	// Files holds the platform directory's files, rooted at
	// Module.Dir, for rules that read what the platform names (hook
	// manifests) through Pass.ReadFile; nil reads them from disk.
	Files fs.FS
}

// Run runs the rules and returns their findings as diagnostics, sorted,
// with diag.Extra naming the rule. Suppressed findings are dropped.
//
// A non-nil error means a rule broke (returned an error or panicked);
// the findings of the other rules are still returned.
func Run(cfg Config) (hcl.Diagnostics, error) {
	if cfg.Module == nil {
		return nil, errors.New("lint needs a parsed module; this is a bug in platc")
	}
	known := cfg.Known
	if len(known) == 0 {
		for _, r := range cfg.Rules {
			known = append(known, r.Name)
		}
		slices.Sort(known)
	}
	sups := suppressions(cfg.Module, cfg.Manifests)
	for _, s := range sups {
		s.Ran = map[string]bool{}
		s.Matched = map[string]int{}
		for _, name := range s.Rules {
			if !slices.Contains(known, name) {
				s.Unknown = append(s.Unknown, name)
			}
		}
	}

	var issues []Issue
	var errs []error
	var final *Rule
	decls := NewDecls(cfg.Module)
	for _, r := range cfg.Rules {
		if r == InvalidSuppression {
			final = r
			continue
		}
		if !cfg.Runs(r) {
			continue
		}
		for _, s := range sups {
			s.Ran[r.Name] = true
		}
		found, err := runRule(r, cfg, decls, nil, known)
		if err != nil {
			errs = append(errs, err)
		}
		issues = append(issues, found...)
	}
	issues = dedup(issues)
	kept := issues[:0]
	for _, is := range issues {
		suppressed := false
		for _, s := range sups {
			if s.applies(is.Rule.Name, is.Subject.Filename, is.Subject.Start.Line) {
				s.Matched[is.Rule.Name]++
				suppressed = true
			}
		}
		if !suppressed {
			kept = append(kept, is)
		}
	}
	issues = kept
	if final != nil {
		found, err := runRule(final, cfg, decls, sups, known)
		if err != nil {
			errs = append(errs, err)
		}
		issues = append(issues, found...)
	}
	diags := make(hcl.Diagnostics, 0, len(issues))
	for _, is := range issues {
		diags = append(diags, is.Diagnostic())
	}
	return diag.Sort(diags), errors.Join(errs...)
}

// Runs reports whether r runs in this configuration: a Scan rule needs
// manifests, and a rule that is not Syntax needs compiled programs.
func (cfg Config) Runs(r *Rule) bool {
	switch {
	case r == InvalidSuppression:
		return true
	case r.Scan && cfg.Manifests == nil:
		return false
	case !r.Syntax && len(cfg.Programs) == 0:
		return false
	}
	return true
}

// Coverage splits the enabled rules, in the order of Config.Rules, into
// those Run ran and those it left out because the platform could not be
// read (Config.Module is nil) or did not compile (Config.Programs is
// empty). Scan rules without --scan are in neither list: they are not
// skipped, they have nothing to read.
func Coverage(cfg Config) (ran, skipped []*Rule) {
	for _, r := range cfg.Rules {
		switch {
		case r.Scan && cfg.Manifests == nil:
		case cfg.Module != nil && cfg.Runs(r):
			ran = append(ran, r)
		default:
			skipped = append(skipped, r)
		}
	}
	return ran, skipped
}

// SkipNote says which rules ran and which did not, and why. Only the
// terminal, where the errors are printed above it, gets the advice to
// fix them: JSON and SARIF have no "above" (issue 25).
func SkipNote(ran, skipped []*Rule, terminal bool) string {
	total := len(ran) + len(skipped)
	if len(ran) == 0 {
		return fmt.Sprintf("Lint ran none of its %d rules: the platform could not be read.", total)
	}
	note := fmt.Sprintf("Lint ran %d of %d rules (%s): the other %d need a platform that compiles.",
		len(ran), total, strings.Join(Names(ran), ", "), len(skipped))
	if terminal {
		note += " Fix the errors above and run platc lint again."
	}
	return note
}

// Names is the names of rs, in order.
func Names(rs []*Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

// runRule runs one rule, turning a panic into an error so one broken rule
// does not hide the findings of the others.
func runRule(r *Rule, cfg Config, decls *Decls, sups []*Suppression, known []string) (found []Issue, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("rule %s panicked: %v", r.Name, v)
		}
	}()
	var first *ir.Program
	if len(cfg.Programs) > 0 {
		first = cfg.Programs[0]
	}
	p := &Pass{
		Rule:         r,
		Module:       cfg.Module,
		Decls:        decls,
		Programs:     cfg.Programs,
		Program:      first,
		Manifests:    cfg.Manifests,
		Suppressions: sups,
		known:        known,
		files:        cfg.Files,
		report:       func(i Issue) { found = append(found, i) },
	}
	if err := r.Run(p); err != nil {
		return found, fmt.Errorf("rule %s: %w", r.Name, err)
	}
	return found, nil
}

// suppressions collects the platc:ignore comments of every platform file
// and scanned manifest, in file order.
func suppressions(m *lang.Module, set *manifest.Set) []*Suppression {
	var out []*Suppression
	if m != nil {
		for _, name := range m.FileNames {
			if f := m.Files[name]; f != nil {
				out = append(out, HCLSuppressions(name, f.Bytes)...)
			}
		}
	}
	if set != nil {
		for _, f := range set.Files {
			out = append(out, YAMLSuppressions(f.Path, f.Bytes)...)
		}
	}
	return out
}

// dedup drops findings reported more than once: the same rule, place and
// message, as happens when a rule checks every environment and the value
// is the same in all of them.
func dedup(issues []Issue) []Issue {
	slices.SortStableFunc(issues, compareIssues)
	return slices.CompactFunc(issues, func(a, b Issue) bool { return compareIssues(a, b) == 0 })
}

func compareIssues(a, b Issue) int {
	return cmp.Or(
		cmp.Compare(a.Subject.Filename, b.Subject.Filename),
		cmp.Compare(a.Subject.Start.Byte, b.Subject.Start.Byte),
		cmp.Compare(a.Subject.End.Byte, b.Subject.End.Byte),
		cmp.Compare(a.Rule.Name, b.Rule.Name),
		cmp.Compare(a.Message, b.Message),
	)
}

// Diagnostic converts an issue into the hcl.Diagnostic every renderer
// reads: the message as summary, the rule in diag.Extra, and a detail that
// ends by saying how to suppress the finding when it is deliberate.
func (i Issue) Diagnostic() *hcl.Diagnostic {
	subject := i.Subject
	d := &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  i.Message,
		Detail:   i.Detail,
		Subject:  &subject,
		Extra:    &diag.Extra{Rule: i.Rule.Name, Related: i.Related, Notice: i.Rule.Severity == Notice},
	}
	if i.Rule.Severity == Error {
		d.Severity = hcl.DiagError
	}
	if i.Rule != InvalidSuppression {
		hint := fmt.Sprintf("If this is deliberate, add `# %s %s -- <reason>` at the end of the line or on the line above.", Directive, i.Rule.Name)
		if d.Detail != "" {
			d.Detail += "\n\n"
		}
		d.Detail += hint
	}
	return d
}
