package compiler

import (
	"fmt"
	"math"
	"math/big"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
)

// maxExactInteger is 2^53: the largest integers a float64 holds exactly.
// Helm reads values through encoding/json into float64, as do Argo CD and
// platc's own YAML writer, so a larger integer would reach the chart
// changed (9007199254740993 becomes 9007199254740992).
var maxExactInteger = new(big.Float).SetInt64(1 << 53)

// dataValue converts v, the value of a data attribute (Helm values, an
// environment attribute), to JSON-compatible Go values, refusing numbers
// that would not arrive as written: beyond a float64's range (1e400), or
// integers a float64 cannot hold exactly.
func (c *compilation) dataValue(v cty.Value, r hcl.Range) (any, bool) {
	if why := checkNumbers(v); why != "" {
		c.diags = append(c.diags, diag.Error(r, "Number out of range", why))
		return nil, false
	}
	jv, err := jsonValue(v)
	if err != nil {
		c.diags = append(c.diags, diag.Error(r, "Unsupported value", fmt.Sprintf("This value cannot be represented as YAML: %s.", err)))
		return nil, false
	}
	return jv, true
}

// checkNumbers returns why a number in v cannot be written as it is, or "".
func checkNumbers(v cty.Value) (why string) {
	if v.IsNull() || !v.IsKnown() {
		return ""
	}
	t := v.Type()
	switch {
	case t == cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInf() {
			return "An infinite number cannot be written to YAML. Write the number you mean."
		}
		if f, _ := bf.Float64(); math.IsInf(f, 0) {
			return fmt.Sprintf("%s is beyond the range of the 64-bit floating-point numbers Helm, Jsonnet and Argo CD read values into (about 1.8e308). Write it as a string if the chart or Jsonnet program expects text.", shortNumber(bf))
		}
		if bf.IsInt() && new(big.Float).Abs(bf).Cmp(maxExactInteger) > 0 {
			return fmt.Sprintf("%s is an integer larger than 2^53; Helm, Jsonnet and Argo CD read numbers as 64-bit floats, so the chart or Jsonnet program would get a different number. Write it as a string, such as \"%s\", if it accepts one.", shortNumber(bf), shortNumber(bf))
		}
	case t.IsListType() || t.IsSetType() || t.IsTupleType() || t.IsMapType() || t.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			if why := checkNumbers(ev); why != "" {
				return why
			}
		}
	}
	return ""
}

// localPath evaluates a as the path of a file platc reads, written
// relative to the file that declares it (declared), and refuses one that
// leaves the platform directory: platc reads nothing outside it, and a
// path such as "../../../etc/shadow" must not make it print parts of
// such a file in a diagnostic.
func (c *compilation) localPath(a *hcl.Attribute, declared hcl.Range) (string, bool) {
	p, ok := c.eval.str(a)
	if !ok {
		return "", false
	}
	why := ""
	switch {
	case p == "":
		why = "is empty"
	case filepath.IsAbs(p) || filepath.IsAbs(filepath.FromSlash(p)):
		why = "is an absolute path"
	case !c.insidePlatform(filepath.Join(dirOf(declared), filepath.FromSlash(p))):
		why = fmt.Sprintf("leads outside the platform directory %s", c.platformDir(declared))
	}
	if why != "" {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Invalid path",
			fmt.Sprintf("%s %s. A file the platform names is relative to the file that names it and inside the platform directory, such as \"apps/harbor/migrate-job.yaml\".", quoteShort(p), why)))
		return "", false
	}
	return p, true
}

// platformDir is the directory paths must stay in.
func (c *compilation) platformDir(declared hcl.Range) string {
	if c.m.Dir != "" {
		return c.m.Dir
	}
	return dirOf(declared)
}

// insidePlatform reports whether p, a path as platc will open it, stays
// inside the platform directory as written (symbolic links are checked
// when the file is read).
func (c *compilation) insidePlatform(p string) bool {
	root := c.m.Dir
	if root == "" {
		root = "."
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && safefile.Inside(filepath.ToSlash(rel))
}
