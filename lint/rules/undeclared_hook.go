package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/detect"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lint"
)

// UndeclaredHook reports hook annotations in scanned manifests that no
// hook block declares.
var UndeclaredHook = &lint.Rule{
	Name: "undeclared-hook",
	Doc: `hook annotation in a manifest that no hook block declares

RFC 2.2.3 and INV-8 allow hooks only for work inside one app: database
migrations, schema updates and one-time initialisation. Hooks that wait
for other apps or check prerequisites are how platforms ended up with
syncs that hang and order that nobody can see; the deploy DAG does that
job now. So every hook must be declared in the platform with its
purpose, and platc lint --scan DIR finds the ones that are not.

An object is a hook when it carries argocd.argoproj.io/hook (other than
Skip alone) or helm.sh/hook. It is declared when a hook block's manifest
is that very file and the block's phase is one the annotation runs in
(Helm's pre-install and pre-upgrade count as PreSync, post-install and
post-upgrade as PostSync).

If the hook does work inside its app, declare it in that app:
hook "NAME" { phase = "PreSync", purpose = "migration", manifest =
"PATH" }. If it waits for or checks another app, delete it and express
the order with depends_on.`,
	Severity: lint.Error,
	Default:  true,
	Scan:     true,
	Run: func(p *lint.Pass) error {
		type declared struct {
			app  string
			hook ir.Hook
			path string
		}
		var decls []declared
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				for _, h := range a.Hooks {
					if h.Manifest == "" {
						continue
					}
					d := declared{a.Name, h, hookPath(h.Dir, h.Manifest)}
					if !slices.ContainsFunc(decls, func(x declared) bool { return x.app == d.app && x.hook.Name == d.hook.Name && x.path == d.path }) {
						decls = append(decls, d)
					}
				}
			}
		}
		for _, o := range p.Manifests.Objects {
			hi, ok := detect.HookOf(o)
			if !ok {
				continue
			}
			var sameFileDecls []declared
			matched := false
			for _, d := range decls {
				if !sameFile(d.path, o.File.Path) {
					continue
				}
				sameFileDecls = append(sameFileDecls, d)
				if slices.Contains(hi.Phases, d.hook.Phase) {
					matched = true
				}
			}
			if matched {
				continue
			}
			subject := o.File.Span(hi.Ann.Key, hi.Ann.Value)
			if len(sameFileDecls) > 0 {
				var related []diag.Related
				var phases []string
				for _, d := range sameFileDecls {
					related = append(related, diag.Related{Range: d.hook.DeclRange, Message: fmt.Sprintf("hook %q of app %q is declared %s", d.hook.Name, d.app, d.hook.Phase)})
					phases = append(phases, d.hook.Phase)
				}
				p.Report(lint.Issue{
					Message: fmt.Sprintf("annotated %s on %s does not match the declared phase %s", hi.Describe(), objectName(o), strings.Join(phases, ", ")),
					Detail:  "Argo CD runs the hook in the phase its annotation names. Make the annotation and the hook block's phase agree.",
					Subject: subject,
					Related: related,
				})
				continue
			}
			p.Report(lint.Issue{
				Message: fmt.Sprintf("undeclared %s on %s", hi.Describe(), objectName(o)),
				Detail:  fmt.Sprintf("No hook block declares this hook, and the platform allows only declared hooks for migrations, schema updates and one-time initialisation (RFC 2.2.3, INV-8). If that is what it does, declare it in the app that owns it: hook \"NAME\" { phase = %q, purpose = \"migration\", manifest = \"PATH\" }, with PATH relative to the .hcl file. If it waits for or checks another app, delete it and use depends_on.", firstOr(hi.Phases, "PreSync")),
				Subject: subject,
			})
		}
		return nil
	},
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
