package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/detect"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/manifest"
)

// HookManifestMismatch reports declared hooks whose manifest does not
// exist or does not carry the declared hook.
var HookManifestMismatch = &lint.Rule{
	Name: "hook-manifest-mismatch",
	Doc: `hook manifest is missing or lacks the declared hook

A hook block promises that a manifest holds an Argo CD hook of the
declared phase. When the file does not exist, is not YAML (or uses YAML
aliases that would expand it too far, docs/security.md), or none of its
objects carries argocd.argoproj.io/hook (or a helm.sh/hook that Argo CD
maps) with that phase, the declaration is wrong: the hook runs in
another phase, or the object is applied as an ordinary resource on every
sync, or nothing runs at all.

The manifest path is relative to the file that declares the hook. Fix
the path, or make the annotation and the hook block's phase agree.`,
	Severity: lint.Error,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				la := p.Decls.App(a.Name)
				for _, h := range a.Hooks {
					lh := hookDecl(la, h.Name)
					if h.Manifest == "" || lh == nil || lh.Manifest == nil {
						continue
					}
					subject := lh.Manifest.Expr.Range()
					path := hookPath(h.Dir, h.Manifest)
					b, err := p.ReadFile(path)
					if err != nil {
						why := "cannot be read: " + safefile.Unwrap(err).Error()
						if errors.Is(err, fs.ErrNotExist) {
							why = "does not exist"
						}
						p.Report(lint.Issue{
							Message: fmt.Sprintf("manifest %q of hook %q %s", h.Manifest, h.Name, why),
							Detail:  fmt.Sprintf("platc looked for %s (the path is relative to the file that declares the hook). Fix the path, or remove the hook block if the hook is gone.", path),
							Subject: subject,
						})
						continue
					}
					_, objs, d := manifest.Parse(path, b)
					if d != nil && len(objs) == 0 {
						p.Report(lint.Issue{
							Message: fmt.Sprintf("manifest %q of hook %q %s", h.Manifest, h.Name, unreadable(d)),
							Detail:  d.Detail,
							Subject: subject,
							// The manifest's own line, where the fix goes.
							Related: []diag.Related{{Range: *d.Subject, Message: d.Summary}},
						})
						continue
					}
					var others []diag.Related
					found := false
					for _, o := range objs {
						hi, ok := detect.HookOf(o)
						if !ok {
							continue
						}
						if slices.Contains(hi.Phases, h.Phase) {
							found = true
							break
						}
						others = append(others, diag.Related{Range: o.File.Span(hi.Ann.Key, hi.Ann.Value), Message: fmt.Sprintf("%s is a %s", objectName(o), hi.Describe())})
					}
					switch {
					case found:
					case len(others) > 0:
						p.Report(lint.Issue{
							Message: fmt.Sprintf("hook %q is declared %s, but its manifest annotates another phase", h.Name, h.Phase),
							Detail:  fmt.Sprintf("Argo CD runs the hook in the phase its annotation names, not the one declared here. Make argocd.argoproj.io/hook in %s and phase = %q agree.", h.Manifest, h.Phase),
							Subject: subject,
							Related: others,
						})
					default:
						p.Report(lint.Issue{
							Message: fmt.Sprintf("no object in manifest %q is annotated as a %s hook", h.Manifest, h.Phase),
							Detail:  fmt.Sprintf("Without the annotation Argo CD applies the object as an ordinary resource on every sync instead of running it as hook %q. Add `argocd.argoproj.io/hook: %s` to the metadata.annotations of the object.", h.Name, h.Phase),
							Subject: subject,
						})
					}
				}
			}
		}
		return nil
	},
}

func hookDecl(la *lang.App, name string) *lang.Hook {
	if la == nil {
		return nil
	}
	for _, h := range la.Hooks {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// unreadable says why a manifest's diagnostic d left no objects.
func unreadable(d *hcl.Diagnostic) string {
	if d.Summary == manifest.AliasesRefused {
		return "uses aliases platc refuses to expand"
	}
	return "is not valid YAML"
}
