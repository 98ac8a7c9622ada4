package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/platc/platc/compiler/ir"
)

// credentials makes the platform's private repositories private: for
// each basic_auth credential, a login made up now, written where the
// credential's path says under the environment's secrets directory
// (what /secrets holds for platc deploy), and required by the sources
// for the repository or the prefix it names. An image pull or DNS
// credential gets a well-formed file of its kind, which nothing in the
// box checks beyond its shape. SSH is refused: the box serves Git over
// HTTP(S) only.
func (pl *Platform) credentials() error {
	creds := pl.Program.Platform.Credentials
	if len(creds) == 0 {
		return nil
	}
	pl.secretsDir = filepath.Join(pl.Env.opts.Dir, "secrets")
	write := func(rel, content string) error {
		p := filepath.Join(pl.secretsDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(content), 0o600)
	}
	for _, c := range creds {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		secret := hex.EncodeToString(b)
		var err error
		switch c.Type {
		case ir.BasicAuth:
			user := "e2e-" + c.Name
			if err = write(c.Path+"/username", user); err == nil {
				err = write(c.Path+"/password", secret)
			}
			pl.Env.src.protect(c.URL, c.Template, user, secret)
			pl.Env.logf("credential %s: %s is private (basic auth)", c.Name, c.URL)
		case ir.DockerConfig:
			auth := base64.StdEncoding.EncodeToString([]byte("e2e:" + secret))
			err = write(c.Path, `{"auths":{"registry.e2e.test":{"auth":"`+auth+`"}}}`)
		case ir.DNSToken:
			err = write(c.Path, secret)
		default:
			return fmt.Errorf("credential %s: the e2e environment serves Git over HTTP(S) only, so it cannot serve a %s repository", c.Name, c.Type)
		}
		if err != nil {
			return fmt.Errorf("credential %s: %w", c.Name, err)
		}
	}
	return nil
}
