package compiler

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// secretKey is what Kubernetes accepts as a key of a Secret's data.
var secretKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// checkObjectName reports an attribute that names a Kubernetes object
// (a ServiceAccount, a Secret) but is not a DNS-1123 subdomain: the
// generated manifests would be refused by the API server, far from the
// line that caused it.
func (c *compilation) checkObjectName(e *evaluator, a *hcl.Attribute, what string) {
	s, ok := e.str(a)
	if !ok {
		return
	}
	if len(s) > 253 || !k8sName.MatchString(s) {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Invalid "+what,
			fmt.Sprintf("%q is not a valid Kubernetes %s: use lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters.", s, what)))
	}
}

// checkSecretKey reports a Secret key Kubernetes would not accept.
func (c *compilation) checkSecretKey(e *evaluator, a *hcl.Attribute) {
	s, ok := e.str(a)
	if !ok {
		return
	}
	if len(s) > 253 || !secretKey.MatchString(s) {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Invalid secret key",
			fmt.Sprintf("%q is not a valid key of a Kubernetes Secret: use letters, digits, '-', '_' and '.', at most 253 characters.", s)))
	}
}
