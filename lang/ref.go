package lang

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// ParseRefs reads a depends_on attribute: a list of app.NAME and
// stack.NAME traversals. Each element keeps its own range so the compiler
// can point at exactly the reference that is wrong.
func ParseRefs(attr *hcl.Attribute) ([]Ref, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(attr.Expr)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid depends_on",
			Detail:   "depends_on must be a list of references, such as [app.vault, stack.storage].",
			Subject:  attr.Expr.Range().Ptr(),
		}}
	}
	var refs []Ref
	for _, e := range exprs {
		ref, ds := parseRef(e)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			refs = append(refs, ref)
		}
	}
	return refs, diags
}

func parseRef(e hcl.Expression) (Ref, hcl.Diagnostics) {
	r := e.Range()
	if tmpl, ok := e.(*hclsyntax.TemplateExpr); ok && tmpl.IsStringLiteral() {
		v, _ := tmpl.Value(nil)
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Quoted reference in depends_on",
			Detail:   fmt.Sprintf("depends_on takes references, not strings. Write app.%s (or stack.%s) without quotes.", v.AsString(), v.AsString()),
			Subject:  &r,
		}}
	}
	trav, diags := hcl.AbsTraversalForExpr(e)
	if diags.HasErrors() {
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference in depends_on",
			Detail:   "Each element of depends_on must be a reference of the form app.NAME or stack.NAME.",
			Subject:  &r,
		}}
	}
	root := trav.RootName()
	if root != string(RefApp) && root != string(RefStack) {
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference in depends_on",
			Detail:   fmt.Sprintf("%q is not something an app can depend on. Use app.NAME for one app or stack.NAME for every app of a stack.", root),
			Subject:  &r,
		}}
	}
	names := make([]string, 0, len(trav)-1)
	for _, t := range trav[1:] {
		attr, ok := t.(hcl.TraverseAttr)
		if !ok {
			return Ref{}, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid reference in depends_on",
				Detail:   fmt.Sprintf("A dependency is written %s.NAME; index syntax is not supported here.", root),
				Subject:  &r,
			}}
		}
		names = append(names, attr.Name)
	}
	switch {
	case len(names) == 1:
		return Ref{Kind: RefKind(root), Name: names[0], Range: r}, nil
	case root == string(RefApp) && len(names) == 3 && names[1] == "resource":
		// One resource of an app (RFC 5.1 resource node).
		return Ref{Kind: RefApp, Name: names[0], Resource: names[2], Range: r}, nil
	case root == string(RefApp) && len(names) >= 2 && names[1] == "resource":
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference in depends_on",
			Detail:   fmt.Sprintf("A dependency on one resource of an app is written app.%s.resource.NAME, where NAME is a resource block of app %q.", names[0], names[0]),
			Subject:  &r,
		}}
	case root == string(RefApp) && len(names) > 1:
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference in depends_on",
			Detail:   fmt.Sprintf("A dependency is written app.NAME for the whole app, or app.NAME.resource.R for one of its resource blocks; %q is neither.", trav.RootName()+"."+strings.Join(names, ".")),
			Subject:  &r,
		}}
	}
	return Ref{}, hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Invalid reference in depends_on",
		Detail:   fmt.Sprintf("A dependency is written %s.NAME, with exactly one name after %q.", root, root+"."),
		Subject:  &r,
	}}
}
