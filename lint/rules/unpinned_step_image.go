package rules

import (
	"fmt"
	"strings"

	"github.com/platc/platc/lint"
)

// UnpinnedStepImage reports a platform.workflows.image that a registry
// can change under the same reference.
var UnpinnedStepImage = &lint.Rule{
	Name: "unpinned-step-image",
	Doc: `workflow step image is not pinned by digest or version

Every step of the generated workflows runs platform.workflows.image, and
the steps that talk to Argo CD get the automation account's API token in
ARGOCD_AUTH_TOKEN. An image named without a tag means ":latest", and
":latest" or a tag such as "3.5" or "stable" is moved by whoever pushes
to that repository: the next deploy then runs their code with the token,
and two runs of the same platform run different steps (RFC 2.2.4).

The image counts as pinned when it carries a digest ("@sha256:" and 64
hex digits) or a tag with a full version number (major.minor.patch, such
as "v3.5.1" or "1.4.0-alpine"). A digest is the stronger pin: a registry
can re-push a version tag, but not a digest. Without
platform.workflows.image the steps run platc's own image, tagged with the
platc release that generated them, which this rule does not report.

Pin the image by digest, or at least by an exact version tag, from a
registry you trust with the token.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		w := p.Module.Platform.Workflows
		if w == nil || w.Image == nil {
			return nil // platc's release image, pinned to the release
		}
		for _, prog := range p.Programs {
			img := prog.Platform.Workflows.Image
			if why := whyImageFloats(img); why != "" {
				p.Report(lint.Issue{
					Message: fmt.Sprintf("step image %q %s", img, why),
					Detail:  "Workflow steps run this image with the Argo CD automation token in ARGOCD_AUTH_TOKEN, so whoever can push this tag can run code with it at the next deploy. Pin a digest (IMAGE@sha256:...) or an exact version tag such as \":v1.4.0\".",
					Subject: w.Image.Expr.Range(),
				})
			}
		}
		return nil
	},
}

// whyImageFloats says why an image reference can change under the same
// name, or "" if it is pinned.
func whyImageFloats(ref string) string {
	// The compiler's image grammar admits only "@sha256:" and 64 hex
	// digits after the name.
	if strings.Contains(ref, "@sha256:") {
		return ""
	}
	// The tag follows the last colon after the last slash; a colon before
	// it is a registry port (registry:5000/platc).
	last := ref[strings.LastIndex(ref, "/")+1:]
	_, tag, ok := strings.Cut(last, ":")
	switch {
	case !ok:
		return "has no tag, so it means :latest"
	case tag == "latest":
		return "is :latest, which moves with every push"
	case !fullVersion.MatchString(tag):
		return fmt.Sprintf("has tag %q, which is not an exact version", tag)
	}
	return ""
}
