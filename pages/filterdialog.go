package pages

// The Filter dialog's parameters: the dashboard's own address with them adds (or, with
// dialog_edit, replaces) a filter and redirects to the view with it; edit_filter opens the
// dialog on a chip's filter.
const (
	dialogName      = "dialog_name"
	dialogOp        = "dialog_op"
	dialogValue     = "dialog_value"
	dialogEdit      = "dialog_edit"
	editFilterParam = "edit_filter"
)
