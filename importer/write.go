package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/platc/platc/internal/safefile"
)

// Files platc import --out writes, besides PlatformFile, adopted/ and
// hooks/.
const (
	ReportTextFile = "import-report.txt"
	ReportJSONFile = "import-report.json"
)

// CheckOutDir refuses an output directory that holds anything: an
// import never overwrites a platform someone may have edited since.
func CheckOutDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot use --out %s: %v", dir, safefile.Unwrap(err))
	case len(entries) > 0:
		return fmt.Errorf("--out %s is not empty; platc import writes only into a new or empty directory, so it never overwrites a platform you have edited. Choose another directory, or empty this one", dir)
	}
	return nil
}

// Write writes the import's files into dir (which CheckOutDir accepted):
// the platform, both reports, adopted/ and hooks/; all of them or, on a
// failure, none (what was written is removed). It returns the paths
// written, in that order.
func Write(dir string, res *Result) ([]string, error) {
	var text, js strings.Builder
	_ = res.Report.WriteText(&text)
	_ = res.Report.WriteJSON(&js)
	files := []File{
		{Path: PlatformFile, Data: res.HCL},
		{Path: ReportTextFile, Data: []byte(text.String())},
		{Path: ReportJSONFile, Data: []byte(js.String())},
	}
	files = append(files, res.Adopted...)
	files = append(files, res.Hooks...)
	var written, made []string
	fail := func(err error) ([]string, error) {
		for i := len(written) - 1; i >= 0; i-- {
			_ = os.Remove(written[i])
		}
		// Only the directories made for these files, deepest first;
		// os.Remove leaves one that is not empty.
		for i := len(made) - 1; i >= 0; i-- {
			_ = os.Remove(made[i])
		}
		return nil, err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := mkdirs(filepath.Dir(p), &made); err != nil {
			return fail(err)
		}
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, f.Data, 0o644); err != nil {
			_ = os.Remove(tmp)
			return fail(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			_ = os.Remove(tmp)
			return fail(err)
		}
		written = append(written, p)
	}
	return written, nil
}

// mkdirs is os.MkdirAll that records, parents first, each directory it
// creates.
func mkdirs(dir string, made *[]string) error {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirs(parent, made); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	*made = append(*made, dir)
	return nil
}
