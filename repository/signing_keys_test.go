package repository_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// Nodes asking for the same key at once must all get the same one, and later calls return it
// unchanged; another purpose has its own key.
func TestSigningKeyIsMadeOnceAndShared(t *testing.T) {
	db, _ := repotest.New(t)
	ctx := context.Background()
	const callers = 8
	keys := make([][]byte, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One repository per caller, as on separate nodes.
			keys[i], errs[i] = repository.New(db, nil).SigningKey(ctx, "grant")
		}()
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if len(keys[i]) != 32 || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("caller %d got %x, caller 0 %x", i, keys[i], keys[0])
		}
	}
	again, err := repository.New(db, nil).SigningKey(ctx, "grant")
	if err != nil || !bytes.Equal(again, keys[0]) {
		t.Fatalf("second call: %x, %v", again, err)
	}
	other, err := repository.New(db, nil).SigningKey(ctx, "unsubscribe")
	if err != nil || bytes.Equal(other, keys[0]) {
		t.Fatalf("another purpose: %x, %v", other, err)
	}
}
