package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// multipartAsForm turns a multipart/form-data body of plain fields into the urlencoded form
// it stands for, so that the validator and the handlers read one kind of form. Plausible's
// Sites API takes either (Phoenix parses both), and clients written for it send multipart:
// go-plausible does for every body (docs/plausible-sites.md). A part that is a file is no
// field of these operations and is refused, as is a body that does not parse; the size is
// bounded by BodyLimit before this reads it.
func multipartAsForm(req *http.Request, boundary string) error {
	if boundary == "" {
		return &apiError{status: http.StatusBadRequest, message: "The multipart body has no boundary."}
	}
	values := url.Values{}
	r := multipart.NewReader(req.Body, boundary)
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return multipartRefusal(err)
		}
		if part.FileName() != "" {
			return &apiError{status: http.StatusBadRequest, message: fmt.Sprintf("The multipart field %q is a file; these operations take text fields only.", part.FormName())}
		}
		var value strings.Builder
		if _, err := io.Copy(&value, part); err != nil {
			return multipartRefusal(err)
		}
		values.Add(part.FormName(), value.String())
	}
	body := values.Encode()
	req.Body = io.NopCloser(bytes.NewReader([]byte(body)))
	req.ContentLength = int64(len(body))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	return nil
}

// multipartRefusal is the answer to a multipart body that could not be read: 413 past the
// body limit, else a 400.
func multipartRefusal(err error) error {
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
		return err
	}
	return &apiError{status: http.StatusBadRequest, message: "The multipart body could not be read: " + err.Error() + "."}
}
