package lang

import (
	"fmt"

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
	if len(trav) != 2 {
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference in depends_on",
			Detail:   fmt.Sprintf("A dependency is written %s.NAME, with exactly one name after %q.", root, root+"."),
			Subject:  &r,
		}}
	}
	attr, ok := trav[1].(hcl.TraverseAttr)
	if !ok {
		return Ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference in depends_on",
			Detail:   fmt.Sprintf("A dependency is written %s.NAME; index syntax is not supported here.", root),
			Subject:  &r,
		}}
	}
	return Ref{Kind: RefKind(root), Name: attr.Name, Range: r}, nil
}
