//go:build tools

// Package tools pins OpenTofu, which the bench's scenario T (bench/lib/tofu.ts) runs with the
// generic REST provider as what a team without a provider for this API would use. It is a bench
// tool, built into the project cache beside the engine on first use; it is never part of the
// package. go.mod repeats OpenTofu's own replace of hcl/v2 (a dependency's replace directives do
// not apply to the module that requires it), so the build is the one OpenTofu's release makes.
package tools

import (
	_ "github.com/opentofu/opentofu/cmd/tofu"
)
