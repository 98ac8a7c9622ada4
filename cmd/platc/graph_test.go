package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/golden"
)

// requireTool finds a program the test needs. Without it the test
// skips, saying what to install, unless PLATC_REQUIRE_CLI_TOOLS is set
// (CI sets it), and then it fails: CI never passes without running it.
func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("PLATC_REQUIRE_CLI_TOOLS") != "" {
		t.Fatalf("%s not found and PLATC_REQUIRE_CLI_TOOLS is set: apt-get install %s", name, pkg)
	}
	t.Skipf("SKIP: %s not found (apt-get install %s); set PLATC_REQUIRE_CLI_TOOLS=1 to fail instead", name, pkg)
	return ""
}

// The README's pictures column is about 880 pixels wide. Graphviz draws
// 14-point labels 19 pixels high; a picture wider than 1,840 pixels is
// scaled down until they are under 9, which is where the newcomer
// stopped reading the old one.
const (
	readmeWidth = 880
	labelPixels = 14 * 96 / 72
	minLabel    = 9
	maxWidth    = readmeWidth * labelPixels / minLabel
	maxHeight   = 2400
)

// TestGraphPictures renders the example's graphs with Graphviz's dot, as
// the README shows them: the DOT platc prints must be the committed
// docs/img/*.dot, and the PNG dot makes of it must keep its labels
// readable in the README and have the size of the committed picture.
// go test -run TestGraphPictures -update rewrites both.
func TestGraphPictures(t *testing.T) {
	dot := requireTool(t, "dot", "graphviz")
	for _, pic := range []struct {
		name string
		args []string
	}{
		{"platform", nil},
		{"platform-stacks", []string{"--by", "stack"}},
	} {
		t.Run(pic.name, func(t *testing.T) {
			var src, stderr bytes.Buffer
			args := append(append([]string{"platc", "graph"}, pic.args...), "../../examples/platform.hcl")
			if code := run(args, &src, &stderr); code != exitcode.OK {
				t.Fatalf("platc graph: exit %d\n%s", code, stderr.String())
			}
			cmd := exec.Command(dot, "-Tpng")
			cmd.Stdin = bytes.NewReader(src.Bytes())
			cmd.Stderr = &stderr
			img, err := cmd.Output()
			if err != nil {
				t.Fatalf("dot: %v\n%s", err, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("dot warns:\n%s", stderr.String())
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(img))
			if err != nil {
				t.Fatalf("dot's output is not a PNG: %v", err)
			}
			t.Logf("%s.png: %d x %d", pic.name, cfg.Width, cfg.Height)
			if cfg.Width > maxWidth || cfg.Height > maxHeight {
				t.Errorf("the picture is %d x %d pixels; above %d x %d its labels are under %d pixels in the README", cfg.Width, cfg.Height, maxWidth, maxHeight, minLabel)
			}
			if cfg.Width < 400 || cfg.Height < 200 {
				t.Errorf("the picture is only %d x %d pixels", cfg.Width, cfg.Height)
			}
			base := filepath.Join("../../docs/img", pic.name)
			if golden.Update() {
				for name, data := range map[string][]byte{base + ".dot": src.Bytes(), base + ".png": img} {
					if err := os.WriteFile(name, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			committed, err := os.ReadFile(base + ".dot")
			if err != nil || string(committed) != src.String() {
				t.Errorf("%s.dot is not what platc graph prints now (%v); run go test -run TestGraphPictures -update", base, err)
			}
			f, err := os.Open(base + ".png")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			old, err := png.DecodeConfig(f)
			if err != nil {
				t.Fatalf("%s.png: %v", base, err)
			}
			// Another Graphviz release may measure text a little
			// differently; a different picture differs by more.
			if d := abs(old.Width-cfg.Width) + abs(old.Height-cfg.Height); d*50 > old.Width+old.Height {
				t.Errorf("%s.png is %d x %d, dot now draws %d x %d; run go test -run TestGraphPictures -update", base, old.Width, old.Height, cfg.Width, cfg.Height)
			}
			readme, err := os.ReadFile("../../README.md")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(readme), "(docs/img/"+pic.name+".png)") {
				t.Errorf("the README does not show docs/img/%s.png", pic.name)
			}
		})
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
