package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/lang/starter"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "start a platform: write a small, commented platform.hcl that lint and build accept",
		ArgsUsage: "[DIR]",
		Description: "Writes DIR/platform.hcl (DIR defaults to the current directory and is created if\n" +
			"missing). It never overwrites anything: a directory that already holds .hcl files is\n" +
			"refused, since a second platform block beside them would not compile.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the platform's name (default: the directory's name, made a valid name)"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return usagef("init takes one directory, such as 'platc init platform'.")
			}
			dir := cmd.Args().First()
			if dir == "" {
				dir = "."
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return usagef("%s", err)
			}
			name := cmd.String("name")
			if name == "" {
				name = compiler.SuggestName(filepath.Base(abs))
			} else if why := compiler.NameProblem(name); why != "" {
				return usagef("--name %q %s; for example --name %s.", name, why, compiler.SuggestName(name))
			}
			path := filepath.Join(dir, starter.FileName)
			if err := writeStarter(dir, path, name); err != nil {
				fmt.Fprintf(cmd.Root().ErrWriter, "platc: %v\n", err)
				return exitWith(exitcode.Failure)
			}
			next := "platc lint"
			if dir != "." {
				next += " " + shellWord(dir)
			}
			fmt.Fprintf(cmd.Root().Writer, "Wrote %s (platform %q). Next: set git.repo_url, then run %s\n", path, name, next)
			return nil
		},
	}
}

// writeStarter creates dir if needed and writes the starter platform to
// path, refusing to overwrite a file or to add a platform beside one.
func writeStarter(dir, path, name string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".hcl") {
			return fmt.Errorf("%s already holds %s; platc init starts a new platform and changes nothing there. Run it on a new or empty directory, such as platc init %s", dir, e.Name(), filepath.Join(dir, "platform"))
		}
	}
	// O_EXCL: never replace a file, even one created since ReadDir.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; platc init never overwrites a file", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(starter.Platform(name)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// shellWord quotes s for a POSIX shell when it needs it, so the command
// init suggests can be pasted as it is.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
