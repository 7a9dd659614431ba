package repository_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository"
)

// What the flush splits a batch for (repository.RefusedContent): PostgreSQL refusing what the
// write carried, never the database being away, busy or in conflict.
func TestRefusedContent(t *testing.T) {
	for code, want := range map[pq.ErrorCode]bool{
		"22021": true,                  // invalid byte sequence (a NUL)
		"22003": true,                  // numeric value out of range
		"23514": true,                  // check violation
		"54000": true,                  // program limit exceeded
		"XX000": true,                  // internal error: invalid memory alloc request size
		"XX001": false, "XX002": false, // data or index corrupted
		"08006": false, "57P01": false, "57014": false, // connection lost, shut down, cancelled
		"40001": false, "40P01": false, "55P03": false, "53300": false, "53200": false, // conflicts, resources
		"42703": false, // a statement of ours that does not fit the schema
	} {
		err := fmt.Errorf("visits.add: visit rows: copy: %w", &pq.Error{Code: code})
		if got := repository.RefusedContent(err); got != want {
			t.Errorf("%s: %v, want %v", code, got, want)
		}
	}
	for _, err := range []error{context.Canceled, &net.OpError{Op: "dial", Err: errors.New("connection refused")}, errors.New("driver: bad connection")} {
		if repository.RefusedContent(err) {
			t.Errorf("%v taken for refused content", err)
		}
	}
}
