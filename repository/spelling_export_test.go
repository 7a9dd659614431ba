package repository

import "github.com/analytics-service/analytics/repository/migrations"

// MigrationSQL is the text of an embedded migration, for tests that run one again on rows
// written after it (as rows of an older version would be).
func MigrationSQL(name string) string {
	body, err := migrations.Files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(body)
}
