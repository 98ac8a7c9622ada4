package compiler

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
)

// platc build writes every environment's tree, so what it writes grows
// with environments × apps × the size of each app's values; 76 KB of HCL
// wrote 494 MB in 103,600 files, and build --check held 4.2 GB to compare
// them (issue 21). The compiler bounds that product before anything is
// emitted: the app count up front, the number of files as soon as the
// environments are known, and the bytes from an estimate of each
// environment's output once its values are evaluated. Every bound is a
// diagnostic, so lint refuses what build would.
const (
	// MaxApps is the most apps a platform may have. Argo Workflows lays
	// a deploy out in at most 198 groups of 200 tasks (39,600 apps, and
	// fewer when stacks are uneven); above that every build failed with
	// an internal error. About half of it leaves the grouping room, and twice
	// the largest synthetic platform (internal/synth, 10,000 apps).
	MaxApps = 20_000
	// MaxOutputFiles is the most files one build may write, over every
	// environment: five environments of 10,000 apps.
	MaxOutputFiles = 50_000
	// MaxOutputBytes is the most one build may write, over every
	// environment, as estimated (EstimateOutput): the synthetic platform
	// of 10,000 apps writes 16.6 MB and is estimated at 28 MB.
	MaxOutputBytes = 256 << 20

	// What an environment's output holds besides its apps (workflows,
	// RBAC, Argo CD projects, the Ansible roles: 36 files and 120 KB for
	// a platform without apps), and how many times at most a platform
	// string (a repository, an image, a namespace) is written there.
	// emit/all's TestEstimateCoversOutput checks the emitters stay within
	// the estimate.
	fixedFiles    = 64
	fixedBytes    = 512 << 10
	platformTimes = 64
	// perAppBytes bounds what one app adds besides its strings, values
	// and dependencies: its Application and its tasks in the deploy,
	// teardown and validate workflows (1.6 KB per app in the synthetic
	// platform, dependencies included).
	perAppBytes = 1 << 10
	// nameTimes is how many times at most an app's name is written (the
	// Application, labels, tasks and parameters of three workflows);
	// other app strings are written at most twice, escaped at worst.
	nameTimes = 12
	// perDepBytes bounds what one dependency adds besides the names: in
	// the deploy and teardown DAGs' depends expressions and the validate
	// checks.
	perDepBytes = 128
	// groupRootBytes bounds a group root's Application besides its
	// repository and revision (1 KB with a 40-character stack name).
	groupRootBytes = 2 << 10
	// valuesIndent is the column an Application's valuesObject starts at
	// (spec.source.helm.valuesObject).
	valuesIndent = 8
)

// OutputEstimate is an upper bound of what emitting one Program writes.
type OutputEstimate struct {
	Files, Bytes int64
	// Largest is the app whose output is estimated largest, and its bytes.
	Largest      *ir.App
	LargestBytes int64
}

// EstimateOutput bounds what the emitters write for p, without running
// them: a constant per environment, one Application per app with a
// source, and per app its tasks, dependencies and values as platc's YAML
// writer lays them out (strings quoted or escaped at worst, each line of
// a multi-line string indented to its depth).
func EstimateOutput(p *ir.Program) OutputEstimate {
	e := OutputEstimate{Files: fixedFiles, Bytes: add(fixedBytes, platformTimes*(stringBytes(p.Platform)+stringBytes(p.Events)+stringBytes(p.Schedules)+stringBytes(p.Alerts)))}
	for _, a := range p.Apps {
		b := int64(perAppBytes) + nameTimes*int64(len(a.Name)) +
			6*int64(len(a.Namespace)+len(a.Application)+len(a.Project)+len(a.Class))
		for _, d := range a.Deps {
			b += perDepBytes + 4*int64(len(d.App.Name)+len(a.Name))
		}
		for _, d := range a.Dependents {
			b += perDepBytes + 4*int64(len(d.Name)+len(a.Name))
		}
		for _, h := range a.Hooks {
			b += perDepBytes + 6*int64(len(h.Name)+len(h.Phase)+len(h.Purpose)+len(h.Manifest))
		}
		for _, c := range a.CustomResources {
			b += perDepBytes + 6*int64(len(c.Group)+len(c.Kind))
		}
		for _, o := range a.Sync.Options {
			b += 16 + 6*int64(len(o))
		}
		if a.Source != nil {
			e.Files++
		}
		for _, src := range a.Sources {
			b += 6 * int64(len(src.RepoURL)+len(src.Chart)+len(src.Version)+len(src.Path)+len(src.TargetRevision)+len(src.Ref))
			if h := src.Helm; h != nil {
				b = add(b, 6*int64(len(h.ReleaseName))+valuesSize(h.Values, valuesIndent+2))
				for _, f := range h.ValueFiles {
					b = add(b, int64(3*len(f)+valuesIndent+8))
				}
				b = add(b, stringsSize(h.Parameters, h.FileParameters, h.APIVersions, h.KubeVersion))
			}
			b = add(b, stringsSize(src.Kustomize, src.Directory, src.Plugin))
		}
		// The rest of the Application vocabulary: every string written
		// escaped at worst, each on a line of its own with its key.
		b = add(b, stringsSize(a.Annotations, a.Labels, a.Info, a.IgnoreDifferences, a.Sync.Retry, a.Sync.Namespace))
		if b > e.LargestBytes {
			e.Largest, e.LargestBytes = a, b
		}
		e.Bytes = add(e.Bytes, b)
	}
	// Group roots (emit/internal/gitops.Groups): at most one per stack,
	// one for apps outside stacks, and one more per chunk of a stack
	// over the limit.
	if n := e.Files - fixedFiles; n > int64(p.Platform.ArgoCD.AppsPerRoot) {
		groups := int64(len(p.Stacks)) + 1 + n/int64(max(p.Platform.ArgoCD.AppsPerRoot, 1))
		e.Files += groups
		e.Bytes = add(e.Bytes, groups*(groupRootBytes+4*int64(len(p.Platform.Git.RepoURL)+len(p.Platform.Git.Revision))))
	}
	return e
}

// stringBytes adds up the lengths of every string in v, a struct of the
// IR (through pointers, slices and nested structs).
func stringBytes(v any) int64 {
	n, _ := stringStats(v)
	return n
}

// stringStats walks v as stringBytes does and returns the total length
// of its strings and their count, where each struct counts as one more
// (its own line).
func stringStats(v any) (bytes, count int64) {
	var walk func(r reflect.Value)
	walk = func(r reflect.Value) {
		switch r.Kind() {
		case reflect.String:
			bytes, count = add(bytes, int64(r.Len())), count+1
		case reflect.Pointer, reflect.Interface:
			if !r.IsNil() {
				walk(r.Elem())
			}
		case reflect.Struct:
			for i := range r.NumField() {
				if r.Type().Field(i).IsExported() {
					walk(r.Field(i))
				}
			}
			count++
		case reflect.Slice, reflect.Array:
			for i := range r.Len() {
				walk(r.Index(i))
			}
		case reflect.Map:
			for it := r.MapRange(); it.Next(); {
				walk(it.Key())
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(v))
	return bytes, count
}

// stringsSize bounds the YAML of the strings in vs, IR values of an
// Application: each escaped at worst, on a line of its own with its key
// and indentation.
func stringsSize(vs ...any) int64 {
	var n int64
	for _, v := range vs {
		b, c := stringStats(v)
		n = add(n, 6*b+64*c)
	}
	return n
}

// valuesSize bounds the YAML of a values tree whose keys start at
// column indent.
func valuesSize(v any, indent int) int64 {
	switch x := v.(type) {
	case map[string]any:
		n := int64(2)
		for k, c := range x {
			n = add(n, add(int64(indent)+stringSize(k, indent)+2, valuesSize(c, indent+2)))
		}
		return n
	case []any:
		n := int64(2)
		for _, c := range x {
			n = add(n, add(int64(indent)+2, valuesSize(c, indent+2)))
		}
		return n
	case string:
		return stringSize(x, indent) + 1
	}
	// Numbers (at most 24 characters as written), booleans and null.
	return 32
}

// stringSize bounds a scalar as written: quoted, with an ASCII byte
// escaped in at most two bytes and a non-ASCII one in three (\uXXXX for
// two bytes of UTF-8 at worst), and every line of a literal block
// indented.
func stringSize(s string, indent int) int64 {
	n := int64(2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			n += 3
		case c < 0x20 || c == '"' || c == '\\':
			n += 2
		default:
			n++
		}
	}
	return n + int64(strings.Count(s, "\n"))*int64(indent+1)
}

// outputBudget is what a build may still write, shared by the
// environments of one compilation.
type outputBudget struct {
	files, bytes int64
	envs         int // environments charged so far
	reported     bool
}

func newOutputBudget() *outputBudget {
	return &outputBudget{files: MaxOutputFiles, bytes: MaxOutputBytes}
}

// checkScale refuses, before any environment is lowered, a platform with
// more apps than MaxApps, or whose environments × apps would write more
// than MaxOutputFiles: both are known from the syntax alone.
func checkScale(m *lang.Module, s *structure, envs []string) hcl.Diagnostics {
	if len(s.apps) > MaxApps {
		a := s.apps[MaxApps]
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Too many apps",
			Detail: fmt.Sprintf("The platform declares %s; platc compiles at most %d (the deploy workflow's nested DAGs hold a little under 40,000, and the bound leaves room for their grouping), and %q is the first beyond that. Split the platform into several, each with its own platform block.",
				english.Count(len(s.apps), "app"), MaxApps, a.Name),
			Subject: a.NameRange.Ptr(),
		}}
	}
	sourced := 0
	for _, a := range s.apps {
		if a.Source != nil {
			sourced++
		}
	}
	files := int64(len(envs)) * int64(sourced+fixedFiles)
	if files <= MaxOutputFiles {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Platform output too large",
		Detail: fmt.Sprintf("%s × %s with a source would make platc build write about %d files, more than the %d one build writes (docs/security.md, Bounds). Use fewer environments, or split the platform.",
			english.Count(len(envs), "environment"), english.Count(sourced, "app"), files, MaxOutputFiles),
		Subject: envRange(m, envs[len(envs)-1]),
	}}
}

// charge takes one environment's estimated output from the budget, and
// reports the first environment that exceeds it.
func (b *outputBudget) charge(m *lang.Module, p *ir.Program) *hcl.Diagnostic {
	e := EstimateOutput(p)
	b.envs++
	b.files -= e.Files
	b.bytes -= e.Bytes
	if b.reported || b.files >= 0 && b.bytes >= 0 {
		return nil
	}
	b.reported = true
	detail := fmt.Sprintf("With environment %q, platc build would write about %s in %d files over %s, more than the %s and %d files one build writes (docs/security.md, Bounds).",
		p.Env.Name, mib(MaxOutputBytes-b.bytes), MaxOutputFiles-b.files, english.Count(b.envs, "environment"), safefile.Size(MaxOutputBytes), MaxOutputFiles)
	if e.Largest != nil {
		r := e.Largest.NameRange
		detail += fmt.Sprintf(" The largest app is %s (%s:%d:%d), at about %s in this environment.", e.Largest.Name, r.Filename, r.Start.Line, r.Start.Column, mib(e.LargestBytes))
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Platform output too large",
		Detail:   detail + " Make the large Helm values smaller (a values file in the chart's repository is not copied), use fewer environments, or split the platform.",
		Subject:  envRange(m, p.Env.Name),
	}
}

// mib writes n bytes in MiB, for estimates.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// envRange is where environment env is declared: its label, or the
// platform block for the implicit default environment.
func envRange(m *lang.Module, env string) *hcl.Range {
	for _, e := range m.Environments {
		if e.Name == env {
			return e.NameRange.Ptr()
		}
	}
	if m.Platform != nil {
		return m.Platform.NameRange.Ptr()
	}
	if len(m.Apps) > 0 {
		return m.Apps[0].NameRange.Ptr()
	}
	return &hcl.Range{}
}
