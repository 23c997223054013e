// Command gen-docs writes the Pulumi Registry's API pages of a Pulumi package schema with
// pkg/v3's codegen/docs, the generator the Registry's resourcedocsgen ran: one Hugo Markdown page
// per module, resource and function, each with its constructor, properties and examples in
// TypeScript, Python, Go, C#, Java and YAML.
//
// The package schema is bound without language importers: the generator imports the Go, Python,
// C# and Node.js ones itself. Pages are written in a fixed order, their paths printed one a line.
//
// Usage: gen-docs <schema.json> <out-dir>
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/pulumi/pulumi/pkg/v3/codegen/docs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noNetwork refuses every request and remembers it, so a page that would depend on the network
// fails the run instead of being written without what the request was for.
type noNetwork struct {
	mu      sync.Mutex
	refused []string
}

func (n *noNetwork) RoundTrip(req *http.Request) (*http.Response, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.refused = append(n.refused, req.URL.String())
	return nil, fmt.Errorf("gen-docs makes no network request (asked for %s)", req.URL)
}

func main() {
	// codegen/docs logs through glog, which would otherwise write log files to the temp directory.
	_ = flag.Set("logtostderr", "true")
	offline := &noNetwork{}
	http.DefaultTransport = offline
	http.DefaultClient.Transport = offline
	err := run(os.Args[1:])
	if err == nil && len(offline.refused) > 0 {
		err = fmt.Errorf("the generator asked the network for %v", offline.refused)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen-docs: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: gen-docs <schema.json> <out-dir>")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	pkg, err := schema.ImportSpec(spec, nil)
	if err != nil {
		return err
	}
	files, err := docs.NewContext("gen-docs", pkg).GeneratePackage()
	if err != nil {
		return err
	}
	return writeFiles(args[1], files)
}

// writeFiles writes each page under dir in a fixed order, printing its path relative to dir.
func writeFiles(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(name)
	}
	return nil
}
