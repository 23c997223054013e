//go:build tools

// Package tools pins BuildKit (moby/buildkit, Apache-2.0), the builder of the reference server's
// container image: tools/build-reference-server-image.js starts buildkitd for one build and drives
// it with buildctl, as the release workflow's docker buildx drives its BuildKit. It is a build
// tool, built into the project cache beside the engine; it is never part of the package.
package tools

import (
	_ "github.com/moby/buildkit/cmd/buildctl"
	_ "github.com/moby/buildkit/cmd/buildkitd"
)
