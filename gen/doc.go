// Package gen holds the code oapi-codegen generates from openapi.yaml. Never edit api.gen.go by
// hand: change the spec and run `make generate`.
package gen
