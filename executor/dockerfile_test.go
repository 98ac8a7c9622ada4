package executor

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/executor/preflight"
)

// TestDockerfile keeps the image in step with Phase 0: Docker cannot run
// here, so this reads the Dockerfile and checks that the final image
// carries every tool Phase 0 requires (and the ones the workflow steps
// use), every collection, runs as a non-root user, and builds per target
// architecture.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	stages := regexp.MustCompile(`(?m)^FROM `).FindAllStringIndex(df, -1)
	if len(stages) < 3 {
		t.Errorf("want a multi-stage build, found %d stages", len(stages))
	}
	final := df[stages[len(stages)-1][0]:]
	for _, want := range []string{"USER 65532:65532", `ENTRYPOINT ["/usr/local/bin/platc"]`, "bash", "coreutils", "jq", "COPY --from=tools /usr/local/bin/", "COPY --from=ansible /opt/ansible"} {
		if !strings.Contains(final, want) {
			t.Errorf("final stage lacks %q", want)
		}
	}
	// Tools downloaded in the tools stage, by binary name.
	for _, tool := range preflight.Tools {
		switch tool.Name {
		case "jq":
			continue // from Debian, checked above
		case "ansible-playbook":
			if !strings.Contains(df, `"ansible-core==`) {
				t.Error("ansible-core is not installed")
			}
			continue
		}
		if !strings.Contains(df, "/usr/local/bin/"+tool.Name+"\n") {
			t.Errorf("the image does not install %s", tool.Name)
		}
	}
	for _, extra := range []string{"argocd", "argo"} {
		if !strings.Contains(df, "/usr/local/bin/"+extra+"\n") {
			t.Errorf("the image does not install %s, which the workflow steps use", extra)
		}
	}
	req, err := os.ReadFile("../.ci/ansible-requirements.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range preflight.Collections {
		m := regexp.MustCompile(`name: ` + regexp.QuoteMeta(c.Name) + `\s+version: "([0-9.]+)"`).FindStringSubmatch(string(req))
		if m == nil {
			t.Errorf("collection %s is not pinned in .ci/ansible-requirements.yml", c.Name)
			continue
		}
		if v, err := preflight.ParseVersion(m[1]); err != nil || v.Less(c.Min) {
			t.Errorf("collection %s pinned at %s, below the required %s", c.Name, m[1], c.Min)
		}
	}
	// Pinned versions meet Phase 0's minimums.
	for arg, tool := range map[string]string{"KUBECTL_VERSION": "kubectl", "HELM_VERSION": "helm", "KUBESEAL_VERSION": "kubeseal", "YQ_VERSION": "yq", "ANSIBLE_CORE_VERSION": "ansible-playbook"} {
		m := regexp.MustCompile(`ARG ` + arg + `=v?([0-9.]+)`).FindStringSubmatch(df)
		if m == nil {
			t.Errorf("ARG %s is not pinned", arg)
			continue
		}
		v, _ := preflight.ParseVersion(m[1])
		for _, tl := range preflight.Tools {
			if tl.Name == tool && v.Less(tl.Min) {
				t.Errorf("%s pinned at %s, below Phase 0's minimum %s", tool, v, tl.Min)
			}
		}
	}
	if strings.Count(df, "${TARGETARCH}") < 5 {
		t.Error("downloads are not per target architecture")
	}
	if regexp.MustCompile(`(?m):latest\b`).MatchString(df) {
		t.Error("an image or tool is not pinned")
	}
}
