package repository

// MigrationSQL is the text of an embedded migration, for tests that run one again on rows
// written after it (as rows of an older version would be).
func MigrationSQL(name string) string {
	body, err := migrationFiles.ReadFile("migrations/" + name)
	if err != nil {
		panic(err)
	}
	return string(body)
}
