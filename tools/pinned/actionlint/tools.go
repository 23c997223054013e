//go:build tools

// Package tools pins actionlint, the GitHub Actions workflow linter (MIT) that the tests run over
// .github/workflows. It is a test tool, built into the project cache beside the engine by
// test/release/release-workflow.test.ts; it is never part of the package.
package tools

import (
	_ "github.com/rhysd/actionlint/cmd/actionlint"
)
