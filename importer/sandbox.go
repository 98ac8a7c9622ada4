package importer

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
)

// The template engines the import runs (Helm's, for charts, and Go
// templates with Sprig, for ApplicationSets) are Turing-complete and run
// text from the repository being imported: `until 400000000` and a tpl
// that calls itself each ran until memory was exhausted (issue 21). Go
// cannot stop a goroutine, bound its memory, or recover from its stack
// overflowing, and Helm's tpl calls nothing of platc's that could
// count. So each rendering runs in a child process, the platc binary
// itself started with sandboxEnv, which bounds its own heap, stack and
// time and is killed when it overruns; its output is bounded too. What
// it reports is a diagnostic, never a crash of the import.

// sandboxEnv starts a process as a renderer: it reads one request on
// stdin, writes the response on stdout and exits.
const sandboxEnv = "PLATC_IMPORT_SANDBOX"

// Bounds of one rendering (a chart, or every element of one
// ApplicationSet). A 60-template chart renders in well under a second
// in a few MiB.
const (
	sandboxMemory = 1 << 30  // Go heap, bytes
	sandboxStack  = 64 << 20 // one goroutine's stack; Go's default is 1 GiB
	sandboxOutput = 64 << 20 // rendered text, bytes
)

// renderTime is the time budget of one rendering (a variable for the
// test of the bound).
var renderTime = 30 * time.Second

// Exit codes of a renderer that stopped itself.
const (
	exitMemory = 3
	exitTime   = 4
)

type sandboxRequest struct {
	Time time.Duration // the time budget, renderTime
	// Helm: the chart's files, read by the import through its tree, and
	// how to render them.
	Helm               bool
	ChartFiles         []*archive.BufferedFile
	Release, Namespace string
	Values             map[string]any
	// ApplicationSet: each template string for each set of parameters.
	Templates       []string
	Params          []map[string]any
	MissingKeyError bool
}

type sandboxResponse struct {
	Files []renderedFile
	Log   string // what Helm logged
	Err   string
	// Out[i][j] and Errs[i][j] are Templates[j] rendered for Params[i].
	Out, Errs [][]string
}

func init() {
	gob.Register(map[string]any{})
	gob.Register([]any{})
	gob.Register([]string{})
	gob.Register(time.Time{})
	if os.Getenv(sandboxEnv) == "1" {
		os.Exit(sandboxMain(os.Stdin, os.Stdout))
	}
}

// sandboxMain is the renderer process: bounds first, then the request.
func sandboxMain(in io.Reader, out io.Writer) int {
	debug.SetMaxStack(sandboxStack)
	debug.SetMemoryLimit(sandboxMemory)
	go func() {
		// The heap is checked often enough that an allocation loop is
		// stopped near the bound, not when the machine runs out.
		var m runtime.MemStats
		for range time.Tick(10 * time.Millisecond) {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > sandboxMemory {
				fmt.Fprintf(os.Stderr, "used more than %d MiB of memory\n", sandboxMemory>>20)
				os.Exit(exitMemory)
			}
		}
	}()
	var req sandboxRequest
	if err := gob.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "reading the request: %v\n", err)
		return 1
	}
	time.AfterFunc(req.Time, func() {
		fmt.Fprintf(os.Stderr, "took longer than %s\n", req.Time)
		os.Exit(exitTime)
	})
	var resp sandboxResponse
	if req.Helm {
		var logged bytes.Buffer
		log.SetOutput(&logged)
		log.SetFlags(0)
		files, err := render(req.ChartFiles, req.Values, req.Release, req.Namespace)
		size := 0
		for _, f := range files {
			size += len(f.text)
		}
		if err == nil && size > sandboxOutput {
			err = fmt.Errorf("the chart renders %d MiB of manifests, more than the %d MiB platc reads", size>>20, sandboxOutput>>20)
		}
		resp.Files, resp.Log = files, logged.String()
		if err != nil {
			resp.Files, resp.Err = nil, err.Error()
		}
	} else {
		budget := &budgetWriter{left: sandboxOutput}
		for _, p := range req.Params {
			outs, errs := make([]string, len(req.Templates)), make([]string, len(req.Templates))
			for j, t := range req.Templates {
				v, err := goRender(t, p, req.MissingKeyError, budget)
				outs[j] = v
				if err != nil {
					errs[j] = err.Error()
				}
			}
			resp.Out, resp.Errs = append(resp.Out, outs), append(resp.Errs, errs)
		}
	}
	if err := gob.NewEncoder(out).Encode(&resp); err != nil {
		fmt.Fprintf(os.Stderr, "writing the response: %v\n", err)
		return 1
	}
	return 0
}

// renderedFile travels from the renderer to the import.
func (f renderedFile) GobEncode() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode([2]string{f.path, f.text})
	return b.Bytes(), err
}

func (f *renderedFile) GobDecode(data []byte) error {
	var v [2]string
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&v); err != nil {
		return err
	}
	f.path, f.text = v[0], v[1]
	return nil
}

// budgetWriter fails once the output of all templates of a rendering
// passes its bound, which stops the template that writes it.
type budgetWriter struct {
	b    bytes.Buffer
	left int
}

var errOutputBudget = fmt.Errorf("the templates write more than %d MiB", sandboxOutput>>20)

func (w *budgetWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		return 0, errOutputBudget
	}
	w.left -= len(p)
	return w.b.Write(p)
}

// sandboxExe is the binary the renderer runs: this one.
var sandboxExe = os.Executable

// runSandbox renders req in a renderer process. The error says which
// bound a rendering broke, for a diagnostic.
func runSandbox(req *sandboxRequest) (*sandboxResponse, error) {
	exe, err := sandboxExe()
	if err != nil {
		return nil, fmt.Errorf("cannot start a renderer: %v", err)
	}
	req.Time = renderTime
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		return nil, fmt.Errorf("cannot pass the values to the renderer: %v", err)
	}
	// The renderer stops itself at renderTime; this is for one that
	// cannot (stuck in a system call).
	ctx, cancel := context.WithTimeout(context.Background(), renderTime+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), sandboxEnv+"=1")
	cmd.Stdin = &in
	out := &capped{max: 2 * sandboxOutput}
	stderr := &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, stderr
	runErr := cmd.Run()
	if runErr != nil {
		msg := strings.TrimSpace(stderr.b.String())
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("rendering took longer than %s and was stopped", renderTime)
		case errors.As(runErr, &ee) && (ee.ExitCode() == exitMemory || ee.ExitCode() == exitTime):
			return nil, fmt.Errorf("rendering %s and was stopped", msg)
		case strings.Contains(msg, "stack exceeds") || strings.Contains(msg, "stack overflow"):
			return nil, fmt.Errorf("rendering used more than %d MiB of stack (a template, include or tpl that calls itself) and was stopped", sandboxStack>>20)
		case strings.Contains(msg, "out of memory"):
			return nil, errors.New("rendering ran out of memory and was stopped")
		}
		first, _, _ := strings.Cut(msg, "\n")
		return nil, fmt.Errorf("the renderer failed (%v): %s", runErr, first)
	}
	if out.over {
		return nil, fmt.Errorf("rendering wrote more than %d MiB and was stopped", out.max>>20)
	}
	var resp sandboxResponse
	if err := gob.NewDecoder(&out.b).Decode(&resp); err != nil {
		return nil, fmt.Errorf("the renderer's response cannot be read: %v", err)
	}
	return &resp, nil
}

// capped keeps at most max bytes of what is written to it and drops the
// rest, so that the renderer never blocks on a full pipe.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over || c.b.Len()+len(p) > c.max {
		c.over = true
		return len(p), nil
	}
	return c.b.Write(p)
}
