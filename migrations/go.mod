module github.com/alternayte/queuebox/migrations

go 1.26
