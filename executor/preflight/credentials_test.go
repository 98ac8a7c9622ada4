package preflight

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// Each credential type's shape, checked on real files: keys made by the
// same library ssh-keygen's format comes from, and the mistakes people
// make writing these files. No message quotes a value.
func TestCheckCredentials(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(edKey, "")
	if err != nil {
		t.Fatal(err)
	}
	write("ed25519", string(pem.EncodeToMemory(block)))
	signer, err := ssh.NewSignerFromKey(edKey)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	write("rsa.pem", string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})))
	locked, err := ssh.MarshalPrivateKeyWithPassphrase(edKey, "", []byte("passphrase-value"))
	if err != nil {
		t.Fatal(err)
	}
	write("locked", string(pem.EncodeToMemory(locked)))
	write("public.pub", string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	write("git/username", "platc-bot")
	write("git/password", "glpat-password-value")
	write("nl/username", "platc-bot")
	write("nl/password", "glpat-password-value\n")
	write("half/username", "platc-bot")
	write("docker.json", `{"auths":{"registry.example.com":{"auth":"cm9ib3Q6cHVsbC1wYXNzd29yZA=="},"ghcr.io":{"username":"bot","password":"ghcr-password-value"}}}`)
	write("docker-bad.json", `{"auths":{"registry.example.com":{"auth":"cm9ib3Q6cHVsbC1wYXNzd29yZA=="}`)
	write("docker-empty.json", `{"auths":{}}`)
	write("docker-auth.json", `{"auths":{"registry.example.com":{"auth":"not base64 at all!"}}}`)
	write("token", "dns-token-value")
	write("token-empty", "")

	for _, tc := range []struct {
		cred   Credential
		status Status
		says   string
	}{
		{Credential{"ed", "ssh_key", "ed25519"}, Pass, "an SSH private key, ssh-ed25519 " + ssh.FingerprintSHA256(signer.PublicKey())},
		{Credential{"rsa", "ssh_key", "rsa.pem"}, Pass, "an SSH private key, ssh-rsa SHA256:"},
		{Credential{"locked", "ssh_key", "locked"}, Fail, "protected by a passphrase"},
		{Credential{"pub", "ssh_key", "public.pub"}, Fail, "not an SSH private key Argo CD can read"},
		{Credential{"missing", "ssh_key", "nope"}, Fail, "no such file; mount it there"},
		{Credential{"git", "basic_auth", "git"}, Pass, "username and password present"},
		{Credential{"nl", "basic_auth", "nl"}, Fail, "the password ends with a line break"},
		{Credential{"half", "basic_auth", "half"}, Fail, "password: no such file"},
		{Credential{"file", "basic_auth", "token"}, Fail, "username:"},
		{Credential{"docker", "docker_config", "docker.json"}, Pass, `a docker config for "ghcr.io" and "registry.example.com"`},
		{Credential{"docker-bad", "docker_config", "docker-bad.json"}, Fail, "not valid JSON (at byte"},
		{Credential{"docker-empty", "docker_config", "docker-empty.json"}, Fail, "no registry under auths"},
		{Credential{"docker-auth", "docker_config", "docker-auth.json"}, Fail, `the auth of registry "registry.example.com" is not base64`},
		{Credential{"dns", "dns_token", "token"}, Pass, "a token of 15 bytes"},
		{Credential{"dns-empty", "dns_token", "token-empty"}, Fail, "the token is empty"},
	} {
		t.Run(tc.cred.Name, func(t *testing.T) {
			got := CheckCredentials(dir, []Credential{tc.cred}, true)
			if len(got) != 1 || got[0].Status != tc.status || !strings.Contains(got[0].Message, tc.says) || got[0].Name != "credential" {
				t.Fatalf("got %+v, want %s saying %q", got, tc.status, tc.says)
			}
			if !strings.Contains(got[0].Message, filepath.Join(dir, tc.cred.Path)) {
				t.Errorf("the message does not name the file: %s", got[0].Message)
			}
			for _, secret := range []string{"glpat-password-value", "cm9ib3Q6", "ghcr-password-value", "dns-token-value", "passphrase-value", "PRIVATE KEY", "platc-bot"} {
				if strings.Contains(got[0].Message, secret) {
					t.Errorf("the message shows a value (%s): %s", secret, got[0].Message)
				}
			}
			// Without a bootstrap to write the Secrets, a problem warns.
			if tc.status == Fail {
				if w := CheckCredentials(dir, []Credential{tc.cred}, false); w[0].Status != Warn || !strings.Contains(w[0].Message, "does not run now") {
					t.Errorf("not needed: %+v", w)
				}
			}
		})
	}

	if got := CheckCredentials("", []Credential{{"a", "ssh_key", "a"}, {"b", "dns_token", "b"}}, true); len(got) != 1 || got[0].Status != Fail || !strings.Contains(got[0].Message, "declares 2 credentials (a and b) but no secrets directory is mounted") {
		t.Errorf("no secrets directory: %+v", got)
	}
	if got := CheckCredentials("", nil, true); got != nil {
		t.Errorf("no credentials: %+v", got)
	}
}
