// Command kin-openapi loads an OpenAPI document with github.com/getkin/kin-openapi (the Go
// validator many Go services use, here Debian's 0.110, which reads OpenAPI 3.0) and validates
// it: the server's 3.0 rendering, GET /__sandbox/openapi-3.0.json (docs/server.md). It prints
// what it checked, or every error, and exits 1 on an error.
//
//	go run . document.json
package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: kin-openapi DOCUMENT.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("read", err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		fail("load", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		fail("validate", err)
	}
	// Every schema compiles and accepts its own examples: what a validating proxy would do with them.
	operations := 0
	for _, path := range sortedKeys(doc.Paths) {
		for method, op := range doc.Paths[path].Operations() {
			operations++
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			media := op.RequestBody.Value.Content.Get("application/json")
			if media == nil {
				continue
			}
			for name, example := range media.Examples {
				if err := media.Schema.Value.VisitJSON(example.Value.Value); err != nil {
					fail(fmt.Sprintf("%s %s example %s", method, path, name), err)
				}
			}
		}
	}
	fmt.Printf("kin-openapi: OpenAPI %s document %q loads and validates: %d paths, %d operations, %d component schemas\n",
		doc.OpenAPI, doc.Info.Title, len(doc.Paths), operations, len(doc.Components.Schemas))
}

func sortedKeys(paths openapi3.Paths) []string {
	keys := make([]string, 0, len(paths))
	for key := range paths {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "kin-openapi: %s: %v\n", what, err)
	os.Exit(1)
}
