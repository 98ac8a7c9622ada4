package executor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"mvdan.cc/sh/v3/syntax"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/lang"
)

// imageTool is one row of scripts/image-tools.txt.
type imageTool struct {
	kind, name, min string
	usedBy          []string
	cmd             []string
}

func readImageTools(t *testing.T) []imageTool {
	t.Helper()
	b, err := os.ReadFile("../scripts/image-tools.txt")
	if err != nil {
		t.Fatal(err)
	}
	var rows []imageTool
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 4 || (f[0] != "tool" && f[0] != "collection" && f[0] != "python") {
			t.Fatalf("image-tools.txt:%d: want kind, name, minimum, used by[, version command]: %q", i+1, line)
		}
		rows = append(rows, imageTool{kind: f[0], name: f[1], min: f[2], usedBy: strings.Split(f[3], ","), cmd: f[4:]})
	}
	return rows
}

// stepCommands are the programs the steps run: the interpreter of every
// script template the example's workflows hold, the command of every
// container template (platc, for sync-and-wait), and, found by parsing
// the scripts, every command word that is not a builtin or a script's
// own function, and the command timeout runs.
func stepCommands(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	m, diags := lang.Parse("../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	prog, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	objs, err := argo.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	var templates []wfv1.Template
	templates = append(templates, objs.ClusterTemplate.Spec.Templates...)
	for _, wt := range []*wfv1.WorkflowTemplate{objs.Deploy, objs.Teardown, objs.Validate} {
		templates = append(templates, wt.Spec.Templates...)
	}
	for _, tpl := range templates {
		if tpl.Script != nil && len(tpl.Script.Command) > 0 {
			seen[tpl.Script.Command[0]] = true
		}
		// sync-and-wait runs platc step.
		if tpl.Container != nil && len(tpl.Container.Command) > 0 {
			seen[tpl.Container.Command[0]] = true
		}
	}
	paths, err := filepath.Glob("../emit/argo/scripts/*.sh")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no step scripts: %v", err)
	}
	builtins := map[string]bool{}
	for _, b := range strings.Fields("echo printf exit return local set shift mapfile readarray read continue break true false test [ export unset declare wait trap cd eval exec source . : let command") {
		builtins[b] = true
	}
	funcs := map[string]bool{}
	var files []*syntax.File
	for _, p := range paths {
		src, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(src, p)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		syntax.Walk(f, func(n syntax.Node) bool {
			if fd, ok := n.(*syntax.FuncDecl); ok {
				funcs[fd.Name.Value] = true
			}
			return true
		})
	}
	for _, f := range files {
		syntax.Walk(f, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			words := make([]string, len(call.Args))
			for i, w := range call.Args {
				words[i] = w.Lit() // "" when not a plain word
			}
			name := words[0]
			if name == "timeout" {
				// timeout [OPTION...] DURATION COMMAND: its command is a step
				// command too.
				rest := words[1:]
				for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
					rest = rest[1:]
				}
				if len(rest) > 1 && rest[1] != "" {
					seen[rest[1]] = true
				}
			}
			if name != "" && !builtins[name] && !funcs[name] {
				seen[name] = true
			}
			return true
		})
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestImageToolsList keeps scripts/image-tools.txt, the list the release
// workflow checks the published image against, equal to what platc
// needs: Phase 0's tools and collections at Phase 0's minimums, exactly
// the programs the step scripts run, argocd at the version the steps are
// tested with, and only what the Dockerfile installs.
func TestImageToolsList(t *testing.T) {
	rows := readImageTools(t)
	byName := map[string]imageTool{}
	for _, r := range rows {
		if _, dup := byName[r.name]; dup {
			t.Errorf("%s is listed twice", r.name)
		}
		byName[r.name] = r
		if r.min != "-" {
			if _, err := preflight.ParseVersion(r.min); err != nil {
				t.Errorf("%s: minimum %q: %v", r.name, r.min, err)
			}
			if r.kind == "tool" && len(r.cmd) == 0 {
				t.Errorf("%s has a minimum but no version command", r.name)
			}
		}
	}
	used := func(r imageTool, by string) bool { return slices.Contains(r.usedBy, by) }

	// Phase 0, both ways.
	phase0 := map[string]preflight.Version{}
	for _, tl := range preflight.Tools {
		phase0[tl.Name] = tl.Min
	}
	for _, c := range preflight.Collections {
		phase0[c.Name] = c.Min
	}
	for _, p := range preflight.PythonPackages {
		phase0[p.Name] = p.Min
	}
	for name, min := range phase0 {
		r, ok := byName[name]
		if !ok || !used(r, "phase0") {
			t.Errorf("Phase 0 requires %s, which image-tools.txt does not list as used by phase0", name)
			continue
		}
		if v, _ := preflight.ParseVersion(r.min); v != min {
			t.Errorf("%s: image-tools.txt's minimum is %s, Phase 0's %s", name, r.min, min)
		}
	}
	for _, r := range rows {
		if _, ok := phase0[r.name]; used(r, "phase0") && !ok {
			t.Errorf("image-tools.txt lists %s as used by phase0, which Phase 0 does not check", r.name)
		}
	}

	// The step scripts, both ways.
	cmds := stepCommands(t)
	for _, c := range cmds {
		if r, ok := byName[c]; !ok || !used(r, "steps") {
			t.Errorf("the step scripts run %s, which image-tools.txt does not list as used by steps", c)
		}
	}
	for _, r := range rows {
		if used(r, "steps") && !slices.Contains(cmds, r.name) {
			t.Errorf("image-tools.txt lists %s as used by steps, which no step script runs (found %s)", r.name, strings.Join(cmds, ", "))
		}
	}
	if r := byName["argocd"]; "v"+r.min != argo.DefaultImageArgoCDVersion {
		t.Errorf("argocd's minimum is %s; the steps are tested with %s (emit/argo DefaultImageArgoCDVersion)", r.min, argo.DefaultImageArgoCDVersion)
	}

	// The Dockerfile installs every tool: a download into /usr/local/bin,
	// ansible-core's venv, a package of the final stage, or Debian's base
	// (sed is Essential, mawk provides awk).
	df, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	stages := regexp.MustCompile(`(?m)^FROM `).FindAllIndex(df, -1)
	final := string(df[stages[len(stages)-1][0]:])
	aptLine := regexp.MustCompile(`apt-get install -y --no-install-recommends \\\n\s+([^\n]+)`).FindStringSubmatch(final)
	if aptLine == nil {
		t.Fatal("the final stage installs no Debian packages")
	}
	pkgs := strings.Fields(strings.TrimSuffix(strings.TrimSpace(aptLine[1]), "\\"))
	fromDebian := map[string]string{"bash": "bash", "jq": "jq", "timeout": "coreutils", "sort": "coreutils", "cp": "coreutils", "sleep": "coreutils"}
	for _, r := range rows {
		// The venv is built in its own stage and copied into the final one.
		if r.kind == "python" && !strings.Contains(string(df), `"`+r.name+`==`) {
			t.Errorf("the final stage's Ansible venv does not install Python package %s", r.name)
		}
		if r.kind != "tool" {
			continue
		}
		switch {
		case strings.Contains(string(df), "/usr/local/bin/"+r.name+"\n"):
		case r.name == "ansible-playbook" && strings.Contains(string(df), `"ansible-core==`):
		case r.name == "sed" || r.name == "awk":
		case fromDebian[r.name] != "":
			if !slices.Contains(pkgs, fromDebian[r.name]) {
				t.Errorf("%s comes from Debian's %s, which the final stage does not install (%s)", r.name, fromDebian[r.name], strings.Join(pkgs, " "))
			}
		default:
			t.Errorf("the Dockerfile does not install %s", r.name)
		}
	}
}

// Stand-ins print what the real tools print (the formats the image's
// versions use).
var standIns = map[string]string{
	"argocd":           "argocd: v3.2.6+65b0293",
	"ansible-playbook": "ansible-playbook [core 2.17.14]\n  config file = None\n  python version = 3.11.2 (main, Apr 28 2025, 14:11:48) [GCC 12.2.0] (@DIR@/python3)",
	// Ansible's venv interpreter answers the package probe (both the
	// script's and Phase 0's) with the Dockerfile's pins.
	"python3":        `{"kubernetes": "33.1.0", "openshift": "0.13.2", "PyYAML": "6.0.2", "jsonpatch": "1.33"}`,
	"kubectl":        "Client Version: v1.34.1\nKustomize Version: v5.7.1",
	"helm":           "v3.19.0+g3d8990f",
	"kubeseal":       "kubeseal version: 0.32.2",
	"yq":             "yq (https://github.com/mikefarah/yq/) version v4.47.2",
	"ansible-galaxy": "[WARNING]: No config file found; using defaults\n" + `{"/opt/ansible/collections/ansible_collections": {"kubernetes.core": {"version": "6.2.0"}, "community.general": {"version": "11.4.1"}, "ansible.posix": {"version": "2.1.0"}, "ansible.utils": {"version": "6.0.0"}}, "/usr/share/ansible/collections": {"kubernetes.core": {"version": "2.4.0"}}}`,
	"platc":          "platc v1.4.0 (go1.26.8, linux/amd64)",
	"sort":           "", "cp": "", "sleep": "", "sed": "", "awk": "",
}

func standInDir(t *testing.T, outputs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	// The script itself needs bash and, for the collections, jq and
	// timeout; those are the host's real ones, checked like the rest.
	for _, real := range []string{"bash", "jq", "timeout"} {
		p, err := exec.LookPath(real)
		if err != nil {
			t.Skipf("%s is not installed", real)
		}
		if err := os.Symlink(p, filepath.Join(dir, real)); err != nil {
			t.Fatal(err)
		}
	}
	for name, out := range outputs {
		// printf, a builtin: the PATH holds nothing but the tools.
		if strings.Contains(out, "'") {
			t.Fatalf("stand-in output of %s holds a quote", name)
		}
		body := "#!/bin/sh\nprintf '%s\\n' '" + strings.ReplaceAll(out, "@DIR@", dir) + "'\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runCheck(t *testing.T, dir string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "bash"), "../scripts/check-image-tools.sh", "../scripts/image-tools.txt")
	cmd.Env = []string{"PATH=" + dir, "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestCheckImageTools runs scripts/check-image-tools.sh, as the release
// workflow runs it inside the image, on a PATH of stand-ins: it passes
// with the image's versions, reads the same versions Phase 0 reads, and
// fails on a missing, too old or unreadable tool or collection.
func TestCheckImageTools(t *testing.T) {
	rows := readImageTools(t)
	dir := standInDir(t, standIns)
	out, code := runCheck(t, dir)
	if code != 0 {
		t.Fatalf("exit %d with every tool present:\n%s", code, out)
	}
	reported := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "ok" {
			t.Errorf("unexpected line %q", line)
			continue
		}
		reported[f[1]] = f[2]
	}
	if len(reported) != len(rows) {
		t.Errorf("%d lines for %d listed tools:\n%s", len(reported), len(rows), out)
	}
	// The script and Phase 0 read the same version from the same output.
	for _, r := range preflight.CheckTools(context.Background(), preflight.ToolOptions{Path: dir}) {
		v, _ := preflight.ParseVersion(reported[r.Name])
		w, _ := preflight.ParseVersion(r.Version)
		if r.Status != preflight.ToolOK || v != w {
			t.Errorf("%s: the script read %q, Phase 0 %q (%s)", r.Name, reported[r.Name], r.Version, r.Message)
		}
	}

	for _, c := range []struct {
		name, tool, output, want string
	}{
		{"missing", "argocd", "", "missing   argocd"},
		{"too old", "kubeseal", "kubeseal version: 0.23.1", "too-old   kubeseal"},
		{"python yq", "yq", "yq 3.1.0", "too-old   yq"},
		{"unreadable", "helm", "Error: unknown flag: --short", "unreadable helm"},
		{"old argocd", "argocd", "argocd: v3.1.9+8665140", "too-old   argocd"},
		{"collection", "ansible-galaxy", `{"/c": {"kubernetes.core": {"version": "3.3.1"}, "community.general": {"version": "11.4.1"}, "ansible.posix": {"version": "2.1.0"}, "ansible.utils": {"version": "6.0.0"}}}`, "too-old   kubernetes.core"},
		{"no collection", "ansible-galaxy", `{"/c": {"kubernetes.core": {"version": "6.2.0"}, "ansible.posix": {"version": "2.1.0"}, "ansible.utils": {"version": "6.0.0"}}}`, "missing   community.general"},

		{"no jsonpatch", "python3", `{"kubernetes": "33.1.0", "openshift": "0.13.2", "PyYAML": "6.0.2", "jsonpatch": null}`, "missing   jsonpatch"},
		{"old kubernetes", "python3", `{"kubernetes": "11.0.0", "openshift": "0.13.2", "PyYAML": "6.0.2", "jsonpatch": "1.33"}`, "too-old   kubernetes"},
		{"no interpreter", "ansible-playbook", "ansible-playbook [core 2.17.14]", "unreadable PyYAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			outputs := map[string]string{}
			for k, v := range standIns {
				outputs[k] = v
			}
			delete(outputs, c.tool)
			if c.output != "" {
				outputs[c.tool] = c.output
			}
			out, code := runCheck(t, standInDir(t, outputs))
			if code != 1 || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want 1 and %q:\n%s", code, c.want, out)
			}
		})
	}
}
