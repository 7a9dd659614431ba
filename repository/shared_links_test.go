package repository_test

import (
	"context"
	"errors"
	"testing"

	"github.com/analytics-service/analytics/repository"
)

// A shared link names a segment of its own website: another website's, or one deleted after
// the caller checked it, is ErrNotFound and stores nothing; deleting a segment deletes its
// links.
func TestSharedLinkSegment(t *testing.T) {
	f := newFixture(t, "links.example", "other.example")
	ctx := context.Background()
	site, other := f.sites[0], f.sites[1]
	seg, err := f.repo.CreateSegment(ctx, site, nil, "Germany", []byte(`[["is", "visit:country", ["DE"]]]`))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := f.repo.CreateSegment(ctx, other, nil, "France", []byte(`[["is", "visit:country", ["FR"]]]`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.repo.CreateSharedLink(ctx, site, f.user, "Theirs", nil, &theirs.ID); !errors.Is(err, repository.ErrNotFound) {
		t.Errorf("a link with another website's segment: %v, want ErrNotFound", err)
	}
	gone := seg.ID + 1000
	if _, _, err := f.repo.CreateSharedLink(ctx, site, f.user, "Gone", nil, &gone); !errors.Is(err, repository.ErrNotFound) {
		t.Errorf("a link with a deleted segment: %v, want ErrNotFound", err)
	}
	if links, err := f.repo.SharedLinks(ctx, site); err != nil || len(links) != 0 {
		t.Fatalf("refused links were stored: %+v %v", links, err)
	}
	_, link, err := f.repo.CreateSharedLink(ctx, site, f.user, "Germany only", nil, &seg.ID)
	if err != nil || link.SegmentID == nil || *link.SegmentID != seg.ID {
		t.Fatalf("the link with its segment: %+v %v", link, err)
	}
	if err := f.repo.DeleteSegment(ctx, site, seg.ID); err != nil {
		t.Fatal(err)
	}
	if links, err := f.repo.SharedLinks(ctx, site); err != nil || len(links) != 0 {
		t.Errorf("the deleted segment's link remains: %+v %v", links, err)
	}
}
