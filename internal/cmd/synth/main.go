package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/platc/platc/internal/synth"
)

func main() {
	var o synth.Options
	flag.IntVar(&o.Apps, "apps", 43, "number of apps")
	flag.IntVar(&o.Stacks, "stacks", 0, "number of stacks (0: one per 10 apps, at most 50)")
	flag.BoolVar(&o.CrossStack, "cross", false, "stacks depend on each other both ways")
	flag.BoolVar(&o.Events, "events", false, "add an events block")
	flag.Uint64Var(&o.Seed, "seed", 0, "seed")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()
	data := synth.Generate(o)
	if *out == "" {
		os.Stdout.Write(data)
		return
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
