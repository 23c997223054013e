//go:build tools

// Package tools pins act (nektos/act, MIT), which runs GitHub Actions workflows on this machine:
// the tests run the GitOps example's workflow and the pull-request workflow's quick job with it
// (test/support/act.ts), each job on the host, loopback only and offline. It is a test tool, built
// into the project cache beside the engine; it is never part of the package.
package tools

import (
	_ "github.com/nektos/act"
)
