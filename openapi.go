// Package analytics holds the hand-written OpenAPI document, embedded so the binary can serve
// it as written and tests can validate responses against it.
package analytics

import _ "embed"

// OpenAPI is openapi.yaml, byte for byte.
//
//go:embed openapi.yaml
var OpenAPI []byte
