package preflight

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/safefile"
)

// Credential is one credential the platform declares (platform.credential):
// its name, its type (ssh_key, basic_auth, docker_config, dns_token) and
// its file (a directory for basic_auth) relative to the secrets directory.
type Credential struct {
	Name, Type, Path string
}

// MaxCredentialSize bounds each credential file read: a private key, a
// docker config or a token is a few KiB.
const MaxCredentialSize = 256 << 10

// CheckCredentials checks each credential's file under dir (RFC 3.2.6)
// and returns one check per credential, in order: present, and of the
// shape its type needs (an SSH private key that parses and needs no
// passphrase, a username and a password, a docker config whose auths
// name registries, a token). A message names the file and what it holds
// (a key's type and public fingerprint, a docker config's registries),
// never a value.
//
// needed says whether this run writes the Secrets from the files (the
// bootstrap runs): then a problem fails Phase 0, since RFC 3.2.6 requires
// the credentials and the bootstrap would stop on them, or create a
// Secret Argo CD cannot log in with. Otherwise the Secrets an earlier
// bootstrap made are what Argo CD uses, and a problem is a warning for
// the next bootstrap.
func CheckCredentials(dir string, creds []Credential, needed bool) []Check {
	if len(creds) == 0 {
		return nil
	}
	bad := Warn
	if needed {
		bad = Fail
	}
	if dir == "" {
		var names []string
		for _, c := range creds {
			names = append(names, c.Name)
		}
		return []Check{{Name: "credentials", Status: bad, Message: fmt.Sprintf(
			"the platform declares %d credentials (%s) but no secrets directory is mounted; mount their files at /secrets or set SECRETS_DIR%s",
			len(creds), english.List(names), notNeeded(needed))}}
	}
	out := make([]Check, 0, len(creds))
	for _, c := range creds {
		where := filepath.Join(dir, filepath.FromSlash(c.Path))
		what, err := checkCredential(c.Type, where)
		st := Pass
		msg := fmt.Sprintf("credential %q (%s, %s): %s", c.Name, c.Type, where, what)
		if err != nil {
			st, msg = bad, fmt.Sprintf("credential %q (%s, %s): %v%s", c.Name, c.Type, where, err, notNeeded(needed))
		}
		out = append(out, Check{Name: "credential", Status: st, Message: msg})
	}
	return out
}

func notNeeded(needed bool) string {
	if needed {
		return ""
	}
	return " (the bootstrap, which writes the Secrets from it, does not run now; Argo CD keeps using the Secrets an earlier bootstrap wrote)"
}

// checkCredential returns what the file at p holds, or why it cannot be
// used. No error quotes the content.
func checkCredential(typ, p string) (string, error) {
	switch typ {
	case "ssh_key":
		b, err := read(p)
		if err != nil {
			return "", err
		}
		return sshKey(b)
	case "basic_auth":
		return basicAuth(p)
	case "docker_config":
		b, err := read(p)
		if err != nil {
			return "", err
		}
		return dockerConfig(b)
	case "dns_token":
		b, err := read(p)
		if err != nil {
			return "", err
		}
		if err := secretLine(b, "the token"); err != nil {
			return "", err
		}
		return fmt.Sprintf("a token of %d bytes", len(b)), nil
	}
	return "", fmt.Errorf("unknown credential type %q (this platc does not know it)", typ)
}

func read(p string) ([]byte, error) {
	b, err := safefile.Read(p, MaxCredentialSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no such file; mount it there")
	}
	if err != nil {
		return nil, safefile.Unwrap(err)
	}
	return b, nil
}

// sshKey parses b as an unencrypted private key, as Argo CD's
// repo-server must: it has no way to ask for a passphrase.
func sshKey(b []byte) (string, error) {
	k, err := ssh.ParseRawPrivateKey(b)
	var pm *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &pm):
		return "", errors.New("the private key is protected by a passphrase, which Argo CD cannot enter; write it without one (ssh-keygen -p -N '')")
	case err != nil:
		// The parser's errors name the format problem, never the bytes.
		return "", fmt.Errorf("not an SSH private key Argo CD can read (%v); write the key file as ssh-keygen does (OpenSSH or PEM)", err)
	}
	signer, err := ssh.NewSignerFromKey(k)
	if err != nil {
		return "", fmt.Errorf("an SSH private key of an unsupported kind: %v", err)
	}
	pub := signer.PublicKey()
	return fmt.Sprintf("an SSH private key, %s %s", pub.Type(), ssh.FingerprintSHA256(pub)), nil
}

// basicAuth checks the directory p for the files username and password,
// each one line without a line break: Argo CD sends the bytes as they
// are, and a password ending in the newline echo adds would be refused.
func basicAuth(p string) (string, error) {
	var user []byte
	for _, f := range []string{"username", "password"} {
		b, err := read(filepath.Join(p, f))
		if err != nil {
			return "", fmt.Errorf("%s: %v (a basic_auth credential is a directory holding the files username and password)", f, err)
		}
		if err := secretLine(b, "the "+f); err != nil {
			return "", err
		}
		if f == "username" {
			user = b
		}
	}
	return fmt.Sprintf("username and password present (username of %d bytes)", len(user)), nil
}

// secretLine refuses an empty value and one with a line break in it or
// at its end.
func secretLine(b []byte, what string) error {
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return fmt.Errorf("%s is empty", what)
	case bytes.HasSuffix(b, []byte("\n")):
		return fmt.Errorf("%s ends with a line break, which would be sent as part of it; write the file without one (printf '%%s' \"$VALUE\" > file)", what)
	case bytes.ContainsAny(b, "\r\n"):
		return fmt.Errorf("%s holds a line break; it must be one line", what)
	}
	return nil
}

// dockerConfig checks b is a .dockerconfigjson: a JSON object whose auths
// has at least one registry, each with auth (base64 of user:password) or
// a username and password. It names the registries.
func dockerConfig(b []byte) (string, error) {
	var cfg struct {
		Auths map[string]struct {
			Auth     string `json:"auth"`
			Username string `json:"username"`
			Password string `json:"password"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		// encoding/json's syntax errors give an offset, not the text.
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return "", fmt.Errorf("not valid JSON (at byte %d); write it as kubectl create secret docker-registry --dry-run=client -o jsonpath='{.data.\\.dockerconfigjson}' | base64 -d does", se.Offset)
		}
		return "", errors.New("not a docker config: auths must be an object of registries, each with auth or username and password")
	}
	if len(cfg.Auths) == 0 {
		return "", errors.New("no registry under auths; a docker config for image pull Secrets is {\"auths\": {\"registry.example.com\": {\"auth\": \"<base64 of user:password>\"}}}")
	}
	var regs []string
	for reg, a := range cfg.Auths {
		switch {
		case a.Auth != "":
			raw, err := base64.StdEncoding.DecodeString(a.Auth)
			if err != nil || !strings.Contains(string(raw), ":") {
				return "", fmt.Errorf("the auth of registry %q is not base64 of user:password", reg)
			}
		case a.Username == "" || a.Password == "":
			return "", fmt.Errorf("registry %q has neither auth nor a username and password", reg)
		}
		regs = append(regs, reg)
	}
	slices.Sort(regs)
	return "a docker config for " + english.List(quoteAll(regs)), nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
