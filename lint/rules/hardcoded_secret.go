package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/compiler/valid"
	"github.com/platc/platc/lint"
)

// HardcodedSecret reports credentials written into the platform's HCL.
var HardcodedSecret = &lint.Rule{
	Name: "hardcoded-secret",
	Doc: `credential written as a literal in the platform description

The platform description is committed to Git and its values are copied
into generated Applications, workflow parameters and Ansible variables.
A password, token or private key written there is readable by everyone
with access to any of them, stays in Git history after removal, and
cannot be rotated without a commit.

The rule looks at every literal string in every file, with few false
positives in mind:
- values that have the shape of a known credential anywhere: PEM private
  keys, AWS access key IDs, GitHub, GitLab, Slack, Stripe and Google API
  tokens, JWTs, and URLs with a password (https://user:pass@host, also
  redis://:pass@host);
- literal values of keys that name a credential: whose last word is
  password, passwd, pwd, pass, passphrase, token, apikey or credential,
  or that end in password, token, apikey, secretkey, accesskey,
  privatekey, clientsecret, encryptionkey, signingkey, masterkey or
  authkey (case and separators ignored; db_pwd, password1 and passwords
  count too); in a container env entry { name = "DB_PASSWORD", value =
  "..." } the name is the key. Placeholders are left alone: what a tool
  resolves (<path:...>, ref+..., vault:...), ${VAR}, $(VAR), {{ ... }},
  <...>, changeme, xxxx, ****, an environment variable name such as
  DB_PASSWORD, a value shorter than 6 characters, and values computed
  from expressions such as ${env.db_password};
- literal values of other keys ending in secret, and of keys that name
  a Secret (existingSecret..., ...SecretName, ...SecretRef), that are not
  Kubernetes object names, or are long random hex: existingSecret =
  "harbor-db" names a Secret, which is how it should be done.

platc build refuses to write output while this rule finds anything,
since the output is committed; a deliberate exception takes a
platc:ignore comment with its reason.

Move the value into a Kubernetes Secret (sealed with sealed-secrets or
synced by External Secrets from Vault) and reference it by name, for
example with the chart's existingSecret value. Then rotate the
credential: it has been committed.`,
	Severity: lint.Error,
	Default:  true,
	Syntax:   true, // reads only the syntax: runs when compilation fails
	Run: func(p *lint.Pass) error {
		for _, name := range p.Module.FileNames {
			f := p.Module.Files[name]
			if f == nil {
				continue
			}
			body, ok := f.Body.(*hclsyntax.Body)
			if !ok {
				continue
			}
			walkBody(p, body)
		}
		return nil
	},
}

func walkBody(p *lint.Pass, b *hclsyntax.Body) {
	for _, a := range sortedAttrs(b) {
		walkExpr(p, a.Expr, a.Name, a.Name)
	}
	for _, blk := range b.Blocks {
		walkBody(p, blk.Body)
	}
}

// sortedAttrs returns a body's attributes in source order: Attributes is
// a map, and findings must come out the same every run.
func sortedAttrs(b *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(b.Attributes))
	for _, a := range b.Attributes {
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y *hclsyntax.Attribute) int { return x.SrcRange.Start.Byte - y.SrcRange.Start.Byte })
	return out
}

// walkExpr looks at the literal strings of e. key is the name the value
// is assigned to (the attribute or object key), path the dotted path for
// messages.
func walkExpr(p *lint.Pass, e hclsyntax.Expression, key, path string) {
	switch x := e.(type) {
	case *hclsyntax.TemplateExpr:
		checkTemplate(p, x, key, path)
	case *hclsyntax.TemplateWrapExpr:
		walkExpr(p, x.Wrapped, key, path)
	case *hclsyntax.ObjectConsExpr:
		// A container env entry, { name = "DB_PASSWORD", value = "..." },
		// names its value's meaning in a sibling: value is judged as if
		// it were the key DB_PASSWORD.
		envName := ""
		for _, it := range x.Items {
			if objectKey(it.KeyExpr) == "name" {
				envName = literalString(it.ValueExpr)
			}
		}
		for _, it := range x.Items {
			k := objectKey(it.KeyExpr)
			switch {
			case k == "":
				walkExpr(p, it.ValueExpr, key, path)
			case k == "value" && envName != "":
				walkExpr(p, it.ValueExpr, envName, path+"."+envName)
			default:
				walkExpr(p, it.ValueExpr, k, path+"."+k)
			}
		}
	case *hclsyntax.TupleConsExpr:
		for _, it := range x.Exprs {
			walkExpr(p, it, key, path)
		}
	case *hclsyntax.ParenthesesExpr:
		walkExpr(p, x.Expression, key, path)
	case *hclsyntax.ConditionalExpr:
		walkExpr(p, x.TrueResult, key, path)
		walkExpr(p, x.FalseResult, key, path)
	case *hclsyntax.FunctionCallExpr:
		for _, a := range x.Args {
			walkExpr(p, a, key, path)
		}
	}
}

// literalString returns the value of a string literal, or "".
func literalString(e hclsyntax.Expression) string {
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && t.IsStringLiteral() {
		if v, diags := t.Value(nil); !diags.HasErrors() && v.Type() == cty.String {
			return v.AsString()
		}
	}
	return ""
}

// objectKey returns the literal name of an object key, or "".
func objectKey(e hclsyntax.Expression) string {
	if k, ok := e.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name
		}
		e = k.Wrapped
	}
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && t.IsStringLiteral() {
		if v, diags := t.Value(nil); !diags.HasErrors() && v.Type() == cty.String {
			return v.AsString()
		}
	}
	return ""
}

// credentialShapes are values that are credentials wherever they appear.
var credentialShapes = []struct {
	what string
	re   *regexp.Regexp
}{
	{"private key", regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`)},
	{"AWS access key", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"GitHub token", regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`)},
	{"GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"Stripe key", regexp.MustCompile(`\b[sr]k_live_[0-9A-Za-z]{16,}`)},
	{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	// The user may be empty, as in redis://:password@host.
	{"password in a URL", regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@`)},
}

// Key names are compared as words: "db_pwd", "dbPwd" and "DB_PWD" are
// the words db and pwd. A last word in credentialWords, or a key ending
// in a compound of credentialCompounds (case and separators ignored),
// holds a credential. Trailing digits and a plural s are ignored, so
// password1 and passwords count too.
var (
	credentialWords     = []string{"password", "passwd", "pwd", "pass", "passphrase", "token", "apikey", "credential"}
	credentialCompounds = []string{"password", "passwd", "passphrase", "token", "apikey", "secretkey", "accesskey", "privatekey", "clientsecret", "encryptionkey", "signingkey", "masterkey", "authkey"}
	// secretRefMarkers are parts of key names that say the value names a
	// Secret object rather than holding the credential.
	secretRefMarkers = []string{"existingsecret", "secretname", "secretref"}
)

var (
	nonAlnum    = regexp.MustCompile(`[^a-z0-9]`)
	wordBreak   = regexp.MustCompile(`[^A-Za-z0-9]+|([a-z0-9])([A-Z])`)
	envVarName  = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)
	resolverRef = regexp.MustCompile(`^(<path:|ref\+|vault:|op://|secretref\+|awssm:|gcpsm:|sops:)`)
	// placeholder is a value that stands for a credential filled in
	// elsewhere: <password>, ${DB_PASSWORD}, $(TOKEN), {{ .Values.x }},
	// xxxxxx, ******, changeme, REPLACE_ME.
	placeholder = regexp.MustCompile(`(?i)^(<[^<>]*>|\$\{[^{}]*\}|\$\([^()]*\)|\{\{.*\}\}|x+|\*+|\.+|change[-_ ]?me|replace[-_ ]?me|to[-_ ]?do|tbd|redacted|none|null|nil|placeholder)$`)
	// randomHex is a lowercase hex string as long as a key or a token:
	// a valid Kubernetes name, but not one anybody chose.
	randomHex = regexp.MustCompile(`^[0-9a-f]{16,}$`)
)

// trimKey drops what does not change a key's meaning: trailing digits
// and a plural s.
func trimKey(k string) string {
	k = strings.TrimRight(k, "0123456789")
	if len(k) > 3 && strings.HasSuffix(k, "s") && !strings.HasSuffix(k, "ss") {
		k = k[:len(k)-1]
	}
	return k
}

// sensitiveKey says whether a key holds a credential by its name: 2 for
// a credential name, 1 for a name ending in "secret" (which may also name
// a Secret object), 0 otherwise.
func sensitiveKey(key string) int {
	k := trimKey(nonAlnum.ReplaceAllString(strings.ToLower(key), ""))
	// existingSecretAdminPassword, passwordSecretName, tokenSecretRef:
	// such keys name the Secret that holds the value.
	for _, ref := range secretRefMarkers {
		if strings.Contains(k, ref) {
			return 1
		}
	}
	for _, s := range credentialCompounds {
		if strings.HasSuffix(k, s) {
			return 2
		}
	}
	words := strings.Fields(wordBreak.ReplaceAllString(key, "$1 $2"))
	if len(words) > 0 && slices.Contains(credentialWords, trimKey(strings.ToLower(words[len(words)-1]))) {
		return 2
	}
	if strings.HasSuffix(k, "secret") {
		return 1
	}
	return 0
}

// looksRandom reports a value no person chose as a name: long lowercase
// hex with both digits and letters.
func looksRandom(v string) bool {
	if !randomHex.MatchString(v) {
		return false
	}
	digits := strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
	letters := strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'f' }) >= 0
	return digits && letters
}

func checkTemplate(p *lint.Pass, t *hclsyntax.TemplateExpr, key, path string) {
	var literal strings.Builder
	whole := true
	for _, part := range t.Parts {
		lit, ok := part.(*hclsyntax.LiteralValueExpr)
		if !ok || lit.Val.Type() != cty.String {
			whole = false
			continue
		}
		s := lit.Val.AsString()
		literal.WriteString(s)
		for _, c := range credentialShapes {
			if c.re.MatchString(s) {
				report(p, t.Range(), fmt.Sprintf("%q holds a literal %s", path, c.what))
				return
			}
		}
	}
	if !whole {
		return // part of the value comes from an expression, such as ${env.x}
	}
	v := literal.String()
	level := sensitiveKey(key)
	switch {
	case level == 0, len(v) < 6, envVarName.MatchString(v), resolverRef.MatchString(v), placeholder.MatchString(strings.TrimSpace(v)):
		return
	case level == 1 && valid.DNSSubdomain(v) && !looksRandom(v):
		return // names a Secret object, which is how it should be done
	}
	report(p, t.Range(), fmt.Sprintf("%q holds a literal credential", path))
}

func report(p *lint.Pass, r hcl.Range, msg string) {
	p.Report(lint.Issue{
		Message: msg,
		Detail:  "Anything in the platform description ends up in Git history and in generated files. Put the value in a Kubernetes Secret (sealed-secrets, or External Secrets from Vault), reference the Secret by name (for charts, usually an existingSecret value), and rotate the credential, since it has been committed.",
		Subject: r,
	})
}
