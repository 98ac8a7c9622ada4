package synth_test

import (
	"fmt"

	"github.com/platc/platc/internal/synth"
)

// Generate returns one HCL file; write it out and run platc on it.
func ExampleGenerate() {
	src := synth.Generate(synth.Options{Apps: 3, Stacks: 1, Seed: 1})
	fmt.Println(len(src) > 0, synth.AppName(2), synth.StackName(0))
	// Output: true app-00002 stack-000
}
