module github.com/alternayte/queuebox/services

go 1.26

require github.com/alternayte/queuebox/pkg v0.0.0-00010101000000-000000000000

replace (
	github.com/alternayte/queuebox/pkg => ../pkg
	github.com/alternayte/queuebox/migrations => ../migrations
	github.com/alternayte/queuebox/pkg/jsonata => ../pkg/jsonata
)
