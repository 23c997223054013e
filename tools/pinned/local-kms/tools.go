//go:build tools

// Package tools pins local-kms (MIT), an emulator of the AWS KMS API that keeps its keys in a local
// directory. The tests' stacks encrypt their secrets with a key of it (`awskms://` against
// 127.0.0.1), so no CLI run derives a passphrase's key. It is a test tool, built into the project
// cache beside the engine by test/support/kms-server.ts; it is never part of the package.
package tools

import (
	_ "github.com/nsmithuk/local-kms"
)
