package htmlpage

import (
	"net/http"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/stats"
)

// PasswordFields checks a new sign-in password and its repetition (fields new_password and
// new_password_again) into errs.
func PasswordFields(r *http.Request, errs stats.FieldErrors) string {
	password := r.PostForm.Get("new_password")
	if msg := account.CheckPassword(password); msg != "" {
		errs.Add("new_password", msg)
	} else if r.PostForm.Get("new_password_again") != password {
		errs.Add("new_password_again", "does not match the new password")
	}
	return password
}
