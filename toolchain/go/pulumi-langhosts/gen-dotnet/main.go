// Command gen-dotnet writes the C# SDK of a Pulumi package schema with pkg/v3's codegen/dotnet,
// the code pulumi-language-dotnet runs for `pulumi package gen-sdk --language dotnet`. That host
// lives in its own repository, which the Go module proxy does not serve here, so the toolchain
// builds this stand-in from the engine's pkg/v3 (the same release) instead.
//
// Usage: gen-dotnet <schema.json> <out-dir> [version]
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/dotnet"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// offlineLogo answers the one request codegen/dotnet makes, the download of the package's logo
// (Pulumi's, when the schema names none), with a blank 64x64 PNG, so generating needs no network
// and gives the same bytes on every run. No other request is expected; any is refused.
type offlineLogo struct{}

func (offlineLogo) RoundTrip(req *http.Request) (*http.Response, error) {
	if filepath.Ext(req.URL.Path) != ".png" {
		return nil, fmt.Errorf("gen-dotnet makes no network request (asked for %s)", req.URL)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 64, 64))); err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Body: io.NopCloser(&buf), ContentLength: int64(buf.Len()), Header: http.Header{"Content-Type": {"image/png"}}, Request: req}, nil
}

func main() {
	http.DefaultTransport = offlineLogo{}
	http.DefaultClient.Transport = offlineLogo{}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "gen-dotnet: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return fmt.Errorf("usage: gen-dotnet <schema.json> <out-dir> [version]")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	if len(args) == 3 {
		if _, err := semver.ParseTolerant(args[2]); err != nil {
			return fmt.Errorf("version %q: %w", args[2], err)
		}
		spec.Version = args[2]
	}
	pkg, err := schema.ImportSpec(spec, map[string]schema.Language{"csharp": dotnet.Importer}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	files, err := dotnet.GeneratePackage("pulumi-language-dotnet", pkg, nil, nil)
	if err != nil {
		return err
	}
	for name, content := range files {
		target := filepath.Join(args[1], name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
