module github.com/alternayte/queuebox/integration

go 1.26.0

require github.com/alternayte/queuebox/pkg v0.0.0-00010101000000-000000000000

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.13.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace (
	github.com/alternayte/queuebox/migrations => ../migrations
	github.com/alternayte/queuebox/pkg => ../pkg
	github.com/alternayte/queuebox/pkg/jsonata => ../pkg/jsonata
)
