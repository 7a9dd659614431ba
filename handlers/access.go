package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// open is the access check of every call that names a website by id: the key's user's role
// on it must allow need (website.Service.Open, the one check of the API and the pages). A
// refusal comes back as its error body: 404 when the user may not read the website (as for
// an unknown id), 403 when they may read it but not do this; a failure as an error.
func (s *Server) open(ctx context.Context, id int64, need repository.Role) (repository.Website, *gen.Error, error) {
	w, err := s.websites.Open(ctx, userID(ctx), id, need)
	return w, refusal(err), failure(err)
}

// refusal is the error body of an access check's refusal; nil for none.
func refusal(err error) *gen.Error {
	switch {
	case errors.Is(err, repository.ErrNotFound):
		body := notFound()
		return &body
	case errors.Is(err, website.ErrForbidden):
		body := forbidden()
		return &body
	}
	return nil
}

// failure is err unless it is a refusal.
func failure(err error) error {
	if refusal(err) != nil {
		return nil
	}
	return err
}

func forbidden() gen.Error {
	return gen.Error{Message: "Your role on this website does not allow this.", Status: http.StatusForbidden}
}
