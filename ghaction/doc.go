// Package ghaction is perfgate's GitHub Action as a library: it reads the
// action's inputs (INPUT_*) and the run (GITHUB_* and the event payload),
// drives the gate or baseline pipeline it is given, and publishes the
// outcome through the step summary, annotations, step outputs and one
// sticky pull request comment.
//
// # Model
//
//   - Inputs: the action's inputs, read with ReadInputs and checked.
//   - GitHub and Event: the runner's variables and the event payload.
//   - Outputs: step outputs appended to $GITHUB_OUTPUT, each a heredoc
//     with a fresh random delimiter so that no value can forge another.
//   - Bundle: the files a pull_request run on a fork's code hands to the
//     trusted workflow_run job that posts the comment (WriteBundle,
//     ReadBundle); everything in a bundle is untrusted and re-rendered.
//   - Publish: the text report in a fenced log group, the markdown report
//     in the step summary, annotations and the sticky comment.
//
// Run drives one invocation in one of three modes (gate, baseline,
// comment). The pipelines that measure are passed in (Pipelines), each
// one call of package gate (gate.Gate, gate.StoreBaseline): this package
// runs nothing itself, so that cmd/perfgate wires the real ones and tests
// their own, and so that another CI front end (GitLab, Buildkite) is a
// sibling package rather than a copy.
//
// The exit code and message of a verdict are the gate.Outcome's
// (ExitCode, Message), the one mapping `perfgate gate` uses too; the
// fail-on-regression input only asks the outcome to report without
// failing (gate.Outcome.ReportOnly). Errors returned carry their code
// (exitcode.Error).
//
// The action's shell steps (choosing and installing the binary, pinning a
// release's checksums) live in steps/ (package steps holds their tests);
// this package is the Go half that `perfgate action` runs.
//
// Only the process's environment as given (Env.Getenv) is read, and only
// Env.Stdout is written besides the files the runner names.
package ghaction
