//go:build tools

// Package tools pins versitygw, the S3-compatible server (Apache-2.0, serving a plain directory)
// that the tests use as a shared DIY backend (`s3://`). It is a test tool, built into the project
// cache beside the engine by test/support/s3-server.ts; it is never part of the package.
package tools

import (
	_ "github.com/versity/versitygw/cmd/versitygw"
)
