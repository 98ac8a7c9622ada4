package compiler

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/platc/platc/internal/golden"
)

// moduleDir downloads a module version through the Go proxy (or finds it
// in the module cache) and returns its directory.
func moduleDir(t *testing.T, mod string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	var info struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err == nil && info.Dir == "" {
		err = fmt.Errorf("%s", info.Error)
	}
	if err != nil {
		if os.Getenv("PLATC_REQUIRE_CLI_TOOLS") == "1" {
			t.Fatalf("go mod download %s: %v", mod, err)
		}
		t.Skipf("go mod download %s: %v", mod, err)
	}
	return info.Dir
}

// argocd-health.txt is Argo CD's own list, at the release platc pins:
// the Lua checks as its module source has them, the Go checks as the
// gitops-engine it requires has them. -update rewrites the Lua part.
func TestArgoCDHealthList(t *testing.T) {
	// The pin: the e2e's Argo CD module is the release the list is of.
	gomod, err := os.ReadFile("../.ci/e2e/argocd/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	pinned := ""
	for _, r := range mf.Require {
		if r.Mod.Path == "github.com/argoproj/argo-cd/v3" {
			pinned = r.Mod.Version
		}
	}
	if pinned != ArgoCDHealthVersion {
		t.Fatalf(".ci/e2e/argocd/go.mod pins Argo CD %s, ArgoCDHealthVersion is %s: set it and run go test ./compiler -run TestArgoCDHealthList -update", pinned, ArgoCDHealthVersion)
	}
	src := moduleDir(t, "github.com/argoproj/argo-cd/v3@"+pinned)

	var lua []string
	root := filepath.Join(src, "resource_customizations")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "health.lua" {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		group, kind, ok := strings.Cut(filepath.ToSlash(rel), "/")
		if !ok || strings.Contains(kind, "/") {
			return fmt.Errorf("unexpected health check at %s", rel)
		}
		// Argo CD writes its wildcard "*" as "_" in directory names.
		group = strings.ReplaceAll(group, "_", "*")
		if kind == "_" {
			kind = "*"
		}
		lua = append(lua, "lua "+group+"/"+kind)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lua)

	// The Go checks: gitops-engine's GetHealthCheckFunc, at the version
	// Argo CD requires. Each listed kind must be a case of it, and it
	// must have no more cases than are listed.
	amf, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	af, err := modfile.ParseLax("go.mod", amf, nil)
	if err != nil {
		t.Fatal(err)
	}
	var engine string
	for _, r := range af.Require {
		if r.Mod.Path == "github.com/argoproj/gitops-engine" {
			engine = r.Mod.Path + "@" + r.Mod.Version
		}
	}
	hsrc, err := os.ReadFile(filepath.Join(moduleDir(t, engine), "pkg", "health", "health.go"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(hsrc)
	start := strings.Index(body, "func GetHealthCheckFunc(")
	if start < 0 {
		t.Fatalf("%s: GetHealthCheckFunc not found; read the new source and update argocd-health.txt by hand", engine)
	}
	body = body[start:]
	body = body[:strings.Index(body, "\n}\n")]
	var goChecks []string
	for _, c := range ArgoCDHealthChecks() {
		if !c.Go {
			continue
		}
		goChecks = append(goChecks, c.Kind)
		group, kind, ok := strings.Cut(c.Kind, "/")
		if !ok {
			group, kind = "", c.Kind
		}
		caseRE := regexp.MustCompile(`(?s)case "` + regexp.QuoteMeta(group) + `":.*?(kube\.` + kind + `Kind|"` + kind + `")`)
		if !caseRE.MatchString(body) {
			t.Errorf("%s has no Go health check for %s; correct argocd-health.txt", engine, c.Kind)
		}
	}
	if n := strings.Count(body, "return get"); n != len(goChecks) {
		t.Errorf("%s's GetHealthCheckFunc has %d checks, argocd-health.txt lists %d Go checks: %v", engine, n, len(goChecks), goChecks)
	}
	if !strings.Contains(argoCDHealthData, engine) {
		t.Errorf("argocd-health.txt does not cite %s, the gitops-engine Argo CD %s requires", engine, pinned)
	}

	var have []string
	for _, c := range ArgoCDHealthChecks() {
		if !c.Go {
			have = append(have, "lua "+c.Kind)
		}
	}
	if golden.Update() {
		var b strings.Builder
		for line := range strings.SplitSeq(argoCDHealthData, "\n") {
			if !strings.HasPrefix(line, "lua ") && line != "" {
				b.WriteString(line + "\n")
			}
		}
		b.WriteString("\n" + strings.Join(lua, "\n") + "\n")
		if err := os.WriteFile("argocd-health.txt", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !slices.Equal(have, lua) {
		t.Errorf("argocd-health.txt's Lua checks differ from Argo CD %s's resource_customizations (%d listed, %d there); run go test ./compiler -run TestArgoCDHealthList -update", pinned, len(have), len(lua))
	}
}

// The table of when each check arrived agrees with the pinned release:
// what it says v3.2 has is in the list, and no listed kind is dated later.
func TestArgoCDNativeAgreesWithList(t *testing.T) {
	pin, _ := majorMinor(ArgoCDHealthVersion)
	for kind, since := range argoCDNative {
		s, _ := majorMinor(since)
		if got := pinnedArgoCDCovers(kind); got != !pin.less(s) {
			t.Errorf("argoCDNative dates %s from %s, but Argo CD %s's list has it: %v", kind, since, ArgoCDHealthVersion, got)
		}
	}
	for _, k := range []string{"gateway.networking.k8s.io/HTTPRoute", "s3.aws.crossplane.io/Bucket", "apps/Deployment"} {
		if !pinnedArgoCDCovers(k) {
			t.Errorf("%s not covered", k)
		}
	}
	for _, k := range []string{"example.com/Database", "crossplane.io.evil.com/Bucket", "apps/Widget"} {
		if pinnedArgoCDCovers(k) {
			t.Errorf("%s covered", k)
		}
	}
}
