package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// stepImage is what the step pods' image holds, read from the
// repository's Dockerfile: the one source of truth for the tools a step
// may call. There is no container runtime here, so the image is stood in
// for by a directory of exactly those binaries, taken from this machine
// (Debian 12 like the image's debian:bookworm-slim) and from the
// environment's builds; a step's PATH is that directory and nothing else.
type stepImage struct {
	// Packages are the Debian packages of the final stage: the base
	// image's (Debian's Priority: required set, what -slim ships) and
	// the ones its apt-get install names.
	Packages []string
	// Installed are the binaries other stages put in /usr/local/bin,
	// by name (kubectl, helm, argocd, ...).
	Installed []string
	// User and Workdir are the final stage's USER uid:gid and WORKDIR.
	UID, GID int64
	Workdir  string
}

// readStepImage parses the final stage of a Dockerfile.
func readStepImage(dockerfile string) (*stepImage, error) {
	stages := regexp.MustCompile(`(?m)^FROM `).FindAllStringIndex(dockerfile, -1)
	if len(stages) == 0 {
		return nil, errors.New("Dockerfile: no FROM")
	}
	final := dockerfile[stages[len(stages)-1][0]:]
	// One logical line per instruction.
	final = strings.ReplaceAll(final, "\\\n", " ")
	img := &stepImage{}
	for _, line := range strings.Split(final, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "RUN":
			for _, cmd := range strings.Split(line, "&&") {
				c := strings.Fields(cmd)
				for i := 0; i+1 < len(c); i++ {
					if c[i] == "apt-get" && c[i+1] == "install" {
						for _, p := range c[i+2:] {
							if !strings.HasPrefix(p, "-") {
								img.Packages = append(img.Packages, p)
							}
						}
					}
				}
			}
		case "COPY":
			// COPY --from=STAGE SRC DST: what that stage installed there.
			if len(f) == 4 && strings.HasPrefix(f[1], "--from=") && strings.HasPrefix(f[3], "/usr/local/bin") {
				stage := strings.TrimPrefix(f[1], "--from=")
				if strings.HasSuffix(f[2], "/") {
					img.Installed = append(img.Installed, stageInstalls(dockerfile, stage)...)
				} else {
					img.Installed = append(img.Installed, filepath.Base(f[3]))
				}
			}
		case "USER":
			ug := strings.SplitN(f[1], ":", 2)
			var err error
			if img.UID, err = strconv.ParseInt(ug[0], 10, 64); err != nil {
				return nil, fmt.Errorf("Dockerfile: USER %s is not numeric", f[1])
			}
			img.GID = img.UID
			if len(ug) == 2 {
				if img.GID, err = strconv.ParseInt(ug[1], 10, 64); err != nil {
					return nil, fmt.Errorf("Dockerfile: USER %s is not numeric", f[1])
				}
			}
		case "WORKDIR":
			img.Workdir = f[1]
		}
	}
	sort.Strings(img.Installed)
	return img, nil
}

// stageInstalls is what a stage puts in /usr/local/bin with
// `install ... /usr/local/bin/NAME`.
func stageInstalls(dockerfile, stage string) []string {
	start := regexp.MustCompile(`(?m)^FROM .* AS ` + regexp.QuoteMeta(stage) + `\s*$`).FindStringIndex(dockerfile)
	if start == nil {
		return nil
	}
	body := dockerfile[start[1]:]
	if next := regexp.MustCompile(`(?m)^FROM `).FindStringIndex(body); next != nil {
		body = body[:next[0]]
	}
	var out []string
	for _, m := range regexp.MustCompile(`install -m 0755 \S+ /usr/local/bin/([A-Za-z0-9_.-]+)`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// findDockerfile looks for the repository's Dockerfile from the working
// directory up (the tests run in e2e/, e2e-run at the root).
func findDockerfile() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "Dockerfile")
			_, err := os.Stat(p)
			return p, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: cannot find the Dockerfile")
		}
		dir = parent
	}
}

// requiredPackages is Debian's Priority: required set on this machine,
// which is what debian:bookworm-slim is made of.
func requiredPackages() ([]string, error) {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Package}\t${Priority}\t${db:Status-Abbrev}\n").Output()
	if err != nil {
		return nil, fmt.Errorf("dpkg-query: %w", err)
	}
	var pkgs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) == 3 && f[1] == "required" && strings.HasPrefix(f[2], "ii") {
			pkgs = append(pkgs, f[0])
		}
	}
	return pkgs, nil
}

// packageBinaries is what packages put on the image's PATH (/usr/bin,
// /bin; bookworm has merged /usr), including alternatives such as awk
// whose link resolves to one of them. missing lists packages this
// machine does not have: their binaries are absent from the step image.
func packageBinaries(pkgs []string) (bins map[string]string, missing []string, err error) {
	owned := map[string]bool{}
	for _, p := range pkgs {
		out, err := exec.Command("dpkg", "-L", p).Output()
		if err != nil {
			missing = append(missing, p)
			continue
		}
		for _, f := range strings.Split(string(out), "\n") {
			owned[f] = true
		}
	}
	bins = map[string]string{}
	for _, d := range []string{"/usr/bin", "/bin"} {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, nil, err
		}
		for _, ent := range ents {
			p := filepath.Join(d, ent.Name())
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				continue
			}
			fi, err := os.Stat(real)
			if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				continue
			}
			if owned[p] || owned["/usr"+strings.TrimPrefix(p, "/usr")] || owned[real] || owned[strings.TrimPrefix(real, "/usr")] {
				if _, dup := bins[ent.Name()]; !dup {
					bins[ent.Name()] = real
				}
			}
		}
	}
	return bins, missing, nil
}

// build fills dir with the image's binaries: Debian's as symlinks (their
// paths are readable by any user), the environment's builds from bin as
// copies (bin may sit under a home directory the step's user cannot
// enter), and platc from the platc binary under test, as the Dockerfile
// copies the platc its own stage built. What the image has but this
// machine cannot provide is returned in absent.
func (img *stepImage) build(dir, bin, platc string) (absent []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	req, err := requiredPackages()
	if err != nil {
		return nil, err
	}
	bins, missing, err := packageBinaries(append(req, img.Packages...))
	if err != nil {
		return nil, err
	}
	for _, m := range missing {
		absent = append(absent, "package "+m)
	}
	for name, target := range bins {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	for _, name := range img.Installed {
		src := filepath.Join(bin, name)
		if name == "platc" {
			if platc == "" {
				// The steps that run platc could not run at all.
				return nil, errors.New("the step image holds platc, but the environment was given no platc binary (Options.Platc)")
			}
			src = platc
		}
		if _, err := os.Stat(src); err != nil {
			absent = append(absent, name)
			continue
		}
		if err := linkOrCopy(src, filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	return absent, nil
}

// linkOrCopy hard-links src to dst (free on one file system), or copies.
func linkOrCopy(src, dst string) error {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	if err := os.Link(real, dst); err == nil {
		return nil
	}
	in, err := os.Open(real)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
