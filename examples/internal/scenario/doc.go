// Package scenario is the small contract between the example packages and the examples
// command: each example package exports one [Scenario], and the command runs them all and
// prints one summary table with a [Row] per bug.
package scenario
